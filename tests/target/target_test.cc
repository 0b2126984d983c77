// Target tests: the aarch64 library on each QEMU CPU model.
//
// Target.*: what stock qemu-aarch64 -cpu MODEL can observe (the probe, the
//   reported geometry, the API contract). JITFLUSH_EXPECT_ILINE/DLINE come
//   from the CTest registration, one run per CPU model, from QEMU's CTR_EL0
//   for that model.
// TargetFlush.*: flush correctness. Stock QEMU re-translates modified code
//   by itself, so there these tests would pass with jitflush_clear_cache
//   doing nothing; they are registered only under the rig (jitflush-emu
//   with qemu-configs/models/MODEL.conf, the same model on every core),
//   whose coherence checker exits 86 on the first stale fetch
//   (tests/target/CMakeLists.txt). ci/check/mutate-flush.sh proves they can fail.
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <memory>

#include "../common/a64_codegen.h"
#include "jitflush.h"

namespace
{
unsigned EnvUnsigned(const char *name)
{
  const char *v = std::getenv(name);
  return v ? static_cast<unsigned>(std::strtoul(v, nullptr, 0)) : 0;
}

struct Buffer {
  size_t size;
  uint8_t *base;
  explicit Buffer(size_t n) : size(n)
  {
    void *p =
        mmap(nullptr, n, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    base = p == MAP_FAILED ? nullptr : static_cast<uint8_t *>(p);
  }
  ~Buffer()
  {
    if (base)
      munmap(base, size);
  }
};

using Fn = uint64_t (*)();
} // namespace

TEST(Target, GlobalLineEqualsTheEmulatedModel)
{
  unsigned iline = EnvUnsigned("JITFLUSH_EXPECT_ILINE"),
           dline = EnvUnsigned("JITFLUSH_EXPECT_DLINE");
  ASSERT_NE(iline, 0u) << "JITFLUSH_EXPECT_ILINE is not set: run through ctest";
  std::unique_ptr<jitflush_info> info(new jitflush_info());
  ASSERT_EQ(jitflush_get_info(info.get()), JITFLUSH_OK);
  EXPECT_EQ(info->iline, iline);
  EXPECT_EQ(info->dline, dline);
  // IDC/DIC differ between QEMU releases for the same model (10.0 gives
  // neoverse-n2 IDC only, later ones IDC+DIC), so compare them with this
  // model's own register rather than a table.
  uint64_t ctr;
  __asm__ volatile("mrs %0, ctr_el0" : "=r"(ctr));
  EXPECT_EQ(info->idc, ((ctr >> 28) & 1) != 0);
  EXPECT_EQ(info->dic, ((ctr >> 29) & 1) != 0);
  EXPECT_TRUE(info->complete);
  EXPECT_FALSE(info->heterogeneous); // one CTR_EL0 for all threads in QEMU
  EXPECT_FALSE(info->per_call_guard);
  EXPECT_STREQ(info->platform, "aarch64-linux");
  ASSERT_GT(info->ncpus, 0u);
  for (unsigned i = 0; i < info->ncpus; i++) {
    EXPECT_TRUE(info->cpus[i].observed) << "cpu " << info->cpus[i].cpu;
    EXPECT_EQ(info->cpus[i].iline_source, JITFLUSH_SRC_CTR_EL0);
  }
}

TEST(Target, InitIsIdempotent)
{
  int first = jitflush_init();
  EXPECT_EQ(jitflush_init(), first);
  EXPECT_EQ(jitflush_get_info(nullptr), JITFLUSH_ERR_ARG);
}

// Writes functions of varied lengths at varied, line-unaligned offsets
// into one 16 KiB buffer, flushes each, runs it and checks its result.
// The same bytes are rewritten many times with different code.
TEST(TargetFlush, SmallJitRunsWhatItWrote)
{
  Buffer buf(16 * 1024);
  ASSERT_NE(buf.base, nullptr);
  unsigned runs = 0;
  for (uint32_t round = 0; round < 200; round++) {
    size_t words = 2 + (round * 37) % 1500; // up to ~6 KiB
    size_t offset = ((round * 1237) % (buf.size - words * 4)) & ~size_t{3};
    uint32_t *code = reinterpret_cast<uint32_t *>(buf.base + offset);
    uint64_t expected = a64::WriteSum(code, words, round + 1);
    jitflush_clear_cache(code, code + words);
    ASSERT_EQ(reinterpret_cast<Fn>(code)(), expected) << "round " << round << " offset " << offset;
    runs++;
  }
  EXPECT_EQ(runs, 200u);
}

TEST(TargetFlush, EmptyAndReversedRangesAreNoOps)
{
  Buffer buf(4096);
  ASSERT_NE(buf.base, nullptr);
  uint32_t *code = reinterpret_cast<uint32_t *>(buf.base);
  uint64_t expected = a64::WriteSum(code, 8, 7);
  jitflush_clear_cache(code, code + 8);
  jitflush_clear_cache(code + 8, code);   // reversed: nothing
  jitflush_clear_cache(code, code);       // empty: nothing
  jitflush_clear_cache(nullptr, nullptr); // empty: nothing
  EXPECT_EQ(reinterpret_cast<Fn>(code)(), expected);
}

TEST(TargetFlush, OneByteUnalignedRangeCoversItsLine)
{
  Buffer buf(4096);
  ASSERT_NE(buf.base, nullptr);
  uint32_t *code = reinterpret_cast<uint32_t *>(buf.base + 4096 - 64);
  uint64_t expected = a64::WriteSum(code, 16, 11);
  jitflush_clear_cache(reinterpret_cast<char *>(code) + 3, reinterpret_cast<char *>(code) + 61);
  EXPECT_EQ(reinterpret_cast<Fn>(code)(), expected);
}

// Double-mapped code: one memfd, a RW view and an RX view at different
// offsets within a line. Written through RW, flushed with the dual call,
// run through RX.
TEST(TargetFlush, DualMappedCodeRunsThroughTheExecutableView)
{
  int fd = memfd_create("jitflush-dual", 0);
  ASSERT_GE(fd, 0);
  const size_t size = 64 * 1024;
  ASSERT_EQ(ftruncate(fd, size), 0);
  void *rw = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  void *rx = mmap(nullptr, size, PROT_READ | PROT_EXEC, MAP_SHARED, fd, 0);
  close(fd);
  ASSERT_NE(rw, MAP_FAILED);
  ASSERT_NE(rx, MAP_FAILED);
  for (uint32_t round = 0; round < 100; round++) {
    size_t words = 2 + (round * 53) % 2000;
    size_t offset = ((round * 4099) % (size - words * 4)) & ~size_t{3};
    auto *w = reinterpret_cast<uint32_t *>(static_cast<uint8_t *>(rw) + offset);
    uint64_t expected = a64::WriteSum(w, words, round + 3);
    void *x = static_cast<uint8_t *>(rx) + offset;
    jitflush_clear_cache_dual(w, x, words * 4);
    ASSERT_EQ(reinterpret_cast<Fn>(x)(), expected) << "round " << round;
  }
  munmap(rw, size);
  munmap(rx, size);
}

TEST(TargetFlush, SyncCoresUsesMembarrierSyncCore)
{
  // QEMU passes membarrier through to the host kernel (>= 4.16 here); the
  // rig also counts it as a context synchronisation of every core.
  EXPECT_EQ(jitflush_sync_cores(), JITFLUSH_OK);
  EXPECT_EQ(jitflush_sync_cores(), JITFLUSH_OK); // registered once, still fine
  Buffer buf(4096);
  ASSERT_NE(buf.base, nullptr);
  auto *code = reinterpret_cast<uint32_t *>(buf.base);
  uint64_t expected = a64::WriteSum(code, 12, 5);
  EXPECT_EQ(jitflush_clear_cache_all_threads(code, code + 12), JITFLUSH_OK);
  EXPECT_EQ(reinterpret_cast<Fn>(code)(), expected);
}
