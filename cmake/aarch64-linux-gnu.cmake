# Cross toolchain for aarch64 Linux with Debian's gcc-aarch64-linux-gnu.
# Target binaries run under qemu-aarch64 through CMAKE_CROSSCOMPILING_EMULATOR
# (-L points QEMU at the cross sysroot's dynamic loader and libraries).
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
set(CMAKE_CROSSCOMPILING_EMULATOR qemu-aarch64 -L ${JITFLUSH_AARCH64_SYSROOT} CACHE STRING "")
