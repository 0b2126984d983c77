/*
 * One place that decides which platform implementation a build uses. Each
 * lib/platform_*.c file wraps its whole body in one of these, so the build can
 * list every file and exactly one of them defines the public functions
 * (the google/cpu_features layout).
 */
#ifndef JITFLUSH_INTERNAL_PLATFORM_H
#define JITFLUSH_INTERNAL_PLATFORM_H

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

#endif
