/*
 * Models V8 (src/codegen/arm64/cpu-arm64.cc, CpuFeatures::FlushICache), and
 * in spirit Valgrind's VG_(invalidate_icache) and the Rust clear-cache
 * crate: CTR_EL0 is read on every call, on whatever core the thread runs on
 * then. Correct for that core, but the thread can migrate from a 128-byte
 * big core to a 64-byte LITTLE core in the middle of the loops, and other
 * cores (where another thread may run the code) may have smaller lines.
 * V8 cleans with dc civac (clean+invalidate, which also sidesteps the
 * Cortex-A53 dc cvau errata) and has no IDC/DIC fast path.
 */
#include "flush_impls.h"

#include <stdint.h>

#include "arm64_cache_ops.h"

void sc_flush_per_call(void *begin, void *end)
{
  const uint64_t ctr = sc_read_ctr_el0();
  const uintptr_t dline = sc_ctr_dline(ctr), iline = sc_ctr_iline(ctr);
  sc_flush_by_lines((uintptr_t)begin, (uintptr_t)end, dline, iline, true);
}
