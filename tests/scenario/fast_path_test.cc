// The checker's fast path against its reference. By default the plugin
// calls the coherence model only for fetches that may be stale (an inline
// comparison of the thread's last synchronisation with the word's
// fresh_after bound, per word or per plain TB: rig/plugin/plugin_instrument.c);
// --check full calls it for every fetch of a checked word, as the rig did
// before. Both must reach the same verdicts. Each test runs one guest with
// planted bugs both ways, with the same seed, and asserts that the exit
// status, the counters and the whole "stale" and "findings" members of the
// reports (kinds, sites, writers, strides, counts, example words) are
// identical. The guests run their JIT code on one thread (jitflush's probe
// helper only reads CTR_EL0), so the two runs execute the same
// instructions in the same order and migrate at the same points: the
// counts ci/bench/run.sh publishes from flush_bench are reproducible too.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <ostream>
#include <string>
#include <vector>

#include "rig_harness.h"

namespace scenario
{
namespace
{

constexpr uint64_t kSeed = 20160301;

struct Guest {
  std::string name; // test name
  std::string config;
  std::vector<std::string> args; // program and arguments
  bool stale;                    // whether the bug is planted
};

void PrintTo(const Guest &g, std::ostream *os)
{
  *os << g.name << " on " << g.config;
}

// PREFIX and WHAT with each '-' made '_': a GoogleTest parameter name.
std::string ParamName(const char *prefix, const char *what)
{
  std::string name = std::string(prefix) + what;
  for (char &ch : name)
    if (ch == '-')
      ch = '_';
  return name;
}

std::vector<Guest> Guests()
{
  std::vector<Guest> out;
  for (const char *c :
       {"correct", "no-dsb", "no-isb", "wrong-geometry", "store-after-flush", "no-clean",
        "grouped-store-after-flush", "span-store-after-flush", "other-exec-view"}) {
    out.push_back({ParamName("selftest_", c),
                   "exynos8890.conf",
                   {GuestProgram("checker_selftest"), c},
                   std::string(c) != "correct"});
  }
  // wrong-core-clean needs clusters whose D lines differ.
  out.push_back({"selftest_wrong_core_clean",
                 "tri-cluster.conf",
                 {GuestProgram("checker_selftest"), "wrong-core-clean"},
                 true});
  // Real flush routines with the field bugs (tests/bench/flush_bench: one
  // thread, flush then run, the first flush on a big core, so the
  // adversarial scheduler makes the latched stride bite on little cores).
  for (const char *impl : {"libgcc", "cached-first", "per-call", "fixed-64-no-dc", "jitflush"}) {
    out.push_back({ParamName("flush_bench_", impl),
                   "exynos8890.conf",
                   {GuestProgram("../bench/flush_bench"), std::string("--impl=") + impl,
                    "--sizes=64,1024,16384", "--calls=4", "--seed=1", "--first-call-cpu=4"},
                   std::string(impl) != "jitflush"});
  }
  // A JIT that never flushes: every fetch of its loop is stale, so all but
  // the first fetch of each word between two model events are recorded from
  // the word's memo (plugin_instrument.c), which check=full never uses. Three
  // calls rewrite the loop (new stores, new translations, new memos); a body
  // of 40 makes a plain TB of 42 words judged at its entry.
  for (const char *body : {"1", "40"}) {
    out.push_back({std::string("jit_loop_no_flush_body") + body,
                   "exynos8890.conf",
                   {GuestProgram("../bench/jit_loop"), "--iterations=20000", "--calls=3",
                    std::string("--body=") + body, "--no-flush"},
                   true});
  }
  return out;
}

// Guest mmap addresses differ between two runs (the host's ASLR places
// QEMU's guest mappings), code addresses of the static guests do not. So
// every address at or above 2^40 (a mapping; static code sits near 4 MiB)
// is rewritten as its offset from the lowest such address in the report.
bool IsMappedAddress(const nlohmann::json &v, uint64_t *out)
{
  if (!v.is_string())
    return false;
  const std::string s = v.get<std::string>();
  if (s.size() < 3 || s.compare(0, 2, "0x") != 0)
    return false;
  const uint64_t a = std::stoull(s, nullptr, 16);
  if (a < (uint64_t{1} << 40))
    return false;
  *out = a;
  return true;
}

void LowestMapped(const nlohmann::json &v, uint64_t *lowest)
{
  uint64_t a;
  if (IsMappedAddress(v, &a)) {
    *lowest = std::min(*lowest, a);
  } else if (v.is_structured()) {
    for (const auto &item : v)
      LowestMapped(item, lowest);
  }
}

void Rebase(nlohmann::json &v, uint64_t base)
{
  uint64_t a;
  if (IsMappedAddress(v, &a)) {
    v = "map+0x" + [](uint64_t x) {
      char b[32];
      snprintf(b, sizeof b, "%llx", (unsigned long long)x);
      return std::string(b);
    }(a - base);
  } else if (v.is_structured()) {
    for (auto &item : v)
      Rebase(item, base);
  }
}

// The members compared, with mapped addresses rebased.
nlohmann::json Comparable(const nlohmann::json &report)
{
  nlohmann::json out = {{"stale", report["stale"]}, {"findings", report["findings"]}};
  uint64_t lowest = UINT64_MAX;
  LowestMapped(out, &lowest);
  Rebase(out, lowest);
  return out;
}

class FastPathAgreesWithFullCheck : public ::testing::TestWithParam<Guest>
{
};

TEST_P(FastPathAgreesWithFullCheck, SameVerdictsAndFindings)
{
  const Guest &g = GetParam();
  // Random migrations are drawn at TB starts, and how QEMU splits code
  // into TBs depends on how much instrumentation each instruction carries
  // (a TB whose host code would be too large is translated shorter), so
  // they would fall at different instructions in the two runs. The
  // adversarial moves (at mrs ctr_el0 and at maintenance) are exact, and
  // they are the ones that expose the planted bugs.
  const std::string config =
      WriteConfigVariant(g.config, "sched", "migrate-every", "0", "fp-" + g.name + ".conf");
  const RigRun fast = RunUnderRig(config, kSeed, "fp-on-" + g.name, g.args, 120, {"--check", "on"});
  const RigRun full =
      RunUnderRig(config, kSeed, "fp-full-" + g.name, g.args, 120, {"--check", "full"});
  ASSERT_FALSE(fast.report.is_null()) << fast.Describe();
  ASSERT_FALSE(full.report.is_null()) << full.Describe();

  // The planted bug is seen at all, so the comparison below has content.
  if (g.stale) {
    EXPECT_EQ(full.exit_status, kStaleExitStatus) << full.Describe();
    EXPECT_GT(full.Count("stale_fetches"), 0u) << full.Describe();
    EXPECT_FALSE(full.report["findings"].empty()) << full.Describe();
  } else {
    EXPECT_EQ(full.exit_status, 0) << full.Describe();
  }

  EXPECT_EQ(fast.exit_status, full.exit_status) << fast.Describe() << "\n" << full.Describe();
  for (const char *key :
       {"stale_fetches", "fetch_checks", "migrations", "ctr_reads", "dc_ops", "ic_ops", "isb"}) {
    EXPECT_EQ(fast.Count(key), full.Count(key)) << key;
  }
  const nlohmann::json a = Comparable(fast.report), b = Comparable(full.report);
  EXPECT_EQ(a["stale"], b["stale"])
      << "fast: " << a["stale"].dump(1) << "\nfull: " << b["stale"].dump(1);
  EXPECT_EQ(a["findings"], b["findings"])
      << "fast: " << a["findings"].dump(1) << "\nfull: " << b["findings"].dump(1);
  EXPECT_EQ(fast.report["check"], true);
  EXPECT_EQ(full.report["check"], true);
}

INSTANTIATE_TEST_SUITE_P(PlantedBugs, FastPathAgreesWithFullCheck, ::testing::ValuesIn(Guests()),
                         [](const auto &info) { return info.param.name; });

// A never-flushed loop's block is armed once its entry was judged from
// memos (plugin_instrument.c, "Armed repeats"): its entries then run with
// no callback and an inline count stands for them. With random migrations
// on, most migrations land at that block's start, where the entry is
// judged before the move and must not be counted again by the count.
// Every fetch of the loop is stale, so the stale count is the number of
// checked fetches, which the migration clock counts inline apart from any
// callback; and the report's records agree with the counter.
TEST(ArmedRepeats, EveryStaleFetchIsCountedOnceAcrossMigrations)
{
  for (const char *body : {"1", "40"}) {
    const RigRun run =
        RunUnderRig(ConfigPath("exynos8890.conf"), kSeed, std::string("armed-body") + body,
                    {GuestProgram("../bench/jit_loop"), "--iterations=20000", "--calls=3",
                     std::string("--body=") + body, "--no-flush"},
                    120);
    ASSERT_FALSE(run.report.is_null()) << run.Describe();
    EXPECT_EQ(run.exit_status, kStaleExitStatus) << run.Describe();
    EXPECT_GT(run.Count("migrations"), 100u) << run.Describe();
    EXPECT_GT(run.Count("fetch_checks"), 60000u) << run.Describe();
    EXPECT_EQ(run.Count("stale_fetches"), run.Count("fetch_checks")) << run.Describe();
  }
}

// A measured region reads the counters at its markers, so the entries an
// armed block ran with no callback must be counted first. Each call of the
// loop is a region; the loop ends where a page ends and its ret, flushed,
// starts the next, so from the second call on nothing runs a check, or
// takes the rig's lock to translate, between the loop's last entry and the
// end marker. Every fetch of the loop is stale: a region's stale count is
// its iterations times the loop's words, exactly.
TEST(ArmedRepeats, AMeasuredRegionCountsTheEntriesThatRanWithNoCallback)
{
  constexpr uint64_t kIterations = 20000;
  for (uint64_t body : {1, 40}) {
    const RigRun run = RunUnderRig(
        ConfigPath("exynos8890.conf"), kSeed, "armed-region-body" + std::to_string(body),
        {GuestProgram("../bench/jit_loop"), "--iterations=" + std::to_string(kIterations),
         "--calls=3", "--body=" + std::to_string(body), "--no-flush", "--measured"},
        120);
    ASSERT_FALSE(run.report.is_null()) << run.Describe();
    EXPECT_EQ(run.exit_status, kStaleExitStatus) << run.Describe();
    const nlohmann::json &regions = run.report["regions"];
    ASSERT_EQ(regions.size(), 3u) << regions.dump(1);
    for (const auto &r : regions) {
      EXPECT_EQ(r["calls"], 1) << r.dump();
      EXPECT_EQ(r["stale_fetches"].get<uint64_t>(), kIterations * (body + 2)) << r.dump();
    }
    EXPECT_EQ(run.report["region_unbalanced"], 0);
  }
}

} // namespace
} // namespace scenario
