// The double-mapped views unit (rig/plugin/plugin_alias.c) on its own:
// the system calls a W^X JIT makes (a memfd mapped twice, RW and RX;
// mremap, munmap, mprotect, madvise, brk, shmat/shmdt) told to it as the
// plugin's syscall callbacks tell them, and what it answers: the canonical
// address the model keys each guest address by, which mapping is a view
// nothing is fetched through, what the model keeps of memory that was
// unmapped, moved or given new contents, and which executable lines it
// makes QEMU translate again. The rig is the real one (alias_rig.c), with
// the real model and store (plugin_rig.c).
#include <gtest/gtest.h>

#include <sys/ipc.h>
#include <sys/mman.h>
#include <sys/shm.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

#include <glib.h>
// QEMU's header declares C functions without saying so to C++.
extern "C" {
#include <qemu-plugin.h>
}

#include "alias_rig.h"
#include "model_coherence.h"

// ---- test doubles for the QEMU plugin API --------------------------------
// The units linked here (plugin_alias.c, plugin_store.c) call QEMU's guest
// memory access besides the scoreboard (qemu_scoreboard_double.cc), which
// QEMU exports to a loaded plugin. In the stand-ins guest memory reads
// back a byte pattern of its address, and every debug write (how
// plugin_alias.c makes QEMU translate a page again) is recorded.
namespace
{
struct GuestWrite {
  uint64_t va;
  size_t len;
  bool operator==(const GuestWrite &o) const
  {
    return va == o.va && len == o.len;
  }
};
std::vector<GuestWrite> g_writes;

unsigned char GuestByte(uint64_t va)
{
  return static_cast<unsigned char>(va * 7 + 1);
}
} // namespace

extern "C" {
bool qemu_plugin_read_memory_vaddr(uint64_t addr, GByteArray *data, size_t len)
{
  for (size_t i = 0; i < len; i++) {
    unsigned char b = GuestByte(addr + i);
    g_byte_array_append(data, &b, 1);
  }
  return true;
}

bool qemu_plugin_write_memory_vaddr(uint64_t addr, GByteArray *data)
{
  // The unit writes back the bytes it read: the same ones.
  for (guint i = 0; i < data->len; i++)
    EXPECT_EQ(data->data[i], GuestByte(addr + i)) << "byte " << i << " of the write at " << addr;
  g_writes.push_back({addr, data->len});
  return true;
}
} // extern "C"

namespace
{

// The aarch64 (asm-generic) system call numbers and the guest's flags.
constexpr int64_t kShmat = 196, kShmdt = 197, kBrk = 214, kMunmap = 215, kMremap = 216, kMmap = 222,
                  kMprotect = 226, kMadvise = 233;
constexpr uint64_t kRead = 1, kWrite = 2, kExec = 4;
constexpr uint64_t kShared = 0x01, kPrivate = 0x02, kFixed = 0x10, kAnonymous = 0x20;
constexpr uint64_t kMremapMaymove = 1;
constexpr uint64_t kMadvDontneed = 4, kMadvFree = 8;
constexpr uint64_t kShmExec = 0100000, kShmRdonly = 010000;

constexpr uint64_t kCtr = 0x84448004; // Cortex-A53: 64-byte lines
constexpr uint64_t kPage = 4096;
constexpr uint64_t kFileBit = UINT64_C(1) << 63;
constexpr uint64_t kRw = 0x10000, kRx = 0x40000; // the two views
constexpr uint64_t kPrivateVa = 0x90000;
constexpr uint64_t kWriterPc = 0x4001f0;
constexpr uint32_t kMovInsn = 0xd2800000;

struct AliasUnit : ::testing::Test {
  AliasUnit()
  {
    g_writes.clear();
    rig = alias_rig_new(kCtr);
    model_thread_init(&t, 0, 0, 0);
  }
  ~AliasUnit() override
  {
    model_thread_clear(&t);
    alias_rig_free(rig);
    for (int fd : fds)
      close(fd);
    for (int id : segments)
      shmctl(id, IPC_RMID, nullptr);
  }

