/*
 * Apple arm64 (macOS, iOS): the OS owns the cache geometry. Its
 * sys_icache_invalidate (libkern/OSCacheControl.h) does the D-side clean
 * and I-side invalidate for the whole range on every core; Apple's own JITs
 * (JavaScriptCore) call it. Built and linked here with zig cc, which carries
 * the macOS headers and libSystem stubs (tests/portability/zig_check.sh).
 */
#include "internal/platform.h"
#if JF_PLATFORM_APPLE_ARM64
#include <libkern/OSCacheControl.h>
#include <stdint.h>

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
  sys_icache_invalidate(begin, (size_t)(last - (uintptr_t)begin) + 1);
}

void jitflush_clear_cache_dual(const void *rw, const void *rx, size_t len)
{
  if (len == 0)
    return;
  /* Clean where the bytes were written, invalidate where they execute. */
  sys_dcache_flush((void *)rw, len);
  sys_icache_invalidate((void *)rx, len);
}

int jitflush_get_info(struct jitflush_info *out)
{
  if (!out)
    return JITFLUSH_ERR_ARG;
  jf_platform_info(out, "aarch64-apple", "sys_icache_invalidate (the OS flushes on every core)",
                   false);
  return JITFLUSH_OK;
}
#endif
