// The adversarial scheduler ([sched] policy=adversarial, the default) and
// the findings it produces: every routine that latches or re-reads
// CTR_EL0 is caught on each of seeds 1-10 wherever the CPUs a thread may
// use report different I lines (and the kernel does not hide it), with a
// geometry finding that names the routine, its caller, the latched stride
// and the fetching core's line; jitflush stays clean on every config and
// seed; a pinned thread is never moved.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "rig_harness.h"
#include "soc_conf.h"

namespace scenario
{
namespace
{

constexpr int kSeeds = 10;
// Small runs: each still makes hundreds of flushes; 10 seeds of each
// routine on each config must fit the suite's budget.
const std::vector<std::string> kSmallRun = {"--threads=2", "--iterations=60", "--seed=20160301"};

std::vector<std::string> Stress(const std::string &impl)
{
  std::vector<std::string> args = {GuestProgram("jit_stress"), "--impl=" + impl};
  args.insert(args.end(), kSmallRun.begin(), kSmallRun.end());
  return args;
}

// The I (or D) lines of the CPUs a process may use.
std::set<unsigned> UsableLines(const SocConf &conf, bool dline = false)
{
  std::set<unsigned> lines;
  for (const SocCluster &c : conf.clusters)
    if (!conf.UsableCpus(c).empty())
      lines.insert(dline ? c.DLine() : c.ILine());
  return lines;
}
std::set<unsigned> UsableILines(const SocConf &conf)
{
  return UsableLines(conf);
}

// Configs where a latched or re-read stride is wrong: the usable CPUs
// disagree on IminLine and the kernel does not sanitise CTR_EL0.
std::vector<std::string> MismatchedLineConfigs()
{
  std::vector<std::string> out;
  for (const std::string &name : AllConfigNames()) {
    const SocConf conf = LoadSocConf(ConfigPath(name));
    if (conf.ctr_trap != "sanitize" && UsableILines(conf).size() > 1)
      out.push_back(name);
  }
  return out;
}

// The symbol prefix of each routine's maintenance loop.
std::string RoutineSymbol(const std::string &impl)
{
  if (impl == "libgcc")
    return "__aarch64_sync_cache_range+";
  std::string name = "sc_flush_" + impl;
  std::replace(name.begin(), name.end(), '-', '_');
  return name + "+";
}

struct Case {
  std::string config;
  std::string impl;
  int seed;
};

std::string CaseName(const ::testing::TestParamInfo<Case> &info)
{
  std::string s = info.param.config.substr(0, info.param.config.size() - 5) + "_" +
                  info.param.impl + "_seed" + std::to_string(info.param.seed);
  for (char &c : s)
    if (!isalnum(static_cast<unsigned char>(c)))
      c = '_';
  return s;
}

std::vector<Case> LatchingCases()
{
  std::vector<Case> cases;
  for (const std::string &config : MismatchedLineConfigs())
    for (const char *impl : {"libgcc", "cached-first", "per-call", "running-min"})
      for (int seed = 1; seed <= kSeeds; seed++)
        cases.push_back({config, impl, seed});
  return cases;
}

class LatchedStride : public ::testing::TestWithParam<Case>
{
};

TEST_P(LatchedStride, CaughtOnEverySeedWithAGeometryFindingNamingTheRoutine)
{
  const Case &c = GetParam();
  const SocConf conf = LoadSocConf(ConfigPath(c.config));
  const std::set<unsigned> lines = UsableILines(conf);
  const unsigned largest = *lines.rbegin();
  const RigRun run = RunUnderRig(conf.path, c.seed, "adv-" + CaseName({c, 0}), Stress(c.impl));
  ASSERT_FALSE(run.timed_out) << run.Describe();
  ASSERT_TRUE(run.report.is_object()) << run.Describe();
  EXPECT_EQ(run.exit_status, kStaleExitStatus) << run.Describe();
  EXPECT_EQ(run.report.value("policy", ""), "adversarial") << run.Describe();
  EXPECT_NE(run.out.find("wrong=0"), std::string::npos) << run.Describe();
  ASSERT_TRUE(run.report.contains("findings") && run.report["findings"].is_array())
      << run.Describe();
  const auto &findings = run.report["findings"];
  // The summary counts root causes: a finding of the same latched CTR_EL0
  // read as an earlier one (same_cause_as) is not counted again.
  size_t causes = 0;
  for (const auto &f : findings)
    causes += !f.contains("same_cause_as") || f["same_cause_as"].is_null();
  EXPECT_EQ(run.last_err_line.find("findings=" + std::to_string(causes)) != std::string::npos, true)
      << run.Describe();
  // At most a handful: one per missing step and line size, not per word.
  EXPECT_LE(findings.size(), 6u) << run.Describe();

  // A geometry finding: the invalidate loop stepped by the largest I line
  // over a smaller one, or, where D lines differ too (a64fx-mixed), the
  // clean loop stepped by the largest D line and missed first.
  const unsigned largest_d = *UsableLines(conf, true).rbegin();
  bool named = false;
  for (const auto &f : findings) {
    const bool i_side = f["kind"] == "not-invalidated-in-geometry";
    const bool d_side = f["kind"] == "not-cleaned" && largest_d > *UsableLines(conf, true).begin();
    if ((!i_side && !d_side) || !f["flush"].is_object() || f["stride"].is_null())
      continue;
    const std::string symbol = f["flush"].value("symbol", "");
    if (symbol.rfind(RoutineSymbol(c.impl), 0) != 0)
      continue;
    const unsigned latched = i_side ? largest : largest_d;
    if (f["stride"] != latched || f["line"].get<unsigned>() >= latched)
      continue;
    named = true;
    if (i_side) {
      const SocCluster *fetch = conf.ClusterOf(f["fetch_cpu"].get<int>());
      ASSERT_NE(fetch, nullptr) << f.dump();
      EXPECT_EQ(fetch->ILine(), f["line"].get<unsigned>())
          << "line is the fetching core's: " << f.dump();
    }
    EXPECT_GT(f["count"].get<uint64_t>(), 0u);
    EXPECT_GT(f["words"].get<uint64_t>(), 0u);
    EXPECT_LE(f["words"].get<uint64_t>(), f["count"].get<uint64_t>());
    ASSERT_TRUE(f["flush"]["caller"].is_object()) << f.dump();
    EXPECT_FALSE(f["flush"]["caller"]["symbol"].is_null()) << f.dump();
    ASSERT_TRUE(f["writer"].is_object()) << f.dump();
    EXPECT_EQ(f["writer"].value("symbol", "").rfind("sc_emit_chain+", 0), 0u) << f.dump();
    EXPECT_NE(f.value("message", "").find("steps " + std::to_string(latched) + " bytes"),
              std::string::npos)
        << f.dump();
  }
  EXPECT_TRUE(named) << "no geometry finding names " << RoutineSymbol(c.impl)
                     << " with the latched stride\n"
                     << run.report["findings"].dump(1);

  // Where the latched value was read: on a CPU whose I line is the largest.
  ASSERT_TRUE(run.report.contains("ctr_read_sites")) << run.Describe();
  bool read_on_largest = false;
  for (const auto &s : run.report["ctr_read_sites"]) {
    const SocCluster *at = conf.ClusterOf(s["cpu"].get<int>());
    if (at && at->ILine() == largest)
      read_on_largest = true;
  }
  EXPECT_TRUE(read_on_largest) << run.report["ctr_read_sites"].dump(1);
}

INSTANTIATE_TEST_SUITE_P(SeedsOneToTen, LatchedStride, ::testing::ValuesIn(LatchingCases()),
                         CaseName);

std::vector<Case> JitflushCases()
{
  std::vector<Case> cases;
  for (const std::string &config : AllConfigNames())
    for (int seed = 1; seed <= kSeeds; seed++)
      cases.push_back({config, "jitflush", seed});
  return cases;
}

class JitflushUnderTheAdversary : public ::testing::TestWithParam<Case>
{
};

TEST_P(JitflushUnderTheAdversary, NoStaleFetchOnAnySeed)
{
  const Case &c = GetParam();
  const RigRun run =
      RunUnderRig(ConfigPath(c.config), c.seed, "adv-" + CaseName({c, 0}), Stress("jitflush"));
  ExpectClean(run);
  EXPECT_NE(run.last_err_line.find(" findings=0"), std::string::npos) << run.Describe();
}

INSTANTIATE_TEST_SUITE_P(EveryConfigSeedsOneToTen, JitflushUnderTheAdversary,
                         ::testing::ValuesIn(JitflushCases()), CaseName);

TEST(Adversary, APinnedThreadIsNeverMoved)
{
  // One allowed CPU: every thread is pinned to the big core, and a routine
  // that re-reads CTR_EL0 there is then right.
  const std::string config =
      WriteConfigVariant("exynos8890.conf", "process", "allowed", "4", "exynos8890-only-cpu4");
  const RigRun run = RunUnderRig(config, 1, "adv-pinned", Stress("per-call"));
  ASSERT_TRUE(run.report.is_object()) << run.Describe();
  EXPECT_EQ(run.exit_status, 0) << run.Describe();
  EXPECT_GT(run.Count("ctr_reads"), 0u) << run.Describe();
  EXPECT_EQ(run.Count("migrations"), 0u) << run.Describe();
  EXPECT_EQ(run.Count("stale_fetches"), 0u) << run.Describe();
}

TEST(Adversary, RandomPolicyLeavesALatchedStrideToChance)
{
  // The same routine and config under --policy random: the report says
  // which policy ran, and seeds disagree (the reason for the default).
  int caught = 0;
  for (int seed = 1; seed <= 4; seed++) {
    const RigRun run =
        RunUnderRig(ConfigPath("exynos8890.conf"), seed, "adv-random-" + std::to_string(seed),
                    Stress("cached-first"), 90, {"--policy", "random"});
    ASSERT_TRUE(run.report.is_object()) << run.Describe();
    EXPECT_EQ(run.report.value("policy", ""), "random") << run.Describe();
    caught += run.exit_status == kStaleExitStatus;
  }
  EXPECT_LT(caught, 4)
      << "random scheduling caught the latched stride on every seed: this test no longer "
         "shows what the adversarial policy adds";
}

} // namespace
} // namespace scenario