  // One syscall as the plugin's callbacks report it: entry, then return.
  int64_t Syscall(int64_t num, std::array<uint64_t, 6> args, int64_t ret)
  {
    alias_rig_syscall(rig, num, args.data(), ret);
    return ret;
  }
  // A memfd of PAGES pages (linux-user hands the guest's fds to the host,
  // where the unit fstats them).
  int Memfd(uint64_t pages)
  {
    int fd = memfd_create("jit", 0);
    EXPECT_GE(fd, 0);
    EXPECT_EQ(ftruncate(fd, static_cast<off_t>(pages * kPage)), 0);
    fds.push_back(fd);
    return fd;
  }
  void Mmap(uint64_t at, uint64_t len, uint64_t prot, uint64_t flags, int fd, uint64_t offset)
  {
    Syscall(kMmap, {0, len, prot, flags, static_cast<uint64_t>(static_cast<int64_t>(fd)), offset},
            static_cast<int64_t>(at));
  }
  // The JIT's pair: FD's first PAGES pages at kRw (RW) and kRx (RX).
  void MapBothViews(int fd, uint64_t pages)
  {
    Mmap(kRw, pages * kPage, kRead | kWrite, kShared, fd, 0);
    Mmap(kRx, pages * kPage, kRead | kExec, kShared, fd, 0);
  }
  uint64_t Canon(uint64_t va)
  {
    return alias_rig_canon(rig, va);
  }
  bool NonexecView(uint64_t va)
  {
    return alias_rig_nonexec_view(rig, va);
  }
  model *Model()
  {
    return alias_rig_model(rig);
  }
  void Store(uint64_t va)
  {
    model_store(Model(), &t, va, 4, kWriterPc);
  }
  // A store of BYTES at VA, as the store path tells the unit of it.
  void NoteStore(uint64_t va, unsigned bytes)
  {
    alias_rig_note_store(rig, va, bytes);
  }
  // A context synchronisation: the debug writes it made, by address.
  std::vector<GuestWrite> Refresh()
  {
    g_writes.clear();
    alias_rig_refresh_views(rig);
    std::vector<GuestWrite> w = g_writes;
    std::sort(w.begin(), w.end(),
              [](const GuestWrite &x, const GuestWrite &y) { return x.va < y.va; });
    return w;
  }
  // Whether the model keeps a store to the word at VA: its record says the
  // word was stored (a word never stored has no fresh-after bound, 0).
  // As when QEMU translates a fetch of it, which may make the record.
  bool Kept(uint64_t va)
  {
    const model_word *w = model_word_for_fetch(Model(), va, kMovInsn, false);
    return w && model_fresh_after(Model(), w, model_view(Model(), va)) != 0;
  }

