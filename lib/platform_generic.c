/*
 * Every other target (32-bit ARM, RISC-V, PowerPC, ...): the compiler's
 * own __builtin___clear_cache, which knows that target's sequence (for
 * example the cacheflush syscall on 32-bit ARM Linux, or fence.i on RISC-V).
 * jitflush adds nothing there but the same API.
 */
#include "platform.h"
#if JF_PLATFORM_GENERIC
#include "jitflush.h"

const char *const jf_platform_name = "generic";
const char *const jf_platform_method =
    "__builtin___clear_cache (the compiler's sequence for this target)";
const bool jf_platform_coherent = false;

void jf_platform_flush(void *begin, size_t len)
{
  __builtin___clear_cache((char *)begin, (char *)begin + len);
}

void jf_platform_flush_dual(const void *rw, const void *rx, size_t len)
{
  /* The builtin takes one range for both sides; give it both views. */
  __builtin___clear_cache((char *)rw, (char *)rw + len);
  __builtin___clear_cache((char *)rx, (char *)rx + len);
}

#if !defined(__linux__)
/* Linux has membarrier (lib/sync_linux.c); the BSDs and bare metal offer
 * no process-wide core synchronisation that jitflush can rely on. */
int jitflush_sync_cores(void)
{
  return JITFLUSH_ERR_UNSUPPORTED;
}
#endif
#endif
