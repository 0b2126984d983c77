// The aarch64 library (real probe, real os seam, real CTR_EL0 reads) in a
// seccomp sandbox. Registered by the HOST build: seccomp_run puts
// qemu-aarch64 in the filter (QEMU does not let the guest install one), one
// run per denial, each selecting its test with --gtest_filter. Each test
// first checks that the denial really is in force, so running it outside
// that sandbox fails with a message instead of testing nothing.
#include <gtest/gtest.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <memory>

#include "../common/a64_codegen.h"
#include "jitflush.h"

namespace
{
unsigned CtrLine(uint64_t ctr, unsigned shift)
{
  return 4u << ((ctr >> shift) & 0xf);
}

uint64_t ReadCtr()
{
  uint64_t ctr;
  __asm__ volatile("mrs %0, ctr_el0" : "=r"(ctr));
  return ctr;
}

// Writes, flushes and runs a small function: the flush works whatever the
// probe could learn.
void ExpectJitRuns()
{
  void *p =
      mmap(nullptr, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(p, MAP_FAILED);
  auto *code = static_cast<uint32_t *>(p) + 5; // unaligned to any line
  uint64_t expected = a64::WriteSum(code, 40, 9);
  jitflush_clear_cache(code, code + 40);
  EXPECT_EQ(reinterpret_cast<uint64_t (*)()>(code)(), expected);
  munmap(p, 4096);
}
} // namespace

TEST(TargetSeccomp, PinningDenied)
{
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(0, &one);
  errno = 0;
  ASSERT_EQ(sched_setaffinity(0, sizeof one, &one), -1)
      << "sched_setaffinity is allowed: run this through the host build's seccomp_run test";
  ASSERT_EQ(errno, EPERM);

  std::unique_ptr<jitflush_info> info(new jitflush_info());
  int status = jitflush_get_info(info.get());
  unsigned observed = 0;
  for (unsigned i = 0; i < info->ncpus; i++)
    observed += info->cpus[i].observed ? 1 : 0;
  EXPECT_LE(observed, 1u) << "only the CPU the probe happened to run on";
  if (info->ncpus_possible > 1) {
    EXPECT_EQ(status, JITFLUSH_INCOMPLETE);
    EXPECT_FALSE(info->complete);
  }
  // Safe: no larger than this core's line, nor than any CPU's own record.
  uint64_t ctr = ReadCtr();
  EXPECT_LE(info->iline, CtrLine(ctr, 0));
  EXPECT_LE(info->dline, CtrLine(ctr, 16));
  for (unsigned i = 0; i < info->ncpus; i++) {
    EXPECT_LE(info->iline, info->cpus[i].iline) << "cpu " << info->cpus[i].cpu;
    EXPECT_LE(info->dline, info->cpus[i].dline) << "cpu " << info->cpus[i].cpu;
  }
  EXPECT_EQ(info->per_call_guard, !info->complete && (info->iline > JITFLUSH_FLOOR_LINE ||
                                                      info->dline > JITFLUSH_FLOOR_LINE));
  ExpectJitRuns();
}

TEST(TargetSeccomp, MembarrierDenied)
{
  errno = 0;
  ASSERT_EQ(syscall(SYS_membarrier, 0, 0, 0), -1)
      << "membarrier is allowed: run this through the host build's seccomp_run test";
  EXPECT_EQ(jitflush_sync_cores(), JITFLUSH_ERR_UNSUPPORTED);
  char dummy[16] = {0};
  EXPECT_EQ(jitflush_clear_cache_all_threads(dummy, dummy + sizeof dummy),
            JITFLUSH_ERR_UNSUPPORTED);
  ExpectJitRuns();
}

TEST(TargetSeccomp, EverySchedulerCallDenied)
{
  // sched_getaffinity, sched_setaffinity and getcpu: the helper thread runs
  // but learns nothing; every CPU comes from sysfs (here the host's: QEMU
  // does not redirect /sys without an overlay) or the floor. Refusing
  // thread creation cannot be tested this way: QEMU creates its own host
  // threads with the same clone calls (tests/hardening/seccomp_probe_test.cc
  // covers it on the host).
  errno = 0;
  ASSERT_EQ(syscall(SYS_getcpu, nullptr, nullptr, nullptr), -1)
      << "getcpu is allowed: run this through the host build's seccomp_run test";
  std::unique_ptr<jitflush_info> info(new jitflush_info());
  EXPECT_EQ(jitflush_get_info(info.get()), JITFLUSH_INCOMPLETE);
  EXPECT_FALSE(info->complete);
  for (unsigned i = 0; i < info->ncpus; i++) {
    EXPECT_FALSE(info->cpus[i].observed) << "cpu " << info->cpus[i].cpu;
    EXPECT_NE(info->cpus[i].iline_source, JITFLUSH_SRC_CTR_EL0);
    EXPECT_LE(info->iline, info->cpus[i].iline);
  }
  // Nothing was read on a core, so unless everything fell to the floor the
  // flush also honours the current core's CTR_EL0 on every call: that is
  // what keeps it safe when the sysfs estimate (64 on this x86 host) is
  // larger than the emulated core's line (32 for -cpu max).
  if (info->iline > JITFLUSH_FLOOR_LINE || info->dline > JITFLUSH_FLOOR_LINE) {
    EXPECT_TRUE(info->per_call_guard);
  }
  ExpectJitRuns();
}
