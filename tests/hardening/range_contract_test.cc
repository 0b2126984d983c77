// The range contract of jitflush_clear_cache (include/jitflush.h) through
// the public API, on the host and, cross-built, under qemu-aarch64.
//
// What each platform can show:
// - x86_64: the flush touches no memory (instruction fetch is coherent), so
//   an unmapped range does not fault, exactly as GCC's __clear_cache there.
// - AArch64 hardware: dc cvau / ic ivau on an unmapped line fault with
//   SIGSEGV (a translation fault, Arm ARM D8 "Cache maintenance
//   instructions and faults"), as __clear_cache's loop does.
// - qemu-aarch64 (checked with 10.0): dc cvau/civac/cvac and ic ivau are
//   no-ops in linux-user mode and never fault. The fault tests then compare
//   jitflush with the compiler's __clear_cache on the same range: whatever
//   the platform does, both must agree.
// A range that the implementation mistook for a wrapping one would loop
// over (nearly) the whole 2^64 address space: every "does nothing" case
// runs under a watchdog so that such a loop fails instead of hanging.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstring>

#include "child_process.h"
#include "jitflush.h"

namespace
{
using hardening::ChildOutcome;
using hardening::RunInChild;

char *Ptr(uintptr_t a)
{
  return reinterpret_cast<char *>(a);
}

size_t PageSize()
{
  return static_cast<size_t>(sysconf(_SC_PAGESIZE));
}

// PAGES pages of read-write memory followed by one page with no mapping at
// all (munmap'ed), so that "unmapped" is an address nothing else will take
// in this single-threaded child.
struct MappedThenHole {
  char *base = nullptr;
  char *hole = nullptr;
  size_t size = 0;
  explicit MappedThenHole(size_t pages)
  {
    size = (pages + 1) * PageSize();
    void *p = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
      return;
    base = static_cast<char *>(p);
    hole = base + pages * PageSize();
    munmap(hole, PageSize());
  }
  ~MappedThenHole()
  {
    if (base)
      munmap(base, size - PageSize());
  }
};

// Where a fault was, as the kernel reported it (si_addr), and where the
// hole was: written by the child into memory shared with the parent.
struct FaultRecord {
  uintptr_t hole;
  uintptr_t fault_address;
};
FaultRecord *shared_record = nullptr;

void ExitOnFault(int, siginfo_t *info, void *)
{
  if (shared_record)
    shared_record->fault_address = reinterpret_cast<uintptr_t>(info->si_addr);
  _exit(77);
}
constexpr int kFaulted = 77;

void CatchFaults()
{
  struct sigaction sa = {};
  sa.sa_sigaction = ExitOnFault;
  sa.sa_flags = SA_SIGINFO;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGSEGV, &sa, nullptr);
  sigaction(SIGBUS, &sa, nullptr);
}

using FlushFn = void (*)(char *, char *);
void JitflushFlush(char *b, char *e)
{
  jitflush_clear_cache(b, e);
}
void CompilerFlush(char *b, char *e)
{
  __builtin___clear_cache(b, e);
}

// Runs FLUSH on a range relative to a fresh MappedThenHole in a child; the
// outcome says whether it returned (status 0) or faulted (kFaulted), and
// *RECORD where.
ChildOutcome FlushInChild(FlushFn flush, size_t pages, intptr_t from_hole, intptr_t to_hole,
                          FaultRecord *record)
{
  void *p =
      mmap(nullptr, sizeof(FaultRecord), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED)
    return ChildOutcome{};
  shared_record = static_cast<FaultRecord *>(p);
  *shared_record = FaultRecord{0, 0};
  ChildOutcome outcome = RunInChild([=] {
    MappedThenHole m(pages);
    if (!m.base)
      return 90;
    shared_record->hole = reinterpret_cast<uintptr_t>(m.hole);
    CatchFaults();
    flush(m.hole + from_hole, m.hole + to_hole);
    return 0;
  });
  *record = *shared_record;
  munmap(p, sizeof(FaultRecord));
  shared_record = nullptr;
  return outcome;
}

// Makes CALLS on a fresh MappedThenHole of PAGES pages in a child that
// catches faults; expects the child to return from them (status 0).
void ExpectNoFault(size_t pages, void (*calls)(const MappedThenHole &m))
{
  auto outcome = RunInChild([=] {
    MappedThenHole m(pages);
    if (!m.base)
      return 90;
    CatchFaults();
    calls(m);
    return 0;
  });
  EXPECT_TRUE(outcome.exited && outcome.status == 0) << outcome.Describe();
}
} // namespace

