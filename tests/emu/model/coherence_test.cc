// The coherence model on its own (rig/model/model_coherence.c), with no QEMU: one
// test per rule and per finding kind, fixture in, exact verdict out. The
// rig's scenario, patching and checker self-tests exercise the same rules
// end to end; these say which rule a change broke.
#include <gtest/gtest.h>

#include <cstdint>
#include <utility>
#include <vector>

#include "model_coherence.h"
#include "model_handles.h"
#include "page_views.h"

namespace
{

// Exynos 8890: LITTLE Cortex-A53 (64-byte lines, VIPT) and big Exynos M1
// (128-byte I lines). CTR_EL0 values as in qemu-configs/exynos8890.conf.
constexpr uint64_t kLittleCtr = 0x84448004;
constexpr uint64_t kBigCtr = 0x84448005;
constexpr unsigned kLittle = 0, kBig = 1;

constexpr uint64_t kCode = 0x10000; // page-aligned JIT buffer
constexpr uint64_t kWriterPc = 0x4001f0;
constexpr uint32_t kMovInsn = 0xd2800000; // mov x0, #0: not CMODX-safe
constexpr uint32_t kNop = 0xd503201f;
constexpr uint32_t kBranch = 0x14000001; // b .+4

class Coherence : public ::testing::Test
{
protected:
  Coherence() : model({kLittleCtr, kBigCtr}), little(0, kLittle), big(1, kBig)
  {
  }

  void Store(Thread &t, uint64_t va, unsigned bytes = 4)
  {
    model_store(model.m, &t.t, va, bytes, kWriterPc);
  }
  void Clean(Thread &t, uint64_t va, uint32_t site = 1)
  {
    model_dc_clean(model.m, &t.t, va, site, false);
  }
  void Invalidate(Thread &t, uint64_t va, uint32_t site = 2)
  {
    model_ic_ivau(model.m, &t.t, va, site);
  }
  void Dsb(Thread &t)
  {
    model_dsb(model.m, &t.t);
  }
  void Isb(Thread &t)
  {
    model_sync(model.m, &t.t);
  }

  // The whole correct sequence over [va, va + len) with the given strides.
  void Flush(Thread &t, uint64_t va, unsigned len, unsigned dstride = 64, unsigned istride = 64)
  {
    for (uint64_t a = va; a < va + len; a += dstride)
      Clean(t, a);
    Dsb(t);
    for (uint64_t a = va; a < va + len; a += istride)
      Invalidate(t, a);
    Dsb(t);
    Isb(t);
  }

  model_verdict Fetch(Thread &t, uint64_t va, uint32_t insn = kMovInsn, bool cmodx_safe = false)
  {
    model_word *w = model_word_for_fetch(model.m, va, insn, cmodx_safe);
    if (!w)
      return model_verdict{};
    return model_fetch(model.m, &t.t, w, MODEL_OWN_VIEW, cmodx_safe);
  }

