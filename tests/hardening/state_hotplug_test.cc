// CPUs that come online after the probe. Without grouping facts (no
// cpufreq/related_cpus, no topology lists) the geometry is fixed once per
// process, so it is only safe if the probe already covered the CPUs that
// were offline: Linux removes an offline CPU's cache/ and regs/ folders and
// refuses to pin a thread there, so nothing is known about them and the
// floor must cover them. With grouping facts that name them the
// lines are inferred and the state re-probes when one comes online (the
// tests at the end).
//
// The machine is chosen so that ignoring the offline CPUs would be caught:
// the online cluster has the larger lines (Exynos M1, 128/64), the
// hotplugged one the smaller (32/32, QEMU's -cpu max), unlike the rig's
// exynos8890-hotplug.conf where the big cluster is the one offline.
#include <gtest/gtest.h>

#include <string>

#include "fakes/fake_cpus.h"
#include "fakes/fake_fs.h"
#include "probe_gate.h"

extern "C" {
#include "state.h"
}

namespace
{
constexpr uint64_t kM1Ctr = 0x84448005, kM1Midr = 0x531f0011;       // 128 / 64
constexpr uint64_t kSmallCtr = 0x80038003, kSmallMidr = 0x410fd034; // 32 / 32

fakecpus::Machine BigOnlineSmallOffline(bool small_online)
{
  fakecpus::Machine m;
  for (int i = 0; i < 4; i++)
    m.cpus.push_back({kM1Ctr, kM1Midr});
  for (int i = 0; i < 4; i++)
    m.cpus.push_back({kSmallCtr, kSmallMidr, small_online});
  m.start_cpu = 1;
  return m;
}

// Installs the machine with the small cluster online or not, its sysfs
// files written by SYSFS, and returns it.
fakecpus::Machine Plug(bool small_online,
                       void (*sysfs)(const fakecpus::Machine &) = fakecpus::CreateSysfs)
{
  fakecpus::Machine m = BigOnlineSmallOffline(small_online);
  fakecpus::Install(m);
  sysfs(m);
  return m;
}

// Plug, in a process that has not probed yet: no probe held, no state.
void FreshProcessOn(bool small_online,
                    void (*sysfs)(const fakecpus::Machine &) = fakecpus::CreateSysfs)
{
  probegate::Reset();
  Plug(small_online, sysfs);
  jf_state_reset();
}

unsigned ILine(uint64_t ctr)
{
  return 4u << (ctr & 0xf);
}
unsigned DLine(uint64_t ctr)
{
  return 4u << ((ctr >> 16) & 0xf);
}
} // namespace

TEST(StateHotplug, CpusOnlinedAfterInitAreCoveredWithoutAReprobe)
{
  FreshProcessOn(/*small_online=*/false);
  ASSERT_EQ(jf_state_init(), JITFLUSH_INCOMPLETE); // CPUs 4-7 were not seen
  ASSERT_EQ(fakecpus::probes.load(), 1);
  const jf_geometry at_probe = jf_state_geometry();
  // Nothing is known about 4-7: the floor, not the online cores' 128/64.
  EXPECT_EQ(at_probe.iline, static_cast<unsigned>(JITFLUSH_FLOOR_LINE));
  EXPECT_EQ(at_probe.dline, static_cast<unsigned>(JITFLUSH_FLOOR_LINE));

  // The small cluster comes online (Install also zeroes the counters).
  const fakecpus::Machine later = Plug(/*small_online=*/true);
  for (int call = 0; call < 3; call++) {
    EXPECT_EQ(jf_state_init(), JITFLUSH_INCOMPLETE); // the same answer, cached
    const jf_geometry g = jf_state_geometry();
    EXPECT_EQ(g.iline, at_probe.iline);
    EXPECT_EQ(g.dline, at_probe.dline);
    // Safe on every CPU that exists now, the newly online ones included.
    for (unsigned cpu = 0; cpu < later.cpus.size(); cpu++) {
      EXPECT_LE(g.iline, ILine(later.cpus[cpu].ctr)) << "CPU " << cpu;
      EXPECT_LE(g.dline, DLine(later.cpus[cpu].ctr)) << "CPU " << cpu;
    }
  }
  EXPECT_EQ(fakecpus::probes.load(), 0) << "a flush or init probed again after the first probe";
  EXPECT_EQ(fakecpus::ctr_reads.load(), 0);
  // The view still says what was true at the probe.
  const jf_view *view = jf_state_view();
  ASSERT_NE(view, nullptr);
  EXPECT_FALSE(view->cpus[5].online);
  EXPECT_FALSE(view->cpus[5].observed);
  EXPECT_EQ(view->cpus[5].iline_source, JITFLUSH_SRC_FLOOR);
  EXPECT_FALSE(view->global.complete);
}

