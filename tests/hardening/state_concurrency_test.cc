// Many threads racing the first flush and jitflush_init, round after round,
// with the probe held open so that every thread provably arrives while it
// runs. Meant to run under ThreadSanitizer too (ci/check/sanitizers.sh).
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "fakes/exynos_machine.h"
#include "probe_gate.h"

using fakeexynos::IsFloor;
using fakeexynos::IsProbed;

namespace
{
constexpr int kThreads = 64;

struct RoundResult {
  std::vector<int> statuses = std::vector<int>(kThreads, -100);
  std::vector<jf_geometry> during = std::vector<jf_geometry>(kThreads);
  std::vector<jf_geometry> after = std::vector<jf_geometry>(kThreads);
};

// One round: KTHREADS threads start together; even ones enter through the
// flush path (jf_state_geometry), odd ones through jitflush_init. When HOLD,
// the winner's probe blocks in jf_os_get_affinity until every other thread
// has made its first call, so the losers provably meet a probe in progress.
thread_local bool tl_flush_path = false;

RoundResult RaceOnce(bool hold)
{
  fakeexynos::InstallExynos();
  probegate::Reset();
  std::atomic<bool> winner_on_flush_path{false};
  probegate::OnReach(probegate::Point::kGetAffinity, [&] { winner_on_flush_path = tl_flush_path; });
  if (hold)
    probegate::Arm(probegate::Point::kGetAffinity);
  RoundResult r;
  std::atomic<bool> go{false};
  std::atomic<int> flushes_returned{0}, inits_entered{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; t++)
    threads.emplace_back([&, t] {
      tl_flush_path = t % 2 == 0;
      while (!go.load())
        std::this_thread::yield();
      if (tl_flush_path) {
        r.during[t] = jf_state_geometry(); // never waits: floor or final
        flushes_returned++;
        r.statuses[t] = jf_state_init();
      } else {
        inits_entered++;
        r.statuses[t] = jf_state_init(); // waits for the one probe
        r.during[t] = jf_state_geometry();
      }
      r.after[t] = jf_state_geometry();
    });
  go = true;
  if (hold) {
    EXPECT_TRUE(probegate::WaitUntilBlocked()) << "no thread started the probe";
    // The winner is blocked inside its first call; everyone else has made
    // (flush path: returned from) theirs while the probe is in progress.
    int flush_target = kThreads / 2 - (winner_on_flush_path ? 1 : 0);
    int init_target = kThreads / 2; // counted before the call, winner too
    // Bounded: a flush path that waited for the probe would never return
    // here, and the test must say so rather than hang.
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while ((flushes_returned.load() < flush_target || inits_entered.load() < init_target) &&
           std::chrono::steady_clock::now() < deadline)
      std::this_thread::yield();
    EXPECT_EQ(flushes_returned.load(), flush_target)
        << "flush-path callers did not return while the probe was held: a flush waited";
    EXPECT_EQ(jf_state_view(), nullptr) << "view published before the probe finished";
    probegate::Release();
  }
  for (auto &th : threads)
    th.join();
  probegate::ClearCallbacks();
  return r;
}
} // namespace

TEST(StateConcurrency, SixtyFourThreadsMeetAHeldProbeAndAgree)
{
  RoundResult r = RaceOnce(/*hold=*/true);
  EXPECT_EQ(fakecpus::probes.load(), 1);
  EXPECT_EQ(probegate::Reached(probegate::Point::kGetAffinity), 1);
  int floors = 0;
  for (int t = 0; t < kThreads; t++) {
    EXPECT_EQ(r.statuses[t], JITFLUSH_OK) << "thread " << t;
    EXPECT_TRUE(IsProbed(r.after[t])) << "thread " << t << " iline " << r.after[t].iline;
    if (t % 2 == 0) {
      // The probe was held until all of these had returned, so each got
      // the floor, except a winner of the race, which probed itself.
      EXPECT_TRUE(IsFloor(r.during[t]) || IsProbed(r.during[t])) << "thread " << t;
      floors += IsFloor(r.during[t]);
    } else {
      EXPECT_TRUE(IsProbed(r.during[t]))
          << "init returned before the probe was published, thread " << t;
    }
  }
  // All flush-path callers but at most the one that won the race saw the
  // floor: they could not have seen anything else while the probe was held.
  EXPECT_GE(floors, kThreads / 2 - 1);
}

TEST(StateConcurrency, RepeatedResetsProbeExactlyOncePerLifetime)
{
  // Each round starts a fresh "lifetime" with jf_state_reset, as a new
  // process would; each lifetime must again probe exactly once.
  constexpr int kRounds = 25;
  for (int round = 0; round < kRounds; round++) {
    RoundResult r = RaceOnce(/*hold=*/round % 2 == 0);
    ASSERT_FALSE(HasFailure()) << "round " << round;
    ASSERT_EQ(fakecpus::probes.load(), 1) << "round " << round;
    for (int t = 0; t < kThreads; t++) {
      ASSERT_EQ(r.statuses[t], JITFLUSH_OK) << "round " << round << " thread " << t;
      ASSERT_TRUE(IsFloor(r.during[t]) || IsProbed(r.during[t]))
          << "round " << round << " thread " << t << " saw iline " << r.during[t].iline;
      ASSERT_TRUE(IsProbed(r.after[t])) << "round " << round << " thread " << t;
    }
  }
}

TEST(StateConcurrency, ReadersSpinningThroughTheWholeProbeNeverSeeAnUnsafeLine)
{
  fakeexynos::InstallExynos();
  probegate::Reset();
  // Armed before any reader exists: whichever thread ends up probing (a
  // reader's flush path or the init below) is held in the helper thread's
  // pinning while the others spin.
  probegate::Arm(probegate::Point::kPinSelf);
  std::atomic<bool> stop{false};
  std::atomic<long> reads{0}, bad{0};
  std::vector<std::thread> readers;
  for (int t = 0; t < 8; t++)
    readers.emplace_back([&] {
      while (!stop.load()) {
        jf_geometry g = jf_state_geometry();
        if (!IsFloor(g) && !IsProbed(g))
          bad++;
        reads++;
      }
    });
  std::thread prober([] { jf_state_init(); });
  const bool held = probegate::WaitUntilBlocked();
  if (held) {
    long before = reads.load();
    while (reads.load() < before + 10000)
      std::this_thread::yield();
  }
  probegate::Release();
  prober.join(); // jitflush_init returns only once the view is published
  long at_publish = reads.load();
  while (reads.load() < at_publish + 10000)
    std::this_thread::yield();
  stop = true;
  for (auto &th : readers)
    th.join();
  EXPECT_TRUE(held) << "the probe never reached the helper thread's pinning";
  EXPECT_EQ(bad.load(), 0) << "of " << reads.load() << " reads";
  EXPECT_EQ(fakecpus::probes.load(), 1);
}
