// Synthetic machines for the CLI's unit tests: raw facts in, the library's
// real policy (jf_policy_apply) out, so that the CLI is tested against the
// records the library would really produce, not against hand-filled ones.
#ifndef JITFLUSH_TESTS_CLI_MACHINE_BUILDER_H
#define JITFLUSH_TESTS_CLI_MACHINE_BUILDER_H

#include <cstdint>
#include <memory>
#include <vector>

extern "C" {
#include "jitflush.h"
#include "view.h"
}

namespace jfi_test
{

// What the probe would have recorded about one CPU.
struct CpuFacts {
  int cpu;
  bool online = true;
  bool observed = true; // CTR_EL0 (and MIDR_EL1) read there
  uint64_t ctr = 0;     // when observed
  uint64_t midr = 0;    // 0: unknown
  bool midr_from_sysfs = false;
  unsigned sysfs_i = 0, sysfs_d = 0;
};

inline std::unique_ptr<jitflush_info> Build(const std::vector<CpuFacts> &cpus,
                                            bool possible_known = true, int probe_status = 0)
{
  auto view = std::make_unique<jf_view>(); // value-initialised: all zero
  view->possible_known = possible_known;
  view->probe_ran = probe_status == 0;
  view->ncpus_possible = (unsigned)cpus.size();
  for (const CpuFacts &f : cpus) {
    jitflush_cpu_info &rec = view->cpus[view->ncpus++];
    rec = jitflush_cpu_info{};
    rec.cpu = f.cpu;
    rec.online = f.online;
    rec.observed = f.observed;
    rec.ctr_el0 = f.observed ? f.ctr : 0;
    if (f.midr) {
      rec.midr = f.midr;
      rec.midr_source = f.midr_from_sysfs ? JITFLUSH_SRC_SYSFS : JITFLUSH_SRC_CTR_EL0;
    }
    rec.sysfs_l1i_line = f.sysfs_i;
    rec.sysfs_l1d_line = f.sysfs_d;
  }
  jf_policy_apply(view.get());
  if (probe_status < 0)
    view->global.status = probe_status;
  auto info = std::make_unique<jitflush_info>();
  jf_public_info(view.get(), info.get());
  info->platform = "aarch64-linux";
  info->method = "dc cvau / dsb ish / ic ivau / dsb ish / isb with the all-cores minimum line";
  return info;
}

// Known cores (docs/BACKGROUND.md#known-cores).
constexpr uint64_t kA53Midr = 0x410fd034, kA53Ctr = 0x84448004;
constexpr uint64_t kM1Midr = 0x531f0011, kM1Ctr = 0x84448005; // IminLine 5: 128 bytes
constexpr uint64_t kA57Midr = 0x411fd070, kA57Ctr = 0x8444c004;
constexpr uint64_t kDenver2Midr = 0x4e0f0030, kDenver2Ctr = 0x9444c004; // IDC=1
constexpr uint64_t kMaxCtr = 0x80038003;                       // QEMU -cpu max: 32-byte lines
constexpr uint64_t kN2Midr = 0x410fd493, kN2Ctr = 0x4b444c004; // IDC=DIC=1, TminLine set

inline CpuFacts A53(int cpu)
{
  return CpuFacts{cpu, true, true, kA53Ctr, kA53Midr, false, 64, 64};
}
inline CpuFacts M1(int cpu)
{
  return CpuFacts{cpu, true, true, kM1Ctr, kM1Midr, false, 128, 64};
}

// The Galaxy S7 (Exynos 8890): CPUs 0-3 Cortex-A53, 4-7 Exynos M1.
inline std::vector<CpuFacts> Exynos8890()
{
  std::vector<CpuFacts> cpus;
  for (int i = 0; i < 4; i++)
    cpus.push_back(A53(i));
  for (int i = 4; i < 8; i++)
    cpus.push_back(M1(i));
  return cpus;
}

} // namespace jfi_test

#endif