  Model model;
  Thread little, big;
};

// The rest of THREAD's flush of kCode after its clean (dsb, ic, dsb, isb)
// and its fetch of the word.
model_verdict FinishFlushAndFetch(Model &m, Thread &thread)
{
  model_dsb(m.m, &thread.t);
  model_ic_ivau(m.m, &thread.t, kCode, 2);
  model_dsb(m.m, &thread.t);
  model_sync(m.m, &thread.t);
  model_word *w = model_word_for_fetch(m.m, kCode, kMovInsn, false);
  return model_fetch(m.m, &thread.t, w, MODEL_OWN_VIEW, false);
}

// THREAD's fetch of the word at VA, judged in its own view; a failure when
// nothing was ever stored there.
model_verdict FetchOwnView(Model &m, Thread &thread, uint64_t va)
{
  model_word *w = model_word_for_fetch(m.m, va, kMovInsn, false);
  EXPECT_NE(w, nullptr) << "no word at 0x" << std::hex << va;
  if (!w)
    return model_verdict{};
  return model_fetch(m.m, &thread.t, w, MODEL_OWN_VIEW, false);
}

// V is a stale fetch of KIND blamed on the loop at SITE, which stepped by
// STRIDE over lines of LINE bytes.
void ExpectLoop(const model_verdict &v, model_stale_kind kind, uint32_t site, uint32_t stride,
                uint32_t line)
{
  EXPECT_EQ(v.kind, kind);
  EXPECT_EQ(v.flush_site, site);
  EXPECT_EQ(v.stride, stride);
  EXPECT_EQ(v.line, line);
}

// ---- the rules -------------------------------------------------------------

TEST_F(Coherence, CodeThatWasNeverStoredIsNeverStale)
{
  EXPECT_EQ(model_word_for_fetch(model.m, kCode, kMovInsn, false), nullptr);
  EXPECT_EQ(Fetch(little, kCode).kind, MODEL_FRESH);
}

TEST_F(Coherence, TheFullSequenceMakesAStoreVisibleOnEveryCluster)
{
  Store(little, kCode);
  Flush(little, kCode, 4);
  Isb(big);
  EXPECT_EQ(Fetch(little, kCode).kind, MODEL_FRESH);
  EXPECT_EQ(Fetch(big, kCode).kind, MODEL_FRESH);
}

TEST_F(Coherence, AStoreAfterTheFlushIsStaleAgain)
{
  Store(little, kCode);
  Flush(little, kCode, 4);
  Store(little, kCode);
  EXPECT_EQ(Fetch(little, kCode).kind, MODEL_STALE_NOT_CLEANED);
}

TEST_F(Coherence, ALaterRedundantCleanDoesNotUndoAFinishedSequence)
{
  Store(little, kCode);
  Flush(little, kCode, 4);
  Clean(little, kCode); // issued, never completed
  EXPECT_EQ(Fetch(little, kCode).kind, MODEL_FRESH);
}

TEST_F(Coherence, AnotherThreadsIsbDoesNotSynchroniseThisOne)
{
  Store(little, kCode);
  Clean(little, kCode);
  Dsb(little);
  Invalidate(little, kCode);
  Dsb(little);
  Isb(big); // big synchronises, little never does
  EXPECT_EQ(Fetch(big, kCode).kind, MODEL_FRESH);
  EXPECT_EQ(Fetch(little, kCode).kind, MODEL_STALE_NOT_SYNCHRONISED);
}

// Store, dsb, invalidate, dsb, isb (no clean) on a model of CTRS; the
// verdict of the fetch. Without DSB_FIRST, no dsb between the store and
// the invalidate.
model_stale_kind WithoutTheClean(std::vector<uint64_t> ctrs, bool dsb_first = true)
{
  Model m(ctrs);
  Thread t(0, 0);
  model_store(m.m, &t.t, kCode, 4, kWriterPc);
  if (dsb_first)
    model_dsb(m.m, &t.t);
  model_ic_ivau(m.m, &t.t, kCode, 2);
  model_dsb(m.m, &t.t);
  model_sync(m.m, &t.t);
  model_word *w = model_word_for_fetch(m.m, kCode, kMovInsn, false);
  return model_fetch(m.m, &t.t, w, MODEL_OWN_VIEW, false).kind;
}

TEST_F(Coherence, IdcOnEveryCoreMakesTheCleanUnnecessary)
{
  EXPECT_EQ(WithoutTheClean({kLittleCtr | (1u << 28), kBigCtr | (1u << 28)}), MODEL_FRESH);
}

// herd7 -variant ifetch (CacheType=IDC): str; ic ivau; dsb ish; isb may
// fetch the old instruction; the store must complete before the ic.
TEST_F(Coherence, IdcStillNeedsTheStoreCompletedBeforeTheInvalidate)
{
  EXPECT_EQ(WithoutTheClean({kLittleCtr | (1u << 28), kBigCtr | (1u << 28)}, false),
            MODEL_STALE_INVALIDATED_BEFORE_CLEAN);
}

// The catalogue's DIC1.SM.B+isb (allowed) and, by herd7, str; dsb ish; isb
// (forbidden) under IDC and DIC: only a DSB completes the store.
TEST(CoherenceIdcDic, TheStoreCompletesOnlyAtADsb)
{
  const uint64_t ctr = kLittleCtr | (3u << 28);
  for (bool dsb : {false, true}) {
    SCOPED_TRACE(dsb);
    Model m({ctr});
    Thread t(0, 0);
    model_store(m.m, &t.t, kCode, 4, kWriterPc);
    if (dsb)
      model_dsb(m.m, &t.t);
    else
      model_dmb(m.m, &t.t, true);
    model_sync(m.m, &t.t);
    model_word *w = model_word_for_fetch(m.m, kCode, kMovInsn, false);
    EXPECT_EQ(model_fetch(m.m, &t.t, w, MODEL_OWN_VIEW, false).kind,
              dsb ? MODEL_FRESH : MODEL_STALE_CLEAN_NOT_COMPLETED);
  }
}

// IDC1.MP.RF+dmb.st+dsb.ish-ic.ivau-dsb.ish-isb (forbidden): the writer's
// dmb st orders its store before the flag, and the reader's dsb after it
// completes the store for the reader's ic.
TEST(CoherenceIdcDic, AStoreOrderedByADmbCompletesAtAnotherThreadsDsb)
{
  Model m({kLittleCtr | (1u << 28)});
  Thread writer(0, 0), reader(1, 0);
  model_store(m.m, &writer.t, kCode, 4, kWriterPc);
  model_dmb(m.m, &writer.t, false); // dmb st
  EXPECT_EQ(FinishFlushAndFetch(m, reader).kind, MODEL_FRESH);
}

// MP.RF+dc.cvau-dmb.ish+dsb.ish-ic.ivau-dsb.ish-isb (forbidden): a clean
// followed by a dmb ish completes at the next dsb of another thread. The
// same clean, dmb ish and ic in one thread (herd7: stale allowed), or a
// dmb st (herd7: allowed), complete nothing.
TEST_F(Coherence, ACleanOrderedByADmbCompletesAtAnotherThreadsDsbOnly)
{
  for (int shape = 0; shape < 3; shape++) {
    SCOPED_TRACE(shape);
    Model m({kLittleCtr});
    Thread writer(0, 0), reader(1, 0);
    model_store(m.m, &writer.t, kCode, 4, kWriterPc);
    model_dc_clean(m.m, &writer.t, kCode, 1, false);
    model_dmb(m.m, &writer.t, shape != 2);
    Thread &fetcher = shape == 1 ? writer : reader;
    if (shape != 1)
      model_dsb(m.m, &reader.t);
    model_ic_ivau(m.m, &fetcher.t, kCode, 2);
    model_dsb(m.m, &fetcher.t);
    model_sync(m.m, &fetcher.t);
    model_word *w = model_word_for_fetch(m.m, kCode, kMovInsn, false);
    const model_stale_kind want[] = {MODEL_FRESH, MODEL_STALE_INVALIDATED_BEFORE_CLEAN,
                                     MODEL_STALE_CLEAN_NOT_COMPLETED};
    EXPECT_EQ(model_fetch(m.m, &fetcher.t, w, MODEL_OWN_VIEW, false).kind, want[shape]);
  }
}

// Clean ordering (herd7 -variant ifetch): a thread's dc cleans another
// thread's store only when something orders the dc after the load that saw
// the store: a full dmb or any dsb (MP.RF+dmb.st+dmb.ish-dc-dsb-ic-dsb-isb
// and ...+dsb.ld-dc-... forbidden), a context synchronisation, or a
// dependency on that load. A dmb ld does not (MP.RF+dmb.st+dmb.ld-dc-...
// allowed), nor a dmb st (SB.RF+dmb+dmb.st-cachesync-isb allowed). The
// writer's page is fetched from first, so the store lands on a per-word
// record that names its thread.
// Gives kCode's page per-word records, as a translation of stored code
// does: later stores there name their thread.
void Dense(Model &m, Thread &writer)
{
  model_store(m.m, &writer.t, kCode + 0x200, 4, kWriterPc);
  ASSERT_NE(model_word_for_fetch(m.m, kCode + 0x200, kNop, true), nullptr);
}

enum class Order { kNone, kDmbLd, kDmbSt, kDmbFull, kDsbLd, kDsb, kIsb, kDependency };

model_verdict ReaderCleans(Order order)
{
  Model m({kLittleCtr});
  Thread writer(0, 0), reader(1, 0);
  Dense(m, writer);
  model_store(m.m, &writer.t, kCode, 4, kWriterPc);
  switch (order) {
  case Order::kDmbLd:
  case Order::kDmbSt:
    model_dmb(m.m, &reader.t, false);
    break;
  case Order::kDmbFull:
    model_dmb(m.m, &reader.t, true);
    break;
  case Order::kDsbLd:
    model_order_cleans(m.m, &reader.t);
    break;
  case Order::kDsb:
    model_dsb(m.m, &reader.t);
    break;
  case Order::kIsb:
    model_sync(m.m, &reader.t);
    break;
  default:
    break;
  }
  model_dc_clean(m.m, &reader.t, kCode, 1, order == Order::kDependency);
  return FinishFlushAndFetch(m, reader);
}

TEST(CleanOrdering, AnotherThreadsStoreNeedsTheCleanOrderedAfterIt)
{
  EXPECT_EQ(ReaderCleans(Order::kNone).kind, MODEL_STALE_CLEAN_NOT_ORDERED);
  EXPECT_EQ(ReaderCleans(Order::kDmbLd).kind, MODEL_STALE_CLEAN_NOT_ORDERED);
  EXPECT_EQ(ReaderCleans(Order::kDmbSt).kind, MODEL_STALE_CLEAN_NOT_ORDERED);
  EXPECT_EQ(ReaderCleans(Order::kDmbFull).kind, MODEL_FRESH);
  EXPECT_EQ(ReaderCleans(Order::kDsbLd).kind, MODEL_FRESH);
  EXPECT_EQ(ReaderCleans(Order::kDsb).kind, MODEL_FRESH);
  EXPECT_EQ(ReaderCleans(Order::kIsb).kind, MODEL_FRESH);
  EXPECT_EQ(ReaderCleans(Order::kDependency).kind, MODEL_FRESH);
  EXPECT_STREQ(model_stale_kind_name(MODEL_STALE_CLEAN_NOT_ORDERED), "clean-not-ordered");
}

// The writer's own clean needs no barrier after its store (the Arm ARM
// orders a dc after earlier stores to its line), and a word seeded from a
// page summary, which keeps one writer for the page, is not held to the
// rule (its writer is not known for certain).
TEST(CleanOrdering, TheWritersOwnCleanAndSummarisedWordsAreNotHeldToIt)
{
  {
    Model m({kLittleCtr});
    Thread writer(0, 0);
    Dense(m, writer);
    model_store(m.m, &writer.t, kCode, 4, kWriterPc);
    model_dc_clean(m.m, &writer.t, kCode, 1, false);
    EXPECT_EQ(FinishFlushAndFetch(m, writer).kind, MODEL_FRESH);
  }
  {
    Model m({kLittleCtr});
    Thread writer(0, 0), reader(1, 0);
    model_store(m.m, &writer.t, kCode, 4, kWriterPc); // store-only page
    model_dc_clean(m.m, &reader.t, kCode, 1, false);
    EXPECT_EQ(FinishFlushAndFetch(m, reader).kind, MODEL_FRESH);
  }
}

// A fetch of a word another thread stored later orders the thread's later
// clean after that store and every store before it
// (MP.FF+dmb.st+cachesync-isb, forbidden).
TEST(CleanOrdering, AFetchOfALaterStoreOrdersTheClean)
{
  constexpr uint64_t kFlagInsn = kCode + 0x100;
  Model m({kLittleCtr});
  Thread writer(0, 0), reader(1, 0);
  Dense(m, writer);
  model_store(m.m, &writer.t, kCode, 4, kWriterPc);
  model_dmb(m.m, &writer.t, false);
  model_store(m.m, &writer.t, kFlagInsn, 4, kWriterPc);
  model_word *flag = model_word_for_fetch(m.m, kFlagInsn, kBranch, true);
  model_fetch(m.m, &reader.t, flag, MODEL_OWN_VIEW, true);
  model_dc_clean(m.m, &reader.t, kCode, 1, false);
  EXPECT_EQ(FinishFlushAndFetch(m, reader).kind, MODEL_FRESH);
}

// MP-inst+dc.cvau-dsb.ish-ic.vau-dsb.ish (forbidden): a thread that fetched
// a word stored after another word's sequence completed fetches that word
// new without an isb of its own; before that fetch it may not.
TEST_F(Coherence, AFetchOfALaterStoreOrdersTheThreadsLaterFetches)
{
  Store(little, kCode);
  Clean(little, kCode);
  Dsb(little);
  Invalidate(little, kCode);
  Dsb(little);
  Store(little, kCode + 0x100); // the "flag" instruction
  Isb(little);
  Fetch(little, kCode + 0x100); // the page has records from here on
  Store(little, kCode + 0x100);
  EXPECT_EQ(Fetch(big, kCode).kind, MODEL_STALE_NOT_SYNCHRONISED);
  Fetch(big, kCode + 0x100); // stale itself (not cleaned), but it ran new
  EXPECT_EQ(Fetch(big, kCode).kind, MODEL_FRESH);
}

TEST_F(Coherence, IdcOnOnlySomeCoresStillNeedsTheClean)
{
  EXPECT_EQ(WithoutTheClean({kLittleCtr | (1u << 28), kBigCtr}), MODEL_STALE_NOT_CLEANED);
}

TEST_F(Coherence, DicOnTheFetchingCoreMakesTheInvalidateUnnecessary)
{
  Model dic({kLittleCtr | (1u << 29), kBigCtr});
  Thread on_dic(0, 0), on_big(1, 1);
  model_store(dic.m, &on_dic.t, kCode, 4, kWriterPc);
  model_dc_clean(dic.m, &on_dic.t, kCode, 1, false);
  model_dsb(dic.m, &on_dic.t);
  model_sync(dic.m, &on_dic.t);
  model_sync(dic.m, &on_big.t);
  model_word *w = model_word_for_fetch(dic.m, kCode, kMovInsn, false);
  EXPECT_EQ(model_fetch(dic.m, &on_dic.t, w, MODEL_OWN_VIEW, false).kind, MODEL_FRESH);
  EXPECT_EQ(model_fetch(dic.m, &on_big.t, w, MODEL_OWN_VIEW, false).kind,
            MODEL_STALE_NOT_INVALIDATED_IN_GEOMETRY);
}

// The concurrent modification rule: another thread may run either encoding
// of a B/NOP patch whose writer cleaned and invalidated it, without its own
// isb. Without the rule (a MOV) the fetch lacks the synchronisation.
TEST_F(Coherence, AnotherThreadMayRunEitherEncodingOfACompletedCmodxPatch)
{
  ASSERT_EQ(model_word_for_fetch(model.m, kCode, kMovInsn, false), nullptr);
  Store(little, kCode); // the page now has records
  model_word_for_fetch(model.m, kCode, kNop, true);
  Store(little, kCode); // rewrites the NOP as a branch
  Flush(little, kCode, 4);
  EXPECT_EQ(Fetch(big, kCode, kBranch, true).kind, MODEL_FRESH);
  // A branch rewritten into a non-CMODX instruction is stale.
  Store(little, kCode);
  Flush(little, kCode, 4);
  EXPECT_EQ(Fetch(big, kCode, kMovInsn, false).kind, MODEL_STALE_NOT_SYNCHRONISED);
}

// The rule is no licence for the writer's own fetch, nor for a patch no
// one maintained: herd7 -variant ifetch allows the old B in SM.B+dsb.ish
// (a thread's store over its own B, run after a dsb) and in MP.FF+dmb.st+po
// (another thread, nothing maintained).
TEST_F(Coherence, CmodxCoversNeitherTheWritersOwnFetchNorAnUnmaintainedPatch)
{
  ASSERT_EQ(model_word_for_fetch(model.m, kCode, kBranch, true), nullptr);
  Store(little, kCode);
  model_word_for_fetch(model.m, kCode, kBranch, true);
  Store(little, kCode); // the B becomes a NOP
  Dsb(little);
  EXPECT_EQ(Fetch(little, kCode, kNop, true).kind, MODEL_STALE_NOT_CLEANED);
  EXPECT_EQ(Fetch(big, kCode, kNop, true).kind, MODEL_STALE_NOT_CLEANED);
  // Cleaned and invalidated: the writer still needs its isb, the other
  // thread may run either.
  Clean(little, kCode);
  Dsb(little);
  Invalidate(little, kCode);
  Dsb(little);
  EXPECT_EQ(Fetch(little, kCode, kNop, true).kind, MODEL_STALE_NOT_SYNCHRONISED);
  EXPECT_EQ(Fetch(big, kCode, kNop, true).kind, MODEL_FRESH);
}

// The concurrent modification rule holds for a word whose first encoding
// was translated before its page was ever stored to (a NOP in .text patched
// to a B): the model remembers that encoding. A MOV there does not qualify.
TEST_F(Coherence, CmodxCoversAWordTranslatedBeforeItsPageWasStored)
{
  for (bool safe_before : {true, false}) {
    SCOPED_TRACE(safe_before);
    Model m({kLittleCtr});
    Thread t(0, 0), other(1, 0);
    ASSERT_EQ(model_word_for_fetch(m.m, kCode, safe_before ? kNop : kMovInsn, safe_before),
              nullptr);
    model_store(m.m, &t.t, kCode, 4, kWriterPc);
    model_dc_clean(m.m, &t.t, kCode, 1, false);
    model_dsb(m.m, &t.t);
    model_ic_ivau(m.m, &t.t, kCode, 2);
    model_dsb(m.m, &t.t);
    model_word *w = model_word_for_fetch(m.m, kCode, kBranch, true);
    ASSERT_NE(w, nullptr);
    EXPECT_EQ(model_fetch(m.m, &other.t, w, MODEL_OWN_VIEW, true).kind,
              safe_before ? MODEL_FRESH : MODEL_STALE_NOT_SYNCHRONISED);
  }
}

// A page's words seeded from its store-only summary keep the order of two
// stores with an event between them: on IDC and DIC cores a reader that
// fetched the second word new fetches the first new too (herd7:
// DIC1.MP.FF+dmb.st+po and DIC1.MP.FF+dsb.ish+po are forbidden), but not
// when the two stores had no barrier between them (DIC1.MP.FF+po: allowed).
TEST(CoherenceSummary, SeededWordsKeepTheOrderOfStoresWithAnEventBetween)
{
  constexpr uint64_t kIdcDicCtr = 0xb444c004; // IDC, DIC, 64-byte lines
  for (bool barrier : {true, false}) {
    SCOPED_TRACE(barrier);
    Model m({kIdcDicCtr});
    Thread writer(0, 0), reader(1, 0);
    model_store(m.m, &writer.t, kCode + 8, 4, kWriterPc);
    if (barrier)
      model_dmb(m.m, &writer.t, false); // dmb st: an event, no completion
    model_store(m.m, &writer.t, kCode + 4, 4, kWriterPc + 8);
    // Nothing fetched the page before: both words come from the summary.
    model_word *second = model_word_for_fetch(m.m, kCode + 4, kNop, true);
    model_word *first = model_word_for_fetch(m.m, kCode + 8, kNop, true);
    ASSERT_NE(second, nullptr);
    ASSERT_NE(first, nullptr);
    EXPECT_EQ(model_fetch(m.m, &reader.t, second, MODEL_OWN_VIEW, false).kind,
              MODEL_STALE_NOT_SYNCHRONISED);
    EXPECT_EQ(model_fetch(m.m, &reader.t, first, MODEL_OWN_VIEW, false).kind,
              barrier ? MODEL_FRESH : MODEL_STALE_NOT_SYNCHRONISED);
  }
}

TEST_F(Coherence, ACleanReachesOnlyTheWritersLineHoldingItsAddress)
{
  // Writer on a 32-byte-D core, cleaner on a 64-byte one: a clean of the
  // first 32 bytes never reaches the writer's second line.
  Model m({0x80038003 /* 32-byte lines */, kLittleCtr});
  Thread tiny(0, 0), mid(1, 1);
  model_store(m.m, &tiny.t, kCode + 32, 4, kWriterPc);
  model_dc_clean(m.m, &mid.t, kCode, 1, false);
  model_dsb(m.m, &mid.t);
  model_word *w = model_word_for_fetch(m.m, kCode + 32, kMovInsn, false);
  EXPECT_EQ(model_fetch(m.m, &tiny.t, w, MODEL_OWN_VIEW, false).kind, MODEL_STALE_NOT_CLEANED);
}

TEST_F(Coherence, AClusterThatComesBackOnlineHoldsNoStaleLine)
{
  Store(little, kCode);
  Clean(little, kCode);
  Dsb(little);
  // Never invalidated: stale on big, until big's cluster boots again
  // (its kernel entry runs ic iallu) after the clean completed.
  Isb(big);
  EXPECT_EQ(Fetch(big, kCode).kind, MODEL_STALE_NOT_INVALIDATED_IN_GEOMETRY);
  model_cluster_online(model.m, kBig);
  Isb(big);
  EXPECT_EQ(Fetch(big, kCode).kind, MODEL_FRESH);
  EXPECT_EQ(Fetch(little, kCode).kind, MODEL_STALE_NOT_INVALIDATED_IN_GEOMETRY);
}

TEST_F(Coherence, ComingOnlineBeforeTheCleanCompletedDoesNotCount)
{
  Store(little, kCode);
  model_cluster_online(model.m, kBig); // booted while the data was dirty
  Clean(little, kCode);
  Dsb(little);
  Isb(big);
  EXPECT_EQ(Fetch(big, kCode).kind, MODEL_STALE_NOT_INVALIDATED_IN_GEOMETRY);
}

// ---- the fast path's bound (model_fresh_after) ---------------------------

uint64_t FreshAfter(model *m, uint64_t va)
{
  return model_fresh_after(m, model_word_for_fetch(m, va, kMovInsn, false), MODEL_OWN_VIEW);
}

TEST_F(Coherence, FreshAfterIsZeroForAWordNeverStoredOnAStoredPage)
{
  Store(little, kCode + 64);
  EXPECT_EQ(FreshAfter(model.m, kCode), 0u);
}

TEST_F(Coherence, FreshAfterIsUnknownUntilEveryClusterIsInvalidated)
{
  Store(little, kCode);
  EXPECT_EQ(FreshAfter(model.m, kCode), UINT64_MAX); // not cleaned
  Clean(little, kCode);
  Dsb(little);
  EXPECT_EQ(FreshAfter(model.m, kCode), UINT64_MAX); // not invalidated
  Invalidate(little, kCode);
  EXPECT_EQ(FreshAfter(model.m, kCode), UINT64_MAX); // not completed
  Dsb(little);
  EXPECT_NE(FreshAfter(model.m, kCode), UINT64_MAX);
}

TEST_F(Coherence, AThreadSynchronisedAfterFreshAfterFetchesFreshOnEveryCluster)
{
  Store(little, kCode);
  Clean(little, kCode);
  Dsb(little);
  Invalidate(little, kCode);
  Dsb(little);
  const uint64_t bound = FreshAfter(model.m, kCode);
  ASSERT_NE(bound, UINT64_MAX);
  // Not synchronised since: stale, and the bound says the model must be asked.
  EXPECT_LE(little.t.sync_seq, bound);
  EXPECT_EQ(Fetch(little, kCode).kind, MODEL_STALE_NOT_SYNCHRONISED);
  Isb(little);
  Isb(big);
  EXPECT_GT(little.t.sync_seq, bound);
  EXPECT_EQ(Fetch(little, kCode).kind, MODEL_FRESH);
  EXPECT_EQ(Fetch(big, kCode).kind, MODEL_FRESH);
  // A redundant clean and invalidate later do not move the bound.
  Clean(big, kCode);
  Invalidate(big, kCode);
  Dsb(big);
  EXPECT_EQ(FreshAfter(model.m, kCode), bound);
}

TEST_F(Coherence, FreshAfterIsUnknownAgainAfterAStore)
{
  Store(little, kCode);
  Flush(little, kCode, 64);
  ASSERT_NE(FreshAfter(model.m, kCode), UINT64_MAX);
  Store(little, kCode);
  EXPECT_EQ(FreshAfter(model.m, kCode), UINT64_MAX);
}

TEST_F(Coherence, FreshAfterIsUnknownForAnInvalidateStrideThatSkipsALittleLine)
{
  Store(little, kCode, 128);
  Flush(little, kCode, 128, 64, 128); // the big core's I line
  EXPECT_NE(FreshAfter(model.m, kCode), UINT64_MAX);
  EXPECT_EQ(FreshAfter(model.m, kCode + 64), UINT64_MAX);
  EXPECT_EQ(Fetch(little, kCode + 64).kind, MODEL_STALE_NOT_INVALIDATED_IN_GEOMETRY);
}

TEST_F(Coherence, FreshAfterIsUnknownOnceAClusterCameBackOnline)
{
  Store(little, kCode);
  Flush(little, kCode, 64);
  model_cluster_online(model.m, kBig);
  EXPECT_EQ(FreshAfter(model.m, kCode), UINT64_MAX);
}

// ---- one test per finding kind ---------------------------------------------

// The verdict names KIND, under its report name, and blames SITE.
void ExpectKind(const model_verdict &v, model_stale_kind kind, const char *name, uint32_t site)
{
  EXPECT_EQ(v.kind, kind);
  EXPECT_STREQ(model_stale_kind_name(v.kind), name);
  EXPECT_EQ(v.flush_site, site);
}

TEST_F(Coherence, KindNotCleaned)
{
  Store(little, kCode);
  Invalidate(little, kCode);
  Dsb(little);
  Isb(little);
  const model_verdict v = Fetch(little, kCode);
  EXPECT_EQ(v.kind, MODEL_STALE_NOT_CLEANED);
  EXPECT_STREQ(model_stale_kind_name(v.kind), "not-cleaned");
  EXPECT_EQ(v.writer_pc, kWriterPc);
  EXPECT_EQ(v.flush_site, MODEL_NO_SITE) << "no clean reached the word";
  EXPECT_EQ(v.line, 64u);
}

TEST_F(Coherence, KindCleanNotCompleted)
{
  Store(little, kCode);
  Clean(little, kCode, 5);
  Invalidate(little, kCode);
  Isb(little);
  ExpectKind(Fetch(little, kCode), MODEL_STALE_CLEAN_NOT_COMPLETED, "clean-not-completed", 5u);
}

TEST_F(Coherence, KindInvalidatedBeforeClean)
{
  Store(little, kCode);
  Clean(little, kCode);
  Invalidate(little, kCode, 6); // no dsb between the two
  Dsb(little);
  Isb(little);
  ExpectKind(Fetch(little, kCode), MODEL_STALE_INVALIDATED_BEFORE_CLEAN, "invalidated-before-clean",
             6u);
}

TEST_F(Coherence, KindInvalidateNotCompleted)
{
  Store(little, kCode);
  Clean(little, kCode);
  Dsb(little);
  Invalidate(little, kCode, 7);
  Isb(little);
  ExpectKind(Fetch(little, kCode), MODEL_STALE_INVALIDATE_NOT_COMPLETED, "invalidate-not-completed",
             7u);
}

TEST_F(Coherence, KindNotInvalidatedInGeometryNamesTheLoopAndItsStride)
{
  // The Galaxy S7 bug: 512 bytes of code, cleaned by 64, invalidated by the
  // big core's 128 from one site: every second 64-byte line is skipped on
  // the LITTLE cores, and only there.
  Store(little, kCode, 512);
  Flush(little, kCode, 512, 64, 128);
  Isb(big);
  for (uint64_t off = 0; off < 512; off += 4) {
    const model_verdict v = Fetch(little, kCode + off);
    if (off % 128 < 64) {
      EXPECT_EQ(v.kind, MODEL_FRESH) << off;
      continue;
    }
    SCOPED_TRACE(off);
    ExpectLoop(v, MODEL_STALE_NOT_INVALIDATED_IN_GEOMETRY, 2, 128, 64);
    EXPECT_EQ(v.writer_pc, kWriterPc) << off;
    EXPECT_EQ(Fetch(big, kCode + off).kind, MODEL_FRESH) << off;
  }
}

TEST_F(Coherence, AStrideLargerThanEveryLineStillNamesTheLoopThatSkipped)
{
  // A doubled stride (256 on 128/64-byte cores): no core's geometry
  // reaches the skipped words; the loop's own stride claims them.
  Store(little, kCode, 1024);
  Flush(little, kCode, 1024, 64, 256);
  Isb(big);
  for (uint64_t off : {uint64_t{136}, uint64_t{640}, uint64_t{1020}}) {
    SCOPED_TRACE(off);
    ExpectLoop(Fetch(big, kCode + off), MODEL_STALE_NOT_INVALIDATED_IN_GEOMETRY, 2, 256, 128);
  }
}

// A word stored again after a clean loop went past it was cleaned by no
// operation since that store: no loop is blamed for it, whether the loop
// stepped by its line or by a latched 128 bytes over 64-byte lines, and
// whichever later step of the loop came before the fetch. (Every step used
// to claim the two steps behind it again with its own time, which named
// the loop for words it had passed before their store.)
TEST_F(Coherence, AWordStoredBehindARunningCleanLoopIsNotBlamedOnIt)
{
  for (auto [stride, other_writer] : {std::pair{64u, false}, std::pair{128u, false},
                                      std::pair{64u, true}, std::pair{128u, true}}) {
    SCOPED_TRACE(stride);
    SCOPED_TRACE(other_writer ? "another thread stores behind the loop" : "the loop's own thread");
    Model m({kLittleCtr, kBigCtr});
    Thread t(0, kLittle), other(1, kBig);
    const uint64_t code = kCode + 0x1000 * stride;
    const uint64_t behind = code + stride + 4; // in the line of the loop's second step
    model_store(m.m, &t.t, code, 1024, kWriterPc);
    for (uint64_t a = code; a < code + 1024; a += stride) {
      model_dc_clean(m.m, &t.t, a, 1, false);
      if (a == code + 2 * stride) // right after the step that confirmed the stride
        model_store(m.m, other_writer ? &other.t : &t.t, behind, 4, kWriterPc + 8);
    }
    model_dsb(m.m, &t.t);
    for (uint64_t a = code; a < code + 1024; a += 64)
      model_ic_ivau(m.m, &t.t, a, 2);
    model_dsb(m.m, &t.t);
    model_sync(m.m, &t.t);
    model_verdict v = FetchOwnView(m, t, behind);
    EXPECT_EQ(v.kind, MODEL_STALE_NOT_CLEANED);
    EXPECT_EQ(v.flush_site, MODEL_NO_SITE);
    EXPECT_EQ(v.writer_pc, kWriterPc + 8);
    // The words the 128-byte loop stepped over before any store still name it.
    if (stride == 128)
      ExpectLoop(FetchOwnView(m, t, code + 5 * stride + 64), MODEL_STALE_NOT_CLEANED, 1, 128, 64);
  }
}

TEST_F(Coherence, OneStepAloneIsNotAStride)
{
  Store(little, kCode, 4096);
  Invalidate(little, kCode, 9);
  Invalidate(little, kCode + 0x500, 9); // two calls, not a loop
  EXPECT_EQ(model_site_stride(model.m, 9), 0u);
  Invalidate(little, kCode + 0x540, 9);
  Invalidate(little, kCode + 0x580, 9);
  EXPECT_EQ(model_site_stride(model.m, 9), 64u);
}

// QEMU's TCG flushed translation blocks 384 bytes apart, one or
// two lines per call, and the gaps between calls read as a 384-byte loop.
// A barrier ends a loop execution: no step spans two calls.
TEST_F(Coherence, GapsBetweenCallsAreNeverAStride)
{
  Store(little, kCode, 4096);
  for (uint64_t call = 0; call < 4; call++) {
    Invalidate(little, kCode + call * 384, 9);
    Dsb(little);
    model_loops_end(&little.t);
  }
  EXPECT_EQ(model_site_stride(model.m, 9), 0u);
  // One call whose loop steps 128 three times: that is the stride, and the
  // words it stepped over on the LITTLE core carry it.
  for (uint64_t a = kCode; a < kCode + 4096; a += 64)
    Clean(little, a);
  Dsb(little);
  model_loops_end(&little.t);
  for (uint64_t a = kCode + 2048; a < kCode + 2048 + 512; a += 128)
    Invalidate(little, a, 9);
  Dsb(little);
  model_loops_end(&little.t);
  Isb(little);
  EXPECT_EQ(model_site_stride(model.m, 9), 128u);
  ExpectLoop(Fetch(little, kCode + 2048 + 64), MODEL_STALE_NOT_INVALIDATED_IN_GEOMETRY, 9, 128, 64);
}

// libgcc's latched routine flushing 12 bytes issues one ic ivau at the
// 128-aligned start: the words a 64-byte line core missed belong to that
// flush with the 128-byte line latched from an Exynos M1's CTR_EL0, never to
// "no flush" and never to a stride-less finding.
TEST_F(Coherence, OneOperationCarriesTheLatchedLineAsItsStride)
{
  model_ctr_read(model.m, kBigCtr); // the latch, on the big core
  Store(little, kCode + 0x60, 12);
  Clean(little, kCode + 0x40);
  Dsb(little);
  model_loops_end(&little.t);
  Invalidate(little, kCode, 9); // (p & ~127): one operation
  Dsb(little);
  model_loops_end(&little.t);
  Isb(little);
  EXPECT_EQ(model_site_stride(model.m, 9), 0u);
  ExpectLoop(Fetch(little, kCode + 0x60), MODEL_STALE_NOT_INVALIDATED_IN_GEOMETRY, 9, 128, 64);
}

// tri-cluster.conf: libgcc latched DminLine 64 on a Cortex-A55 and runs a
// 12-byte flush on the 32-byte core: its one dc cvau at the 64-aligned
// start cleans only the lower 32 bytes there. The word above is the
// flush's, with stride 64 and line 32.
TEST(CoherenceMixedLines, AShortCleanOnASmallerLineCoreKeepsItsFlushAndStride)
{
  constexpr uint64_t kA55 = 0x84448004, kTiny = 0x80038003;
  Model m({kA55, kTiny});
  Thread tiny(0, 1);
  model_ctr_read(m.m, kA55);
  model_store(m.m, &tiny.t, kCode + 0x20, 12, kWriterPc);
  model_dc_clean(m.m, &tiny.t, kCode, 5, false);
  model_dsb(m.m, &tiny.t);
  model_loops_end(&tiny.t);
  model_ic_ivau(m.m, &tiny.t, kCode, 6);
  model_dsb(m.m, &tiny.t);
  model_loops_end(&tiny.t);
  model_sync(m.m, &tiny.t);
  ExpectLoop(FetchOwnView(m, tiny, kCode + 0x20), MODEL_STALE_NOT_CLEANED, 5, 64, 32);
}

// A clean loop stepped by 64 on the 32-byte core over words a 64-byte
// core wrote: the clean reaches only what lies in both lines, so the line
// it stepped over is the cleaning core's 32, not the writer's 64.
TEST(CoherenceMixedLines, TheLineOfANotCleanedFindingIsTheSmallerOfWriterAndCleaner)
{
  constexpr uint64_t kA55 = 0x84448004, kTiny = 0x80038003;
  Model m({kA55, kTiny});
  Thread mid(0, 0), tiny(1, 1);
  model_store(m.m, &mid.t, kCode, 256, kWriterPc);
  for (uint64_t a = kCode; a < kCode + 256; a += 64)
    model_dc_clean(m.m, &tiny.t, a, 5, false);
  model_dsb(m.m, &tiny.t);
  for (uint64_t a = kCode; a < kCode + 256; a += 32)
    model_ic_ivau(m.m, &tiny.t, a, 6);
  model_dsb(m.m, &tiny.t);
  model_sync(m.m, &tiny.t);
  const model_verdict v = FetchOwnView(m, tiny, kCode + 0x60);
  EXPECT_EQ(v.kind, MODEL_STALE_NOT_CLEANED);
  EXPECT_EQ(v.stride, 64u);
  EXPECT_EQ(v.line, 32u);
  EXPECT_TRUE(v.line_of_cleaner);
  EXPECT_EQ(v.cleaner_cluster, 1u);
  EXPECT_EQ(v.writer_cluster, 0u);
}

// A context switch's dsb (the kernel's, on a move it forces: an affinity
// change or the CPU going offline) does not end the loop that was
// interrupted: the stride is still measured across it.
TEST_F(Coherence, AMigrationInsideALoopKeepsItsStride)
{
  Store(little, kCode, 512);
  Invalidate(little, kCode, 9);
  Invalidate(little, kCode + 128, 9);
  Dsb(little); // the switch away, not the program's barrier
  Invalidate(little, kCode + 256, 9);
  EXPECT_EQ(model_site_stride(model.m, 9), 128u);
}

TEST_F(Coherence, KindNotSynchronised)
{
  Store(little, kCode);
  Clean(little, kCode);
  Dsb(little);
  Invalidate(little, kCode, 3);
  Dsb(little);
  ExpectKind(Fetch(little, kCode), MODEL_STALE_NOT_SYNCHRONISED, "not-synchronised", 3u);
}

// Double-mapped code: kRw is the writable view, kRx the executable one, of
// the same file page.
constexpr uint64_t kRx = 0x40000, kRw = 0x80000;
uint64_t CanonOf(uint64_t va, void *)
{
  return pageviews::Canon(va, {{kRw, kRx}});
}
bool NonexecView(uint64_t va, void *)
{
  return pageviews::InPage(va, kRw);
}

TEST(CoherenceAlias, KindInvalidatedViaNonexecAliasOnlyOnVipt)
{
  const model_views views = {CanonOf, NonexecView, nullptr};
  // Cluster 0 VIPT (L1Ip 2), cluster 1 PIPT (L1Ip 3).
  Model m({kLittleCtr, 0x8444c004}, &views);
  Thread vipt(0, 0), pipt(1, 1);
  model_store(m.m, &vipt.t, kRw, 4, kWriterPc);
  model_dc_clean(m.m, &vipt.t, kRw, 1, false);
  model_dsb(m.m, &vipt.t);
  model_ic_ivau(m.m, &vipt.t, kRw, 4); // through the RW view
  model_dsb(m.m, &vipt.t);
  model_sync(m.m, &vipt.t);
  model_sync(m.m, &pipt.t);
  model_word *w = model_word_for_fetch(m.m, kRx, kMovInsn, false);
  ASSERT_NE(w, nullptr);
  const model_verdict v = model_fetch(m.m, &vipt.t, w, MODEL_OWN_VIEW, false);
  EXPECT_EQ(v.kind, MODEL_STALE_NONEXEC_ALIAS);
  EXPECT_STREQ(model_stale_kind_name(v.kind), "invalidated-via-nonexec-alias");
  EXPECT_EQ(v.flush_site, 4u);
  EXPECT_EQ(model_fetch(m.m, &pipt.t, w, MODEL_OWN_VIEW, false).kind, MODEL_FRESH);
}

TEST(CoherenceAlias, InvalidatingThroughTheExecutableViewCounts)
{
  const model_views views = {CanonOf, NonexecView, nullptr};
  Model m({kLittleCtr}, &views);
  Thread t(0, 0);
  model_store(m.m, &t.t, kRw, 4, kWriterPc);
  model_dc_clean(m.m, &t.t, kRw, 1, false);
  model_dsb(m.m, &t.t);
  model_ic_ivau(m.m, &t.t, kRx, 4);
  model_dsb(m.m, &t.t);
  model_sync(m.m, &t.t);
  model_word *w = model_word_for_fetch(m.m, kRx, kMovInsn, false);
  EXPECT_EQ(model_fetch(m.m, &t.t, w, MODEL_OWN_VIEW, false).kind, MODEL_FRESH);
}

// Three views of one file page, kRw (writable) and two executable
// ones, kRx (the canonical address) and kRx2. A VIPT I-cache is indexed by
// the fetching VA, so an ic ivau through one executable view does not reach
// the lines fetched through the other; on a PIPT I-cache it does.
constexpr uint64_t kRx2 = 0xc0000;
uint64_t CanonOfThree(uint64_t va, void *)
{
  return pageviews::Canon(va, {{kRw, kRx}, {kRx2, kRx}});
}

class CoherenceViews : public ::testing::Test
{
protected:
  // Cluster 0 VIPT (L1Ip 2), cluster 1 PIPT (L1Ip 3).
  CoherenceViews() : model({kLittleCtr, 0x8444c004}, &views), vipt(0, 0), pipt(1, 1)
  {
  }