  plugin_rig *rig;
  model_thread t;
  std::vector<int> fds;
  std::vector<int> segments;
};

// ---- the canonical address ------------------------------------------------

TEST_F(AliasUnit, TwoViewsOfAMemfdShareOneCanonicalAddress)
{
  MapBothViews(Memfd(2), 2);
  EXPECT_EQ(Canon(kRw + 0x124), Canon(kRx + 0x124));
  EXPECT_EQ(Canon(kRw + kPage + 0x124), Canon(kRx + kPage + 0x124));
  EXPECT_NE(Canon(kRw + 0x124), Canon(kRx + kPage + 0x124));
  // A file address: bit 63 set, the offset in the file kept.
  EXPECT_NE(Canon(kRw) & kFileBit, 0u);
  EXPECT_EQ(Canon(kRx + kPage + 0x124) - Canon(kRx), kPage + 0x124);
  // Memory in no shared mapping, or just past one, is its own address.
  EXPECT_EQ(Canon(kPrivateVa + 8), kPrivateVa + 8);
  EXPECT_EQ(Canon(kRw + 2 * kPage), kRw + 2 * kPage);
  EXPECT_EQ(Canon(kRx - 4), kRx - 4);
}

TEST_F(AliasUnit, TheFileOffsetLinesTheViewsUp)
{
  int fd = Memfd(2);
  Mmap(kRw, 2 * kPage, kRead | kWrite, kShared, fd, 0);
  // The RX view shows only the file's second page.
  Mmap(kRx, kPage, kRead | kExec, kShared, fd, kPage);
  EXPECT_EQ(Canon(kRx + 0x40), Canon(kRw + kPage + 0x40));
  EXPECT_NE(Canon(kRx + 0x40), Canon(kRw + 0x40));
}

TEST_F(AliasUnit, EachFileHasItsOwnCanonicalRangeAndKeepsIt)
{
  int a = Memfd(1), b = Memfd(1);
  Mmap(kRw, kPage, kRead | kWrite, kShared, a, 0);
  Mmap(kRx, kPage, kRead | kExec, kShared, b, 0);
  EXPECT_NE(Canon(kRw), Canon(kRx));
  // File A mapped again, anywhere: the same canonical address as before.
  Mmap(0x60000, kPage, kRead, kShared, a, 0);
  EXPECT_EQ(Canon(0x60000), Canon(kRw));
}

TEST_F(AliasUnit, APrivateMappingOfAFileIsItsOwnAddress)
{
  int fd = Memfd(1);
  Mmap(kRw, kPage, kRead | kWrite, kShared, fd, 0);
  Mmap(kRx, kPage, kRead | kExec, kPrivate, fd, 0);
  EXPECT_EQ(Canon(kRx + 0x10), kRx + 0x10);
  EXPECT_FALSE(NonexecView(kRw)); // no executable view shows the file
}

TEST_F(AliasUnit, AFailedSyscallChangesNothing)
{
  int fd = Memfd(1);
  MapBothViews(fd, 1);
  uint64_t canon = Canon(kRx);
  Syscall(kMunmap, {kRx, kPage, 0, 0, 0, 0}, -22); // EINVAL
  EXPECT_EQ(Canon(kRx), canon);
  Syscall(kMmap, {0, kPage, kRead, kShared, static_cast<uint64_t>(fd), 0}, -12); // ENOMEM
  constexpr uint64_t kEnomemAsVa = static_cast<uint64_t>(-12);
  EXPECT_EQ(Canon(kEnomemAsVa), kEnomemAsVa); // no mapping at the error "address"
  EXPECT_TRUE(NonexecView(kRw));
}

// ---- which view is fetched through -----------------------------------------

TEST_F(AliasUnit, TheRwViewOfExecutableFilePagesIsANonexecView)
{
  MapBothViews(Memfd(1), 1);
  EXPECT_TRUE(NonexecView(kRw + 0x80));
  EXPECT_FALSE(NonexecView(kRx + 0x80));
  EXPECT_FALSE(NonexecView(kPrivateVa));
}

TEST_F(AliasUnit, OneMappingFlippedByMprotectIsNoSecondView)
{
  Mmap(kRw, kPage, kRead | kWrite, kShared, Memfd(1), 0);
  EXPECT_FALSE(NonexecView(kRw));
  Syscall(kMprotect, {kRw, kPage, kRead | kExec, 0, 0, 0}, 0);
  EXPECT_FALSE(NonexecView(kRw));
  Syscall(kMprotect, {kRw, kPage, kRead | kWrite, 0, 0, 0}, 0);
  EXPECT_FALSE(NonexecView(kRw));
}

TEST_F(AliasUnit, MprotectDecidesWhichViewIsFetchedThrough)
{
  MapBothViews(Memfd(2), 2);
  // The RX view's first page made RW: the file's first page has no
  // executable view now, its second still has. The RW view is marked per
  // mapping (both pages); the RX view's pieces page by page.
  Syscall(kMprotect, {kRx, kPage, kRead | kWrite, 0, 0, 0}, 0);
  EXPECT_TRUE(NonexecView(kRw));
  EXPECT_TRUE(NonexecView(kRw + kPage));
  EXPECT_FALSE(NonexecView(kRx)); // RW, but no executable view shows file page 0
  EXPECT_FALSE(NonexecView(kRx + kPage));
  // Both of the RX view's pages RW: no executable view is left.
  Syscall(kMprotect, {kRx + kPage, 1, kRead | kWrite, 0, 0, 0}, 0); // LEN rounds up to the page
  EXPECT_FALSE(NonexecView(kRw));
  EXPECT_FALSE(NonexecView(kRx));
  // Still one file: the split pieces keep their canonical addresses.
  EXPECT_EQ(Canon(kRx + kPage + 4), Canon(kRw + kPage + 4));
}

// ---- what the model keys and keeps ----------------------------------------

TEST_F(AliasUnit, AStoreThroughTheRwViewIsTheWordTheRxViewFetches)
{
  MapBothViews(Memfd(2), 2);
  Store(kRw + 0x100);
  EXPECT_TRUE(Kept(kRx + 0x100));
  EXPECT_FALSE(Kept(kRx + kPage + 0x100)); // the file's other page
  // The two views are different views of the word (VIPT I-caches).
  EXPECT_NE(model_view(Model(), kRx), model_view(Model(), kRw));
  EXPECT_EQ(model_view(Model(), kPrivateVa), MODEL_OWN_VIEW);
}

TEST_F(AliasUnit, UnmappingOneViewKeepsTheFilesRecordsAndBothUnmappedForgetsThem)
{
  int fd = Memfd(1);
  MapBothViews(fd, 1);
  Store(kRw + 0x100);
  size_t live = model_pages_live(Model());
  Syscall(kMunmap, {kRx, kPage, 0, 0, 0, 0}, 0);
  EXPECT_EQ(Canon(kRx + 0x100), kRx + 0x100);
  EXPECT_NE(Canon(kRw + 0x100) & kFileBit, 0u);
  EXPECT_FALSE(NonexecView(kRw)); // no executable view left
  EXPECT_TRUE(Kept(kRw + 0x100)); // the RW view still shows the page
  EXPECT_EQ(model_pages_live(Model()), live);
  Syscall(kMunmap, {kRw, kPage, 0, 0, 0, 0}, 0);
  EXPECT_EQ(model_pages_live(Model()), live - 1);
  // The file mapped again: nothing of the old record is left.
  Mmap(kRx, kPage, kRead | kExec, kShared, fd, 0);
  EXPECT_FALSE(Kept(kRx + 0x100));
}

TEST_F(AliasUnit, UnmappingTheMiddleOfAViewSplitsIt)
{
  Mmap(kRw, 3 * kPage, kRead | kWrite, kShared, Memfd(3), 0);
  uint64_t first = Canon(kRw);
  Syscall(kMunmap, {kRw + kPage, kPage, 0, 0, 0, 0}, 0);
  EXPECT_EQ(Canon(kRw + 8), first + 8);
  EXPECT_EQ(Canon(kRw + kPage + 8), kRw + kPage + 8);
  EXPECT_EQ(Canon(kRw + 2 * kPage + 8), first + 2 * kPage + 8);
}

TEST_F(AliasUnit, MapFixedOverPrivateMemoryForgetsWhatItHeld)
{
  Store(kPrivateVa + 0x10);
  ASSERT_TRUE(Kept(kPrivateVa + 0x10));
  Mmap(kPrivateVa, kPage, kRead | kWrite, kPrivate | kAnonymous | kFixed, -1, 0);
  EXPECT_FALSE(Kept(kPrivateVa + 0x10));
}

TEST_F(AliasUnit, MremapMovesAFileViewAndItKeepsItsFile)
{
  MapBothViews(Memfd(2), 2);
  Store(kRw + 0x100);
  uint64_t canon = Canon(kRw + 0x100);
  constexpr uint64_t kTo = 0x80000;
  Syscall(kMremap, {kRx, 2 * kPage, 2 * kPage, kMremapMaymove, 0, 0}, kTo);
  EXPECT_EQ(Canon(kTo + 0x100), canon);
  EXPECT_EQ(Canon(kRx + 0x100), kRx + 0x100);
  EXPECT_TRUE(NonexecView(kRw)); // the moved view is still executable
  EXPECT_FALSE(NonexecView(kTo));
  EXPECT_TRUE(Kept(kTo + 0x100));
}

TEST_F(AliasUnit, MremapMovesPrivateRecordsToTheNewAddress)
{
  Store(kPrivateVa + 0x10);
  constexpr uint64_t kTo = 0xa0000;
  Syscall(kMremap, {kPrivateVa, kPage, kPage, kMremapMaymove, 0, 0}, kTo);
  EXPECT_TRUE(Kept(kTo + 0x10));
  EXPECT_FALSE(Kept(kPrivateVa + 0x10));
}

TEST_F(AliasUnit, MremapShrinkingInPlaceUnmapsTheTail)
{
  Mmap(kRw, 2 * kPage, kRead | kWrite, kShared, Memfd(2), 0);
  uint64_t first = Canon(kRw);
  Syscall(kMremap, {kRw, 2 * kPage, kPage, 0, 0, 0}, kRw);
  EXPECT_EQ(Canon(kRw + 8), first + 8);
  EXPECT_EQ(Canon(kRw + kPage + 8), kRw + kPage + 8);
}

TEST_F(AliasUnit, SharedAnonymousMemoryIsKeyedByItsAddressWhereverItMoves)
{
  constexpr uint64_t kAt = 0x50000, kTo = 0x70000;
  Mmap(kAt, kPage, kRead | kWrite, kShared | kAnonymous, -1, 0);
  EXPECT_EQ(Canon(kAt + 8), kAt + 8);
  Syscall(kMremap, {kAt, kPage, kPage, kMremapMaymove, 0, 0}, kTo);
  EXPECT_EQ(Canon(kTo + 8), kTo + 8);
}

// ---- memory given new contents --------------------------------------------

TEST_F(AliasUnit, MadviseDontneedRetranslatesPrivateCodeButNotSharedMemory)
{
  constexpr uint64_t kSharedVa = 0x50000;
  Mmap(kSharedVa, kPage, kRead | kWrite | kExec, kShared | kAnonymous, -1, 0);
  for (uint64_t va : {kPrivateVa, kSharedVa}) {
    Store(va + 0x10);
    ASSERT_TRUE(Kept(va + 0x10)); // and a translated fetch made it code
  }
  // MADV_FREE tells QEMU's host nothing.
  Syscall(kMadvise, {kPrivateVa, kPage, kMadvFree, 0, 0, 0}, 0);
  EXPECT_TRUE(g_writes.empty());
  Syscall(kMadvise, {kSharedVa, kPage, kMadvDontneed, 0, 0, 0}, 0);
  EXPECT_TRUE(g_writes.empty()) << "shared memory keeps its bytes";
  Syscall(kMadvise, {kPrivateVa, kPage, kMadvDontneed, 0, 0, 0}, 0);
  EXPECT_EQ(g_writes, (std::vector<GuestWrite>{{kPrivateVa, kPage}}));
  EXPECT_FALSE(Kept(kPrivateVa + 0x10)) << "private memory reads zeros now";
  EXPECT_TRUE(Kept(kSharedVa + 0x10));
}

TEST_F(AliasUnit, BrkForgetsThePagesBetweenTheOldAndTheNewBreak)
{
  constexpr uint64_t kHeap = 0x200000;
  Syscall(kBrk, {0, 0, 0, 0, 0, 0}, kHeap + 3 * kPage);
  Store(kHeap + 0x10);
  Store(kHeap + 2 * kPage + 0x10);
  Syscall(kBrk, {kHeap + kPage + 8, 0, 0, 0, 0, 0}, kHeap + kPage + 8);
  EXPECT_TRUE(Kept(kHeap + 0x10));
  EXPECT_FALSE(Kept(kHeap + 2 * kPage + 0x10));
}

// ---- System V shared memory -----------------------------------------------

TEST_F(AliasUnit, TwoAttachmentsOfASegmentAreTwoViewsUntilOneIsDetached)
{
  int id = shmget(IPC_PRIVATE, 2 * kPage, IPC_CREAT | 0600);
  ASSERT_GE(id, 0);
  segments.push_back(id);
  constexpr uint64_t kAt = 0x30000, kAtExec = 0x38000;
  Syscall(kShmat, {static_cast<uint64_t>(id), 0, 0, 0, 0, 0}, kAt);
  Syscall(kShmat, {static_cast<uint64_t>(id), 0, kShmExec | kShmRdonly, 0, 0, 0}, kAtExec);
  EXPECT_EQ(Canon(kAt + kPage + 4), Canon(kAtExec + kPage + 4));
  EXPECT_NE(Canon(kAt) & kFileBit, 0u);
  EXPECT_TRUE(NonexecView(kAt));
  EXPECT_FALSE(NonexecView(kAtExec));
  Syscall(kShmdt, {kAtExec, 0, 0, 0, 0, 0}, 0);
  EXPECT_EQ(Canon(kAtExec + 4), kAtExec + 4);
  EXPECT_EQ(Canon(kAtExec + kPage + 4), kAtExec + kPage + 4); // the segment's whole size
  EXPECT_FALSE(NonexecView(kAt));
}

// ---- QEMU's translations of the executable view ---------------------------

TEST_F(AliasUnit, AStoreThroughTheRwViewRetranslatesTheRxLinesItChanged)
{
  MapBothViews(Memfd(1), 1);
  EXPECT_TRUE(Refresh().empty()) << "nothing stored yet";
  NoteStore(kRw + 0x104, 8);
  EXPECT_EQ(Refresh(), (std::vector<GuestWrite>{{kRx + 0x100, 64}}));
  EXPECT_TRUE(Refresh().empty()) << "each marked line once";
  // Across a line boundary: both lines.
  NoteStore(kRw + 0x13c, 8);
  EXPECT_EQ(Refresh(), (std::vector<GuestWrite>{{kRx + 0x100, 64}, {kRx + 0x140, 64}}));
}

TEST_F(AliasUnit, WithTwoExecutableViewsAStoreRetranslatesEveryOtherOne)
{
  constexpr uint64_t kRx2 = 0x60000;
  int fd = Memfd(1);
  MapBothViews(fd, 1);
  Mmap(kRx2, kPage, kRead | kExec, kShared, fd, 0);
  // Through the first RX view: QEMU sees that one itself, not the second.
  NoteStore(kRx + 0x204, 4);
  EXPECT_EQ(Refresh(), (std::vector<GuestWrite>{{kRx2 + 0x200, 64}}));
  // Through the RW view: both.
  NoteStore(kRw + 0x204, 4);
  EXPECT_EQ(Refresh(), (std::vector<GuestWrite>{{kRx + 0x200, 64}, {kRx2 + 0x200, 64}}));
}

TEST_F(AliasUnit, StoresNoOtherExecutableViewShowsMarkNothing)
{
  MapBothViews(Memfd(1), 1);
  // Through the RX view itself (QEMU sees that one), and to private memory.
  NoteStore(kRx + 0x104, 8);
  NoteStore(kPrivateVa, 8);
  EXPECT_TRUE(Refresh().empty());
  // Marked, then the RX view unmapped: QEMU dropped its translations.
  NoteStore(kRw + 0x104, 8);
  Syscall(kMunmap, {kRx, kPage, 0, 0, 0, 0}, 0);
  EXPECT_TRUE(Refresh().empty());
}

} // namespace
