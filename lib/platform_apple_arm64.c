/*
 * Apple arm64 (macOS, iOS): the OS owns the cache geometry. Its
 * sys_icache_invalidate (libkern/OSCacheControl.h) does the D-side clean
 * and I-side invalidate for the whole range on every core; Apple's own JITs
 * (JavaScriptCore) call it. Built and linked here with zig cc, which carries
 * the macOS headers and libSystem stubs (tests/portability/zig_check.sh).
 */
#include "platform.h"
#if JF_PLATFORM_APPLE_ARM64
#include <libkern/OSCacheControl.h>

#include "jitflush.h"

const char *const jf_platform_name = "aarch64-apple";
const char *const jf_platform_method = "sys_icache_invalidate (the OS flushes on every core)";
const bool jf_platform_coherent = false;

void jf_platform_flush(void *begin, size_t len)
{
  sys_icache_invalidate(begin, len);
}

void jf_platform_flush_dual(const void *rw, const void *rx, size_t len)
{
  /* Clean where the bytes were written, invalidate where they execute. */
  sys_dcache_flush((void *)rw, len);
  sys_icache_invalidate((void *)rx, len);
}

/* Apple's systems offer no process-wide core synchronisation that jitflush
 * can rely on (no membarrier, no FlushProcessWriteBuffers). */
int jitflush_sync_cores(void)
{
  return JITFLUSH_ERR_UNSUPPORTED;
}
#endif
