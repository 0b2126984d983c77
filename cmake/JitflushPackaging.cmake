# Install rules and the files that let other projects find jitflush:
#
#   find_package(jitflush CONFIG)  lib/cmake/jitflush/jitflush-config.cmake,
#                                  -config-version.cmake, -targets.cmake
#   pkg-config jitflush            lib/pkgconfig/jitflush.pc
#
# Every consumer names the same targets, however it got jitflush:
#   jitflush::jitflush   the library (alias in the build tree, exported name)
#   jitflush::info       the jitflush-info CLI, when it is built (its own
#                        export file, jitflush-info-targets.cmake)
#
# Included by the top-level CMakeLists.txt after the library and cli.
# Inside another project (add_subdirectory, FetchContent) nothing is
# installed unless asked: the parent did not ask to ship our files (the
# xxHash cmake_unofficial rule).

include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

option(JITFLUSH_INSTALL "Install jitflush's library, header, CLI and package files"
       ${PROJECT_IS_TOP_LEVEL})

# The same name for the CLI in the build tree as in an installed package.
if(TARGET jitflush-info AND NOT TARGET jitflush::info)
  add_executable(jitflush::info ALIAS jitflush-info)
endif()

if(NOT JITFLUSH_INSTALL)
  return()
endif()

set(JITFLUSH_INSTALL_CMAKEDIR "${CMAKE_INSTALL_LIBDIR}/cmake/jitflush" CACHE STRING
    "Where jitflush-config.cmake goes (relative to the prefix, or absolute)")
set(JITFLUSH_INSTALL_PKGCONFIGDIR "${CMAKE_INSTALL_LIBDIR}/pkgconfig" CACHE STRING
    "Where jitflush.pc goes (relative to the prefix, or absolute)")

set_target_properties(jitflush PROPERTIES EXPORT_NAME jitflush)
install(TARGETS jitflush EXPORT jitflush-targets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(FILES ${PROJECT_SOURCE_DIR}/include/jitflush.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})

install(EXPORT jitflush-targets NAMESPACE jitflush:: FILE jitflush-targets.cmake
        DESTINATION ${JITFLUSH_INSTALL_CMAKEDIR})

# The CLI has an export file of its own, which jitflush-config.cmake
# includes when it is there: distributions ship the CLI in a package of its
# own (Debian's jitflush-info), and a targets file that named a program the
# system does not have would make every find_package(jitflush) fail.
if(TARGET jitflush-info)
  set_target_properties(jitflush-info PROPERTIES EXPORT_NAME info)
  install(TARGETS jitflush-info EXPORT jitflush-info-targets RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
  install(EXPORT jitflush-info-targets NAMESPACE jitflush:: FILE jitflush-info-targets.cmake
          DESTINATION ${JITFLUSH_INSTALL_CMAKEDIR})
endif()

# A static libjitflush carries $<LINK_ONLY:Threads::Threads> (the AArch64
# probe runs on a helper thread), so the package must find Threads before
# its targets file names it.
get_target_property(_jf_links jitflush LINK_LIBRARIES)
set(JITFLUSH_PACKAGE_NEEDS_THREADS OFF)
if(_jf_links MATCHES "Threads::Threads")
  set(JITFLUSH_PACKAGE_NEEDS_THREADS ON)
endif()

configure_package_config_file(
  ${CMAKE_CURRENT_LIST_DIR}/jitflush-config.cmake.in
  ${PROJECT_BINARY_DIR}/package/jitflush-config.cmake
  INSTALL_DESTINATION ${JITFLUSH_INSTALL_CMAKEDIR})

# Semantic versioning (CHANGELOG.md): before 1.0 a minor release may break
# the API, so 0.1.x satisfies a request for 0.1 but not for 0.2; from 1.0
# on, any later release with the same major version does.
if(PROJECT_VERSION_MAJOR EQUAL 0)
  set(_jf_compat SameMinorVersion)
else()
  set(_jf_compat SameMajorVersion)
endif()
write_basic_package_version_file(${PROJECT_BINARY_DIR}/package/jitflush-config-version.cmake
                                 VERSION ${PROJECT_VERSION} COMPATIBILITY ${_jf_compat})

install(FILES ${PROJECT_BINARY_DIR}/package/jitflush-config.cmake
              ${PROJECT_BINARY_DIR}/package/jitflush-config-version.cmake
        DESTINATION ${JITFLUSH_INSTALL_CMAKEDIR})

# pkg-config. GNUInstallDirs allows absolute CMAKE_INSTALL_LIBDIR and
# _INCLUDEDIR (Nix, some distributions, -DCMAKE_INSTALL_LIBDIR=/usr/lib/...);
# writing ${prefix}/<dir> blindly would then give "${prefix}//usr/lib".
# Relative dirs stay relative to ${prefix} so PKG_CONFIG_SYSROOT_DIR and
# --define-prefix keep working.
function(_jitflush_pc_dir out dir)
  if(IS_ABSOLUTE "${dir}")
    set(${out} "${dir}" PARENT_SCOPE)
  else()
    set(${out} "\${prefix}/${dir}" PARENT_SCOPE)
  endif()
endfunction()
_jitflush_pc_dir(JITFLUSH_PC_LIBDIR "${CMAKE_INSTALL_LIBDIR}")
_jitflush_pc_dir(JITFLUSH_PC_INCLUDEDIR "${CMAKE_INSTALL_INCLUDEDIR}")

# What a static link needs besides -ljitflush (pkg-config --static).
set(JITFLUSH_PC_LIBS_PRIVATE "")
if(JITFLUSH_PACKAGE_NEEDS_THREADS)
  set(JITFLUSH_PC_LIBS_PRIVATE "-pthread")
endif()

configure_file(${CMAKE_CURRENT_LIST_DIR}/jitflush.pc.in ${PROJECT_BINARY_DIR}/package/jitflush.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/package/jitflush.pc DESTINATION ${JITFLUSH_INSTALL_PKGCONFIGDIR})
