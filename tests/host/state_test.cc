// Once-only initialisation under contention, through the fake machine.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

#include "fakes/exynos_machine.h"
#include "fakes/fake_cpus.h"
#include "fakes/fake_fs.h"

extern "C" {
#include "state.h"
}

using fakeexynos::InstallExynos;

TEST(State, SixtyFourConcurrentFirstCallsProbeExactlyOnce)
{
  InstallExynos();
  std::atomic<bool> go{false};
  std::vector<int> statuses(64, -100);
  std::vector<unsigned> lines(64, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < 64; t++)
    threads.emplace_back([&, t] {
      while (!go.load())
        std::this_thread::yield();
      // Half start through a flush's path, half through jitflush_init's.
      if (t % 2)
        (void)jf_state_geometry();
      statuses[t] = jf_state_init();
      lines[t] = jf_state_geometry().iline;
    });
  go = true;
  for (auto &th : threads)
    th.join();
  EXPECT_EQ(fakecpus::probes.load(), 1);
  for (int t = 0; t < 64; t++) {
    EXPECT_EQ(statuses[t], JITFLUSH_OK) << t;
    EXPECT_EQ(lines[t], 64u) << t;
  }
}

TEST(State, FlushPathNeverSeesAnUnsafeLineWhileAnotherThreadProbes)
{
  InstallExynos();
  std::atomic<bool> stop{false};
  std::atomic<unsigned> worst{0};
  std::thread reader([&] {
    while (!stop.load()) {
      unsigned l = jf_state_geometry().iline;
      if (l > worst.load())
        worst = l;
    }
  });
  jf_state_init();
  stop = true;
  reader.join();
  EXPECT_LE(worst.load(), 64u); // the floor (4) or the probed 64, never 128
}

TEST(State, GeometryRoundTripsTheView)
{
  InstallExynos();
  jf_state_init();
  jf_geometry g = jf_state_geometry();
  EXPECT_EQ(g.iline, 64u);
  EXPECT_EQ(g.dline, 64u);
  EXPECT_FALSE(g.idc);
  EXPECT_FALSE(g.per_call_guard);
  ASSERT_NE(jf_state_view(), nullptr);
  EXPECT_EQ(jf_state_view()->cpus[7].iline, 128u);
}

TEST(State, FloorIsTheArchitecturalMinimum)
{
  jf_geometry g = jf_geometry_floor();
  EXPECT_EQ(g.iline, 4u);
  EXPECT_EQ(g.dline, 4u);
  EXPECT_FALSE(g.idc);
  EXPECT_FALSE(g.dic);
}
