// The memos that repeat one change across words in the same state
// (rig/model/model_coherence_internal.h, struct rec_memo and struct
// store_memo): a word may take its neighbour's result only when nothing
// but the shared record decided it. Each test sets up words that share a
// record but differ in what else the change reads, and checks that each
// word still gets the verdict of its own state.
#include <gtest/gtest.h>

#include <cstdint>

#include "model_coherence.h"
#include "model_handles.h"
#include "page_views.h"

namespace
{

constexpr uint64_t kIdc = uint64_t{1} << 28, kDic = uint64_t{1} << 29;
constexpr uint64_t kA53Ctr = 0x84448004; // 64-byte D and I lines
// The same with 32-byte D lines (CTR_EL0.DminLine 3).
constexpr uint64_t kSmallDlineCtr = (kA53Ctr & ~(uint64_t{0xf} << 16)) | (uint64_t{3} << 16);
constexpr uint64_t kCode = 0x10000;
constexpr uint64_t kWriterPc = 0x4001f0, kOtherWriterPc = 0x400200;
constexpr uint32_t kMovInsn = 0xd2800000;

model_verdict FetchThrough(model *m, Thread &t, uint64_t va, uint64_t view = MODEL_OWN_VIEW)
{
  model_word *w = model_word_for_fetch(m, va, kMovInsn, false);
  EXPECT_NE(w, nullptr);
  return w ? model_fetch(m, &t.t, w, view, false) : model_verdict{};
}

// T's whole sequence for the line at VA: clean (ordered after the loads
// before it when AFTER_LOADS), dsb, invalidate, dsb, isb.
void Publish(model *m, Thread &t, uint64_t va, bool after_loads = false)
{
  model_dc_clean(m, &t.t, va, 1, after_loads);
  model_dsb(m, &t.t);
  model_ic_ivau(m, &t.t, va, 2);
  model_dsb(m, &t.t);
  model_sync(m, &t.t);
}

} // namespace

// One store of a whole 64-byte line by a core with 32-byte D lines, cleaned
// by a core with 64-byte lines: the clean reaches the writer's dirty line at
// its address only, so the second half stays never cleaned (and not "clean
// not completed", which a word repeating its neighbour's clean would say).
TEST(RecordMemo, AWordOutsideTheWritersLineIsNotTakenForCleaned)
{
  Model model({kSmallDlineCtr, kA53Ctr});
  Thread writer(0, 0), cleaner(1, 1);
  model_store(model.m, &writer.t, kCode, 64, kWriterPc);
  Publish(model.m, cleaner, kCode, true);
  for (uint64_t a = kCode; a < kCode + 32; a += 4)
    EXPECT_EQ(FetchThrough(model.m, cleaner, a).kind, MODEL_FRESH) << a - kCode;
  for (uint64_t a = kCode + 32; a < kCode + 64; a += 4)
    EXPECT_EQ(FetchThrough(model.m, cleaner, a).kind, MODEL_STALE_NOT_CLEANED) << a - kCode;
}

// Three views of one page: kRw (writable) and two executable ones, kRx
// (the canonical address) and kRx2. Cluster 0's I-cache is VIPT (L1Ip 2), so
// the slots of an ic through kRx2 sit beside each word (the record holds
// kRx's): each word must get its own, not only the first one of the line.
constexpr uint64_t kRw = 0x80000, kRx = 0x90000, kRx2 = 0xc0000;

uint64_t CanonOfViews(uint64_t va, void *)
{
  return pageviews::Canon(va, {{kRw, kRx}, {kRx2, kRx}});
}

bool NonexecView(uint64_t va, void *)
{
  return pageviews::InPage(va, kRw);
}

TEST(RecordMemo, EachWordKeepsItsOwnSlotsForAnotherExecutableView)
{
  const model_views views = {CanonOfViews, NonexecView, nullptr};
  Model model({kA53Ctr}, &views);
  Thread t(0, 0);
  model_store(model.m, &t.t, kRw, 64, kWriterPc);
  model_dc_clean(model.m, &t.t, kRw, 1, false);
  model_dsb(model.m, &t.t);
  model_ic_ivau(model.m, &t.t, kRx, 2);
  model_dsb(model.m, &t.t);
  // Issued through the second view and not completed yet.
  model_ic_ivau(model.m, &t.t, kRx2, 3);
  model_sync(model.m, &t.t);
  for (uint64_t off = 0; off < 64; off += 4) {
    const model_verdict v = FetchThrough(model.m, t, kRx2 + off, model_view(model.m, kRx2));
    EXPECT_EQ(v.kind, MODEL_STALE_INVALIDATE_NOT_COMPLETED) << off;
  }
  model_dsb(model.m, &t.t);
  model_sync(model.m, &t.t);
  for (uint64_t off = 0; off < 64; off += 4)
    EXPECT_EQ(FetchThrough(model.m, t, kRx2 + off, model_view(model.m, kRx2)).kind, MODEL_FRESH)
        << off;
}

