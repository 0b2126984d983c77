# The library's source lists, in one file that both the build
# (lib/CMakeLists.txt, common/CMakeLists.txt) and ci/gen/amalgamation.sh (through
# cmake/print-sources.cmake, so CMake itself evaluates them) read. Paths are
# relative to the top of the tree.
# The code the library shares with jitflush-info and the rig (common/):
# CTR_EL0's fields, CPU sets, JSON strings. Built once, as jitflush_common.
set(JITFLUSH_COMMON_SOURCES common/ctr.c common/cpuset.c common/json_string.c)
# Portable pieces: the MIDR table, the policy, and the public struct
# jitflush_info made from their view.
set(JITFLUSH_PORTABLE_SOURCES lib/midr_table.c lib/policy.c lib/public_info.c)
# The probe, the sysfs reader and the state machine, over the three seams
# (fs, os, regs): only AArch64 Linux builds them into the library.
set(JITFLUSH_PROBE_SOURCES lib/probe.c lib/sysfs.c lib/state.c)
set(JITFLUSH_SEAM_SOURCES lib/fs_posix.c lib/os_linux.c lib/regs_aarch64.c)
# The public API, each file wholly guarded (lib/platform.h): exactly one
# lib/platform_<name>.c has a body on any target; api_from_hooks.c makes
# the API from the hooks of every platform but AArch64 Linux; sync_linux.c
# is jitflush_sync_cores on any Linux; clear_cache_all_threads.c is the
# same everywhere.
set(JITFLUSH_PLATFORM_SOURCES
    lib/platform_aarch64_linux.c lib/platform_x86.c lib/platform_apple_arm64.c
    lib/platform_windows.c lib/platform_generic.c lib/api_from_hooks.c
    lib/sync_linux.c lib/clear_cache_all_threads.c)
