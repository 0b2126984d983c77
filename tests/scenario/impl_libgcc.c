/*
 * The toolchain's own flush. On AArch64, GCC expands __builtin___clear_cache
 * to a call of libgcc's __aarch64_sync_cache_range (libgcc/config/aarch64/
 * sync-cache.c), which reads CTR_EL0 on its first call only and keeps it in
 * a static: when that first call ran on a 128-byte-I-line Exynos M1 core,
 * every later flush steps 128 bytes and the Cortex-A53 cores never see the
 * invalidate of each second 64-byte line (the Galaxy S7 SIGILLs at offsets
 * 0x40-0x7f of a 128-byte block). This file must call the real builtin, not
 * a copy, so the scenario tests what applications linked with GCC get.
 */
#include "flush_impls.h"

void sc_flush_libgcc(void *begin, void *end)
{
  __builtin___clear_cache((char *)begin, (char *)end);
}
