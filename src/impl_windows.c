/*
 * Windows (any architecture): FlushInstructionCache is the documented way
 * to publish new code ("Applications should call FlushInstructionCache if
 * they generate or modify code in memory", Win32 docs); on ARM64 Windows it
 * performs the maintenance on every core itself.
 */
#include "internal/platform.h"
#if JF_PLATFORM_WINDOWS
#include <stdint.h>
#include <windows.h>

#include "jitflush.h"
#include "internal/platform_info.h"
#include "internal/range.h"

int jitflush_init(void)
{
  return JITFLUSH_OK;
}

void jitflush_clear_cache(void *begin, void *end)
{
  uintptr_t last;
  if (!jf_range_last(begin, end, &last))
    return;
  FlushInstructionCache(GetCurrentProcess(), begin, (SIZE_T)(last - (uintptr_t)begin) + 1);
}

void jitflush_clear_cache_dual(const void *rw, const void *rx, size_t len)
{
  (void)rw; /* ARMv8 D-caches behave as PIPT: cleaning through RX reaches
               the lines written through RW (Arm ARM D7.11.2) */
  if (len != 0)
    FlushInstructionCache(GetCurrentProcess(), rx, (SIZE_T)len);
}

int jitflush_get_info(struct jitflush_info *out)
{
  if (!out)
    return JITFLUSH_ERR_ARG;
#if defined(_M_ARM64) || defined(__aarch64__)
  const char *platform = "aarch64-windows";
#elif defined(_M_X64) || defined(__x86_64__)
  const char *platform = "x86_64-windows";
#else
  const char *platform = "windows";
#endif
  jf_platform_info(out, platform, "FlushInstructionCache (the OS flushes on every core)", false);
  return JITFLUSH_OK;
}
#endif
