# The library's source lists, in one file that both the build
# (CMakeLists.txt) and ci/amalgamate.sh (through cmake/print-sources.cmake,
# so CMake itself evaluates them) read.
# Portable pieces: decoders, tables, the sysfs parser and the policy, and
# the JSON string writer that jitflush-info and the rig share
# (src/internal/json_string.h).
set(JITFLUSH_PORTABLE_SOURCES
    src/ctr.c src/midr_table.c src/cpuset.c src/policy.c
    src/view_export.c src/platform_info.c src/json_string.c)
# The probe, the sysfs reader and the state machine, over the three seams
# (fs, os, regs): only AArch64 Linux builds them into the library.
set(JITFLUSH_PROBE_SOURCES src/probe.c src/sysfs.c src/state.c)
set(JITFLUSH_SEAM_SOURCES src/fs_posix.c src/os_linux.c src/regs_aarch64.c)
# Exactly one of these has a body on any target (src/internal/platform.h);
# impl_os.c serves the three whose OS or compiler flushes by itself.
set(JITFLUSH_IMPL_SOURCES
    src/impl_aarch64_linux.c src/impl_x86.c src/impl_apple_arm64.c
    src/impl_windows.c src/impl_generic.c src/impl_os.c)
# Cross-thread synchronisation, one file per OS, each wholly guarded.
set(JITFLUSH_SYNC_SOURCES
    src/sync_linux.c src/sync_windows.c src/sync_unsupported.c src/all_threads.c)
