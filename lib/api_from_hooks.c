/*
 * The public API on the platforms whose OS or compiler flushes on every
 * core by itself (lib/os_flush.h): there is nothing to probe, and
 * the flush is one call of the platform's hook per range.
 */
#include "platform.h"
#if JF_PLATFORM_APPLE_ARM64 || JF_PLATFORM_WINDOWS || JF_PLATFORM_GENERIC
#include <stdint.h>

#include "jitflush.h"
#include "os_flush.h"
#include "platform_info.h"
#include "range.h"

int jitflush_init(void)
{
  return JITFLUSH_OK;
}

void jitflush_clear_cache(void *begin, void *end)
{
  uintptr_t last;
  if (jf_range_last(begin, end, &last)) {
    jf_os_flush(begin, (size_t)(last - (uintptr_t)begin) + 1);
  }
}

void jitflush_clear_cache_dual(const void *rw, const void *rx, size_t len)
{
  if (len != 0) {
    jf_os_flush_dual(rw, rx, len);
  }
}

int jitflush_get_info(struct jitflush_info *out)
{
  if (!out) {
    return JITFLUSH_ERR_ARG;
  }
  jf_platform_info(out, jf_os_platform, jf_os_method, false);
  return JITFLUSH_OK;
}
#endif
