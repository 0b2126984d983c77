// fork() and the once-only probe. POSIX fork() copies only the calling
// thread: a probe another thread was running is gone in the child, while a
// finished one is simply inherited (the CPUs did not change).
#include <gtest/gtest.h>

#include <thread>

#include "child_process.h"
#include "fakes/exynos_machine.h"
#include "probe_gate.h"

using fakeexynos::IsProbed;
using hardening::RunInChild;

namespace
{
// Child exit codes: which expectation failed (0: all held).
enum ChildFailure {
  kChildOk = 0,
  kViewInheritedFromUnfinishedProbe = 10,
  kInitStatus = 11,
  kGeometryNotProbed = 12,
  kProbeCount = 13,
  kViewMissing = 14,
};

// Forks while a probe is held at POINT in another thread; in the child,
// the first call (jitflush_init, or a flush when FLUSH_FIRST) must take the
// orphaned probe over and run its own to completion.
void ForkWhileProbing(probegate::Point point, bool flush_first = false)
{
  SKIP_IF_TSAN_CANNOT_FORK_WITH_THREADS();
  fakeexynos::InstallExynos();
  probegate::Reset();
  probegate::Arm(point);
  int parent_status = -100;
  std::thread prober([&] { parent_status = jf_state_init(); });
  ASSERT_TRUE(probegate::WaitUntilBlocked()) << "the probe never reached the gate";
  const int probes_at_fork = fakecpus::probes.load();

  auto outcome = RunInChild([probes_at_fork, flush_first] {
    probegate::DisarmInChild();
    if (jf_state_view() != nullptr)
      return int{kViewInheritedFromUnfinishedProbe};
    // A flush in the child does not wait; it must not settle for the floor
    // for the rest of the child's life either.
    if (flush_first && !IsProbed(jf_state_geometry()))
      return int{kGeometryNotProbed};
    if (jf_state_init() != JITFLUSH_OK)
      return int{kInitStatus};
    if (!IsProbed(jf_state_geometry()))
      return int{kGeometryNotProbed};
    // The child's own probe, exactly one.
    if (fakecpus::probes.load() != probes_at_fork + 1)
      return int{kProbeCount};
    return int{kChildOk};
  });

  probegate::Release();
  prober.join();
  EXPECT_TRUE(outcome.exited && outcome.status == kChildOk) << "child " << outcome.Describe();
  // The parent's probe was not disturbed by the fork.
  EXPECT_EQ(parent_status, JITFLUSH_OK);
  EXPECT_TRUE(IsProbed(jf_state_geometry()));
  EXPECT_EQ(fakecpus::probes.load(), 1);
}
} // namespace

TEST(StateFork, ChildInheritsAFinishedProbeWithoutProbingAgain)
{
  fakeexynos::InstallExynos();
  probegate::Reset();
  ASSERT_EQ(jf_state_init(), JITFLUSH_OK);
  const int probes_before = fakecpus::probes.load();
  ASSERT_EQ(probes_before, 1);
  const int ctr_reads_before = fakecpus::ctr_reads.load();

  auto outcome = RunInChild([=] {
    // The flush path first, as a forked JIT would use it.
    if (!IsProbed(jf_state_geometry()))
      return int{kGeometryNotProbed};
    if (jf_state_init() != JITFLUSH_OK)
      return int{kInitStatus};
    const jf_view *view = jf_state_view();
    if (!view || view->ncpus != 8 || view->cpus[7].iline != 128)
      return int{kViewMissing};
    if (fakecpus::probes.load() != probes_before || fakecpus::ctr_reads.load() != ctr_reads_before)
      return int{kProbeCount};
    return int{kChildOk};
  });
  EXPECT_TRUE(outcome.exited && outcome.status == kChildOk) << "child " << outcome.Describe();
}

TEST(StateFork, ChildOfAForkDuringTheProbeCallerCanStillInit)
{
  ForkWhileProbing(probegate::Point::kGetAffinity);
}

TEST(StateFork, ChildOfAForkWhileTheHelperThreadIsPinnedCanStillInit)
{
  ForkWhileProbing(probegate::Point::kPinSelf);
}

TEST(StateFork, ChildsFirstFlushTakesTheOrphanedProbeOver)
{
  ForkWhileProbing(probegate::Point::kGetAffinity, /*flush_first=*/true);
}

TEST(StateFork, ManyForksWhileManyThreadsFlushAllInherit)
{
  fakeexynos::InstallExynos();
  probegate::Reset();
  ASSERT_EQ(jf_state_init(), JITFLUSH_OK);
  std::atomic<bool> stop{false};
  std::vector<std::thread> flushers;
  for (int t = 0; t < 8; t++)
    flushers.emplace_back([&] {
      while (!stop.load())
        (void)jf_state_geometry();
    });
  int failures = 0;
  for (int i = 0; i < 20; i++) {
    auto outcome = RunInChild([] {
      if (!IsProbed(jf_state_geometry()))
        return int{kGeometryNotProbed};
      if (fakecpus::probes.load() != 1)
        return int{kProbeCount};
      return int{kChildOk};
    });
    if (!outcome.exited || outcome.status != kChildOk) {
      ADD_FAILURE() << "fork " << i << ": child " << outcome.Describe();
      failures++;
    }
  }
  stop = true;
  for (auto &th : flushers)
    th.join();
  EXPECT_EQ(failures, 0);
}
