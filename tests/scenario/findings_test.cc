// A finding names its real cause on every SoC (docs/FINDINGS.md): flush,
// stride, line and stride_source right for any mix of I- and D-line sizes
// and any flush length, one root cause counted once, and the caller of a
// non-leaf flush routine taken from its frame record. flush_shapes (built
// in the aarch64 tree) latches libgcc's lines on the config's CPU with the
// largest I line and then writes, flushes and runs code on the one with
// the smallest lines; what it must show follows from the config alone.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <string>
#include <tuple>
#include <vector>

#include "rig_harness.h"
#include "soc_conf.h"

namespace scenario
{
namespace
{

constexpr uint64_t kSeed = 37;

std::vector<std::string> Shapes()
{
  return {"stubs", "short-aligned", "short-unaligned", "long-aligned", "long-unaligned", "nonleaf"};
}

// The usable CPU whose lines are the smallest (I line first, then D line).
int SmallCpu(const SocConf &conf)
{
  int best = -1;
  unsigned best_i = 0, best_d = 0;
  for (const SocCluster &c : conf.clusters) {
    const auto usable = conf.UsableCpus(c);
    if (usable.empty())
      continue;
    if (best < 0 || c.ILine() < best_i || (c.ILine() == best_i && c.DLine() < best_d)) {
      best = usable.front();
      best_i = c.ILine();
      best_d = c.DLine();
    }
  }
  return best;
}

// What the latch CPU's CTR_EL0 read returns: its own value, or with the
// kernel's trap the system-wide safe one (lowest lines).
void LatchedLines(const SocConf &conf, int latch, unsigned *iline, unsigned *dline)
{
  if (conf.ctr_trap == "sanitize") {
    *iline = *dline = ~0u;
    for (const SocCluster &c : conf.clusters) {
      *iline = std::min(*iline, c.ILine());
      *dline = std::min(*dline, c.DLine());
    }
    return;
  }
  *iline = conf.ClusterOf(latch)->ILine();
  *dline = conf.ClusterOf(latch)->DLine();
}

std::string Str(const nlohmann::json &v)
{
  return v.is_string() ? v.get<std::string>() : std::string();
}

class FindingsOnEverySoc : public ::testing::TestWithParam<std::tuple<std::string, std::string>>
{
};

TEST_P(FindingsOnEverySoc, FlushStrideLineAndSourceNameTheLatchedLine)
{
  const std::string name = std::get<0>(GetParam());
  const std::string shape = std::get<1>(GetParam());
  const SocConf conf = LoadSocConf(ConfigPath(name));
  const int latch = conf.BigCpu(), run_cpu = SmallCpu(conf);
  ASSERT_GE(latch, 0);
  ASSERT_GE(run_cpu, 0);
  unsigned li = 0, ld = 0;
  LatchedLines(conf, latch, &li, &ld);
  const SocCluster &rc = *conf.ClusterOf(run_cpu);
  const bool d_miss = !conf.EveryCoreHasIdc() && ld > rc.DLine();
  const bool i_miss = !rc.Dic() && li > rc.ILine();
  const bool expect_stale = shape != "short-aligned" && (d_miss || i_miss);
  const std::string routine = shape == "nonleaf" ? "nonleaf_flush" : "__aarch64_sync_cache_range";

  std::string tag = "findings-" + name + "-" + shape;
  std::replace(tag.begin(), tag.end(), '.', '_');
  const RigRun run =
      RunUnderRig(conf.path, kSeed, tag,
                  {GuestProgram("flush_shapes"), "--latch-cpu=" + std::to_string(latch),
                   "--run-cpu=" + std::to_string(run_cpu), "--shape=" + shape});
  ASSERT_FALSE(run.timed_out) << run.Describe();
  ASSERT_TRUE(run.report.is_object()) << run.Describe();
  EXPECT_NE(run.out.find("result ok"), std::string::npos) << run.Describe();
  if (!expect_stale) {
    ExpectClean(run);
    return;
  }
  EXPECT_EQ(run.exit_status, kStaleExitStatus) << run.Describe();
  const auto &findings = run.report["findings"];
  ASSERT_TRUE(findings.is_array() && !findings.empty()) << run.Describe();
  int causes = 0;
  for (const auto &f : findings) {
    const bool d = f["kind"] == "not-cleaned";
    // A word missed by an issued operation belongs to that flush.
    ASSERT_TRUE(d || f["kind"] == "not-invalidated-in-geometry") << f.dump(1);
    EXPECT_TRUE(d ? d_miss : i_miss) << f.dump(1);
    ASSERT_TRUE(f["flush"].is_object()) << f.dump(1);
    EXPECT_NE(Str(f["flush"]["symbol"]).find(routine), std::string::npos) << f.dump(1);
    // A loop of one operation still has the line it was latched from.
    EXPECT_EQ(f["stride"], d ? ld : li) << f.dump(1);
    // The smallest line among its stale fetches: the run core's.
    EXPECT_EQ(f["line"], d ? rc.DLine() : rc.ILine()) << f.dump(1);
    EXPECT_EQ(f["line_cache"], d ? "D" : "I") << f.dump(1);
    ASSERT_TRUE(f["stride_source"].is_object()) << f.dump(1);
    EXPECT_EQ(f["stride_source"]["cpu"], latch) << f.dump(1);
    // The message blames the latched line, never the range.
    const std::string msg = Str(f["message"]);
    EXPECT_NE(msg.find("steps " + std::to_string(d ? ld : li) + " bytes"), std::string::npos)
        << msg;
    EXPECT_EQ(msg.find("ends short"), std::string::npos) << msg;
    // The caller is the code that called the routine, not a call inside it.
    ASSERT_TRUE(f["flush"]["caller"].is_object()) << f.dump(1);
    const std::string caller = Str(f["flush"]["caller"]["symbol"]);
    EXPECT_EQ(caller.find(routine), std::string::npos) << f.dump(1);
    EXPECT_TRUE(caller.rfind("main+", 0) == 0 || caller.rfind("long_code+", 0) == 0 ||
                caller.rfind("stub", 0) == 0)
        << f.dump(1);
    causes += f["same_cause_as"].is_null();
    if (!f["same_cause_as"].is_null()) {
      // The other loop of the same latched CTR_EL0 read: counted once.
      const auto &first = findings.at(f["same_cause_as"].get<size_t>() - 1);
      EXPECT_NE(first["kind"], f["kind"]) << findings.dump(1);
      EXPECT_EQ(first["stride_source"], f["stride_source"]) << findings.dump(1);
    }
  }
  EXPECT_EQ(causes, 1) << findings.dump(1);
  EXPECT_NE(run.err.find("SUMMARY: jitflush-emu: 1 finding,"), std::string::npos) << run.err;
  EXPECT_EQ(run.err.find("none reached these words"), std::string::npos) << run.err;
}

std::string CaseName(const ::testing::TestParamInfo<std::tuple<std::string, std::string>> &info)
{
  std::string n = std::get<0>(info.param).substr(0, std::get<0>(info.param).size() - 5) + "_" +
                  std::get<1>(info.param);
  for (char &c : n)
    if (!isalnum(static_cast<unsigned char>(c)))
      c = '_';
  return n;
}

INSTANTIATE_TEST_SUITE_P(AllConfigs, FindingsOnEverySoc,
                         ::testing::Combine(::testing::ValuesIn(AllConfigNames()),
                                            ::testing::ValuesIn(Shapes())),
                         CaseName);

} // namespace
} // namespace scenario