  // New code written and cleaned through kRw, invalidated through each of
  // IVIEWS (one ic each, completed by one dsb), then both threads isb.
  void Publish(std::vector<uint64_t> iviews)
  {
    model_store(model.m, &vipt.t, kRw, 4, kWriterPc);
    model_dc_clean(model.m, &vipt.t, kRw, 1, false);
    model_dsb(model.m, &vipt.t);
    for (uint64_t v : iviews)
      model_ic_ivau(model.m, &vipt.t, v, 4);
    model_dsb(model.m, &vipt.t);
    model_sync(model.m, &vipt.t);
    model_sync(model.m, &pipt.t);
  }
  model_verdict FetchThrough(Thread &t, uint64_t va)
  {
    model_word *w = model_word_for_fetch(model.m, va, kMovInsn, false);
    EXPECT_NE(w, nullptr);
    return model_fetch(model.m, &t.t, w, model_view(model.m, va), false);
  }
  uint64_t FreshAfterThrough(uint64_t va)
  {
    model_word *w = model_word_for_fetch(model.m, va, kMovInsn, false);
    return model_fresh_after(model.m, w, model_view(model.m, va));
  }

  const model_views views = {CanonOfThree, NonexecView, nullptr};
  Model model;
  Thread vipt, pipt;
};

TEST_F(CoherenceViews, EachViewIsItsOwnAddress)
{
  EXPECT_EQ(model_view(model.m, kRx), MODEL_OWN_VIEW);
  EXPECT_EQ(model_view(model.m, kCode), MODEL_OWN_VIEW);
  EXPECT_NE(model_view(model.m, kRx2), MODEL_OWN_VIEW);
  EXPECT_NE(model_view(model.m, kRx2), model_view(model.m, kRw));
  EXPECT_EQ(model_view(model.m, kRx2 + 64), model_view(model.m, kRx2));
}

TEST_F(CoherenceViews, KindInvalidatedViaOtherExecViewOnlyOnVipt)
{
  Publish({kRx});
  const model_verdict v = FetchThrough(vipt, kRx2);
  EXPECT_EQ(v.kind, MODEL_STALE_OTHER_EXEC_VIEW);
  EXPECT_STREQ(model_stale_kind_name(v.kind), "invalidated-via-other-exec-view");
  EXPECT_STREQ(model_stale_kind_reason(v.kind), "invalidated through another executable view");
  EXPECT_EQ(v.flush_site, 4u);
  EXPECT_EQ(v.line, 64u);
  EXPECT_EQ(FetchThrough(pipt, kRx2).kind, MODEL_FRESH);
  EXPECT_EQ(FetchThrough(vipt, kRx).kind, MODEL_FRESH);
  EXPECT_EQ(FreshAfterThrough(kRx2), UINT64_MAX) << "no bound through a view never invalidated";
  EXPECT_NE(FreshAfterThrough(kRx), UINT64_MAX);
}

// The same with the invalidate through the second view, which is not the
// canonical address: the view that runs the code is the one that counts.
TEST_F(CoherenceViews, InvalidatingThroughTheViewThatRunsTheCodeIsEnough)
{
  Publish({kRx2});
  EXPECT_EQ(FetchThrough(vipt, kRx2).kind, MODEL_FRESH);
  EXPECT_EQ(FetchThrough(pipt, kRx2).kind, MODEL_FRESH);
  EXPECT_EQ(FetchThrough(vipt, kRx).kind, MODEL_STALE_OTHER_EXEC_VIEW);
  EXPECT_EQ(FetchThrough(pipt, kRx).kind, MODEL_FRESH);
}

TEST_F(CoherenceViews, InvalidatingThroughBothViewsIsFreshThroughEach)
{
  Publish({kRx, kRx2});
  for (uint64_t va : {kRx, kRx2}) {
    EXPECT_EQ(FetchThrough(vipt, va).kind, MODEL_FRESH) << std::hex << va;
    EXPECT_EQ(FetchThrough(pipt, va).kind, MODEL_FRESH) << std::hex << va;
    EXPECT_NE(FreshAfterThrough(va), UINT64_MAX) << std::hex << va;
  }
  // A store after it undoes the flush for both views.
  model_store(model.m, &vipt.t, kRw, 4, kWriterPc);
  EXPECT_EQ(FetchThrough(vipt, kRx2).kind, MODEL_STALE_NOT_CLEANED);
}

// The non-executable alias keeps its own reason, whichever executable view
// fetches: nothing is ever fetched through kRw.
TEST_F(CoherenceViews, AnInvalidateThroughTheWritableViewKeepsItsReason)
{
  Publish({kRw});
  EXPECT_EQ(FetchThrough(vipt, kRx).kind, MODEL_STALE_NONEXEC_ALIAS);
  EXPECT_EQ(FetchThrough(vipt, kRx2).kind, MODEL_STALE_NONEXEC_ALIAS);
  EXPECT_EQ(FetchThrough(pipt, kRx2).kind, MODEL_FRESH);
}

// Each view's invalidate must still be issued after the clean completed and
// be completed itself; the other view's cannot stand in for it.
TEST_F(CoherenceViews, TheFetchingViewsOwnInvalidateMustComplete)
{
  model_store(model.m, &vipt.t, kRw, 4, kWriterPc);
  model_dc_clean(model.m, &vipt.t, kRw, 1, false);
  model_dsb(model.m, &vipt.t);
  model_ic_ivau(model.m, &vipt.t, kRx, 4);
  model_dsb(model.m, &vipt.t);
  model_ic_ivau(model.m, &vipt.t, kRx2, 4); // no dsb after this one
  model_sync(model.m, &vipt.t);
  EXPECT_EQ(FetchThrough(vipt, kRx).kind, MODEL_FRESH);
  EXPECT_EQ(FetchThrough(vipt, kRx2).kind, MODEL_STALE_INVALIDATE_NOT_COMPLETED);
}

// The memo of a judged word (plugin_instrument.c) holds while the stamp
// does: the invalidate through the fetching view must change it.
TEST_F(CoherenceViews, AnInvalidateThroughTheFetchingViewChangesTheStamp)
{
  Publish({kRx});
  model_word *w = model_word_for_fetch(model.m, kRx2, kMovInsn, false);
  ASSERT_EQ(FetchThrough(vipt, kRx2).kind, MODEL_STALE_OTHER_EXEC_VIEW);
  const model_stamp before = model_fetch_stamp(model.m, w);
  model_ic_ivau(model.m, &vipt.t, kRx2, 5);
  model_dsb(model.m, &vipt.t);
  model_sync(model.m, &vipt.t);
  const model_stamp after = model_fetch_stamp(model.m, w);
  EXPECT_TRUE(before.word != after.word || before.shared != after.shared);
  EXPECT_EQ(FetchThrough(vipt, kRx2).kind, MODEL_FRESH);
  EXPECT_EQ(model_verdict_reads(model.m, MODEL_STALE_OTHER_EXEC_VIEW), MODEL_READS_CLUSTER);
}

TEST(CoherenceKinds, ReasonsKeepTheReportWording)
{
  EXPECT_STREQ(model_stale_kind_reason(MODEL_STALE_NOT_INVALIDATED_IN_GEOMETRY),
               "not invalidated in this core's geometry");
  EXPECT_STREQ(model_stale_kind_reason(MODEL_STALE_NONEXEC_ALIAS),
               "invalidated through a non-executable alias");
  EXPECT_STREQ(model_stale_kind_reason(MODEL_STALE_OTHER_EXEC_VIEW),
               "invalidated through another executable view");
  EXPECT_STREQ(model_stale_kind_reason(MODEL_STALE_NOT_SYNCHRONISED),
               "pipeline not synchronised (no isb)");
}

} // namespace

