/*
 * Windows (any architecture). FlushInstructionCache is the documented way
 * to publish new code ("Applications should call FlushInstructionCache if
 * they generate or modify code in memory", Win32 docs); on ARM64 Windows it
 * performs the maintenance on every core itself. FlushProcessWriteBuffers
 * interrupts every processor running a thread of this process (an IPI),
 * the documented process-wide serialisation (.NET's runtime uses it for
 * the same purpose): jitflush_sync_cores.
 */
#include "platform.h"
#if JF_PLATFORM_WINDOWS
#include <windows.h>

#include "jitflush.h"

#if defined(_M_ARM64) || defined(__aarch64__)
const char *const jf_platform_name = "aarch64-windows";
#elif defined(_M_X64) || defined(__x86_64__)
const char *const jf_platform_name = "x86_64-windows";
#else
const char *const jf_platform_name = "windows";
#endif
const char *const jf_platform_method = "FlushInstructionCache (the OS flushes on every core)";
const bool jf_platform_coherent = false;

void jf_platform_flush(void *begin, size_t len)
{
  FlushInstructionCache(GetCurrentProcess(), begin, (SIZE_T)len);
}

void jf_platform_flush_dual(const void *rw, const void *rx, size_t len)
{
  (void)rw; /* ARMv8 D-caches behave as PIPT: cleaning through RX reaches
               the lines written through RW (Arm ARM D7.11.2) */
  FlushInstructionCache(GetCurrentProcess(), rx, (SIZE_T)len);
}

int jitflush_sync_cores(void)
{
  FlushProcessWriteBuffers();
  return JITFLUSH_OK;
}
#endif
