// CPUs that are offline when jitflush probes, on the rig.
//
// Each test states one promise of docs/BACKGROUND.md "Offline CPUs" with its exact
// counts, and each has a control that shows the measurement can fail:
//   - the Galaxy S7 dump (CPUs 6-7 offline): 100 flushes of 4 KiB issue
//     6,401 DC and 6,401 IC operations (the first 64-byte call's one line
//     plus 100 x 64 lines), not the 4-byte floor's 102,416;
//   - CPUs 6-7 of an S7 come online mid-run and run JIT code: no stale
//     fetch, and the library probed them (their CTR_EL0 was read);
//   - 32-byte cores offline at start, grouped by the kernel with observed
//     64-byte cores (domain=), come online mid-run and run JIT code: no
//     stale fetch, while a routine that keeps the stride it saw first goes
//     stale on the same run;
//   - code flushed while those 32-byte cores were offline, run on them
//     afterwards with no new flush: fresh (the kernel invalidated their
//     I-caches when it booted them), while the same code flushed with a
//     64-byte stride after they came online is stale.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <string>

#include "rig_harness.h"

namespace fs = std::filesystem;
using scenario::RigRun;

namespace
{
const std::string kBench = JITFLUSH_SCENARIO_BENCH_GUEST;
const std::string kS7 = std::string(JITFLUSH_SCENARIO_CLI_FIXTURES) + "/galaxy-s7-stock";

// 100 steady-state flushes of 4 KiB after the first 64-byte call.
RigRun BenchOnDump(const std::string &tree, const std::string &tag)
{
  return scenario::RunUnderRig(kS7 + "/rig.conf", 1, tag, {kBench, "--sizes=4096", "--calls=100"},
                               120, {"--sysfs-root", tree});
}

RigRun Stress(const std::string &config, const std::string &impl, const std::string &tag)
{
  return scenario::RunUnderRig(scenario::ConfigPath(config), 1, tag,
                               {scenario::GuestProgram("jit_stress"), "--impl=" + impl,
                                "--threads=4", "--iterations=3000", "--seed=1"},
                               150);
}
} // namespace

TEST(Hotplug, GalaxyS7DumpFlushesWithTheInferredLineNotTheFloor)
{
  RigRun run = BenchOnDump(kS7, "hotplug-s7-dump");
  ASSERT_EQ(run.exit_status, 0) << run.Describe();
  EXPECT_EQ(run.Count("stale_fetches"), 0u) << run.Describe();
  EXPECT_EQ(run.Count("dc_ops"), 6401u) << run.Describe();
  EXPECT_EQ(run.Count("ic_ops"), 6401u) << run.Describe();
  EXPECT_NE(run.out.find("iline=64 dline=64"), std::string::npos) << run.out;
}

TEST(Hotplug, GalaxyS7DumpWithoutGroupingFilesStaysAtTheFloor)
{
  // The control: the same dump without cpufreq/ and topology/, as the
  // library saw it before it read the kernel's groupings. Nothing
  // identifies 6-7: the floor.
  const fs::path tree = fs::path(scenario::WorkDir()) / "s7-no-grouping";
  fs::remove_all(tree);
  fs::copy(kS7, tree, fs::copy_options::recursive);
  for (int cpu = 0; cpu < 8; cpu++) {
    const fs::path dir = tree / "sys/devices/system/cpu" / ("cpu" + std::to_string(cpu));
    fs::remove_all(dir / "cpufreq");
    fs::remove(dir / "topology/core_siblings_list");
  }
  RigRun run = BenchOnDump(tree.string(), "hotplug-s7-dump-control");
  ASSERT_EQ(run.exit_status, 0) << run.Describe();
  EXPECT_EQ(run.Count("dc_ops"), 16u + 100u * 1024u) << run.Describe();
  EXPECT_EQ(run.Count("ic_ops"), 16u + 100u * 1024u) << run.Describe();
}

