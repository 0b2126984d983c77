// The flush path from signal handlers. The header promises that a flush
// never waits for a probe another thread (or the interrupted thread itself)
// is running: it uses the floor. A flush that waited there would deadlock,
// so every scenario runs in a child with a watchdog.
#include <gtest/gtest.h>
#include <pthread.h>
#include <signal.h>

#include <atomic>
#include <cstdio>
#include <thread>
#include <vector>

#include "child_process.h"
#include "fakes/exynos_machine.h"
#include "probe_gate.h"

using fakeexynos::IsFloor;
using fakeexynos::IsProbed;
using hardening::RunInChild;

namespace
{
// What the handler saw. Lock-free atomics only: async-signal-safe.
std::atomic<int> handled{0};
std::atomic<int> handled_floor{0};
std::atomic<int> handled_probed{0};
std::atomic<int> handled_unsafe{0};
std::atomic<int> view_visible_while_running{0};
static_assert(std::atomic<int>::is_always_lock_free, "handler state must be lock-free");

void RecordGeometry(int)
{
  jf_geometry g = jf_state_geometry();
  if (IsFloor(g))
    handled_floor++;
  else if (IsProbed(g))
    handled_probed++;
  else
    handled_unsafe++;
  handled++;
}

void InstallHandler(void (*handler)(int))
{
  struct sigaction sa = {};
  sa.sa_handler = handler;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;
  sigaction(SIGUSR1, &sa, nullptr);
}

void ResetCounters()
{
  handled = handled_floor = handled_probed = handled_unsafe = view_visible_while_running = 0;
}

enum { kOk = 0, kHandlerDidNotRun = 20, kNotFloor = 21, kInit = 22, kAfter = 23, kView = 24 };

// jf_state_init with the handler armed to run once inside it: kOk when
// init succeeded and the handler ran exactly once, with the floor.
int InitWithOneFloorSignal()
{
  if (jf_state_init() != JITFLUSH_OK)
    return kInit;
  if (handled.load() != 1)
    return kHandlerDidNotRun;
  if (handled_floor.load() != 1)
    return kNotFloor;
  return kOk;
}
} // namespace

TEST(StateSignal, HandlerOnTheProbingThreadItselfGetsTheFloor)
{
  auto outcome = RunInChild([] {
    fakeexynos::InstallExynos();
    probegate::Reset();
    ResetCounters();
    InstallHandler(RecordGeometry);
    // Inside jf_probe, on the very thread that runs it: the state is
    // "running" and its owner is the interrupted code below the handler.
    probegate::OnReach(probegate::Point::kGetAffinity, [] {
      raise(SIGUSR1);
      if (jf_state_view() != nullptr)
        view_visible_while_running++;
    });
    if (int rc = InitWithOneFloorSignal(); rc != kOk)
      return rc;
    if (view_visible_while_running.load() != 0)
      return int{kView};
    raise(SIGUSR1); // after init: the probed geometry
    if (handled_probed.load() != 1)
      return int{kAfter};
    return int{kOk};
  });
  EXPECT_TRUE(outcome.exited && outcome.status == kOk) << "child " << outcome.Describe();
}

TEST(StateSignal, HandlerOnTheThreadWaitingForTheHelperGetsTheFloor)
{
  auto outcome = RunInChild([] {
    fakeexynos::InstallExynos();
    probegate::Reset();
    ResetCounters();
    InstallHandler(RecordGeometry);
    // The prober (this thread) sits in pthread_join while the helper pins
    // itself; the helper signals it and waits for the handler to finish.
    const pthread_t prober = pthread_self();
    std::atomic<bool> sent{false};
    probegate::OnReach(probegate::Point::kPinSelf, [&] {
      if (sent.exchange(true))
        return;
      pthread_kill(prober, SIGUSR1);
      while (handled.load() == 0)
        std::this_thread::yield();
    });
    return InitWithOneFloorSignal();
  });
  EXPECT_TRUE(outcome.exited && outcome.status == kOk) << "child " << outcome.Describe();
}

// A signal storm on 64 racing threads, across repeated resets: the way a
// JIT that cannot use membarrier synchronises its threads (a signal to each,
// whose handler return is context synchronising) while threads still race
// the first flush. Handlers see only the floor or the final geometry.
TEST(StateSignal, StormOnSixtyFourThreadsRacingTheFirstFlush)
{
  constexpr int kThreads = 64, kRounds = 8;
  auto outcome = RunInChild(
      [] {
        InstallHandler(RecordGeometry);
        ResetCounters();
        for (int round = 0; round < kRounds; round++) {
          fakeexynos::InstallExynos();
          probegate::Reset();
          // Hold the probe until the storm has hit while it runs.
          probegate::Arm(probegate::Point::kGetAffinity);
          std::vector<pthread_t> ids(kThreads);
          std::atomic<int> ready{0}, finished{0};
          std::atomic<bool> go{false}, may_exit{false}, storm_stop{false};
          std::atomic<int> bad_status{0};
          std::vector<std::thread> threads;
          for (int t = 0; t < kThreads; t++)
            threads.emplace_back([&, t] {
              ids[t] = pthread_self();
              ready++;
              while (!go.load())
                std::this_thread::yield();
              if (t % 2 == 0)
                (void)jf_state_geometry();
              if (jf_state_init() != JITFLUSH_OK)
                bad_status++;
              finished++;
              while (!may_exit.load())
                std::this_thread::yield();
            });
          while (ready.load() < kThreads)
            std::this_thread::yield();
          go = true;
          if (!probegate::WaitUntilBlocked())
            return 30;
          // Only now: a handler that ran before any thread started the
          // probe would start it itself, which the header does not allow
          // (jitflush_init is not async-signal-safe).
          std::thread storm([&] {
            while (!storm_stop.load())
              for (int t = 0; t < kThreads; t++)
                pthread_kill(ids[t], SIGUSR1);
          });
          int before = handled.load();
          while (handled.load() < before + 2 * kThreads)
            std::this_thread::yield();
          probegate::Release();
          while (finished.load() < kThreads)
            std::this_thread::yield();
          before = handled.load();
          while (handled.load() < before + 2 * kThreads)
            std::this_thread::yield();
          storm_stop = true;
          storm.join();
          may_exit = true;
          for (auto &th : threads)
            th.join();
          if (bad_status.load() != 0)
            return 31;
          if (fakecpus::probes.load() != 1)
            return 32;
          if (handled_unsafe.load() != 0)
            return 33;
        }
        // Both kinds were seen: the storm really overlapped the probe and
        // the published geometry.
        if (handled_floor.load() == 0)
          return 34;
        if (handled_probed.load() == 0)
          return 35;
        // How hard the storm hit, for docs/TESTING.md's figures (the child's
        // stdout is the test's; _exit would drop an unflushed buffer).
        std::printf("signal storm: %d handlers ran on %d threads x %d rounds "
                    "(%d during the probe saw the floor, %d the final line)\n",
                    handled.load(), kThreads, kRounds, handled_floor.load(), handled_probed.load());
        std::fflush(stdout);
        return 0;
      },
      /*watchdog_seconds=*/120);
  EXPECT_TRUE(outcome.exited && outcome.status == 0) << "child " << outcome.Describe();
}
