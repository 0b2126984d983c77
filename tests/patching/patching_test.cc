// Patching scenarios under the emulated big.LITTLE rig: the
// aarch64 programs of tests/patching (and tests/scenario's jit_stress) run
// under jitflush-emu, and each test states what the rig must observe.
// Exit status 86 means the plugin saw at least one stale instruction fetch
// (docs/COHERENCE-MODEL.md).
#include <gtest/gtest.h>

#include <cctype>
#include <cstdint>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "rig_harness.h"

namespace scenario
{
namespace
{

constexpr uint64_t kSeed = 5;

// The Exynos 8890 as qemu-configs/exynos8890.conf lays it out: CPUs 0-3
// Cortex-A53 (64-byte I-lines), 4-7 Exynos M1 (128-byte I-lines), both
// with a VIPT L1 I-cache (CTR_EL0.L1Ip = 2).
const char *const kExynos = "exynos8890.conf";
constexpr int kLittleCpu = 0;
constexpr int kBigCpu = 4;

// The plugin's stale reasons (rig/model/model_coherence.c).
const std::string kNotSynchronised = "pipeline not synchronised";
const std::string kNonExecAlias = "invalidated through a non-executable alias";

// The number after "key=" in the program's one-line summary.
long OutputValue(const RigRun &run, const std::string &key)
{
  const auto at = run.out.find(" " + key + "=");
  if (at == std::string::npos)
    throw std::runtime_error("no " + key + "= in the output:\n" + run.out);
  return std::stol(run.out.substr(at + key.size() + 2));
}

bool EveryReasonMentions(const RigRun &run, const std::string &phrase)
{
  for (const auto &r : run.report["stale"])
    if (!r.contains("reason") || r["reason"].get<std::string>().find(phrase) == std::string::npos)
      return false;
  return true;
}

std::set<int> StaleCpus(const RigRun &run)
{
  std::set<int> cpus;
  for (const auto &r : run.report["stale"])
    cpus.insert(r.at("cpu").get<int>());
  return cpus;
}

// The program computed the right results (QEMU keeps fetch coherent) but
// the plugin saw stale fetches: status 86, records listed.
void ExpectFlagged(const RigRun &run)
{
  ASSERT_FALSE(run.timed_out) << run.Describe();
  ASSERT_TRUE(run.report.is_object()) << run.Describe();
  EXPECT_EQ(run.exit_status, kStaleExitStatus) << run.Describe();
  EXPECT_GT(run.Count("stale_fetches"), 0u) << run.Describe();
  EXPECT_GT(run.Count("fetch_checks"), 0u) << run.Describe();
  ASSERT_FALSE(run.report["stale"].empty()) << run.Describe();
}

// ---- cross-core patching: flush only vs flush + jitflush_sync_cores -------

RigRun RunPatchSync(const std::string &mode)
{
  return RunUnderRig(ConfigPath(kExynos), kSeed, "patch_sync_" + mode,
                     {GuestProgram("patching/patch_sync"), "--mode=" + mode, "--rounds=30",
                      "--patcher-cpu=" + std::to_string(kBigCpu),
                      "--runner-cpu=" + std::to_string(kLittleCpu)});
}

// Both threads really sat where they were pinned, on different cores of
// different clusters, and both executed there.
void ExpectThreadsOnTheirCores(const RigRun &run)
{
  EXPECT_EQ(OutputValue(run, "patcher_cpu"), kBigCpu) << run.Describe();
  EXPECT_EQ(OutputValue(run, "runner_cpu"), kLittleCpu) << run.Describe();
  EXPECT_GT(CpuInstructions(run, kBigCpu), 0u) << run.Describe();
  EXPECT_GT(CpuInstructions(run, kLittleCpu), 0u) << run.Describe();
  EXPECT_EQ(OutputValue(run, "wrong"), 0) << run.Describe();
  EXPECT_EQ(OutputValue(run, "verified"), 31) << run.Describe();
}

TEST(CrossCorePatching, FlushWithoutSyncLeavesTheRunningCoreStale)
{
  const RigRun run = RunPatchSync("flush-only");
  ExpectFlagged(run);
  ExpectThreadsOnTheirCores(run);
  // Only the runner's core fetched stale code, and only because nothing
  // synchronised its pipeline: the flush itself was complete.
  EXPECT_EQ(StaleCpus(run), std::set<int>{kLittleCpu}) << run.Describe();
  EXPECT_TRUE(EveryReasonMentions(run, kNotSynchronised)) << run.Describe();
}

TEST(CrossCorePatching, FlushThenSyncCoresIsClean)
{
  const RigRun run = RunPatchSync("sync");
  ExpectClean(run);
  ExpectThreadsOnTheirCores(run);
  EXPECT_EQ(OutputValue(run, "sync_status"), 0) << run.Describe();
}

// docs/LIBRARY.md's sync example: one thread spins on a published pointer while
// main writes, flushes and calls jitflush_sync_cores().
TEST(CrossCorePatching, ReadmeSyncExampleIsClean)
{
  ExpectClean(RunUnderRig(ConfigPath(kExynos), kSeed, "example_sync_cores",
                          {GuestProgram("patching/example_sync_cores")}));
}

// ---- W^X double mapping ------------------------------------------------------

class DualMappingOnEveryConfig : public ::testing::TestWithParam<std::string>
{
};

TEST_P(DualMappingOnEveryConfig, ClearCacheDualIsClean)
{
  const RigRun run = RunUnderRig(ConfigPath(GetParam()), kSeed, "wx_dual_" + GetParam(),
                                 {GuestProgram("patching/wx_dual"), "--functions=150"});
  ExpectClean(run);
  EXPECT_EQ(OutputValue(run, "verified"), 150) << run.Describe();
  // Entries at every word of a 64-byte line.
  EXPECT_EQ(OutputValue(run, "line_offsets"), 16) << run.Describe();
}

INSTANTIATE_TEST_SUITE_P(AllConfigs, DualMappingOnEveryConfig,
                         ::testing::ValuesIn(AllConfigNames()),
                         [](const ::testing::TestParamInfo<std::string> &info) {
                           std::string name = info.param.substr(0, info.param.rfind(".conf"));
                           for (char &c : name)
                             if (!isalnum(static_cast<unsigned char>(c)))
                               c = '_';
                           return name;
                         });

TEST(DualMapping, BothOperationsThroughRwAreFlaggedOnVipt)
{
  const RigRun run =
      RunUnderRig(ConfigPath(kExynos), kSeed, "wx_dual_wrong_way",
                  {GuestProgram("patching/wx_dual"), "--wrong-way", "--functions=150"});
  ExpectFlagged(run);
  EXPECT_TRUE(EveryReasonMentions(run, kNonExecAlias)) << run.Describe();
}

// The RX view made executable by mprotect after mapping: the rig follows
// the permission change, so the RW view is still known as the
// non-executable alias.
TEST(DualMapping, RxViewMadeExecutableByMprotectIsTracked)
{
  const RigRun wrong = RunUnderRig(
      ConfigPath(kExynos), kSeed, "wx_dual_mprotect_wrong_way",
      {GuestProgram("patching/wx_dual"), "--wrong-way", "--rx-via-mprotect", "--functions=60"});
  ExpectFlagged(wrong);
  EXPECT_TRUE(EveryReasonMentions(wrong, kNonExecAlias)) << wrong.Describe();
  const RigRun dual =
      RunUnderRig(ConfigPath(kExynos), kSeed, "wx_dual_mprotect_dual",
                  {GuestProgram("patching/wx_dual"), "--rx-via-mprotect", "--functions=60"});
  ExpectClean(dual);
}

// The same wrong-way flush on cores with a PIPT I-cache (Tegra186: Cortex-A57
// and Denver2, CTR_EL0.L1Ip = 3) is fine: a physically indexed cache does
// not care which view the invalidate named. This pins the rule to VIPT.
TEST(DualMapping, BothOperationsThroughRwAreCleanOnPipt)
{
  const RigRun run =
      RunUnderRig(ConfigPath("tegra186.conf"), kSeed, "wx_dual_wrong_way_pipt",
                  {GuestProgram("patching/wx_dual"), "--wrong-way", "--functions=150"});
  ExpectClean(run);
}

TEST(DualMapping, ReadmeDualExampleIsClean)
{
  ExpectClean(RunUnderRig(ConfigPath(kExynos), kSeed, "example_dual_mapping",
                          {GuestProgram("patching/example_dual_mapping")}));
}

// ---- the __clear_cache drop-in ----------------------------------------------

// jit_stress's "libgcc" routine is __builtin___clear_cache. With the first
// call on a big core, libgcc latches the 128-byte I-line and the LITTLE
// cores miss every second 64-byte line; linked with the drop-in the same
// call is jitflush_clear_cache.
std::vector<std::string> LibgccStressArgs(const std::string &program)
{
  return {GuestProgram(program), "--impl=libgcc", "--threads=4",
          "--iterations=150",    "--seed=7",      "--first-call-cpu=" + std::to_string(kBigCpu)};
}

TEST(DropIn, LibgccVariantLinkedWithTheDropInIsClean)
{
  const RigRun run = RunUnderRig(ConfigPath(kExynos), kSeed, "jit_stress_dropin",
                                 LibgccStressArgs("patching/jit_stress_dropin"));
  ExpectClean(run);
  EXPECT_EQ(OutputValue(run, "wrong"), 0) << run.Describe();
  // Threads moved between cores (and clusters) while flushing and running.
  EXPECT_GT(run.Count("migrations"), 0u) << run.Describe();
}

TEST(DropIn, PlainLibgccVariantIsFlagged)
{
  const RigRun run = RunUnderRig(ConfigPath(kExynos), kSeed, "jit_stress_plain_libgcc",
                                 LibgccStressArgs("scenario/jit_stress"));
  ExpectFlagged(run);
  EXPECT_GT(run.Count("migrations"), 0u) << run.Describe();
  // The Galaxy S7 signature: the LITTLE cores (64-byte lines) miss the
  // second half of each 128-byte block.
  for (const auto &record : run.report["stale"]) {
    EXPECT_LT(record.at("cpu").get<int>(), kBigCpu) << record.dump();
    EXPECT_GE(StaleAddr(record) % 128, 64u) << record.dump();
  }
}

} // namespace
} // namespace scenario
