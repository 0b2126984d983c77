// The policy over synthetic topologies: fixture in, exact expectation out.
#include <gtest/gtest.h>

#include <memory>

extern "C" {
#include "view.h"
}

namespace
{
constexpr uint64_t kA53Ctr = 0x84448004, kA53Midr = 0x410fd034;
constexpr uint64_t kM1Ctr = 0x84448005, kM1Midr = 0x531f0011;

struct ViewBuilder {
  std::unique_ptr<jf_view> v{new jf_view()};
  ViewBuilder()
  {
    v->possible_known = true;
    v->probe_ran = true;
  }
  jitflush_cpu_info &Add()
  {
    jitflush_cpu_info &r = v->cpus[v->ncpus];
    r.cpu = static_cast<int>(v->ncpus++);
    v->ncpus_possible = v->ncpus;
    return r;
  }
  ViewBuilder &Observed(uint64_t ctr, uint64_t midr)
  {
    jitflush_cpu_info &r = Add();
    r.online = r.observed = true;
    r.ctr_el0 = ctr;
    r.midr = midr;
    r.midr_source = JITFLUSH_SRC_CTR_EL0;
    return *this;
  }
  ViewBuilder &Unobserved(unsigned sysfs_i, unsigned sysfs_d, uint64_t midr, bool online)
  {
    jitflush_cpu_info &r = Add();
    r.online = online;
    r.sysfs_l1i_line = sysfs_i;
    r.sysfs_l1d_line = sysfs_d;
    if (midr) {
      r.midr = midr;
      r.midr_source = JITFLUSH_SRC_SYSFS;
    }
    return *this;
  }
  const jf_global &Apply()
  {
    jf_policy_apply(v.get());
    return v->global;
  }
};

ViewBuilder Exynos8890()
{
  ViewBuilder b;
  for (int i = 0; i < 4; i++)
    b.Observed(kA53Ctr, kA53Midr);
  for (int i = 0; i < 4; i++)
    b.Observed(kM1Ctr, kM1Midr);
  return b;
}
} // namespace

TEST(Policy, Exynos8890TakesTheLittleCoresLine)
{
  ViewBuilder b = Exynos8890();
  const jf_global &g = b.Apply();
  EXPECT_EQ(g.iline, 64u);
  EXPECT_EQ(g.dline, 64u);
  EXPECT_EQ(g.iline_source, JITFLUSH_SRC_CTR_EL0);
  EXPECT_TRUE(g.heterogeneous);
  EXPECT_TRUE(g.complete);
  EXPECT_FALSE(g.per_call_guard); // every core's own CTR_EL0 is known
  EXPECT_EQ(g.status, JITFLUSH_OK);
  EXPECT_EQ(b.v->cpus[5].iline, 128u);
  EXPECT_EQ(b.v->cpus[5].dline, 64u);
}

TEST(Policy, ThreeClustersTakeTheSmallestOfAll)
{
  ViewBuilder b;
  b.Observed(0x84448004, kA53Midr).Observed(0x84448005, kM1Midr).Observed(0x80038003, 0);
  const jf_global &g = b.Apply();
  EXPECT_EQ(g.iline, 32u);
  EXPECT_EQ(g.dline, 32u);
  EXPECT_TRUE(g.heterogeneous);
}

TEST(Policy, IdcAndDicOnlyWhenEveryCoreHasThem)
{
  ViewBuilder both;
  both.Observed(0xb444c004, 0).Observed(0xb444c004, 0);
  EXPECT_TRUE(both.Apply().idc);
  EXPECT_TRUE(both.v->global.dic);

  ViewBuilder tegra; // Denver2 (IDC) beside A57 (no IDC)
  tegra.Observed(0x9444c004, 0x4e0f0030).Observed(0x8444c004, 0x411fd070);
  const jf_global &g = tegra.Apply();
  EXPECT_FALSE(g.idc);
  EXPECT_FALSE(g.dic);
  EXPECT_TRUE(g.heterogeneous); // same lines, different IDC
}

TEST(Policy, SanitisingKernelLooksHomogeneous)
{
  // Linux >= 4.9 traps CTR_EL0 on the Exynos 8890 and returns the safe value.
  ViewBuilder b;
  for (int i = 0; i < 4; i++)
    b.Observed(kA53Ctr, kA53Midr);
  for (int i = 0; i < 4; i++)
    b.Observed(kA53Ctr, kM1Midr);
  const jf_global &g = b.Apply();
  EXPECT_EQ(g.iline, 64u);
  EXPECT_FALSE(g.heterogeneous);
  EXPECT_TRUE(g.complete);
}

TEST(Policy, NeoverseN1ErratumReports4KiBInstructionLines)
{
  ViewBuilder b;
  b.Observed(0x8444c00a, 0x414fd0c1).Observed(0x8444c00a, 0x414fd0c1);
  const jf_global &g = b.Apply();
  EXPECT_EQ(g.iline, 4096u);
  EXPECT_EQ(g.dline, 64u);
}

