// The coherence model forgets unmapped memory (rig/model/model_coherence_pages.c,
// model_forget): a program that maps its code at a new address
// each time must not leave one page record behind per mapping. Memory the
// kernel refills in place is emptied (model_clear), memory mremap moves
// keeps its records at the new address (model_move).
#include <gtest/gtest.h>

#include <cstdint>

#include "model_coherence.h"

namespace
{

constexpr uint64_t kCtr = 0x84448004; // Cortex-A53: 64-byte lines
constexpr uint64_t kPage = 4096;
constexpr uint64_t kCode = 0x10000;
constexpr uint64_t kWriterPc = 0x4001f0;
constexpr uint32_t kMovInsn = 0xd2800000;

struct ForgetModel : ::testing::Test {
  ForgetModel()
  {
    m = model_new(&kCtr, 1, nullptr);
    model_thread_init(&t, 0, 0, 0);
    retired = g_ptr_array_new_with_free_func(
        [](gpointer p) { model_page_free(static_cast<model_page *>(p)); });
  }
  ~ForgetModel() override
  {
    g_ptr_array_unref(retired);
    model_thread_clear(&t);
    model_free(m);
  }
  model *m;
  model_thread t;
  GPtrArray *retired;
};

TEST_F(ForgetModel, ForgettingARangeRetiresExactlyItsPages)
{
  for (uint64_t p = 0; p < 4; p++)
    model_store(m, &t, kCode + p * kPage, 4, kWriterPc);
  ASSERT_EQ(model_pages_live(m), 4u);
  // The middle two pages, the range ending inside the third.
  EXPECT_EQ(model_forget(m, kCode + kPage, kCode + 2 * kPage + 8, model_page_epoch(m), retired),
            2u);
  EXPECT_EQ(retired->len, 2u);
  EXPECT_EQ(model_pages_live(m), 2u);
  EXPECT_EQ(model_pages_peak(m), 4u);
}

TEST_F(ForgetModel, AForgottenPagesWordsAreNewAgain)
{
  model_store(m, &t, kCode, 4, kWriterPc);
  model_forget(m, kCode, kCode + kPage, model_page_epoch(m), retired);
  // The next mapping's word was written by no store the model saw.
  EXPECT_EQ(model_word_for_fetch(m, kCode, kMovInsn, false), nullptr);
}

TEST_F(ForgetModel, APageMadeAfterTheUnmapWasEnteredIsKept)
{
  model_store(m, &t, kCode, 4, kWriterPc);
  uint64_t entered = model_page_epoch(m);
  // Another thread maps the range again and writes code before the
  // unmapping thread's syscall returns.
  model_forget(m, kCode, kCode + kPage, entered, retired);
  model_store(m, &t, kCode, 4, kWriterPc);
  uint64_t entered_again = model_page_epoch(m) - 1;
  EXPECT_EQ(model_forget(m, kCode, kCode + kPage, entered_again, retired), 0u);
  model_word *w = model_word_for_fetch(m, kCode, kMovInsn, false);
  ASSERT_NE(w, nullptr);
  EXPECT_EQ(model_fetch(m, &t, w, MODEL_OWN_VIEW, false).kind, MODEL_STALE_NOT_CLEANED);
}

TEST_F(ForgetModel, AHugeRangeWalksTheTableInstead)
{
  model_store(m, &t, kCode, 4, kWriterPc);
  model_store(m, &t, UINT64_C(0x7f0000000000), 4, kWriterPc);
  EXPECT_EQ(model_forget(m, 0, UINT64_C(1) << 46, model_page_epoch(m), retired), 1u);
  EXPECT_EQ(model_pages_live(m), 1u);
}

TEST_F(ForgetModel, ChurnKeepsThePeakAtWhatIsMappedAtOnce)
{
  for (uint64_t i = 0; i < 1000; i++) {
    uint64_t va = kCode + i * 2 * kPage;
    model_store(m, &t, va, 8, kWriterPc);
    model_dc_clean(m, &t, va, 1, false);
    model_dsb(m, &t);
    EXPECT_EQ(model_forget(m, va, va + kPage, model_page_epoch(m), retired), 1u);
    model_pages_released(m, retired->len);
    g_ptr_array_set_size(retired, 0);
  }
  EXPECT_EQ(model_pages_peak(m), 1u);
}

TEST_F(ForgetModel, RetiredRecordsCountUntilReleased)
{
  for (uint64_t i = 0; i < 10; i++) {
    uint64_t va = kCode + i * kPage;
    model_store(m, &t, va, 4, kWriterPc);
    model_forget(m, va, va + kPage, model_page_epoch(m), retired);
  }
  // Never released: each record is still allocated somewhere.
  EXPECT_EQ(model_pages_live(m), 0u);
  EXPECT_EQ(model_pages_peak(m), 10u);
}

// madvise(MADV_DONTNEED) on private memory: the words start afresh, but the
// record stays where translated fetch checks point.
TEST_F(ForgetModel, AClearedWordIsFreshAndItsRecordStays)
{
  model_store(m, &t, kCode, 8, kWriterPc);
  model_word *w = model_word_for_fetch(m, kCode, kMovInsn, false);
  ASSERT_NE(w, nullptr);
  ASSERT_EQ(model_fetch(m, &t, w, MODEL_OWN_VIEW, false).kind, MODEL_STALE_NOT_CLEANED);
  GArray *dense = g_array_new(false, false, sizeof(uint64_t));
  model_clear(m, kCode, kCode + kPage, model_page_epoch(m), dense);
  ASSERT_EQ(dense->len, 1u);
  EXPECT_EQ(g_array_index(dense, uint64_t, 0), kCode / kPage);
  g_array_unref(dense);
  EXPECT_EQ(model_pages_live(m), 1u);
  EXPECT_EQ(model_fetch(m, &t, w, MODEL_OWN_VIEW, false).kind, MODEL_FRESH);
  EXPECT_EQ(model_fresh_after(m, w, MODEL_OWN_VIEW), 0u);
  // A store after the clear is a new store, and stale until flushed.
  model_store(m, &t, kCode, 4, kWriterPc);
  EXPECT_EQ(model_fetch(m, &t, w, MODEL_OWN_VIEW, false).kind, MODEL_STALE_NOT_CLEANED);
}

TEST_F(ForgetModel, AClearedStoreOnlyPageHoldsNoStore)
{
  model_store(m, &t, kCode + kPage, 4, kWriterPc); // never fetched: store-only
  model_store(m, &t, kCode + 2 * kPage, 4, kWriterPc);
  GArray *dense = g_array_new(false, false, sizeof(uint64_t));
  model_clear(m, kCode + kPage, kCode + 2 * kPage, model_page_epoch(m), dense);
  EXPECT_EQ(dense->len, 0u);
  g_array_unref(dense);
  model_word *cleared = model_word_for_fetch(m, kCode + kPage, kMovInsn, false);
  ASSERT_NE(cleared, nullptr); // the record stays, empty
  EXPECT_EQ(model_fetch(m, &t, cleared, MODEL_OWN_VIEW, false).kind, MODEL_FRESH);
  // The page after the range keeps its store.
  model_word *kept = model_word_for_fetch(m, kCode + 2 * kPage, kMovInsn, false);
  ASSERT_NE(kept, nullptr);
  EXPECT_EQ(model_fetch(m, &t, kept, MODEL_OWN_VIEW, false).kind, MODEL_STALE_NOT_CLEANED);
}

TEST_F(ForgetModel, AClearSparesPagesMadeAfterTheMadviseWasEntered)
{
  uint64_t entered = model_page_epoch(m);
  model_store(m, &t, kCode, 4, kWriterPc); // another thread, meanwhile
  GArray *dense = g_array_new(false, false, sizeof(uint64_t));
  model_clear(m, kCode, kCode + kPage, entered, dense);
  g_array_unref(dense);
  model_word *w = model_word_for_fetch(m, kCode, kMovInsn, false);
  ASSERT_NE(w, nullptr);
  EXPECT_EQ(model_fetch(m, &t, w, MODEL_OWN_VIEW, false).kind, MODEL_STALE_NOT_CLEANED);
}

// mremap: the moved page's unflushed store is as stale at the new address
// (the kernel's move of the page table entry does no maintenance).
TEST_F(ForgetModel, AMovedPageKeepsItsVerdictAtTheNewAddress)
{
  constexpr uint64_t kTo = kCode + 64 * kPage;
  model_store(m, &t, kCode + 8, 8, kWriterPc);
  model_store(m, &t, kCode + kPage, 4, kWriterPc);
  model_dc_clean(m, &t, kCode + kPage, 1, false);
  model_dsb(m, &t);
  model_move(m, kCode, kTo, 2 * kPage, retired);
  EXPECT_EQ(retired->len, 0u);
  EXPECT_EQ(model_pages_live(m), 2u);
  EXPECT_EQ(model_word_for_fetch(m, kCode + 8, kMovInsn, false), nullptr);
  model_word *moved = model_word_for_fetch(m, kTo + 8, kMovInsn, false);
  ASSERT_NE(moved, nullptr);
  model_verdict v = model_fetch(m, &t, moved, MODEL_OWN_VIEW, false);
  EXPECT_EQ(v.kind, MODEL_STALE_NOT_CLEANED);
  EXPECT_EQ(v.writer_pc, kWriterPc);
  // The cleaned page moved too: cleaned, not invalidated.
  model_word *second = model_word_for_fetch(m, kTo + kPage, kMovInsn, false);
  ASSERT_NE(second, nullptr);
  EXPECT_EQ(model_fetch(m, &t, second, MODEL_OWN_VIEW, false).kind,
            MODEL_STALE_NOT_INVALIDATED_IN_GEOMETRY);
}

TEST_F(ForgetModel, MovingOntoARecordRetiresIt)
{
  constexpr uint64_t kTo = kCode + 64 * kPage;
  model_store(m, &t, kCode, 4, kWriterPc);
  model_store(m, &t, kTo, 4, kWriterPc + 4);
  model_move(m, kCode, kTo, kPage, retired);
  EXPECT_EQ(retired->len, 1u);
  EXPECT_EQ(model_pages_live(m), 1u);
  model_word *w = model_word_for_fetch(m, kTo, kMovInsn, false);
  ASSERT_NE(w, nullptr);
  EXPECT_EQ(model_fetch(m, &t, w, MODEL_OWN_VIEW, false).writer_pc, kWriterPc);
}

} // namespace
