// What a stale fetch may see (rig/model/model_coherence.c, "Stale words"):
// a rewrite with the same bytes of a word whose every earlier version the
// fetching thread may see was that same word cannot run another
// instruction (the verdict's BENIGN), while the first version of code on a
// fresh page, or a slot that held other code, can. And the first version
// of new code is as stale as any other: every word of a function written
// into a fresh page, in the shapes herd7 -variant ifetch allows
// (DIC1.SM.B+isb, jf.IDC1.SM.B+ic-dsb-isb: Sometimes), and none in their
// forbidden neighbours (DIC1.SM.B+dsb.ish-isb,
// IDC1.SM.B+dsb.ish-ic.ivau-dsb.ish-isb: Never).
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "model_coherence.h"

namespace
{

constexpr uint64_t kA53Ctr = 0x84448004; // 64-byte lines, IDC 0, DIC 0
constexpr uint64_t kIdc = uint64_t{1} << 28, kDic = uint64_t{1} << 29;
constexpr uint64_t kCode = 0x10000;
constexpr uint64_t kWriterPc = 0x4001f0;
constexpr uint32_t kTrampoline = 0x58000090; // ldr x16, .+16: a libffi-like word
constexpr uint32_t kOther = 0xd2800000;      // mov x0, #0

// A stale fetch's verdict, and whether it is benign (model_fetch_benign).
struct Judged {
  model_stale_kind kind;
  bool benign;
  bool benign_reads_sync;
};

struct Rig {
  explicit Rig(uint64_t ctr, unsigned nthreads = 2)
  {
    m = model_new(&ctr, 1, nullptr);
    threads.resize(nthreads);
    for (unsigned i = 0; i < nthreads; i++)
      model_thread_init(&threads[i], i, i, 0);
  }
  ~Rig()
  {
    for (auto &t : threads)
      model_thread_clear(&t);
    model_free(m);
  }
  model_thread &T(unsigned i)
  {
    return threads[i];
  }
  void Store(unsigned t, uint64_t va, unsigned bytes = 4)
  {
    model_store(m, &T(t), va, bytes, kWriterPc);
  }
  // dc cvau by line; dsb; ic ivau by line; dsb; isb over [va, va + len).
  void Flush(unsigned t, uint64_t va, unsigned len = 4)
  {
    for (uint64_t a = va & ~uint64_t{63}; a < va + len; a += 64)
      model_dc_clean(m, &T(t), a, 1, false);
    model_dsb(m, &T(t));
    for (uint64_t a = va & ~uint64_t{63}; a < va + len; a += 64)
      model_ic_ivau(m, &T(t), a, 2);
    model_dsb(m, &T(t));
    model_sync(m, &T(t));
  }
  // A translation of INSN at VA and thread T's fetch of it.
  Judged Fetch(unsigned t, uint64_t va, uint32_t insn)
  {
    model_word *w = model_word_for_fetch(m, va, insn, false);
    EXPECT_NE(w, nullptr);
    if (!w)
      return Judged{MODEL_FRESH, false, false};
    Judged j{model_fetch(m, &T(t), w, MODEL_OWN_VIEW, false).kind, false, false};
    j.benign = model_fetch_benign(m, &T(t), w, &j.benign_reads_sync);
    return j;
  }
  // INSN stored at VA by thread T, published by it and fetched fresh.
  void Publish(unsigned t, uint64_t va, uint32_t insn)
  {
    Store(t, va);
    Flush(t, va);
    EXPECT_EQ(Fetch(t, va, insn).kind, MODEL_FRESH);
  }
  model *m;
  std::vector<model_thread> threads;
};

// A published trampoline rewritten with the same bytes and run without
// maintenance: stale by the rules (not cleaned), but the fetch can only
// see the word it runs.
TEST(StaleWords, AnIdenticalRewriteOfPublishedCodeIsBenign)
{
  Rig rig(kA53Ctr);
  rig.Publish(0, kCode, kTrampoline);
  rig.Store(0, kCode);
  const Judged v = rig.Fetch(0, kCode, kTrampoline);
  EXPECT_EQ(v.kind, MODEL_STALE_NOT_CLEANED);
  EXPECT_TRUE(v.benign);
  // The version before the publication (the page's first content) is
  // still in a pipeline that was not synchronised since.
  EXPECT_TRUE(v.benign_reads_sync);
}

// The same slot rewritten with another trampoline: the old one can run.
TEST(StaleWords, ARewriteWithOtherBytesIsDangerous)
{
  Rig rig(kA53Ctr);
  rig.Publish(0, kCode, kTrampoline);
  rig.Store(0, kCode);
  const Judged v = rig.Fetch(0, kCode, kOther);
  EXPECT_EQ(v.kind, MODEL_STALE_NOT_CLEANED);
  EXPECT_FALSE(v.benign);
}

// The first version of code on a fresh page: what was there before (zeros,
// or whatever the kernel left) is not the instruction, and an identical
// rewrite of a version that was never published keeps that danger.
TEST(StaleWords, TheFirstVersionOnAFreshPageIsDangerousAndStaysSoUntilPublished)
{
  Rig rig(kA53Ctr);
  rig.Store(0, kCode);
  Judged v = rig.Fetch(0, kCode, kTrampoline);
  EXPECT_EQ(v.kind, MODEL_STALE_NOT_CLEANED);
  EXPECT_FALSE(v.benign);
  rig.Store(0, kCode); // the same bytes again, still never maintained
  v = rig.Fetch(0, kCode, kTrampoline);
  EXPECT_EQ(v.kind, MODEL_STALE_NOT_CLEANED);
  EXPECT_FALSE(v.benign);
  // Published once: from then on an identical rewrite is benign.
  rig.Flush(0, kCode);
  ASSERT_EQ(rig.Fetch(0, kCode, kTrampoline).kind, MODEL_FRESH);
  rig.Store(0, kCode);
  EXPECT_TRUE(rig.Fetch(0, kCode, kTrampoline).benign);
}

// A thread that did not synchronise after the publication may still hold
// the version before it (zeros here): dangerous for it, benign for the
// thread that did; its isb makes it benign, and the answer read its
// sync_seq (the plugin's memo must watch it).
TEST(StaleWords, AThreadNotSynchronisedSincePublicationMaySeeOlderVersions)
{
  Rig rig(kA53Ctr);
  rig.Store(0, kCode);
  rig.Flush(0, kCode); // thread 1 makes no isb
  ASSERT_EQ(rig.Fetch(0, kCode, kTrampoline).kind, MODEL_FRESH);
  rig.Store(0, kCode);
  const Judged other = rig.Fetch(1, kCode, kTrampoline);
  EXPECT_NE(other.kind, MODEL_FRESH);
  EXPECT_FALSE(other.benign);
  EXPECT_TRUE(other.benign_reads_sync);
  EXPECT_TRUE(rig.Fetch(0, kCode, kTrampoline).benign);
  model_sync(rig.m, &rig.T(1));
  EXPECT_TRUE(rig.Fetch(1, kCode, kTrampoline).benign);
}

// Two stores in a row that nothing fetched between: the word in between is
// unknown (the model does not see store values), so it may be anything.
TEST(StaleWords, AnUnfetchedWordBetweenTwoStoresIsUnknown)
{
  Rig rig(kA53Ctr);
  rig.Publish(0, kCode, kTrampoline);
  rig.Store(0, kCode);
  rig.Store(0, kCode);
  EXPECT_FALSE(rig.Fetch(0, kCode, kTrampoline).benign);
}

// What a word no translation showed held is unknown, never taken for
// zeros (the record keeps no word for it): a zero word stored over it is
// no identical rewrite.
TEST(StaleWords, AnUntranslatedWordsOldContentIsNotTakenForZeros)
{
  Rig rig(kA53Ctr);
  rig.Publish(0, kCode + 4, kTrampoline); // the page has per-word records now
  rig.Store(0, kCode);
  EXPECT_FALSE(rig.Fetch(0, kCode, 0).benign);
}

// A word seen in a translation, then rewritten with other bytes that were
// fetched, then with the first bytes again, all without maintenance: the
// fetch may see the middle version.
TEST(StaleWords, AnyUnpublishedVersionInBetweenIsDangerous)
{
  Rig rig(kA53Ctr);
  rig.Publish(0, kCode, kTrampoline);
  rig.Store(0, kCode);
  ASSERT_FALSE(rig.Fetch(0, kCode, kOther).benign);
  rig.Store(0, kCode);
  EXPECT_FALSE(rig.Fetch(0, kCode, kTrampoline).benign);
}

// model_stale_benign with the word memory holds after a store into the
// running block (plugin_selfstore.c): the old translation is what runs.
TEST(StaleWords, TheWordMemoryHoldsIsComparedWithWhatMayBeSeen)
{
  Rig rig(kA53Ctr);
  rig.Publish(0, kCode, kTrampoline);
  rig.Store(0, kCode);
  model_word *w = model_word_now(rig.m, kCode);
  ASSERT_NE(w, nullptr);
  EXPECT_TRUE(model_stale_benign(rig.m, &rig.T(0), w, kTrampoline, nullptr));
  EXPECT_FALSE(model_stale_benign(rig.m, &rig.T(0), w, kOther, nullptr));
  // Not yet translated again: what the old translation runs need not be
  // what memory holds, so a fetch of it is dangerous.
  EXPECT_FALSE(model_fetch_benign(rig.m, &rig.T(0), w, nullptr));
}

// ---- the first version of new code (a whole function on a fresh page) ----

constexpr unsigned kWords = 256; // a 1 KiB function: 16 lines of 64 bytes

enum class Shape { kIsb, kDsbIsb, kIcDsbIsb, kDsbIcDsbIsb };

// Thread 0 writes kWords words into a page nothing fetched from or
// maintained, then maintains with SHAPE and fetches every word; ROUNDS
// rounds of the same code. Returns the stale fetches per round and whether
// they were benign.
struct Round {
  unsigned stale = 0, benign = 0;
};

std::vector<Round> FreshFunction(Shape shape, unsigned rounds)
{
  const uint64_t ctr =
      kA53Ctr | kIdc | (shape == Shape::kIsb || shape == Shape::kDsbIsb ? kDic : 0);
  Rig rig(ctr, 1);
  std::vector<Round> out;
  for (unsigned r = 0; r < rounds; r++) {
    for (unsigned i = 0; i < kWords; i++)
      rig.Store(0, kCode + 4 * i);
    if (shape == Shape::kDsbIsb || shape == Shape::kDsbIcDsbIsb)
      model_dsb(rig.m, &rig.T(0));
    if (shape == Shape::kIcDsbIsb || shape == Shape::kDsbIcDsbIsb) {
      for (unsigned o = 0; o < 4 * kWords; o += 64)
        model_ic_ivau(rig.m, &rig.T(0), kCode + o, 2);
      model_dsb(rig.m, &rig.T(0));
    }
    model_sync(rig.m, &rig.T(0));
    Round round;
    for (unsigned i = 0; i < kWords; i++) {
      const Judged v = rig.Fetch(0, kCode + 4 * i, kTrampoline + i);
      round.stale += v.kind != MODEL_FRESH;
      round.benign += v.kind != MODEL_FRESH && v.benign;
    }
    out.push_back(round);
  }
  return out;
}

TEST(StaleWords, EveryWordOfANewFunctionAfterIsbAloneIsStaleUnderIdcAndDic)
{
  const auto rounds = FreshFunction(Shape::kIsb, 3);
  for (const Round &r : rounds) {
    EXPECT_EQ(r.stale, kWords);
    EXPECT_EQ(r.benign, 0u); // the store never completed: zeros may be seen
  }
}

TEST(StaleWords, EveryWordOfANewFunctionInvalidatedBeforeItsStoreCompletedIsStale)
{
  const auto rounds = FreshFunction(Shape::kIcDsbIsb, 3);
  for (const Round &r : rounds) {
    EXPECT_EQ(r.stale, kWords);
    EXPECT_EQ(r.benign, 0u);
  }
}

TEST(StaleWords, ANewFunctionWithTheStoreCompletedIsFresh)
{
  for (Shape shape : {Shape::kDsbIsb, Shape::kDsbIcDsbIsb}) {
    for (const Round &r : FreshFunction(shape, 3))
      EXPECT_EQ(r.stale, 0u);
  }
}

} // namespace
