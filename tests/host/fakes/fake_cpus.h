// A fake machine behind the os and regs seams (lib/os.h, regs.h):
// a list of CPUs with their CTR_EL0/MIDR_EL1, which of them the process may
// use and whether pinning is allowed at all. The register reads answer for
// the CPU the calling thread is pinned to, as the hardware would.
#pragma once
#include <atomic>
#include <cstdint>
#include <vector>

namespace fakecpus
{
struct Cpu {
  uint64_t ctr;
  uint64_t midr;
  bool online = true;
};
struct Machine {
  std::vector<Cpu> cpus;
  std::vector<bool> allowed;     // the cpuset; empty: every CPU
  std::vector<bool> caller_mask; // the calling thread's own affinity,
                                 // within allowed; empty: all of allowed
  bool pinning_refused = false;  // seccomp denying sched_setaffinity
  bool affinity_refused = false;
  bool cpuid_hwcap = true; // MIDR_EL1 readable at EL0
  int start_cpu = 0;       // where unpinned threads run
};
void Install(const Machine &machine);
// What Linux shows of MACHINE under /sys/devices/system/cpu, on a fake
// filesystem (fake_fs.h) reset first: every CPU possible, the online ones
// listed, and per-CPU files (L1 line sizes from its CTR_EL0, its MIDR) for
// the online CPUs only.
void CreateSysfs(const Machine &machine);
// Every CTR_EL0 read through the seam, and every probe (get_affinity call).
extern std::atomic<int> ctr_reads;
extern std::atomic<int> probes;
} // namespace fakecpus
