/*
 * Which platform a build is for, and what a platform file gives the rest
 * of the library. Each lib/platform_<name>.c wraps its whole body in one
 * of the JF_PLATFORM_* guards below, so the build lists every file and
 * exactly one of them has a body (the google/cpu_features layout).
 *
 * AArch64 Linux probes every core and defines the public API itself
 * (lib/platform_aarch64_linux.c). Every other platform has nothing to
 * probe: its file defines the hooks below and jitflush_sync_cores (on
 * Linux, lib/sync_linux.c does), and lib/api_from_hooks.c makes the
 * public API from the hooks.
 */
#ifndef JITFLUSH_INTERNAL_PLATFORM_H
#define JITFLUSH_INTERNAL_PLATFORM_H

#include <stdbool.h>
#include <stddef.h>

#if defined(__aarch64__) && defined(__linux__)
#define JF_PLATFORM_AARCH64_LINUX 1 /* includes Android */
#elif defined(__aarch64__) && defined(__APPLE__)
#define JF_PLATFORM_APPLE_ARM64 1
#elif defined(_WIN32)
#define JF_PLATFORM_WINDOWS 1
#elif defined(__x86_64__) || defined(__i386__)
#define JF_PLATFORM_X86 1
#else
#define JF_PLATFORM_GENERIC 1
#endif

/* The hooks of a platform that does not probe. */
/* Makes LEN (> 0) bytes of new code at BEGIN visible to every core. */
void jf_platform_flush(void *begin, size_t len);
/* The same for LEN (> 0) bytes written at RW and executed at RX. */
void jf_platform_flush_dual(const void *rw, const void *rx, size_t len);
/* The platform's name and how it flushes (jitflush_get_info). */
extern const char *const jf_platform_name;
extern const char *const jf_platform_method;
/* Instruction fetch sees stores with no maintenance (x86): reported as
 * IDC and DIC would be on ARM. */
extern const bool jf_platform_coherent;

#endif