// jitflush on CONFIG, whose CPUs FIRST and FIRST+1 come online mid-run:
// no stale fetch, guest threads ran on both, and the library read CTR_EL0
// on the ONLINE_AT_INIT CPUs at init and again on all of them once a flush
// found the new ones.
void ExpectCpusCameOnlineAndRanClean(const std::string &config, const std::string &tag, int first,
                                     unsigned online_at_init, unsigned all)
{
  RigRun run = Stress(config, "jitflush", tag);
  ASSERT_EQ(run.exit_status, 0) << run.Describe();
  EXPECT_EQ(run.Count("stale_fetches"), 0u) << run.Describe();
  EXPECT_GT(run.Count("fetch_checks"), 1000000u) << run.Describe();
  EXPECT_GT(CpuInstructions(run, first), 1000000u) << run.Describe();
  EXPECT_GT(CpuInstructions(run, first + 1), 1000000u) << run.Describe();
  EXPECT_EQ(run.Count("ctr_reads"), online_at_init + all) << run.Describe();
}

TEST(Hotplug, GalaxyS7CpusSixAndSevenComeOnlineAndRunJitCode)
{
  ExpectCpusCameOnlineAndRanClean("exynos8890-s7-hotplug.conf", "hotplug-s7-online", 6, 6, 8);
}

TEST(Hotplug, HiddenSmallerCoresOfADynamIQClusterComeOnlineAndRunJitCode)
{
  ExpectCpusCameOnlineAndRanClean("dynamiq-hidden-32.conf", "hotplug-dynamiq", 4, 4, 6);
}

TEST(Hotplug, DynamIQControlAStrideKeptFromBeforeTheEventGoesStale)
{
  // cached-first keeps the first CTR_EL0 it read (64 bytes): right until
  // the 32-byte cores come online, wrong after. The rig must catch it.
  RigRun run = Stress("dynamiq-hidden-32.conf", "cached-first", "hotplug-dynamiq-control");
  EXPECT_EQ(run.exit_status, scenario::kStaleExitStatus) << run.Describe();
  EXPECT_GT(run.Count("stale_fetches"), 0u) << run.Describe();
}

TEST(Hotplug, CodeFlushedBeforeTheCpusCameOnlineIsFreshOnThem)
{
  // 64 functions in the second 32-byte half of 64-byte lines, flushed by
  // jitflush with the 64-byte line it inferred for the offline 32-byte
  // CPU 4, run on CPU 4 once it is online with no flush in between: only
  // the kernel's boot-time I-cache invalidation makes them fresh there.
  RigRun run =
      scenario::RunUnderRig(scenario::ConfigPath("dynamiq-hidden-32.conf"), 1, "hotplug-reuse",
                            {scenario::GuestProgram("hotplug_reuse"), "--cpu=4"});
  ASSERT_EQ(run.exit_status, 0) << run.Describe();
  EXPECT_NE(run.out.find("cpu=4 "), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("wrong=0"), std::string::npos) << run.out;
  EXPECT_EQ(run.Count("fetch_checks"), 128u) << run.Describe(); // every word of every function
  EXPECT_EQ(run.Count("stale_fetches"), 0u) << run.Describe();
  EXPECT_EQ(run.Count("ctr_reads"), 4u) << run.Describe(); // one probe, before CPU 4 came online
}

TEST(Hotplug, ControlTheSameCodeFlushedWithA64ByteStrideAfterwardsIsStale)
{
  RigRun run =
      scenario::RunUnderRig(scenario::ConfigPath("dynamiq-hidden-32.conf"), 1, "hotplug-reuse-late",
                            {scenario::GuestProgram("hotplug_reuse"), "--cpu=4", "--late"});
  EXPECT_EQ(run.exit_status, scenario::kStaleExitStatus) << run.Describe();
  EXPECT_EQ(run.Count("stale_fetches"), 128u) << run.Describe(); // the second halves, both words
}
