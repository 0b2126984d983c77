// Google Benchmark of the host path (x86_64 here): what a JIT pays for
// calling jitflush where the hardware keeps instruction fetch coherent. The
// flush should cost about a function call whatever the size, and
// jitflush_get_info a copy of the view. ci/bench/run.sh runs it as a guard
// against an accidental slow path; it is not part of the test suite.
#include <benchmark/benchmark.h>

#include <vector>

#include "jitflush.h"

namespace
{

void BM_ClearCache(benchmark::State &state)
{
  std::vector<unsigned char> code(static_cast<size_t>(state.range(0)));
  jitflush_init();
  for (auto _ : state) {
    jitflush_clear_cache(code.data(), code.data() + code.size());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * state.range(0));
}
BENCHMARK(BM_ClearCache)->Arg(64)->Arg(1024)->Arg(16384)->Arg(1 << 20);

void BM_GetInfo(benchmark::State &state)
{
  static jitflush_info info; // large (a record per possible CPU): not on the stack
  jitflush_init();
  for (auto _ : state) {
    benchmark::DoNotOptimize(jitflush_get_info(&info));
    benchmark::ClobberMemory();
  }
}
BENCHMARK(BM_GetInfo);

} // namespace

BENCHMARK_MAIN();
