// The deterministic schedule (rig/plugin/plugin_turns.c) on its own,
// with host threads standing for guest threads as linux-user QEMU's do:
// one thread holds the turn at a time; the turn's length and the next
// holder are drawn from the seed, so one seed gives one order; a thread
// asleep in a blocking call lets the others run; schedule=parallel sets
// no end to a turn. The rig is the real one (turns_rig.c): the scoreboard,
// the vCPU clocks and the schedule as plugin.c's install makes them.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <future>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <linux/futex.h>
#include <sys/epoll.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <glib.h>

// The unit's header is C.
extern "C" {
#include "plugin_turns.h"
}
#include "turns_rig.h"

namespace
{

// aarch64 system call numbers (include/uapi/asm-generic/unistd.h).
constexpr int64_t kEpollPwait = 22, kRead = 63, kWrite = 64, kFutex = 98, kClone = 220;
// pthread_create's clone flags: CLONE_VM | CLONE_FS | CLONE_FILES |
// CLONE_SIGHAND | CLONE_THREAD | CLONE_SYSVSEM | CLONE_SETTLS |
// CLONE_PARENT_SETTID | CLONE_CHILD_CLEARTID.
constexpr uint64_t kThreadFlags = 0x3d0f00;
constexpr uint64_t kQuantum = 100;

// A guest thread on vCPU VCPU (1 unless said), created by the thread on
// vCPU 0 and started as QEMU starts one: the creator's clone (which keeps
// the turn) returns the child's id, and the child's vCPU starts on the
// child's own host thread, where it waits for its first turn. BODY runs
// once it holds that turn.
class Child
{
public:
  template <class Body> Child(plugin_rig *rig, Body body, unsigned vcpu = 1)
  {
    std::promise<int> tid;
    std::future<int> got = tid.get_future();
    thread_ = std::thread([this, rig, body, vcpu, &tid] {
      tid.set_value(static_cast<int>(syscall(SYS_gettid)));
      go_.get_future().wait();
      plugin_turns_thread_start(rig, vcpu);
      body();
    });
    int child = got.get();
    EXPECT_FALSE(plugin_turns_syscall(rig, 0, kClone, kThreadFlags, 0));
    plugin_turns_syscall_ret(rig, 0, kClone, child);
    go_.set_value();
    plugin_turns_await_child(rig, 0, kClone, child);
  }
  ~Child()
  {
    thread_.join();
  }

private:
  std::promise<void> go_;
  std::thread thread_;
};

// What the holders did, in order, and how many held the turn at once.
struct Log {
  std::mutex m;
  std::vector<int> order;
  std::atomic<int> inside{0};
  std::atomic<int> most_inside{0};

