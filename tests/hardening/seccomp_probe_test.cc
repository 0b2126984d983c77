// The real Linux scheduler seam (lib/os_linux.c) and membarrier seam
// (lib/sync_linux.c) inside a seccomp sandbox that refuses what they ask
// for. Each case forks a child, installs the filter there (a filter cannot
// be removed, so the test process itself stays unfiltered) and runs the
// probe and the policy for real; only the register reads are faked
// (big_core_regs.c) so that this runs on x86_64 as well as AArch64.
//
// What must hold: never a crash; a refused probe gives an incomplete view
// whose line is still safe for every CPU the kernel says exists.
#include <gtest/gtest.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <new>
#include <string>
#include <vector>

#include "child_process.h"
#include "fakes/fake_fs.h"
#include "seccomp_deny.h"

extern "C" {
#include "os.h"
#include "state.h"
#include "jitflush.h"
}

#ifndef SYS_clone3
#define SYS_clone3 435
#endif

namespace
{
constexpr unsigned kSysfsLine = 64; // every CPU, in the fixture
constexpr unsigned kBigILine = 128; // what big_core_regs.c reports
constexpr unsigned kPossible = 8;

// What a child saw, passed back through a shared anonymous mapping.
struct Report {
  int filter_rc = -1;
  int init_status = -100;
  bool complete = true;
  bool per_call_guard = false;
  unsigned iline = 0, dline = 0, observed = 0, ncpus = 0;
  unsigned geometry_iline = 0;
  bool pin_works = false;
  int sync_status = -100;
};

class SharedReport
{
public:
  SharedReport()
  {
    void *p =
        mmap(nullptr, sizeof(Report), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    report_ = p == MAP_FAILED ? nullptr : new (p) Report();
  }
  ~SharedReport()
  {
    if (report_)
      munmap(report_, sizeof(Report));
  }
  Report *get()
  {
    return report_;
  }

private:
  Report *report_;
};

void SysfsEightLittleCores()
{
  fakefs::Reset();
  fakefs::CreateFile("/sys/devices/system/cpu/possible", "0-7\n");
  fakefs::CreateFile("/sys/devices/system/cpu/online", "0-7\n");
  for (unsigned cpu = 0; cpu < kPossible; cpu++) {
    fakefs::CreateL1(cpu, kSysfsLine, kSysfsLine);
    fakefs::CreateMidr(cpu, 0x410fd034); // Cortex-A53
  }
}

// The CPUs below kPossible this process may run on: what an unfiltered
// probe can reach.
unsigned ReachableCpus()
{
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) != 0)
    return 0;
  unsigned n = 0;
  for (unsigned cpu = 0; cpu < kPossible; cpu++)
    n += CPU_ISSET(cpu, &set) ? 1 : 0;
  return n;
}

// Forks; the child installs RULES and runs the probe through jf_state_init.
hardening::ChildOutcome ProbeUnder(const std::vector<seccomp_deny> &rules, Report *report)
{
  return hardening::RunInChild([&] {
    report->filter_rc = rules.empty() ? 0 : seccomp_deny_install(rules.data(), rules.size());
    if (report->filter_rc != 0)
      return 90;
    jf_state_reset();
    report->init_status = jf_state_init();
    const jf_view *view = jf_state_view();
    if (!view)
      return 91;
    report->complete = view->global.complete;
    report->per_call_guard = view->global.per_call_guard;
    report->iline = view->global.iline;
    report->dline = view->global.dline;
    report->ncpus = view->ncpus;
    for (unsigned i = 0; i < view->ncpus; i++)
      report->observed += view->cpus[i].observed ? 1 : 0;
    report->geometry_iline = jf_state_geometry().iline;
    report->pin_works = jf_os_pin_self(static_cast<unsigned>(sched_getcpu()));
    return 0;
  });
}

seccomp_deny Deny(long nr, int err = EPERM)
{
  return seccomp_deny{nr, err, false, 0};
}

