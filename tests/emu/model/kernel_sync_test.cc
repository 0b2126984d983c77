// The Linux kernel's own cache maintenance (rig/model/model_kernel_sync.c) on
// its own, with the coherence model it drives and no QEMU: one test per
// rule of "What Linux does for you" (docs/COHERENCE-MODEL.md). The rig's
// guest programs (tests/emu/guest/kernel_*.c) check the same rules end to
// end; these say which rule a change broke.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "model_coherence.h"
#include "model_kernel_sync.h"
#include "page_views.h"

namespace
{

// Exynos 8890: LITTLE Cortex-A53 (VIPT I-cache) and big Exynos M1.
constexpr uint64_t kLittleCtr = 0x84448004;
constexpr uint64_t kBigCtr = 0x84448005;
constexpr uint64_t kCode = 0x10000;
constexpr uint64_t kWriterPc = 0x4001f0;
constexpr uint64_t kMprotectPc = 0x400800, kCallerLr = 0x400a10;
constexpr uint32_t kMovInsn = 0xd2800000; // not CMODX-safe

// Double-mapped memfd code: a writable view and an executable view of one
// file page whose canonical address is neither (as for plugin_alias.c's
// file keys), so a fetch through the RX view is a view of its own.
constexpr uint64_t kRw = 0x70000, kRx = 0x90000, kFile = 0x8000000000000000;
uint64_t CanonOf(uint64_t va, void *)
{
  return pageviews::Canon(va, {{kRw, kFile}, {kRx, kFile}});
}
bool NonexecView(uint64_t va, void *)
{
  return pageviews::InPage(va, kRw);
}

class KernelSync : public ::testing::Test
{
protected:
  explicit KernelSync(model_kernel_sync_mode mode = MODEL_KERNEL_SYNC_LINUX)
  {
    const uint64_t ctrs[] = {kLittleCtr, kBigCtr};
    m = model_new(ctrs, 2, &views);
    k = model_kernel_new(m, mode);
    model_thread_init(&writer, 0, 0, 0);
    model_thread_init(&runner, 1, 4, 1);
  }
  ~KernelSync() override
  {
    model_thread_clear(&writer);
    model_thread_clear(&runner);
    model_kernel_free(k);
    model_free(m);
  }

  void Store(uint64_t va, unsigned words = 4)
  {
    model_store(m, &writer, va, 4 * words, kWriterPc);
  }
  // mprotect(PROT_READ | PROT_EXEC) over the page holding VA.
  bool Mprotect(uint64_t va)
  {
    uint64_t canon = CanonOf(va, nullptr);
    return model_kernel_exec_mapped(k, canon, canon == va, "mprotect", kMprotectPc, kCallerLr);
  }
  // mprotect(PROT_READ | PROT_WRITE) over the page holding VA.
  void MprotectRw(uint64_t va)
  {
    model_kernel_not_exec(k, va & ~UINT64_C(4095), 4096);
  }
  // fork(), seen from the child: its private pages (CanonOf's own) are
  // shared with the parent.
  void Fork()
  {
    model_kernel_forked(
        k, [](uint64_t canon, void *) { return (canon & kFile) == 0; }, nullptr);
  }
  // A store the plugin sees first (plugin_alias.c, plugin_alias_note_store),
  // then records. Returns whether its fault synced a copy.
  bool ChildStore(uint64_t va, unsigned words = 4)
  {
    bool synced = model_kernel_store(k, CanonOf(va, nullptr), kWriterPc);
    Store(va, words);
    return synced;
  }
  // The second thread, which never ran an isb, fetches VA.
  model_stale_kind Run(uint64_t va, model_thread *t = nullptr)
  {
    model_kernel_fetch(k, va, CanonOf(va, nullptr));
    model_word *w = model_word_for_fetch(m, va, kMovInsn, false);
    if (!w)
      return MODEL_FRESH;
    return model_fetch(m, t ? t : &runner, w, model_view(m, va), false).kind;
  }
  const model_kernel_note &Note(unsigned i)
  {
    return g_array_index(model_kernel_notes(k), model_kernel_note, i);
  }

