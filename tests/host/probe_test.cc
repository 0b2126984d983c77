// The probe over a fake machine: which CPUs it reaches and what it records.
#include <gtest/gtest.h>

#include <memory>

#include "fakes/fake_cpus.h"
#include "fakes/fake_fs.h"

extern "C" {
#include "view.h"
}

namespace
{
constexpr uint64_t kA53Ctr = 0x84448004, kA53Midr = 0x410fd034;
constexpr uint64_t kM1Ctr = 0x84448005, kM1Midr = 0x531f0011;

fakecpus::Machine Exynos()
{
  fakecpus::Machine m;
  for (int i = 0; i < 4; i++)
    m.cpus.push_back({kA53Ctr, kA53Midr});
  for (int i = 0; i < 4; i++)
    m.cpus.push_back({kM1Ctr, kM1Midr});
  return m;
}

std::unique_ptr<jf_view> Probe(int *rc = nullptr)
{
  std::unique_ptr<jf_view> v(new jf_view());
  int r = jf_probe(v.get());
  if (rc)
    *rc = r;
  jf_policy_apply(v.get());
  return v;
}

// Installs M, with the sysfs files Linux would show for it (none for an
// offline CPU), and probes it.
std::unique_ptr<jf_view> ProbeWithSysfs(const fakecpus::Machine &m)
{
  fakecpus::Install(m);
  fakecpus::CreateSysfs(m);
  return Probe();
}
} // namespace

TEST(Probe, ReadsEveryCoreOfAnExynos8890)
{
  fakecpus::Machine m = Exynos();
  auto v = ProbeWithSysfs(m);
  ASSERT_EQ(v->ncpus, 8u);
  for (unsigned i = 0; i < 8; i++) {
    EXPECT_TRUE(v->cpus[i].observed) << i;
    EXPECT_EQ(v->cpus[i].ctr_el0, i < 4 ? kA53Ctr : kM1Ctr) << i;
    EXPECT_EQ(v->cpus[i].midr_source, JITFLUSH_SRC_CTR_EL0) << i;
  }
  EXPECT_EQ(fakecpus::ctr_reads.load(), 8); // one read per core, no more
  EXPECT_EQ(v->global.iline, 64u);
  EXPECT_TRUE(v->global.complete);
  EXPECT_TRUE(v->global.heterogeneous);
}

TEST(Probe, SeccompDenyingPinningObservesOnlyTheCurrentCore)
{
  fakecpus::Machine m = Exynos();
  m.pinning_refused = true;
  m.start_cpu = 5; // a big core
  auto v = ProbeWithSysfs(m);
  EXPECT_TRUE(v->cpus[5].observed);
  EXPECT_FALSE(v->cpus[0].observed);
  EXPECT_FALSE(v->global.complete);
  // The LITTLE cores come from sysfs/MIDR: 64, not the observed 128.
  EXPECT_EQ(v->global.iline, 64u);
  EXPECT_TRUE(v->global.per_call_guard);
}

TEST(Probe, CpusetHidingTheLittleCoresStillFindsTheirLine)
{
  fakecpus::Machine m = Exynos();
  m.allowed = {false, false, false, false, true, true, true, true};
  m.start_cpu = 4;
  auto v = ProbeWithSysfs(m);
  EXPECT_FALSE(v->cpus[0].observed);
  EXPECT_TRUE(v->cpus[4].observed);
  EXPECT_EQ(v->global.iline, 64u);
  EXPECT_FALSE(v->global.complete);
  EXPECT_EQ(v->global.status, JITFLUSH_INCOMPLETE);
}

// The first flush comes from a thread the application pinned to one LITTLE
// core, in a process whose cpuset allows every core: the helper still
// reaches all eight (the kernel only refuses CPUs outside the cpuset), so
// the view is complete and no flush pays the per-call CTR_EL0 read.
TEST(Probe, CallerPinnedToOneCoreStillObservesTheWholeCpuset)
{
  fakecpus::Machine m = Exynos();
  m.caller_mask = {true, false, false, false, false, false, false, false};
  m.start_cpu = 0;
  auto v = ProbeWithSysfs(m);
  for (int cpu = 0; cpu < 8; cpu++)
    EXPECT_TRUE(v->cpus[cpu].observed) << "cpu " << cpu;
  EXPECT_TRUE(v->global.complete);
  EXPECT_FALSE(v->global.per_call_guard);
  EXPECT_EQ(v->global.iline, 64u);
  EXPECT_EQ(v->global.status, JITFLUSH_OK);
}

TEST(Probe, OfflineCpusWithoutSysfsFallToTheFloor)
{
  fakecpus::Machine m = Exynos();
  for (int i = 4; i < 8; i++)
    m.cpus[i].online = false;
  auto v = ProbeWithSysfs(m); // offline CPUs get no per-CPU files, as on Linux
  EXPECT_FALSE(v->cpus[6].online);
  EXPECT_FALSE(v->cpus[6].observed);
  EXPECT_EQ(v->cpus[6].iline_source, JITFLUSH_SRC_FLOOR);
  EXPECT_EQ(v->global.iline, static_cast<unsigned>(JITFLUSH_FLOOR_LINE));
  EXPECT_FALSE(v->global.complete);
}

TEST(Probe, NoSysfsAtAllUsesTheAffinityMask)
{
  fakecpus::Machine m = Exynos();
  fakecpus::Install(m);
  fakefs::Reset();
  auto v = Probe();
  EXPECT_EQ(v->ncpus, 8u);
  EXPECT_FALSE(v->possible_known);
  EXPECT_FALSE(v->global.complete); // the kernel did not say what exists
  EXPECT_EQ(v->global.iline, 64u);
  for (unsigned i = 0; i < 8; i++)
    EXPECT_TRUE(v->cpus[i].observed);
}

TEST(Probe, MidrUnreadableWithoutHwcapCpuid)
{
  fakecpus::Machine m = Exynos();
  m.cpuid_hwcap = false;
  fakecpus::Install(m);
  fakefs::Reset();
  fakefs::CreateFile("/sys/devices/system/cpu/possible", "0-7\n");
  auto v = Probe();
  EXPECT_TRUE(v->cpus[0].observed);
  EXPECT_EQ(v->cpus[0].midr_source, JITFLUSH_SRC_NONE);
  EXPECT_TRUE(v->global.complete); // CTR_EL0 is what matters
}

TEST(Probe, MoreCpusThanTheInfoStructHoldsIsTruncatedButCovered)
{
  fakecpus::Machine m;
  for (int i = 0; i < 300; i++)
    m.cpus.push_back({i == 299 ? 0x80038003ULL : kA53Ctr, kA53Midr});
  fakecpus::Install(m);
  fakefs::Reset();
  fakefs::CreateFile("/sys/devices/system/cpu/possible", "0-299\n");
  auto v = Probe();
  EXPECT_EQ(v->ncpus, 300u);
  EXPECT_EQ(v->global.iline, 32u); // CPU 299, beyond the struct's capacity, still counts
  std::unique_ptr<jitflush_info> info(new jitflush_info());
  jf_public_info(v.get(), info.get());
  EXPECT_TRUE(info->truncated);
  EXPECT_EQ(info->ncpus, static_cast<unsigned>(JITFLUSH_MAX_CPUS));
  EXPECT_EQ(info->ncpus_possible, 300u);
  EXPECT_EQ(info->iline, 32u);
}
