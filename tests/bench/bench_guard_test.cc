// The guard of ci/bench/run.sh's headline targets, cheap enough for the default
// suite: flush_bench under the rig on the Exynos 8890 (64-byte safe lines,
// 128-byte I-lines on the big cores), one size, two steady-state calls.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "rig_harness.h"

namespace
{

using scenario::RigRun;

constexpr uint64_t kBytes = 1024;
constexpr uint64_t kSafeLine = 64; // min over both clusters of exynos8890.conf
// flush_bench's region tags: KIND << 32 | bytes (tests/bench/flush_bench.c).
constexpr uint64_t kFlush = 3, kRun = 4;

const nlohmann::json *Region(const RigRun &run, uint64_t kind, uint64_t bytes)
{
  if (!run.report.is_object() || !run.report.contains("regions"))
    return nullptr;
  for (const auto &r : run.report["regions"])
    if (r.value("tag", uint64_t{0}) == (kind << 32 | bytes))
      return &r;
  return nullptr;
}

RigRun Bench(const std::string &impl)
{
  return scenario::RunUnderRig(scenario::ConfigPath("exynos8890.conf"), 1, "bench-guard-" + impl,
                               {scenario::GuestProgram("bench/flush_bench"), "--impl=" + impl,
                                "--sizes=" + std::to_string(kBytes), "--calls=2",
                                "--first-call-cpu=4"});
}

TEST(BenchGuard, JitflushIssuesTheMinimumAndReadsNoCtrInSteadyState)
{
  RigRun run = Bench("jitflush");
  ASSERT_EQ(run.exit_status, 0) << run.Describe();
  const nlohmann::json *flush = Region(run, kFlush, kBytes);
  const nlohmann::json *exec = Region(run, kRun, kBytes);
  ASSERT_TRUE(flush && exec) << run.Describe();
  const uint64_t calls = (*flush)["calls"];
  ASSERT_EQ(calls, 2u);
  EXPECT_EQ((*flush)["dc_ops"].get<uint64_t>(), calls * kBytes / kSafeLine) << flush->dump();
  EXPECT_EQ((*flush)["ic_ops"].get<uint64_t>(), calls * kBytes / kSafeLine) << flush->dump();
  EXPECT_EQ((*flush)["ctr_reads"].get<uint64_t>(), 0u) << flush->dump();
  EXPECT_EQ((*flush)["syscalls"].get<uint64_t>(), 0u) << flush->dump();
  EXPECT_EQ((*exec)["stale_fetches"].get<uint64_t>(), 0u) << exec->dump();
  EXPECT_EQ(run.report["region_unbalanced"].get<uint64_t>(), 0u);
}

// The same measurement must see libgcc's latched 128-byte stride: half the
// invalidates a Cortex-A53 needs, and the stale fetches that follow.
TEST(BenchGuard, MeasurementCatchesLibgccsLatchedBigCoreStride)
{
  RigRun run = Bench("libgcc");
  ASSERT_EQ(run.exit_status, scenario::kStaleExitStatus) << run.Describe();
  const nlohmann::json *flush = Region(run, kFlush, kBytes);
  const nlohmann::json *exec = Region(run, kRun, kBytes);
  ASSERT_TRUE(flush && exec) << run.Describe();
  const uint64_t calls = (*flush)["calls"];
  EXPECT_EQ((*flush)["ic_ops"].get<uint64_t>(), calls * kBytes / 128) << flush->dump();
  EXPECT_EQ((*flush)["ctr_reads"].get<uint64_t>(), 0u) << flush->dump();
  EXPECT_GT((*exec)["stale_fetches"].get<uint64_t>(), 0u) << exec->dump();
}

} // namespace
