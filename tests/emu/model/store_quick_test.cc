// The model's lock-free store paths (model_store_quick and, for stores
// that never race, model_store_serial, model_coherence_quick.h; stores
// without a lock in
// docs/COHERENCE-MODEL.md#how-the-rig-applies-the-verdict-cheaply): each must
// record exactly what the locked model_store records, refuse what it
// cannot record, and the quick one lose no store that races the page's
// first fetch. The last
// test runs threads; the build also compiles this file with
// ThreadSanitizer (model_race_tests).
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

#include "model_coherence.h"
#include "model_coherence_quick.h"

extern "C" {
#include "ctr.h"
}

namespace
{

constexpr uint64_t kLittleCtr = 0x84448004; // Exynos 8890 LITTLE: 64-byte lines
constexpr uint64_t kBigCtr = 0x84448005;    // Exynos 8890 big: 128-byte I lines
constexpr uint64_t kPage = 0x20000;
constexpr uint64_t kPageBytes = uint64_t{1} << MODEL_PAGE_SHIFT;
constexpr uint32_t kMovInsn = 0xd2800000; // not CMODX-safe

struct Model {
  // The Exynos 8890's two clusters, or the clusters of CTR.
  explicit Model(const std::vector<uint64_t> &ctr = {kLittleCtr, kBigCtr})
  {
    m = model_new(ctr.data(), static_cast<unsigned>(ctr.size()), nullptr);
    model_thread_init(&t, 0, 0, 0);
  }
  ~Model()
  {
    model_thread_clear(&t);
    model_free(m);
  }
  model_verdict Fetch(uint64_t va)
  {
    model_word *w = model_word_for_fetch(m, va, kMovInsn, false);
    return w ? model_fetch(m, &t, w, MODEL_OWN_VIEW, false) : model_verdict{};
  }
  model *m;
  model_thread t;
};

// One program, recorded through one of the paths, judged word by word.
enum class Path { kLocked, kQuick, kSerial };

const char *PathName(Path path)
{
  return path == Path::kLocked ? "locked" : path == Path::kQuick ? "quick" : "serial";
}

// A store of BYTES at VA by PC through PATH, the locked path where the
// lock-free one refuses (as the plugin's store callback does); returns
// whether the lock-free one took it.
bool StoreThrough(Path path, Model &model, model_page *page, uint64_t va, unsigned bytes,
                  uint64_t pc)
{
  bool took = false;
  if (path == Path::kQuick)
    took = model_store_quick(model_clock(model.m), page, va, bytes, pc, model.t.cluster,
                             model.t.serial);
  else if (path == Path::kSerial)
    took = model_store_serial(model_clock(model.m), page, va, bytes, pc, model.t.cluster,
                              model.t.serial);
  if (!took)
    model_store(model.m, &model.t, va, bytes, pc);
  return took;
}

std::vector<model_verdict> RunProgram(Path path)
{
  Model model;
  model_page *page = model_store_page(model.m, kPage);
  auto store = [&](uint64_t va, unsigned bytes, uint64_t pc) {
    StoreThrough(path, model, page, va, bytes, pc);
  };
  store(kPage + 0x00, 8, 0x4000);  // words 0-1: cleaned, invalidated, synced
  store(kPage + 0x40, 4, 0x4004);  // word 16: cleaned only
  store(kPage + 0x80, 16, 0x4008); // words 32-35: never maintained
  model_dc_clean(model.m, &model.t, kPage + 0x00, 1, false);
  model_dc_clean(model.m, &model.t, kPage + 0x40, 1, false);
  model_dsb(model.m, &model.t);
  model_ic_ivau(model.m, &model.t, kPage + 0x00, 2);
  model_dsb(model.m, &model.t);
  model_sync(model.m, &model.t);
  std::vector<model_verdict> verdicts;
  for (uint64_t off = 0; off < 0x100; off += 4)
    verdicts.push_back(model.Fetch(kPage + off));
  return verdicts;
}

TEST(StoreQuick, RecordsWhatTheLockedStoreRecords)
{
  std::vector<model_verdict> locked = RunProgram(Path::kLocked);
  for (Path path : {Path::kQuick, Path::kSerial}) {
    SCOPED_TRACE(PathName(path));
    std::vector<model_verdict> got = RunProgram(path);
    ASSERT_EQ(locked.size(), got.size());
    for (size_t i = 0; i < locked.size(); i++) {
      SCOPED_TRACE(i);
      EXPECT_EQ(got[i].kind, locked[i].kind);
      EXPECT_EQ(got[i].writer_pc, locked[i].writer_pc);
      EXPECT_EQ(got[i].line, locked[i].line);
    }
  }
  // The program has each outcome once, so equal lists mean something.
  EXPECT_EQ(locked[0].kind, MODEL_FRESH);
  EXPECT_EQ(locked[16].kind, MODEL_STALE_NOT_INVALIDATED_IN_GEOMETRY);
  EXPECT_EQ(locked[32].kind, MODEL_STALE_NOT_CLEANED);
  // A store-only page keeps the writer of each word, not only its last.
  EXPECT_EQ(locked[16].writer_pc, 0x4004u);
  EXPECT_EQ(locked[32].writer_pc, 0x4008u);
  EXPECT_EQ(locked[40].kind, MODEL_FRESH); // never stored
}

// A JIT emits seven words with a store in a loop and a ret with another
// store, into a fresh page, and runs them: each word names its own store,
// whichever path recorded it.
TEST(StoreQuick, EachWordOfAStoreOnlyPageKeepsItsWriter)
{
  for (Path path : {Path::kLocked, Path::kQuick, Path::kSerial}) {
    SCOPED_TRACE(PathName(path));
    Model model;
    model_page *page = model_store_page(model.m, kPage);
    auto store = [&](uint64_t va, uint64_t pc) { StoreThrough(path, model, page, va, 4, pc); };
    for (uint64_t i = 0; i < 7; i++)
      store(kPage + 4 * i, 0x4100);
    store(kPage + 28, 0x4200);
    store(kPage + 0x800, 0x4100); // the loop's store again, further on
    for (uint64_t i = 0; i < 7; i++)
      EXPECT_EQ(model.Fetch(kPage + 4 * i).writer_pc, 0x4100u) << i;
    EXPECT_EQ(model.Fetch(kPage + 28).writer_pc, 0x4200u);
    EXPECT_EQ(model.Fetch(kPage + 0x800).writer_pc, 0x4100u);
  }
}

// Once a page is dense its words hold their writers: its table of
// writers goes to the hook (the plugin frees it when no store callback can
// still write it), after the words were seeded from it, and is not made
// again. A page one instruction wrote never had a table.
TEST(StoreQuick, AWritersTableGoesToTheHookOnceThePageIsDense)
{
  Model model;
  std::vector<void *> retired;
  model_retire_writers_to(
      model.m,
      [](void *ctx, void *block) { static_cast<std::vector<void *> *>(ctx)->push_back(block); },
      &retired);
  for (uint64_t i = 0; i < 7; i++)
    model_store(model.m, &model.t, kPage + 4 * i, 4, 0x4100);
  model_store(model.m, &model.t, kPage + 28, 4, 0x4200);
  model_store(model.m, &model.t, kPage + kPageBytes, 4, 0x4100); // one writer only
  EXPECT_TRUE(retired.empty());
  EXPECT_EQ(model.Fetch(kPage).writer_pc, 0x4100u);
  EXPECT_EQ(retired.size(), 1u);
  EXPECT_EQ(model.Fetch(kPage + 24).writer_pc, 0x4100u);
  EXPECT_EQ(model.Fetch(kPage + 28).writer_pc, 0x4200u);
  model_store(model.m, &model.t, kPage + 32, 4, 0x4300);
  EXPECT_EQ(model.Fetch(kPage + 32).writer_pc, 0x4300u);
  EXPECT_EQ(model.Fetch(kPage + kPageBytes).writer_pc, 0x4100u);
  EXPECT_EQ(retired.size(), 1u);
  for (void *block : retired)
    g_free(block);
}

TEST(StoreQuick, RefusesPagesWithWordRecordsAndStoresLeavingABlock)
{
  for (auto quick : {model_store_quick, model_store_serial}) {
    Model model;
    model_page *page = model_store_page(model.m, kPage);
    EXPECT_TRUE(quick(model_clock(model.m), page, kPage + 0xf8, 8, 0x4000, 0, 0));
    // Words 63 and 64 lie in two 64-word blocks of the summary.
    EXPECT_FALSE(quick(model_clock(model.m), page, kPage + 0xfc, 8, 0x4000, 0, 0));
    // Beyond the page.
    EXPECT_FALSE(quick(model_clock(model.m), page, kPage + kPageBytes - 4, 8, 0x4000, 0, 0));
    // Fetched from: per-word records from now on, only under the lock.
    model.Fetch(kPage);
    EXPECT_FALSE(quick(model_clock(model.m), page, kPage + 0x10, 4, 0x4000, 0, 0));
  }
}

// Stores with events between them, on cores with IDC and DIC (where a dsb
// completes a store and an isb makes it visible: the page stays
// store-only, with no maintenance). The first store after each event
// moves the page's summary on: the words stored before it keep one older
// time, the latest before (stricter than their own: COHERENCE-MODEL.md),
// which the serial path does itself and the others under the lock. Words
// 0, 16 and 32 are stored in turn, with an event after each of the first
// two; the dsb comes after the first (FIRST_EVENT_DSB) or the second. The
// serial path must take every store and give every verdict the locked
// path gives.
TEST(StoreQuick, TheSerialPathMovesTheSummaryOnAsTheLockedStoreDoes)
{
  auto run = [](Path path, bool first_event_dsb, int *refused) {
    Model model({0xb444c004}); // Neoverse N1: IDC, DIC, 64-byte lines
    model_page *page = model_store_page(model.m, kPage);
    auto store = [&](uint64_t va, uint64_t pc) {
      *refused += !StoreThrough(path, model, page, va, 4, pc);
    };
    auto event = [&](bool dsb) {
      if (dsb)
        model_dsb(model.m, &model.t);
      else
        model_sync(model.m, &model.t);
    };
    store(kPage + 0x00, 0x4000);
    event(first_event_dsb);
    store(kPage + 0x40, 0x4040);
    event(!first_event_dsb);
    store(kPage + 0x80, 0x4080);
    model_sync(model.m, &model.t);
    std::vector<model_verdict> verdicts;
    for (uint64_t off = 0; off < 0xc0; off += 4)
      verdicts.push_back(model.Fetch(kPage + off));
    return verdicts;
  };
  for (bool first_event_dsb : {true, false}) {
    SCOPED_TRACE(first_event_dsb ? "dsb, then isb" : "isb, then dsb");
    int refused = 0;
    std::vector<model_verdict> locked = run(Path::kLocked, first_event_dsb, &refused);
    refused = 0;
    std::vector<model_verdict> serial = run(Path::kSerial, first_event_dsb, &refused);
    EXPECT_EQ(refused, 0);
    ASSERT_EQ(locked.size(), serial.size());
    for (size_t i = 0; i < locked.size(); i++) {
      SCOPED_TRACE(i);
      EXPECT_EQ(serial[i].kind, locked[i].kind);
      EXPECT_EQ(serial[i].writer_pc, locked[i].writer_pc);
    }
    // Words 0 and 16 take the time of word 16's store: after the dsb when
    // it came first, before it otherwise. Word 32 is never completed.
    model_stale_kind earlier = first_event_dsb ? MODEL_STALE_CLEAN_NOT_COMPLETED : MODEL_FRESH;
    EXPECT_EQ(locked[0].kind, earlier);
    EXPECT_EQ(locked[16].kind, earlier);
    EXPECT_EQ(locked[32].kind, MODEL_STALE_CLEAN_NOT_COMPLETED);
    EXPECT_EQ(locked[32].writer_pc, 0x4080u);
    EXPECT_EQ(locked[33].kind, MODEL_FRESH); // never stored
    if (first_event_dsb) {
      EXPECT_EQ(locked[0].writer_pc, 0x4000u);
      EXPECT_EQ(locked[16].writer_pc, 0x4040u);
    }
  }
}

TEST(StoreQuick, AStoreAfterAnEventIsAfterIt)
{
  // Stores share the odd time after the latest event. On cores with IDC
  // and DIC only a dsb (completing the store) and the isb are needed, and
  // they leave the page store-only: the first store below goes through the
  // quick path, the one after the isb through the locked path that moves
  // the summary on to a new time. The one before the dsb is covered, the
  // one after the isb is not (it is not even completed).
  constexpr uint64_t kIdcDicCtr = 0xb444c004; // Neoverse N1: IDC, DIC, 64-byte lines
  for (bool store_again : {false, true}) {
    SCOPED_TRACE(store_again);
    const jf_ctr g = jf_ctr_decode(kIdcDicCtr);
    ASSERT_TRUE(g.idc && g.dic);
    model *m = model_new(&kIdcDicCtr, 1, nullptr);
    model_thread t;
    model_thread_init(&t, 0, 0, 0);
    model_page *page = model_store_page(m, kPage);
    ASSERT_TRUE(model_store_quick(model_clock(m), page, kPage, 4, 0x4000, 0, 0));
    model_dsb(m, &t);
    model_sync(m, &t);
    if (store_again &&
        !model_store_quick(model_clock(m), page, kPage, 4, 0x4010, t.cluster, t.serial)) {
      // The first store since an event moves the summary on under the lock.
      model_store(m, &t, kPage, 4, 0x4010);
    }
    model_word *w = model_word_for_fetch(m, kPage, kMovInsn, false);
    ASSERT_NE(w, nullptr);
    model_verdict v = model_fetch(m, &t, w, MODEL_OWN_VIEW, false);
    EXPECT_EQ(v.kind, store_again ? MODEL_STALE_CLEAN_NOT_COMPLETED : MODEL_FRESH);
    if (store_again) {
      EXPECT_EQ(v.writer_pc, 0x4010u);
    }
    model_thread_clear(&t);
    model_free(m);
  }
}

// A writer thread stores every word of the page through the quick path
// (the locked path when it refuses, as the plugin does) while the main
// thread, under the same lock, fetches from the page: the first fetch turns
// the summary into per-word records. Whichever side wins each race, every
// stored word must come out stored (stale: nothing cleaned it).
TEST(StoreQuick, StoresRacingTheFirstFetchAreNeverLost)
{
  for (int round = 0; round < 50; round++) {
    SCOPED_TRACE(round);
    Model model;
    std::mutex lock;
    model_page *page;
    {
      std::lock_guard<std::mutex> hold(lock);
      page = model_store_page(model.m, kPage);
    }
    std::atomic<bool> go{false};
    std::thread writer([&] {
      while (!go.load())
        std::this_thread::yield();
      for (uint64_t off = 0; off < kPageBytes; off += 4) {
        if (!model_store_quick(model_clock(model.m), page, kPage + off, 4, 0x4000 + off, 0, 0)) {
          std::lock_guard<std::mutex> hold(lock);
          model_store(model.m, &model.t, kPage + off, 4, 0x4000 + off);
        }
      }
    });
    go.store(true);
    // Spread the first fetch over the writer's run, round by round.
    for (int spin = 0; spin < round * 40; spin++)
      std::this_thread::yield();
    {
      std::lock_guard<std::mutex> hold(lock);
      model.Fetch(kPage + 4 * static_cast<uint64_t>(round));
    }
    writer.join();
    for (uint64_t off = 0; off < kPageBytes; off += 4) {
      model_verdict v = model.Fetch(kPage + off);
      ASSERT_EQ(v.kind, MODEL_STALE_NOT_CLEANED) << "word at +" << off << " lost its store";
    }
  }
}

} // namespace
