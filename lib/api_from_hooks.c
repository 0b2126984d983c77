/*
 * The public API on every platform but AArch64 Linux: there is nothing to
 * probe, and a flush is one call of the platform's hook
 * (jf_platform_flush, lib/platform.h) per range.
 */
#include "platform.h"
#if !JF_PLATFORM_AARCH64_LINUX
#include <stdint.h>
#include <string.h>

#include "jitflush.h"
#include "range.h"

int jitflush_init(void)
{
  return JITFLUSH_OK;
}

void jitflush_clear_cache(void *begin, void *end)
{
  uintptr_t last;
  if (jf_range_last(begin, end, &last)) {
    jf_platform_flush(begin, (size_t)(last - (uintptr_t)begin) + 1);
  }
}

void jitflush_clear_cache_dual(const void *rw, const void *rx, size_t len)
{
  if (len != 0) {
    jf_platform_flush_dual(rw, rx, len);
  }
}

int jitflush_get_info(struct jitflush_info *out)
{
  if (!out) {
    return JITFLUSH_ERR_ARG;
  }
  /* No CPU records and no lines: the flush does not depend on them. */
  memset(out, 0, offsetof(struct jitflush_info, cpus));
  out->platform = jf_platform_name;
  out->method = jf_platform_method;
  out->idc = out->dic = jf_platform_coherent;
  out->iline_source = out->dline_source = JITFLUSH_SRC_PLATFORM;
  out->complete = true;
  out->status = JITFLUSH_OK;
  return JITFLUSH_OK;
}
#endif
