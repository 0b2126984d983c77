/*
 * Models compiler-rt's __clear_cache (compiler-rt/lib/builtins/clear_cache.c,
 * LLVM issue 70791, still open) and libgcc before it: CTR_EL0 is read on the
 * first call and cached in a static for the life of the process, so the
 * stride is that of whichever core happened to run the first flush. The
 * IDC/DIC fast paths are honoured as compiler-rt does.
 */
#include "flush_impls.h"

#include <stdatomic.h>
#include <stdint.h>

#include "arm64_cache_ops.h"

/* 0 = not read yet (CTR_EL0 bit 31 is RES1, so a real value is never 0).
 * Relaxed atomics keep the program free of data races in C11 terms while
 * behaving like the plain static of the original: two threads may both
 * read, and the last store wins. */
static _Atomic uint64_t cached_ctr;

void sc_flush_cached_first(void *begin, void *end)
{
  uint64_t ctr = atomic_load_explicit(&cached_ctr, memory_order_relaxed);
  if (ctr == 0) {
    ctr = sc_read_ctr_el0();
    atomic_store_explicit(&cached_ctr, ctr, memory_order_relaxed);
  }
  const uintptr_t stop = (uintptr_t)end;
  if (!sc_ctr_idc(ctr)) {
    const uintptr_t dline = sc_ctr_dline(ctr);
    for (uintptr_t a = (uintptr_t)begin & ~(dline - 1); a < stop; a += dline)
      sc_dc_cvau(a);
  }
  sc_dsb_ish();
  if (!sc_ctr_dic(ctr)) {
    const uintptr_t iline = sc_ctr_iline(ctr);
    for (uintptr_t a = (uintptr_t)begin & ~(iline - 1); a < stop; a += iline)
      sc_ic_ivau(a);
    sc_dsb_ish();
  }
  sc_isb();
}
