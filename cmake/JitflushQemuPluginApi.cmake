# The QEMU plugin API versions the rig's plugin supports, read from the one
# place that declares them (rig/plugin/plugin_qemu_api.h), and the check of a
# qemu-plugin.h against them: a header outside them is refused by name
# before anything compiles (docs/RIG.md, "Which QEMU"). Included by
# rig/CMakeLists.txt; in script mode,
#   cmake -DHEADER=FILE -P cmake/JitflushQemuPluginApi.cmake
# checks FILE the same way (tests/emu: emu.QemuPluginApi.*).
file(STRINGS ${CMAKE_CURRENT_LIST_DIR}/../rig/plugin/plugin_qemu_api.h _api_lines
     REGEX "^#define PLUGIN_QEMU_API_(MIN|MAX) ")
string(REGEX REPLACE ".*PLUGIN_QEMU_API_MIN ([0-9]+).*" "\\1" JITFLUSH_QEMU_API_MIN "${_api_lines}")
string(REGEX REPLACE ".*PLUGIN_QEMU_API_MAX ([0-9]+).*" "\\1" JITFLUSH_QEMU_API_MAX "${_api_lines}")

# HEADER's QEMU_PLUGIN_VERSION into OUT; a fatal error when it has none or
# one outside the supported range.
function(jitflush_qemu_plugin_api header out)
  file(STRINGS "${header}" _line REGEX "^#define QEMU_PLUGIN_VERSION [0-9]+")
  if(NOT _line)
    message(FATAL_ERROR "jitflush: ${header} defines no QEMU_PLUGIN_VERSION: not a QEMU plugin API header")
  endif()
  string(REGEX REPLACE ".*QEMU_PLUGIN_VERSION ([0-9]+).*" "\\1" _api "${_line}")
  if(_api LESS JITFLUSH_QEMU_API_MIN OR _api GREATER JITFLUSH_QEMU_API_MAX)
    message(FATAL_ERROR "jitflush: ${header} is QEMU plugin API version ${_api}; the rig's plugin "
            "supports versions ${JITFLUSH_QEMU_API_MIN} to ${JITFLUSH_QEMU_API_MAX} (QEMU 10.1 to "
            "11.1): build it against a supported QEMU (ci/install/qemu.sh; docs/RIG.md, \"Which QEMU\")")
  endif()
  set(${out} ${_api} PARENT_SCOPE)
endfunction()

if(CMAKE_SCRIPT_MODE_FILE AND DEFINED HEADER)
  jitflush_qemu_plugin_api("${HEADER}" _api)
  message(STATUS "${HEADER}: QEMU plugin API ${_api}, supported")
endif()
