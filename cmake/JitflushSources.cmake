# The library's source lists, in one file that both the build
# (lib/CMakeLists.txt, common/CMakeLists.txt) and ci/amalgamate.sh (through
# cmake/print-sources.cmake, so CMake itself evaluates them) read. Paths are
# relative to the top of the tree.
# The code the library shares with jitflush-info and the rig (common/):
# CTR_EL0's fields, CPU sets, JSON strings. Built once, as jitflush_common.
set(JITFLUSH_COMMON_SOURCES common/ctr.c common/cpuset.c common/json_string.c)
# Portable pieces: the MIDR table, the policy and the view the API exports.
set(JITFLUSH_PORTABLE_SOURCES
    lib/midr_table.c lib/policy.c lib/public_info.c lib/platform_info.c)
# The probe, the sysfs reader and the state machine, over the three seams
# (fs, os, regs): only AArch64 Linux builds them into the library.
set(JITFLUSH_PROBE_SOURCES lib/probe.c lib/sysfs.c lib/state.c)
set(JITFLUSH_SEAM_SOURCES lib/fs_posix.c lib/os_linux.c lib/regs_aarch64.c)
# Exactly one of these has a body on any target (lib/platform.h);
# api_from_hooks.c serves the three whose OS or compiler flushes by itself.
set(JITFLUSH_IMPL_SOURCES
    lib/platform_aarch64_linux.c lib/platform_x86.c lib/platform_apple_arm64.c
    lib/platform_windows.c lib/platform_generic.c lib/api_from_hooks.c)
# Cross-thread synchronisation, one file per OS, each wholly guarded.
set(JITFLUSH_SYNC_SOURCES
    lib/sync_linux.c lib/sync_windows.c lib/sync_unsupported.c lib/clear_cache_all_threads.c)
