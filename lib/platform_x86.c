/*
 * x86 and x86_64: instruction fetch snoops stores (Intel SDM vol. 3,
 * 11.6 "Self-modifying code"), so nothing is needed but to stop the
 * compiler from moving the stores that wrote the code past the flush.
 * GCC's own __builtin___clear_cache is the same no-op on x86.
 */
#include "platform.h"
#if JF_PLATFORM_X86
#include "jitflush.h"
#include "platform_info.h"

int jitflush_init(void)
{
  return JITFLUSH_OK;
}

void jitflush_clear_cache(void *begin, void *end)
{
  (void)begin;
  (void)end;
  __asm__ __volatile__("" ::: "memory");
}

void jitflush_clear_cache_dual(const void *rw, const void *rx, size_t len)
{
  (void)rw;
  (void)rx;
  (void)len;
  __asm__ __volatile__("" ::: "memory");
}

int jitflush_get_info(struct jitflush_info *out)
{
  if (!out) {
    return JITFLUSH_ERR_ARG;
  }
#if defined(__x86_64__)
  const char *platform = "x86_64";
#else
  const char *platform = "x86";
#endif
  jf_platform_info(
      out, platform,
      "none needed: x86 instruction fetch is coherent with stores (compiler barrier only)", true);
  return JITFLUSH_OK;
}
#endif