TEST(Policy, OfflineCpusAreCoveredBySysfsAndTheMidrTable)
{
  ViewBuilder b;
  for (int i = 0; i < 4; i++)
    b.Observed(kA53Ctr, kA53Midr);
  b.Unobserved(0, 0, kM1Midr, false); // table only: 128/64
  b.Unobserved(128, 64, 0, false);    // sysfs only
  const jf_global &g = b.Apply();
  EXPECT_EQ(g.iline, 64u);
  EXPECT_FALSE(g.complete);
  EXPECT_TRUE(g.per_call_guard);
  EXPECT_EQ(g.status, JITFLUSH_INCOMPLETE);
  EXPECT_EQ(b.v->cpus[4].iline, 128u);
  EXPECT_EQ(b.v->cpus[4].iline_source, JITFLUSH_SRC_MIDR_TABLE);
  EXPECT_EQ(b.v->cpus[5].iline_source, JITFLUSH_SRC_SYSFS);
  EXPECT_FALSE(b.v->cpus[4].idc);
}

TEST(Policy, HiddenSmallCoresLowerTheLineFromTheirMidr)
{
  // A cpuset confines us to the 128-byte big cores; the LITTLE cores'
  // MIDR in sysfs still tells us their 64-byte lines.
  ViewBuilder b;
  for (int i = 0; i < 4; i++)
    b.Unobserved(0, 0, kA53Midr, true);
  for (int i = 0; i < 4; i++)
    b.Observed(kM1Ctr, kM1Midr);
  const jf_global &g = b.Apply();
  EXPECT_EQ(g.iline, 64u);
  EXPECT_EQ(g.iline_source, JITFLUSH_SRC_MIDR_TABLE);
  EXPECT_FALSE(g.complete);
  EXPECT_TRUE(g.per_call_guard);
}

TEST(Policy, NothingKnownFallsToTheFloor)
{
  ViewBuilder b;
  b.Observed(kM1Ctr, kM1Midr).Unobserved(0, 0, 0, false);
  const jf_global &g = b.Apply();
  EXPECT_EQ(g.iline, static_cast<unsigned>(JITFLUSH_FLOOR_LINE));
  EXPECT_EQ(g.dline, static_cast<unsigned>(JITFLUSH_FLOOR_LINE));
  EXPECT_EQ(g.iline_source, JITFLUSH_SRC_FLOOR);
  EXPECT_FALSE(g.per_call_guard); // nothing is smaller than the floor
  EXPECT_FALSE(g.complete);
}

TEST(Policy, SysfsDoesNotOverrideAnObservedCtr)
{
  // Under qemu-aarch64 -cpu a64fx the host's sysfs says 64 but the core's
  // CTR_EL0 says 256; the Arm ARM makes CTR_EL0 the authority.
  ViewBuilder b;
  b.Observed(0x86668006, 0x461f0010);
  b.v->cpus[0].sysfs_l1i_line = b.v->cpus[0].sysfs_l1d_line = 64;
  const jf_global &g = b.Apply();
  EXPECT_EQ(g.iline, 256u);
  EXPECT_EQ(g.dline, 256u);
}

TEST(Policy, CortexA53R0p2SelectsDcCivac)
{
  ViewBuilder b;
  b.Observed(kA53Ctr, 0x410fd032).Observed(0x8444c004, 0x410fd083);
  EXPECT_TRUE(b.Apply().use_dc_civac);
  ViewBuilder later;
  later.Observed(kA53Ctr, 0x410fd034);
  EXPECT_FALSE(later.Apply().use_dc_civac);
}

TEST(Policy, UnknownPossibleSetIsNeverComplete)
{
  ViewBuilder b = Exynos8890();
  b.v->possible_known = false;
  EXPECT_FALSE(b.Apply().complete);
}

TEST(Policy, NoCpusAtAllIsTheFloor)
{
  ViewBuilder b;
  const jf_global &g = b.Apply();
  EXPECT_EQ(g.iline, static_cast<unsigned>(JITFLUSH_FLOOR_LINE));
  EXPECT_FALSE(g.idc);
  EXPECT_FALSE(g.complete);
}

// ---- Offline CPUs inferred from the kernel's groupings ---------------------
namespace
{
jf_cpuset Set(std::initializer_list<unsigned> cpus)
{
  jf_cpuset s;
  jf_cpuset_clear(&s);
  for (unsigned c : cpus)
    jf_cpuset_add(&s, c);
  return s;
}

// The Galaxy S7 dump: 0-3 A53, 4-5 M1 observed, 6-7 offline; CPU 4's
// related_cpus "4 5 6 7" and core_siblings_list "4-7".
ViewBuilder GalaxyS7(bool with_domains)
{
  ViewBuilder b;
  for (int i = 0; i < 4; i++)
    b.Observed(kA53Ctr, kA53Midr);
  for (int i = 0; i < 2; i++)
    b.Observed(kM1Ctr, kM1Midr);
  b.Unobserved(0, 0, 0, false).Unobserved(0, 0, 0, false);
  if (with_domains) {
    jf_cpuset little = Set({0, 1, 2, 3}), big = Set({4, 5, 6, 7});
    for (unsigned i = 0; i < 4; i++)
      jf_view_set_domain(b.v.get(), i, &little);
    for (unsigned i = 4; i < 6; i++)
      jf_view_set_domain(b.v.get(), i, &big);
  }
  return b;
}
} // namespace

