// The fake Exynos 8890 that the state tests (host and hardening) probe: CPUs 0-3 Cortex-A53
// (64-byte lines), 4-7 Exynos M1 (128-byte I-lines), unpinned threads on a
// big core. Its safe line is 64; a flush must only ever see the floor (4,
// while the probe runs) or 64, never 128.
#pragma once
#include "fake_cpus.h"
#include "fake_fs.h"

extern "C" {
#include "state.h"
}

namespace fakeexynos
{

constexpr unsigned kExynosSafeLine = 64;
constexpr unsigned kFloorLine = JITFLUSH_FLOOR_LINE;

inline void InstallExynos()
{
  fakecpus::Machine m;
  for (int i = 0; i < 4; i++)
    m.cpus.push_back({0x84448004, 0x410fd034});
  for (int i = 0; i < 4; i++)
    m.cpus.push_back({0x84448005, 0x531f0011});
  m.start_cpu = 6;
  fakecpus::Install(m);
  fakefs::Reset();
  fakefs::CreateFile("/sys/devices/system/cpu/possible", "0-7\n");
  jf_state_reset();
}

// A geometry a flush may legally use on that machine at any moment.
inline bool IsFloor(const jf_geometry &g)
{
  return g.iline == kFloorLine && g.dline == kFloorLine && !g.idc && !g.dic;
}
inline bool IsProbed(const jf_geometry &g)
{
  return g.iline == kExynosSafeLine && g.dline == kExynosSafeLine && !g.idc && !g.dic &&
         !g.per_call_guard;
}

} // namespace fakeexynos