TEST(StateHotplug, ControlEverythingOnlineTakesTheSmallCoresLine)
{
  // The same machine fully online: the probe sees 32/32 on CPUs 4-7. Shows
  // that the floor above is due to the offline CPUs, not to this fixture.
  FreshProcessOn(/*small_online=*/true);
  ASSERT_EQ(jf_state_init(), JITFLUSH_OK);
  EXPECT_EQ(jf_state_geometry().iline, 32u);
  EXPECT_EQ(jf_state_geometry().dline, 32u);
}

// ---- Inferred lines, the online check and the re-probe ---------------------

namespace
{
// The machine above with a kernel whose grouping misleads, DynamIQ-style:
// the offline 4-7 share the cpufreq policy and topology cluster of the
// observed M1s 0-3, but have 32-byte lines.
void GroupedSysfs(const fakecpus::Machine &m)
{
  fakecpus::CreateSysfs(m);
  for (unsigned cpu = 0; cpu < m.cpus.size(); cpu++) {
    if (!m.cpus[cpu].online)
      continue;
    const std::string dir = "/sys/devices/system/cpu/cpu" + std::to_string(cpu);
    fakefs::CreateFile(dir + "/cpufreq/related_cpus", "0 1 2 3 4 5 6 7 \n");
    fakefs::CreateFile(dir + "/topology/core_siblings_list", "0-7\n");
  }
}
} // namespace

TEST(StateHotplug, InferredLinesAreCheckedAndReprobedWhenTheCpusComeOnline)
{
  FreshProcessOn(/*small_online=*/false, GroupedSysfs);
  ASSERT_EQ(jf_state_init(), JITFLUSH_INCOMPLETE);
  jf_geometry g = jf_state_geometry();
  EXPECT_EQ(g.iline, 128u); // 4-7 inferred as M1s: 128/64, wrongly
  EXPECT_EQ(g.dline, 64u);
  EXPECT_TRUE(g.online_check);
  EXPECT_EQ(jf_state_view()->cpus[5].iline_source, JITFLUSH_SRC_CLUSTER);
  EXPECT_EQ(jf_state_online_changed(), JF_ONLINE_SAME);

  // 4-7 come online: the check sees a CPU it never saw, and the re-probe
  // reads their real 32-byte lines.
  Plug(/*small_online=*/true, GroupedSysfs);
  EXPECT_EQ(jf_state_online_changed(), JF_ONLINE_NEW_CPU);
  ASSERT_TRUE(jf_state_reprobe());
  g = jf_state_geometry();
  EXPECT_EQ(g.iline, 32u);
  EXPECT_EQ(g.dline, 32u);
  EXPECT_FALSE(g.online_check); // every CPU observed now
  EXPECT_EQ(jf_state_online_changed(), JF_ONLINE_SAME);
  // The view is complete now, and says so.
  EXPECT_EQ(jf_state_init(), JITFLUSH_OK);
}

TEST(StateHotplug, UnreadableOnlineListIsNotTakenForNoChange)
{
  FreshProcessOn(/*small_online=*/false, GroupedSysfs);
  ASSERT_EQ(jf_state_init(), JITFLUSH_INCOMPLETE);
  fakefs::CreateFile("/sys/devices/system/cpu/online", "0-3,\n");
  EXPECT_EQ(jf_state_online_changed(), JF_ONLINE_UNKNOWN);
}