// ---- shared records ----------------------------------------------------------
//
// Words in the same state share one record (model_coherence_pages.c, "Shared
// records"); words whose state differs in one cluster's slots only must not.
// Under IDC on both clusters no clean is needed, so a confirmed ic loop with
// the big cluster's 128-byte stride leaves the two halves of each 128-byte
// block alike in everything but the little cluster's slots: the first half
// invalidated in both geometries, the second only in the big one.
class SharedRecords : public ::testing::Test
{
protected:
  static constexpr uint64_t kIdc = UINT64_C(1) << 28;
  SharedRecords() : model({kLittleCtr | kIdc, kBigCtr | kIdc}), little(0, kLittle), big(1, kBig)
  {
    model_store(model.m, &big.t, kCode, 384, kWriterPc);
    model_dsb(model.m, &big.t);
    for (uint64_t a = kCode; a < kCode + 384; a += 128)
      model_ic_ivau(model.m, &big.t, a, 2);
    model_dsb(model.m, &big.t);
    model_sync(model.m, &big.t);
    model_sync(model.m, &little.t);
  }

  model_verdict Fetch(Thread &t, uint64_t va)
  {
    return model_fetch(model.m, &t.t, model_word_for_fetch(model.m, va, kMovInsn, false),
                       MODEL_OWN_VIEW, false);
  }