class SeccompProbe : public ::testing::Test
{
protected:
  void SetUp() override
  {
    SysfsEightLittleCores();
    ASSERT_NE(report_.get(), nullptr);
  }
  void RunProbe(const std::vector<seccomp_deny> &rules)
  {
    auto outcome = ProbeUnder(rules, report_.get());
    ASSERT_TRUE(outcome.exited && outcome.status == 0)
        << "child " << outcome.Describe() << " (filter_rc " << report_.get()->filter_rc << ")";
  }
  // A refused probe: incomplete, and the line the sysfs says the unobserved
  // CPUs have, never the observed big core's.
  void ExpectIncompleteAndSafe(int status)
  {
    const Report &r = *report_.get();
    EXPECT_EQ(r.init_status, status);
    EXPECT_FALSE(r.complete);
    EXPECT_EQ(r.ncpus, kPossible);
    EXPECT_EQ(r.iline, kSysfsLine);
    EXPECT_EQ(r.dline, kSysfsLine);
    EXPECT_EQ(r.geometry_iline, kSysfsLine); // what flushes use
    EXPECT_TRUE(r.per_call_guard);           // sysfs is an estimate
  }
  SharedReport report_;
};
} // namespace

TEST_F(SeccompProbe, ControlWithoutAFilterPinsToEveryReachableCpu)
{
  RunProbe({});
  const Report &r = *report_.get();
  EXPECT_TRUE(r.pin_works);
  EXPECT_EQ(r.observed, ReachableCpus());
  // Complete only on a host with all eight CPUs; then every one is "big".
  EXPECT_EQ(r.iline, r.observed == kPossible ? kBigILine : kSysfsLine);
}

TEST_F(SeccompProbe, PinningDeniedWithEpermObservesOnlyTheCurrentCpu)
{
  RunProbe({Deny(SYS_sched_setaffinity)});
  EXPECT_FALSE(report_.get()->pin_works);
  EXPECT_LE(report_.get()->observed, 1u); // the CPU it happens to run on
  ExpectIncompleteAndSafe(JITFLUSH_INCOMPLETE);
}

TEST_F(SeccompProbe, PinningDeniedWithEnosysAsOnAnOldSandbox)
{
  RunProbe({Deny(SYS_sched_setaffinity, ENOSYS)});
  EXPECT_LE(report_.get()->observed, 1u);
  ExpectIncompleteAndSafe(JITFLUSH_INCOMPLETE);
}

TEST_F(SeccompProbe, PinningAndGetcpuDeniedObservesNothing)
{
  RunProbe({Deny(SYS_sched_setaffinity), Deny(SYS_getcpu)});
  EXPECT_EQ(report_.get()->observed, 0u);
  ExpectIncompleteAndSafe(JITFLUSH_INCOMPLETE);
}

TEST_F(SeccompProbe, AffinityQueryDeniedStillPinsThroughThePossibleList)
{
  // Without its mask the probe tries every possible CPU; the kernel still
  // allows pinning to the ones the process may use. ENOSYS rather than
  // EPERM: glibc's pthread_getattr_np, which the sanitizer runtimes call for
  // every new thread, fails on EPERM but treats ENOSYS as "no affinity".
  RunProbe({Deny(SYS_sched_getaffinity, ENOSYS)});
  const Report &r = *report_.get();
  EXPECT_EQ(r.observed, ReachableCpus());
  EXPECT_EQ(r.complete, r.observed == kPossible);
  EXPECT_EQ(r.iline, r.observed == kPossible ? kBigILine : kSysfsLine);
}

TEST_F(SeccompProbe, GetcpuDeniedTrustsTheKernelsPin)
{
  RunProbe({Deny(SYS_getcpu)});
  EXPECT_EQ(report_.get()->observed, ReachableCpus());
}

TEST_F(SeccompProbe, ThreadCreationDeniedIsAProbeErrorWithASafeLine)
{
  // glibc's pthread_create uses clone3 and falls back to clone on ENOSYS;
  // refusing both with EAGAIN makes it fail as under RLIMIT_NPROC.
  RunProbe({Deny(SYS_clone3, EAGAIN), Deny(SYS_clone, EAGAIN)});
  EXPECT_EQ(report_.get()->observed, 0u);
  ExpectIncompleteAndSafe(JITFLUSH_ERR_PROBE);
}

