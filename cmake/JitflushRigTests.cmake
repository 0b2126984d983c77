# The test folders that run aarch64 guest programs under the emulated
# big.LITTLE rig (tests/scenario, tests/patching, tests/bench,
# tests/realjit) share these helpers; tests/CMakeLists.txt includes this
# file. Each folder builds its guest programs in the aarch64 tree and, in
# the host tree, a driver that runs them under jitflush-emu.
#
#   jitflush_guest_program(TARGET...)
#       aarch64 tree: C11 and warnings; a program is linked -static unless
#       jitflush is a shared library or JITFLUSH_SCENARIO_STATIC is off, so
#       the rig needs no sysroot and the guest runs the same whichever -L
#       the runner passes.
#   jitflush_functional_test(NAME TIMEOUT SECONDS [EXPECT REGEX] [LABELS L...]
#                            COMMAND PROGRAM ARGS...)
#       aarch64 tree: one run of a guest program on its own, under stock
#       QEMU (CMAKE_CROSSCOMPILING_EMULATOR) or natively; EXPECT is its
#       PASS_REGULAR_EXPRESSION.
#   jitflush_require_rig(WHAT)
#       host tree (a macro: it returns from the calling CMakeLists.txt):
#       stop here, silently in the cross build, and saying so when the rig's
#       runner (target jitflush-emu) or JITFLUSH_AARCH64_BUILD_DIR is missing.
#   jitflush_add_rig_test(TARGET LABEL LABEL TIMEOUT SECONDS SOURCES FILE...
#                         [GUEST_SUBDIR DIR] [LINK LIB...] [DEFINITIONS DEF...])
#       host tree: a GoogleTest driver built with tests/scenario's
#       rig_harness.cc, its tests registered as "LABEL.<suite>.<test>" with
#       the labels LABEL and rig. rig_harness finds the runner, the configs,
#       the guest programs (the aarch64 tree's tests/GUEST_SUBDIR) and its
#       scratch folder (LABEL-work in this build folder) through compile
#       definitions; DEFINITIONS adds more.

set(JITFLUSH_RIG_HARNESS_DIR ${CMAKE_CURRENT_LIST_DIR}/../tests/scenario)
get_filename_component(JITFLUSH_RIG_HARNESS_DIR ${JITFLUSH_RIG_HARNESS_DIR} ABSOLUTE)
set(_jf_rig_warnings $<$<COMPILE_LANG_AND_ID:C,GNU,Clang>:-Wall -Wextra>
                     $<$<COMPILE_LANG_AND_ID:CXX,GNU,Clang>:-Wall -Wextra>)

function(jitflush_guest_program)
  get_target_property(jitflush_type jitflush TYPE)
  foreach(t IN LISTS ARGN)
    set_target_properties(${t} PROPERTIES C_STANDARD 11 C_STANDARD_REQUIRED ON C_EXTENSIONS OFF
                          RUNTIME_OUTPUT_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
    target_compile_options(${t} PRIVATE ${_jf_rig_warnings})
    get_target_property(type ${t} TYPE)
    if(type STREQUAL "EXECUTABLE" AND JITFLUSH_SCENARIO_STATIC
       AND NOT jitflush_type STREQUAL "SHARED_LIBRARY")
      target_link_options(${t} PRIVATE -static)
    endif()
  endforeach()
endfunction()

function(jitflush_functional_test name)
  cmake_parse_arguments(PARSE_ARGV 1 F "" "TIMEOUT;EXPECT" "LABELS;COMMAND")
  add_test(NAME ${name} COMMAND ${F_COMMAND})
  set_tests_properties(${name} PROPERTIES TIMEOUT ${F_TIMEOUT})
  if(DEFINED F_EXPECT)
    set_tests_properties(${name} PROPERTIES PASS_REGULAR_EXPRESSION "${F_EXPECT}")
  endif()
  if(F_LABELS)
    set_tests_properties(${name} PROPERTIES LABELS "${F_LABELS}")
  endif()
endfunction()

macro(jitflush_require_rig what)
  if(CMAKE_CROSSCOMPILING)
    return()
  endif()
  if(NOT TARGET jitflush-emu OR NOT JITFLUSH_AARCH64_BUILD_DIR)
    message(STATUS "${what}: not built (needs the jitflush-emu target and JITFLUSH_AARCH64_BUILD_DIR)")
    return()
  endif()
endmacro()

function(jitflush_add_rig_test target)
  cmake_parse_arguments(PARSE_ARGV 1 R "" "LABEL;TIMEOUT;GUEST_SUBDIR" "SOURCES;LINK;DEFINITIONS")
  find_package(nlohmann_json 3.2 REQUIRED)
  set(guest_dir ${JITFLUSH_AARCH64_BUILD_DIR}/tests)
  if(R_GUEST_SUBDIR)
    string(APPEND guest_dir /${R_GUEST_SUBDIR})
  endif()
  add_executable(${target} ${R_SOURCES} ${JITFLUSH_RIG_HARNESS_DIR}/rig_harness.cc)
  target_include_directories(${target} PRIVATE ${JITFLUSH_RIG_HARNESS_DIR})
  target_link_libraries(${target} PRIVATE GTest::gtest_main nlohmann_json::nlohmann_json
                        jitflush_test_process ${R_LINK})
  set_target_properties(${target} PROPERTIES CXX_STANDARD 17 CXX_STANDARD_REQUIRED ON CXX_EXTENSIONS OFF)
  target_compile_options(${target} PRIVATE ${_jf_rig_warnings})
  target_compile_definitions(${target} PRIVATE
    JITFLUSH_SCENARIO_RUNNER="$<TARGET_FILE:jitflush-emu>"
    JITFLUSH_SCENARIO_CONFIG_DIR="${PROJECT_SOURCE_DIR}/qemu-configs"
    JITFLUSH_SCENARIO_GUEST_DIR="${guest_dir}"
    JITFLUSH_SCENARIO_WORK_DIR="${CMAKE_CURRENT_BINARY_DIR}/${R_LABEL}-work"
    ${R_DEFINITIONS})
  # The runner has the QEMU and plugin paths of this build baked in
  # (rig/CMakeLists.txt), so the tests need no environment. Building
  # the driver builds the runner and, through it, the plugin.
  add_dependencies(${target} jitflush-emu)
  gtest_discover_tests(${target}
    TEST_PREFIX "${R_LABEL}."
    NO_PRETTY_VALUES
    DISCOVERY_TIMEOUT 60
    PROPERTIES TIMEOUT ${R_TIMEOUT} LABELS "${R_LABEL};rig")
endfunction()
