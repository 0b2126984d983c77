/*
 * x86 and x86_64: instruction fetch snoops stores (Intel SDM vol. 3,
 * 11.6 "Self-modifying code"), so nothing is needed but to stop the
 * compiler from moving the stores that wrote the code past the flush.
 * GCC's own __builtin___clear_cache is the same no-op on x86.
 */
#include "platform.h"
#if JF_PLATFORM_X86
#include "jitflush.h"

#if defined(__x86_64__)
const char *const jf_platform_name = "x86_64";
#else
const char *const jf_platform_name = "x86";
#endif
const char *const jf_platform_method =
    "none needed: x86 instruction fetch is coherent with stores (compiler barrier only)";
const bool jf_platform_coherent = true;

void jf_platform_flush(void *begin, size_t len)
{
  (void)begin;
  (void)len;
  __asm__ __volatile__("" ::: "memory");
}

void jf_platform_flush_dual(const void *rw, const void *rx, size_t len)
{
  (void)rw;
  (void)rx;
  (void)len;
  __asm__ __volatile__("" ::: "memory");
}

#if !defined(__linux__)
/* Linux has membarrier (lib/sync_linux.c), Windows is lib/platform_windows.c;
 * macOS and the BSDs offer no process-wide core synchronisation that
 * jitflush can rely on. */
int jitflush_sync_cores(void)
{
  return JITFLUSH_ERR_UNSUPPORTED;
}
#endif
#endif