TEST_F(SeccompProbe, EverythingDeniedAtOnce)
{
  RunProbe({Deny(SYS_sched_setaffinity), Deny(SYS_sched_getaffinity, ENOSYS), Deny(SYS_getcpu),
            Deny(SYS_clone3, EPERM), Deny(SYS_clone, EPERM)});
  EXPECT_EQ(report_.get()->observed, 0u);
  ExpectIncompleteAndSafe(JITFLUSH_ERR_PROBE);
}

TEST_F(SeccompProbe, NoSysfsAndPinningDeniedFallsToTheFloor)
{
  // A sandbox without /sys: the kernel did not say which CPUs exist, and the
  // CPUs the probe could not reach are unknown: the floor for them.
  fakefs::Reset();
  RunProbe({Deny(SYS_sched_setaffinity)});
  const Report &r = *report_.get();
  EXPECT_EQ(r.init_status, JITFLUSH_INCOMPLETE);
  EXPECT_FALSE(r.complete);
  if (ReachableCpus() > 1) {
    EXPECT_EQ(r.iline, static_cast<unsigned>(JITFLUSH_FLOOR_LINE));
    EXPECT_EQ(r.geometry_iline, static_cast<unsigned>(JITFLUSH_FLOOR_LINE));
  } else {
    EXPECT_EQ(r.iline, kBigILine); // the one CPU there is, observed
  }
}

// jitflush_sync_cores under a filter on membarrier(2).
namespace
{
constexpr unsigned kCmdGlobal = 1u << 0;
constexpr unsigned kCmdPrivateExpeditedSyncCore = 1u << 5;
constexpr unsigned kCmdRegisterPrivateExpeditedSyncCore = 1u << 6;

int SyncUnder(const std::vector<seccomp_deny> &rules)
{
  SharedReport report;
  Report *r = report.get();
  auto outcome = hardening::RunInChild([&] {
    if (!rules.empty() && seccomp_deny_install(rules.data(), rules.size()) != 0)
      return 90;
    r->sync_status = jitflush_sync_cores();
    // A second call takes the cached decision, and must agree.
    return jitflush_sync_cores() == r->sync_status ? 0 : 92;
  });
  EXPECT_TRUE(outcome.exited && outcome.status == 0) << "child " << outcome.Describe();
  return r->sync_status;
}

long MembarrierQuery()
{
  return syscall(SYS_membarrier, 0, 0, 0);
}
} // namespace

TEST(SeccompSync, ControlWithoutAFilterUsesSyncCore)
{
  ASSERT_GE(MembarrierQuery(), 0) << "this kernel has no membarrier (Linux < 4.3)";
  ASSERT_TRUE(MembarrierQuery() & kCmdPrivateExpeditedSyncCore) << "kernel < 4.16";
  EXPECT_EQ(SyncUnder({}), JITFLUSH_OK);
}

TEST(SeccompSync, MembarrierDeniedWithEpermIsUnsupported)
{
  EXPECT_EQ(SyncUnder({Deny(SYS_membarrier, EPERM)}), JITFLUSH_ERR_UNSUPPORTED);
}

TEST(SeccompSync, MembarrierDeniedWithEnosysIsUnsupported)
{
  EXPECT_EQ(SyncUnder({Deny(SYS_membarrier, ENOSYS)}), JITFLUSH_ERR_UNSUPPORTED);
}

TEST(SeccompSync, RegistrationRefusedFallsBackToGlobal)
{
  // As on Linux 4.3 - 4.15, where SYNC_CORE does not exist yet.
  seccomp_deny rule{SYS_membarrier, EPERM, true, kCmdRegisterPrivateExpeditedSyncCore};
  int expected = (MembarrierQuery() & kCmdGlobal) ? JITFLUSH_SYNC_GLOBAL : JITFLUSH_ERR_UNSUPPORTED;
  EXPECT_EQ(SyncUnder({rule}), expected);
}

TEST(SeccompSync, SyncCoreRefusedAfterRegistrationIsASyncError)
{
  seccomp_deny rule{SYS_membarrier, EPERM, true, kCmdPrivateExpeditedSyncCore};
  EXPECT_EQ(SyncUnder({rule}), JITFLUSH_ERR_SYNC);
}
