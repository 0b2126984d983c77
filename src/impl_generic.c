/*
 * Every other target (32-bit ARM, RISC-V, PowerPC, ...): the compiler's
 * own __builtin___clear_cache, which knows that target's sequence (for
 * example the cacheflush syscall on 32-bit ARM Linux, or fence.i on RISC-V).
 * jitflush adds nothing there but the same API.
 */
#include "internal/platform.h"
#if JF_PLATFORM_GENERIC
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
  __builtin___clear_cache((char *)begin, (char *)end);
}

void jitflush_clear_cache_dual(const void *rw, const void *rx, size_t len)
{
  if (len == 0)
    return;
  /* The builtin takes one range for both sides; give it both views. */
  __builtin___clear_cache((char *)rw, (char *)rw + len);
  __builtin___clear_cache((char *)rx, (char *)rx + len);
}

int jitflush_get_info(struct jitflush_info *out)
{
  if (!out)
    return JITFLUSH_ERR_ARG;
  jf_platform_info(out, "generic",
                   "__builtin___clear_cache (the compiler's sequence for this target)", false);
  return JITFLUSH_OK;
}
#endif
