# Cross toolchain for aarch64 Linux with Debian's gcc-aarch64-linux-gnu.
# Target binaries run under qemu-aarch64 through CMAKE_CROSSCOMPILING_EMULATOR
# (-L points QEMU at the cross sysroot's dynamic loader and libraries), or,
# with -DJITFLUSH_RIG=ON (what aarch64-linux-gnu-rig.cmake sets), under the
# rig: jitflush-emu -- PROGRAM ARGS, its options from the JITFLUSH_EMU_*
# variables of the test's environment (docs/RIG.md#test-suites-on-the-rig).
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)
set(CMAKE_FIND_ROOT_PATH /usr/aarch64-linux-gnu)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
set(JITFLUSH_AARCH64_SYSROOT /usr/aarch64-linux-gnu CACHE PATH "Cross sysroot for qemu-aarch64 -L")
if(JITFLUSH_RIG)
  # The runner: JITFLUSH_EMU when given, else one built in this checkout
  # (examples/run-under-rig.sh builds build/rig), else jitflush-emu in PATH
  # (the GitHub action puts it there).
  find_program(JITFLUSH_EMU jitflush-emu
               HINTS ${CMAKE_CURRENT_LIST_DIR}/../build/rig/rig
                     ${CMAKE_CURRENT_LIST_DIR}/../build/host/rig
               DOC "The rig's runner, the emulator of every target program")
  if(NOT JITFLUSH_EMU AND NOT CMAKE_IN_TRY_COMPILE)
    message(FATAL_ERROR "JITFLUSH_RIG is ON but jitflush-emu was not found: build it "
                        "(examples/run-under-rig.sh does) or pass -DJITFLUSH_EMU=/path/to/jitflush-emu")
  endif()
  # A plain variable: it wins over the cache entry below for this build.
  # --summary=stale: a clean test's stderr stays its own.
  set(CMAKE_CROSSCOMPILING_EMULATOR ${JITFLUSH_EMU} --summary=stale --)
else()
  set(CMAKE_CROSSCOMPILING_EMULATOR qemu-aarch64 -L ${JITFLUSH_AARCH64_SYSROOT} CACHE STRING "")
endif()
