/*
 * Models Mono today (mono_arch_flush_icache in mono/mini/mini-arm64.c):
 * it gave up on CTR_EL0 and steps 4 bytes, the smallest line the register
 * can encode, with dc civac and ic ivau. Never skips a line on any core,
 * but issues line/4 times the operations (16x on 64-byte lines).
 */
#include "flush_impls.h"

#include <stdint.h>

#include "arm64_cache_ops.h"

enum { STRIDE = 4 };

void sc_flush_fixed_4(void *begin, void *end)
{
  const uintptr_t stop = (uintptr_t)end;
  for (uintptr_t a = (uintptr_t)begin & ~(uintptr_t)(STRIDE - 1); a < stop; a += STRIDE)
    sc_dc_civac(a);
  sc_dsb_ish();
  for (uintptr_t a = (uintptr_t)begin & ~(uintptr_t)(STRIDE - 1); a < stop; a += STRIDE)
    sc_ic_ivau(a);
  sc_dsb_ish();
  sc_isb();
}