  // Thread ID runs "guest code" for a while, holding the turn.
  void Run(int id)
  {
    int now = ++inside;
    int most = most_inside.load();
    while (now > most && !most_inside.compare_exchange_weak(most, now)) {
    }
    {
      std::lock_guard<std::mutex> hold(m);
      order.push_back(id);
    }
    std::this_thread::sleep_for(std::chrono::microseconds(200));
    --inside;
  }
};

// Two threads, each running ROUNDS quanta, then ending.
std::vector<int> RunTwo(uint64_t seed, int rounds, std::string *report, int *most_inside)
{
  plugin_rig *rig = turns_rig_new(seed, kQuantum, true);
  Log log;
  auto body = [rig, rounds, &log](unsigned vcpu) {
    for (int i = 0; i < rounds; i++) {
      log.Run(static_cast<int>(vcpu));
      plugin_turns_quantum_ended(rig, vcpu);
    }
    plugin_turns_thread_exit(rig, vcpu);
  };
  plugin_turns_thread_start(rig, 0);
  {
    Child child(rig, [&body] { body(1); });
    body(0);
  }
  char *text = turns_rig_report(rig);
  *report = text;
  g_free(text);
  *most_inside = log.most_inside.load();
  turns_rig_free(rig);
  return log.order;
}

int Changes(const std::vector<int> &order)
{
  int n = 0;
  for (size_t i = 1; i < order.size(); i++) {
    n += order[i] != order[i - 1];
  }
  return n;
}

TEST(TurnsUnit, TheMainThreadHoldsTheFirstTurnForASeededQuantum)
{
  std::set<uint64_t> seen;
  for (uint64_t seed = 1; seed <= 40; seed++) {
    plugin_rig *rig = turns_rig_new(seed, kQuantum, true);
    plugin_turns_thread_start(rig, 0); // returns: nobody else to wait for
    uint64_t q = turns_rig_quantum_left(rig, 0);
    EXPECT_GE(q, 1u) << "seed " << seed;
    EXPECT_LE(q, 2 * kQuantum - 1) << "seed " << seed;
    seen.insert(q);
    plugin_rig *again = turns_rig_new(seed, kQuantum, true);
    plugin_turns_thread_start(again, 0);
    EXPECT_EQ(turns_rig_quantum_left(again, 0), q) << "the seed alone decides, seed " << seed;
    turns_rig_free(again);
    turns_rig_free(rig);
  }
  EXPECT_GE(seen.size(), 20u) << "quanta drawn uniformly in [1, 2q - 1], not one length";
}

TEST(TurnsUnit, ParallelSetsNoEndToATurnAndIsNotReproducible)
{
  plugin_rig *rig = turns_rig_new(1, kQuantum, false);
  plugin_turns_thread_start(rig, 0);
  EXPECT_EQ(turns_rig_quantum_left(rig, 0), UINT64_MAX);
  char *text = turns_rig_report(rig);
  std::string report = text;
  g_free(text);
  EXPECT_NE(report.find("\"mode\":\"parallel\""), std::string::npos) << report;
  EXPECT_NE(report.find("\"reproducible\":false"), std::string::npos) << report;
  turns_rig_free(rig);
}

TEST(TurnsUnit, TwoThreadsRunOneAtATimeInTheSeedsOrder)
{
  constexpr int kRounds = 30;
  std::string report;
  int most_inside = 0;
  std::vector<int> first = RunTwo(7, kRounds, &report, &most_inside);
  ASSERT_EQ(first.size(), 2u * kRounds);
  EXPECT_EQ(most_inside, 1) << "two threads held the turn at once";
  // The turn passed back and forth, drawn, not taken in creation order.
  int changes = Changes(first);
  EXPECT_GE(changes, 5);
  EXPECT_NE(report.find("\"handovers\":" + std::to_string(changes) + ","), std::string::npos)
      << "every change of holder is one hand-over: " << report;
  EXPECT_NE(report.find("\"mode\":\"turns\""), std::string::npos) << report;
  for (int run = 0; run < 2; run++) {
    std::string again_report;
    EXPECT_EQ(RunTwo(7, kRounds, &again_report, &most_inside), first) << "run " << run;
    EXPECT_EQ(most_inside, 1);
  }
  EXPECT_NE(RunTwo(8, kRounds, &report, &most_inside), first) << "another seed, another order";
}

TEST(TurnsUnit, AThreadAsleepInABlockingCallLetsTheOtherRun)
{
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  plugin_rig *rig = turns_rig_new(3, kQuantum, true);
  std::atomic<bool> main_in_read{false};
  std::atomic<bool> child_ran_during_read{false};
  plugin_turns_thread_start(rig, 0);
  {
    Child child(rig, [&] {
      // Its first turn came while the main thread was asleep in read.
      child_ran_during_read = main_in_read.load();
      char byte = 'x';
      EXPECT_FALSE(plugin_turns_syscall(rig, 1, kWrite, static_cast<uint64_t>(fds[1]), 0));
      EXPECT_EQ(write(fds[1], &byte, 1), 1);
      plugin_turns_syscall_ret(rig, 1, kWrite, 1);
      plugin_turns_thread_exit(rig, 1);
    });
    // The main thread still holds the turn: the child waits.
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    EXPECT_FALSE(child_ran_during_read.load());
    // Should the child never get the turn, a byte from elsewhere ends the
    // read after 5 s, and the test fails instead of hanging.
    std::promise<void> read_done;
    std::thread watchdog([&fds, done = read_done.get_future()] {
      if (done.wait_for(std::chrono::seconds(5)) == std::future_status::timeout) {
        char late = 'w';
        EXPECT_EQ(write(fds[1], &late, 1), 1);
      }
    });
    main_in_read = true;
    EXPECT_FALSE(plugin_turns_syscall(rig, 0, kRead, static_cast<uint64_t>(fds[0]), 0));
    char byte = 0;
    EXPECT_EQ(read(fds[0], &byte, 1), 1);
    main_in_read = false;
    read_done.set_value();
    watchdog.join();
    plugin_turns_syscall_ret(rig, 0, kRead, 1);
    EXPECT_EQ(byte, 'x');
    plugin_turns_thread_exit(rig, 0);
  }
  EXPECT_TRUE(child_ran_during_read.load());
  turns_rig_free(rig);
  close(fds[0]);
  close(fds[1]);
}

// An event loop asleep in epoll_pwait, a call that may wake other threads
// until it returns, and a thread asleep on a futex, while the main thread
// runs turn after turn: once both were found asleep (the futex's sleeper
// after the loop), the draws read neither's state in /proc again, since
// nothing but the loop, asleep, could have woken either (V8's row: a
// thread of node in epoll_pwait, the others on futexes). A read per thread
// per draw was 14% of that row's time.
TEST(TurnsUnit, AnEventLoopAsleepInItsCallIsNotLookedAtAgainAtEveryDraw)
{
  constexpr int kTurns = 40;
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  int ep = epoll_create1(EPOLL_CLOEXEC);
  ASSERT_GE(ep, 0);
  epoll_event want{};
  want.events = EPOLLIN;
  ASSERT_EQ(epoll_ctl(ep, EPOLL_CTL_ADD, fds[0], &want), 0);
  uint32_t word = 0;
  std::atomic<int> in_calls{0};
  plugin_rig *rig = turns_rig_new(5, kQuantum, true);
  plugin_turns *turns = turns_rig_turns(rig);
  plugin_turns_thread_start(rig, 0);
  {
    Child loop(
        rig,
        [&] {
          EXPECT_FALSE(plugin_turns_syscall(rig, 1, kEpollPwait, static_cast<uint64_t>(ep), 0));
          ++in_calls;
          epoll_event got{};
          long n = syscall(SYS_epoll_pwait, ep, &got, 1, -1, nullptr, 8);
          EXPECT_EQ(n, 1);
          plugin_turns_syscall_ret(rig, 1, kEpollPwait, n);
          plugin_turns_thread_exit(rig, 1);
        },
        1);
    Child sleeper(
        rig,
        [&] {
          EXPECT_FALSE(plugin_turns_syscall(rig, 2, kFutex, reinterpret_cast<uintptr_t>(&word),
                                            FUTEX_WAIT_PRIVATE));
          ++in_calls;
          while (__atomic_load_n(&word, __ATOMIC_ACQUIRE) == 0) {
            syscall(SYS_futex, &word, FUTEX_WAIT_PRIVATE, 0, nullptr, nullptr, 0);
          }
          plugin_turns_syscall_ret(rig, 2, kFutex, 0);
          plugin_turns_thread_exit(rig, 2);
        },
        2);
    // The main thread hands its turn on until both are in their calls;
    // the draw after that waits until both are asleep there.
    for (int i = 0; i < 10000 && in_calls.load() < 2; i++) {
      plugin_turns_quantum_ended(rig, 0);
    }
    ASSERT_EQ(in_calls.load(), 2);
    plugin_turns_quantum_ended(rig, 0);
    uint64_t before = plugin_turns_looks(turns);
    for (int i = 0; i < kTurns; i++) {
      plugin_turns_quantum_ended(rig, 0);
    }
    EXPECT_EQ(plugin_turns_looks(turns) - before, 0u)
        << kTurns << " draws with the loop and the futex's sleeper asleep";
    // Wake both: the futex through a wake, the loop through the pipe.
    __atomic_store_n(&word, 1, __ATOMIC_RELEASE);
    uint64_t wake = FUTEX_WAKE_PRIVATE;
    EXPECT_FALSE(plugin_turns_syscall(rig, 0, kFutex, reinterpret_cast<uintptr_t>(&word), wake));
    syscall(SYS_futex, &word, FUTEX_WAKE_PRIVATE, 1, nullptr, nullptr, 0);
    plugin_turns_syscall_ret(rig, 0, kFutex, 1);
    char byte = 'x';
    EXPECT_FALSE(plugin_turns_syscall(rig, 0, kWrite, static_cast<uint64_t>(fds[1]), 0));
    EXPECT_EQ(write(fds[1], &byte, 1), 1);
    plugin_turns_syscall_ret(rig, 0, kWrite, 1);
    plugin_turns_thread_exit(rig, 0);
  }
  turns_rig_free(rig);
  close(ep);
  close(fds[0]);
  close(fds[1]);
}

} // namespace