TEST(PolicyInference, GalaxyS7OfflineBigCoresTakeTheirClusterMatesLines)
{
  ViewBuilder b = GalaxyS7(true);
  const jf_global &g = b.Apply();
  EXPECT_EQ(g.iline, 64u);
  EXPECT_EQ(g.dline, 64u);
  EXPECT_EQ(g.iline_source, JITFLUSH_SRC_CTR_EL0); // the A53s set it
  EXPECT_FALSE(g.complete);
  EXPECT_EQ(g.status, JITFLUSH_INCOMPLETE);
  EXPECT_TRUE(g.online_check);
  EXPECT_FALSE(g.per_call_guard); // no estimate: the online check covers 6-7
  for (unsigned cpu : {6u, 7u}) {
    EXPECT_EQ(b.v->cpus[cpu].iline, 128u) << cpu;
    EXPECT_EQ(b.v->cpus[cpu].dline, 64u) << cpu;
    EXPECT_EQ(b.v->cpus[cpu].iline_source, JITFLUSH_SRC_CLUSTER) << cpu;
    EXPECT_EQ(b.v->cpus[cpu].inferred_from, 4) << cpu;
    EXPECT_FALSE(b.v->cpus[cpu].idc || b.v->cpus[cpu].dic) << cpu; // never inferred
  }
  EXPECT_EQ(b.v->cpus[0].inferred_from, -1);
}

TEST(PolicyInference, WithoutGroupingFactsTheFloorStays)
{
  ViewBuilder b = GalaxyS7(false);
  const jf_global &g = b.Apply();
  EXPECT_EQ(g.iline, static_cast<unsigned>(JITFLUSH_FLOOR_LINE));
  EXPECT_EQ(b.v->cpus[6].iline_source, JITFLUSH_SRC_FLOOR);
  EXPECT_FALSE(g.online_check); // nothing inferred, nothing to check
}

TEST(PolicyInference, AGroupSpanningTwoCoreTypesInfersNothing)
{
  // A kernel whose package list holds every CPU (no cluster in sysfs).
  ViewBuilder b = GalaxyS7(false);
  jf_cpuset all = Set({0, 1, 2, 3, 4, 5, 6, 7});
  for (unsigned i = 0; i < 6; i++)
    jf_view_set_domain(b.v.get(), i, &all);
  const jf_global &g = b.Apply();
  EXPECT_EQ(b.v->cpus[6].iline_source, JITFLUSH_SRC_FLOOR);
  EXPECT_EQ(g.iline, static_cast<unsigned>(JITFLUSH_FLOOR_LINE));
}

TEST(PolicyInference, SameCtrButDifferentMidrInfersNothing)
{
  ViewBuilder b;
  b.Observed(kA53Ctr, kA53Midr).Observed(kA53Ctr, 0x412fd050 /* A55 */).Unobserved(0, 0, 0, false);
  jf_cpuset g3 = Set({0, 1, 2});
  jf_view_set_domain(b.v.get(), 0, &g3);
  jf_view_set_domain(b.v.get(), 1, &g3);
  b.Apply();
  EXPECT_EQ(b.v->cpus[2].iline_source, JITFLUSH_SRC_FLOOR);
}

TEST(PolicyInference, OnlineUnobservedCpusAreNeverInferred)
{
  // Online but out of reach (a cpuset): no boot-time I-cache invalidation
  // protects it, so only its own sysfs facts or the floor count.
  ViewBuilder b;
  b.Observed(kM1Ctr, kM1Midr).Unobserved(0, 0, 0, true);
  jf_cpuset g2 = Set({0, 1});
  jf_view_set_domain(b.v.get(), 0, &g2);
  const jf_global &g = b.Apply();
  EXPECT_EQ(b.v->cpus[1].iline_source, JITFLUSH_SRC_FLOOR);
  EXPECT_FALSE(g.online_check);
}

TEST(PolicyInference, TooManyGroupingsInfersNothing)
{
  ViewBuilder b = GalaxyS7(true);
  for (unsigned i = 0; i < JF_MAX_DOMAINS + 1; i++) {
    jf_cpuset s = Set({i + 100});
    jf_view_set_domain(b.v.get(), 0, &s);
  }
  EXPECT_TRUE(b.v->domains_overflow);
  b.Apply();
  EXPECT_EQ(b.v->cpus[6].iline_source, JITFLUSH_SRC_FLOOR);
}