  Model model;
  Thread little, big;
};

TEST_F(SharedRecords, AHalfLineOnlyTheBigClusterInvalidatedKeepsItsOwnState)
{
  for (uint64_t block = kCode; block < kCode + 384; block += 128) {
    SCOPED_TRACE(block - kCode);
    EXPECT_EQ(Fetch(little, block).kind, MODEL_FRESH);
    EXPECT_EQ(Fetch(little, block + 60).kind, MODEL_FRESH);
    EXPECT_EQ(Fetch(little, block + 64).kind, MODEL_STALE_NOT_INVALIDATED_IN_GEOMETRY);
    EXPECT_EQ(Fetch(little, block + 124).kind, MODEL_STALE_NOT_INVALIDATED_IN_GEOMETRY);
    EXPECT_EQ(Fetch(big, block + 64).kind, MODEL_FRESH);
    EXPECT_EQ(Fetch(big, block + 124).kind, MODEL_FRESH);
  }
}

TEST_F(SharedRecords, WordsInTheSameStateShareOneRecord)
{
  // 96 words of one page in six states: each block's two halves, and the
  // three blocks told apart by their own ic's time in the big cluster's
  // slots. Translating them changes no record (the encoding is the word's own).
  for (uint64_t a = kCode; a < kCode + 384; a += 4)
    model_word_for_fetch(model.m, a, kMovInsn, false);
  EXPECT_EQ(model_records_live(model.m), 6u);
  GArray *dense = g_array_new(false, false, sizeof(uint64_t));
  model_clear(model.m, kCode, kCode + 4096, model_page_epoch(model.m), dense);
  g_array_unref(dense);
  EXPECT_EQ(model_records_live(model.m), 0u);
  EXPECT_GE(model_records_peak(model.m), 6u);
  EXPECT_LE(model_records_peak(model.m), 8u); // a passing state or two while the ic ran
}