TEST(RangeContract, NullEmptyAndReversedRangesDoNothing)
{
  ExpectNoFault(1, [](const MappedThenHole &m) {
    jitflush_clear_cache(nullptr, nullptr);
    jitflush_clear_cache(m.base, m.base);
    jitflush_clear_cache(m.hole, m.hole);              // empty, at an unmapped page
    jitflush_clear_cache(m.hole + PageSize(), m.hole); // reversed over the hole
    jitflush_clear_cache(m.base + 64, m.base);         // reversed
    jitflush_clear_cache(m.base + 1, m.base);          // reversed by one byte
    jitflush_clear_cache_dual(m.hole, m.hole, 0);      // empty dual
    jitflush_clear_cache_dual(nullptr, nullptr, 0);
  });
}

TEST(RangeContract, RangeWrappingThroughTheTopIsTreatedAsReversed)
{
  // [top - 4 KiB, 4 KiB) would wrap through 0: end < begin, so nothing is
  // done. Maintaining it would touch the kernel half (a fault on hardware);
  // looping "forward" from begin to end the long way round never ends.
  auto outcome = RunInChild([] {
    CatchFaults();
    jitflush_clear_cache(Ptr(UINTPTR_MAX - 0xfff), Ptr(0x1000));
    jitflush_clear_cache(Ptr(UINTPTR_MAX), Ptr(1));
    jitflush_clear_cache(Ptr(UINTPTR_MAX - 63), Ptr(UINTPTR_MAX - 64));
    return 0;
  });
  EXPECT_TRUE(outcome.exited && outcome.status == 0) << outcome.Describe();
}

TEST(RangeContract, UnalignedRangesEndingAtAMappingEdgeStayInside)
{
  // Unaligned ends are covered by aligning the start down to the line and
  // maintaining every line that holds a byte of the range, up to the line
  // holding end-1 and no further: a range that ends exactly where the
  // mapping ends must not touch the unmapped page behind it.
  ExpectNoFault(2, [](const MappedThenHole &m) {
    for (unsigned len = 1; len <= 300; len += 7)
      for (unsigned skew = 0; skew < 8; skew++) {
        char *end = m.hole - skew;
        jitflush_clear_cache(end - len, end);
        jitflush_clear_cache_dual(end - len, end - len, len);
      }
  });
}

TEST(RangeContract, HugeMappedRangeCompletes)
{
  constexpr size_t kSize = 64u << 20; // 64 MiB
  void *p = mmap(nullptr, kSize, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(p, MAP_FAILED);
  char *b = static_cast<char *>(p);
  std::memset(b, 0xd5, kSize); // touch every page: maintenance needs them mapped in
  auto start = std::chrono::steady_clock::now();
  jitflush_clear_cache(b, b + kSize);
  jitflush_clear_cache(b + 3, b + kSize - 5);
  jitflush_clear_cache_dual(b, b, kSize);
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  RecordProperty("seconds_for_3x64MiB", std::to_string(seconds));
  std::printf("3 flushes of 64 MiB: %.3f s\n", seconds);
  EXPECT_LT(seconds, 120.0);
  munmap(p, kSize);
}

TEST(RangeContract, UnmappedRangeBehavesExactlyAsTheCompilersClearCache)
{
  struct Case {
    const char *what;
    size_t pages;
    intptr_t from, to; // relative to the hole
  } cases[] = {
      {"whole unmapped page", 1, 0, 4096},
      {"one line inside the hole", 1, 128, 192},
      {"mapped tail running into the hole", 1, -256, 256},
  };
  for (const Case &c : cases) {
    FaultRecord ours_at{}, theirs_at{};
    ChildOutcome ours = FlushInChild(JitflushFlush, c.pages, c.from, c.to, &ours_at);
    ChildOutcome theirs = FlushInChild(CompilerFlush, c.pages, c.from, c.to, &theirs_at);
    EXPECT_TRUE(ours.exited) << c.what << ": jitflush " << ours.Describe();
    EXPECT_TRUE(theirs.exited) << c.what << ": __clear_cache " << theirs.Describe();
    EXPECT_EQ(ours.status, theirs.status)
        << c.what << ": jitflush " << ours.Describe() << ", __clear_cache " << theirs.Describe();
    EXPECT_TRUE(ours.status == 0 || ours.status == kFaulted) << c.what << ": " << ours.Describe();
    if (ours.status == kFaulted) {
      // Faulted where the hole is, not before it (a mapped line) and not
      // somewhere unrelated: the same page as __clear_cache.
      EXPECT_GE(ours_at.fault_address, ours_at.hole) << c.what;
      EXPECT_LT(ours_at.fault_address, ours_at.hole + PageSize()) << c.what;
      EXPECT_EQ(ours_at.fault_address - ours_at.hole, theirs_at.fault_address - theirs_at.hole)
          << c.what;
    }
#if defined(__x86_64__) || defined(__i386__)
    // x86: nothing is touched, so nothing can fault.
    EXPECT_EQ(ours.status, 0) << c.what;
#endif
  }
}
