/*
 * Models the 2016 big.LITTLE fixes in Mono (mono_arch_flush_icache) and
 * Dolphin (FlushIcacheSection in its Arm64 emitter), also used by PPSSPP:
 * read CTR_EL0 on every call and flush with the smallest line seen so far
 * by any call. Safe once a call has run on every core type, but the first
 * flushes before a LITTLE core ever ran one still use the big stride, and a
 * migration inside the loop is not covered. The statics are plain (racy) in
 * the originals; relaxed atomics here behave the same without C11 UB.
 * No IDC/DIC fast path, as in Dolphin.
 */
#include "flush_impls.h"

#include <stdatomic.h>
#include <stdint.h>

#include "arm64_cache_ops.h"

static _Atomic unsigned smallest_iline = 0xffff;
static _Atomic unsigned smallest_dline = 0xffff;

static unsigned lower_to(_Atomic unsigned *seen, unsigned now)
{
  unsigned old = atomic_load_explicit(seen, memory_order_relaxed);
  if (now < old) {
    atomic_store_explicit(seen, now, memory_order_relaxed);
    return now;
  }
  return old;
}

void sc_flush_running_min(void *begin, void *end)
{
  const uint64_t ctr = sc_read_ctr_el0();
  const uintptr_t iline = lower_to(&smallest_iline, sc_ctr_iline(ctr));
  const uintptr_t dline = lower_to(&smallest_dline, sc_ctr_dline(ctr));
  sc_flush_by_lines((uintptr_t)begin, (uintptr_t)end, dline, iline, false);
}