  const model_views views = {CanonOf, NonexecView, nullptr};
  model *m;
  model_kernel *k;
  model_thread writer, runner;
};

class KernelSyncNone : public KernelSync
{
protected:
  KernelSyncNone() : KernelSync(MODEL_KERNEL_SYNC_NONE)
  {
  }
};

// [kernel] linux=3.18-anon-skip: __sync_icache_dcache with its early
// return for pages without a mapping.
class KernelSyncAnonSkip : public KernelSync
{
protected:
  KernelSyncAnonSkip()
  {
    model_kernel_set_version(k, MODEL_KERNEL_ANON_SKIP);
  }
};

// A fresh anonymous page written, then mprotect RX: __sync_icache_dcache
// cleans and invalidates it before the executable entry exists, so another
// thread on another cluster runs it with no dc, no ic and no isb.
TEST_F(KernelSync, TheFirstExecMappingOfAFreshPagePublishesItForEveryThread)
{
  Store(kCode);
  ASSERT_EQ(Run(kCode), MODEL_STALE_NOT_CLEANED); // before: nothing published it
  EXPECT_TRUE(Mprotect(kCode));
  EXPECT_EQ(Run(kCode), MODEL_FRESH);
  EXPECT_EQ(Run(kCode + 12, &writer), MODEL_FRESH);
  // The fast path agrees: no bound on the threads' synchronisation.
  model_word *w = model_word_for_fetch(m, kCode, kMovInsn, false);
  EXPECT_EQ(model_fresh_after(m, w, MODEL_OWN_VIEW), 0u);
}

// A page the kernel synced before anyone fetched from it keeps the sync as
// a fact of the page, with no per-word records; the words stored before it
// get it when they are needed, and stores after it (two, an event apart, so
// that a page summary alone would lose which words came before the sync)
// do not.
TEST_F(KernelSync, ASyncOfAPageNobodyFetchedFromIsKeptForThePage)
{
  Store(kCode, 8);
  EXPECT_TRUE(Mprotect(kCode));
  EXPECT_EQ(model_records_live(m), 0u);
  EXPECT_EQ(Note(0).words, 8u);
  Store(kCode + 64);
  model_dsb(m, &writer);
  Store(kCode + 128);
  EXPECT_EQ(Run(kCode), MODEL_FRESH);
  EXPECT_EQ(Run(kCode + 28), MODEL_FRESH);
  EXPECT_EQ(Run(kCode + 64), MODEL_STALE_NOT_CLEANED);
  EXPECT_EQ(Run(kCode + 128), MODEL_STALE_NOT_CLEANED);
  EXPECT_GT(model_records_live(m), 0u);
}

// RX -> RW -> rewrite -> RX: the flag is still set, the kernel does
// nothing the second time, and the rewrite is stale.
TEST_F(KernelSync, ALaterExecMappingOfTheSamePageDoesNotSync)
{
  Store(kCode);
  EXPECT_TRUE(Mprotect(kCode));
  Store(kCode);
  EXPECT_FALSE(Mprotect(kCode));
  EXPECT_EQ(Run(kCode), MODEL_STALE_NOT_CLEANED);
}

// An RWX mapping: the page is mapped executable before the first store
// (its fault syncs an empty page), so the code written into it is stale.
TEST_F(KernelSync, CodeWrittenAfterTheExecMappingIsStale)
{
  EXPECT_TRUE(Mprotect(kCode));
  Store(kCode);
  EXPECT_EQ(Run(kCode), MODEL_STALE_NOT_CLEANED);
}

// flush_dcache_folio clears the flag whenever the kernel writes the page,
// so the next exec mapping syncs again.
TEST_F(KernelSync, AKernelWriteClearsTheFlag)
{
  Store(kCode);
  EXPECT_TRUE(Mprotect(kCode));
  Store(kCode);
  model_kernel_written(k, kCode, kCode + 4096);
  EXPECT_TRUE(Mprotect(kCode));
  EXPECT_EQ(Run(kCode), MODEL_FRESH);
}

// A page unmapped and mapped again is a new page: its flag is clear.
TEST_F(KernelSync, APageFreedAndMappedAgainSyncsAgain)
{
  Store(kCode);
  EXPECT_TRUE(Mprotect(kCode));
  model_kernel_fresh(k, kCode, kCode + 4096);
  Store(kCode);
  EXPECT_TRUE(Mprotect(kCode));
  EXPECT_EQ(Run(kCode), MODEL_FRESH);
}

// Only the synced page: its neighbour was never mapped executable.
TEST_F(KernelSync, TheSyncCoversItsPageOnly)
{
  Store(kCode);
  Store(kCode + 4096);
  EXPECT_TRUE(Mprotect(kCode));
  EXPECT_EQ(Run(kCode), MODEL_FRESH);
  EXPECT_EQ(Run(kCode + 4096), MODEL_STALE_NOT_CLEANED);
}

// A memfd mapped RW and RX: code written through RW, the RX view first
// touched after the write. The fault of the RX view syncs the one page
// both views show, through every view, on the VIPT LITTLE core too.
TEST_F(KernelSync, TheFaultOfALazyExecViewSyncsThePageBothViewsShow)
{
  model_kernel_lazy_view(k, kRx, 4096, "mmap", kMprotectPc, kCallerLr);
  Store(kRw); // after the mapping, before the first fetch
  model_thread little;
  model_thread_init(&little, 2, 1, 0);
  EXPECT_EQ(Run(kRx, &little), MODEL_FRESH);
  EXPECT_EQ(Run(kRx + 4), MODEL_FRESH);
  model_thread_clear(&little);
  // Rewritten through RW and run again: the view is faulted in, the flag
  // set, nothing syncs.
  Store(kRw);
  EXPECT_EQ(Run(kRx), MODEL_STALE_NOT_CLEANED);
}

// The lazy view's page stays unsynced until it is fetched, and a view
// unmapped before that never syncs.
TEST_F(KernelSync, AnUnmappedLazyViewNeverSyncs)
{
  model_kernel_lazy_view(k, kRx, 4096, "mmap", kMprotectPc, kCallerLr);
  model_kernel_view_gone(k, kRx, 4096);
  Store(kRw);
  EXPECT_EQ(Run(kRx), MODEL_STALE_NOT_CLEANED);
}

// The note names the call that published code the program never
// maintained, once it was run.
TEST_F(KernelSync, TheNoteNamesTheCallThatPublishedTheCode)
{
  Store(kCode, 8);
  EXPECT_TRUE(Mprotect(kCode));
  ASSERT_EQ(model_kernel_notes(k)->len, 1u);
  EXPECT_STREQ(Note(0).call, "mprotect");
  EXPECT_EQ(Note(0).pc, kMprotectPc);
  EXPECT_EQ(Note(0).lr, kCallerLr);
  EXPECT_EQ(Note(0).pages, 1u);
  EXPECT_EQ(Note(0).words, 8u);
  EXPECT_FALSE(Note(0).fetched);
  Run(kCode);
  EXPECT_TRUE(Note(0).fetched);
}

// Code the program published itself owes the kernel nothing: no note.
TEST_F(KernelSync, CodeTheProgramMaintainedItselfGetsNoNote)
{
  Store(kCode);
  model_dc_clean(m, &writer, kCode, 1, false);
  model_dsb(m, &writer);
  model_ic_ivau(m, &writer, kCode, 2);
  model_ic_ivau(m, &runner, kCode, 2); // the big core's line too
  model_dsb(m, &writer);
  model_dsb(m, &runner);
  EXPECT_TRUE(Mprotect(kCode));
  ASSERT_EQ(model_kernel_notes(k)->len, 1u);
  EXPECT_EQ(Note(0).words, 0u);
}

// Copy-on-write after fork (mm/memory.c wp_page_copy; arm64
// copy_user_highpage ends with flush_dcache_page on the copy). A page the
// parent published (RX, flag set) and made RW again before the fork: the
// child's first store copies it, the copy's flag is clear, so the child's
// mprotect RX syncs its new code.
TEST_F(KernelSync, AForkedChildsCopyOfAPublishedPageSyncsAtItsExecMapping)
{
  Store(kCode);
  ASSERT_TRUE(Mprotect(kCode));
  MprotectRw(kCode);
  Fork();
  EXPECT_FALSE(ChildStore(kCode)); // RW: the fault's entry is not executable
  Store(kCode + 64);               // the same copy: no second fault
  EXPECT_TRUE(Mprotect(kCode));
  EXPECT_EQ(Run(kCode), MODEL_FRESH);
  EXPECT_EQ(Run(kCode + 64), MODEL_FRESH);
}

// The same when the parent never stored to the page: it was only mapped
// executable (its flag set) before the fork.
TEST_F(KernelSync, AForkedChildsCopyOfAnUnwrittenPageSyncsToo)
{
  ASSERT_TRUE(Mprotect(kCode));
  MprotectRw(kCode);
  Fork();
  ChildStore(kCode);
  EXPECT_TRUE(Mprotect(kCode));
  EXPECT_EQ(Run(kCode), MODEL_FRESH);
}

// Without the fork the same program is stale: the page is the one whose
// flag is set (ALaterExecMappingOfTheSamePageDoesNotSync), and a page
// shared memory holds is never copied.
TEST_F(KernelSync, WithoutACopyTheRewriteStaysStale)
{
  Store(kRw);
  ASSERT_TRUE(Mprotect(kRx));
  Fork(); // the memfd page is shared, not copied
  EXPECT_FALSE(ChildStore(kRw));
  EXPECT_FALSE(Mprotect(kRx));
  EXPECT_EQ(Run(kRx), MODEL_STALE_NOT_CLEANED);
}

// An RWX page: the write fault installs an executable entry, so set_ptes
// syncs the copy, with what the parent stored (never maintained), before
// the child's store lands; that store is stale, and a later mprotect RX
// finds the flag set.
TEST_F(KernelSync, AnRwxCopyIsSyncedAtTheFaultBeforeTheStoreLands)
{
  ASSERT_TRUE(Mprotect(kCode)); // RWX, before the parent's stores
  Store(kCode);
  ASSERT_EQ(Run(kCode), MODEL_STALE_NOT_CLEANED);
  Fork();
  EXPECT_TRUE(ChildStore(kCode + 64));
  EXPECT_EQ(Run(kCode), MODEL_FRESH);
  EXPECT_EQ(Run(kCode + 64), MODEL_STALE_NOT_CLEANED);
  EXPECT_FALSE(Mprotect(kCode));
  EXPECT_EQ(Run(kCode + 64), MODEL_STALE_NOT_CLEANED);
  const model_kernel_note &n = Note(1);
  EXPECT_STREQ(n.call, "copy-on-write fault");
  EXPECT_EQ(n.pc, kWriterPc);
  EXPECT_EQ(n.words, 4u);
}

// A page the child maps afresh after the fork (munmap, then mmap RWX) is
// its own: its first store copies nothing and syncs nothing.
TEST_F(KernelSync, APageMappedAfterTheForkIsNotCopied)
{
  ASSERT_TRUE(Mprotect(kCode));
  Store(kCode);
  Fork();
  model_kernel_fresh(k, kCode, kCode + 4096);
  ASSERT_TRUE(Mprotect(kCode));
  EXPECT_FALSE(ChildStore(kCode + 64));
  EXPECT_EQ(Run(kCode + 64), MODEL_STALE_NOT_CLEANED);
}

// The anon-skip kernel never syncs private memory: the page written then
// mprotect RX that today's kernel publishes
// (TheFirstExecMappingOfAFreshPagePublishesItForEveryThread) is stale,
// and it leaves the flag alone.
TEST_F(KernelSyncAnonSkip, AFreshAnonymousPageIsNotSynced)
{
  Store(kCode);
  EXPECT_FALSE(Mprotect(kCode));
  EXPECT_EQ(Run(kCode), MODEL_STALE_NOT_CLEANED);
  EXPECT_EQ(model_kernel_notes(k)->len, 1u);
  EXPECT_EQ(Note(0).words, 0u);
}

// Shared memory has a mapping (shmem, the page cache): synced as today.
TEST_F(KernelSyncAnonSkip, ASharedFilePageIsStillSyncedAtItsFault)
{
  model_kernel_lazy_view(k, kRx, 4096, "mmap", kMprotectPc, kCallerLr);
  Store(kRw);
  EXPECT_EQ(Run(kRx), MODEL_FRESH);
}

// A forked child's copy is anonymous too: its RWX fault syncs nothing.
TEST_F(KernelSyncAnonSkip, AForkedChildsCopyIsNotSynced)
{
  Mprotect(kCode);
  Store(kCode);
  Fork();
  EXPECT_FALSE(ChildStore(kCode + 64));
  EXPECT_EQ(Run(kCode), MODEL_STALE_NOT_CLEANED);
}

// exec-map-sync = none: the same fetch is stale under a kind of its own,
// and the program's own maintenance still makes it fresh.
TEST_F(KernelSyncNone, WordsOnlyTheKernelPublishedAreKernelSyncAssumed)
{
  Store(kCode);
  Store(kCode + 64);
  EXPECT_TRUE(Mprotect(kCode));
  EXPECT_EQ(Run(kCode), MODEL_STALE_KERNEL_SYNC_ASSUMED);
  EXPECT_STREQ(model_stale_kind_name(MODEL_STALE_KERNEL_SYNC_ASSUMED), "kernel-sync-assumed");
  model_dc_clean(m, &writer, kCode + 64, 1, false);
  model_dsb(m, &writer);
  model_ic_ivau(m, &writer, kCode + 64, 2);
  model_dsb(m, &writer);
  model_sync(m, &writer);
  EXPECT_EQ(Run(kCode + 64, &writer), MODEL_FRESH);
  EXPECT_EQ(model_kernel_notes(k)->len, 1u);
  EXPECT_EQ(Note(0).words, 0u); // no note without the kernel's help
}

// Maintenance of the program's own that misses a step keeps that step's
// kind without the kernel's help: it did not rely on the kernel.
TEST_F(KernelSyncNone, AProgramsOwnIncompleteMaintenanceKeepsItsKind)
{
  Store(kCode);
  model_ic_ivau(m, &writer, kCode, 2); // ic ivau alone, no dc cvau
  model_dsb(m, &writer);
  EXPECT_TRUE(Mprotect(kCode));
  EXPECT_EQ(Run(kCode), MODEL_STALE_NOT_CLEANED);
}

// A rewrite after the kernel's sync is the program's own bug in either
// mode, and keeps its own kind.
TEST_F(KernelSyncNone, ARewriteAfterTheSyncKeepsItsOwnKind)
{
  Store(kCode);
  EXPECT_TRUE(Mprotect(kCode));
  Store(kCode);
  EXPECT_EQ(Run(kCode), MODEL_STALE_NOT_CLEANED);
}

} // namespace