// A rewrite by one store of two published words, only one of which QEMU
// translated since: that one's old content is known (the same encoding,
// benign), the other's is not. The second word must not repeat the first's.
TEST(RecordMemo, AStoreOverAnUntranslatedWordDoesNotRepeatATranslatedOnes)
{
  Model model({kA53Ctr});
  Thread writer(0, 0), reader(1, 0);
  model_store(model.m, &writer.t, kCode, 8, kWriterPc);
  Publish(model.m, writer, kCode);
  model_sync(model.m, &reader.t);
  ASSERT_EQ(FetchThrough(model.m, reader, kCode).kind, MODEL_FRESH);
  model_store(model.m, &writer.t, kCode, 8, kOtherWriterPc);
  model_sync(model.m, &reader.t);
  bool reads_sync = false;
  model_word *first = model_word_for_fetch(model.m, kCode, kMovInsn, false);
  model_word *second = model_word_for_fetch(model.m, kCode + 4, kMovInsn, false);
  ASSERT_NE(first, nullptr);
  ASSERT_NE(second, nullptr);
  EXPECT_NE(model_fetch(model.m, &reader.t, first, MODEL_OWN_VIEW, false).kind, MODEL_FRESH);
  EXPECT_TRUE(model_fetch_benign(model.m, &reader.t, first, &reads_sync));
  EXPECT_NE(model_fetch(model.m, &reader.t, second, MODEL_OWN_VIEW, false).kind, MODEL_FRESH);
  EXPECT_FALSE(model_fetch_benign(model.m, &reader.t, second, &reads_sync));
}

// Under IDC and DIC a store needs only a dsb and an isb. Two words in one
// state, stored by the same instruction on either side of a dsb: the first
// store completed, the second did not, so it must not repeat the first's.
TEST(RecordMemo, AStoreAfterADsbDoesNotRepeatTheStoreBeforeIt)
{
  Model model({kA53Ctr | kIdc | kDic});
  Thread t(0, 0);
  model_store(model.m, &t.t, kCode, 8, kWriterPc);
  model_dsb(model.m, &t.t);
  model_sync(model.m, &t.t);
  ASSERT_EQ(FetchThrough(model.m, t, kCode).kind, MODEL_FRESH);
  ASSERT_EQ(FetchThrough(model.m, t, kCode + 4).kind, MODEL_FRESH);
  model_store(model.m, &t.t, kCode, 4, kOtherWriterPc);
  model_dsb(model.m, &t.t);
  model_store(model.m, &t.t, kCode + 4, 4, kOtherWriterPc);
  model_sync(model.m, &t.t);
  EXPECT_EQ(FetchThrough(model.m, t, kCode).kind, MODEL_FRESH);
  EXPECT_EQ(FetchThrough(model.m, t, kCode + 4).kind, MODEL_STALE_CLEAN_NOT_COMPLETED);
}

// A line whose words cycle through eight states (stored in turn by eight
// instructions, two words each, then seeded into per-word records when
// code is first fetched from the page): each operation of a flush that
// leaves out the invalidate reaches the eight records word after word,
// more than it keeps memos for, and each word must keep its own writer.
TEST(RecordMemo, WordsThatCycleThroughManyStatesKeepTheirOwnWriters)
{
  constexpr unsigned kWriters = 8;
  Model model({kA53Ctr});
  Thread t(0, 0);
  for (uint64_t a = kCode; a < kCode + 64; a += 4)
    model_store(model.m, &t.t, a, 4, kWriterPc + 4 * ((a - kCode) / 4 % kWriters));
  ASSERT_NE(model_word_for_fetch(model.m, kCode + 0x200, kMovInsn, false), nullptr);
  model_dc_clean(model.m, &t.t, kCode, 1, false);
  model_dsb(model.m, &t.t);
  model_sync(model.m, &t.t);
  for (uint64_t a = kCode; a < kCode + 64; a += 4) {
    model_verdict v = FetchThrough(model.m, t, a);
    EXPECT_NE(v.kind, MODEL_FRESH) << a - kCode;
    EXPECT_EQ(v.writer_pc, kWriterPc + 4 * ((a - kCode) / 4 % kWriters)) << a - kCode;
  }
}
