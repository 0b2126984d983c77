// The store path (rig/plugin/plugin_store.c) on its own, in the real rig
// (store_rig.c, plugin_rig.c): while one thread's guest code runs at a time
// (the turns) the first store to a page after an event moves the page's
// summary on without the rig's lock (model_store_serial); once guest
// threads may store at the same time (the turns given up) it takes the
// lock, where the summary moves under it. Either way the store is recorded.
// Which stores took the lock shows in the rig's epoch, which a release of
// the lock moves (plugin_rig.h).
#include <gtest/gtest.h>

#include <cstdint>

#include "model_coherence.h"
#include "store_rig.h"

namespace
{

constexpr uint64_t kCtr = 0x84448004; // Cortex-A53: 64-byte lines
constexpr uint64_t kPage = 0x90000;
constexpr uint64_t kWriterPc = 0x4001f0;
constexpr uint32_t kMovInsn = 0xd2800000;

struct StoreUnit : ::testing::Test {
  StoreUnit()
  {
    rig = store_rig_new(kCtr);
    model_thread_init(&t, 0, 0, 0);
    store_rig_place(rig, 0, &t);
  }
  ~StoreUnit() override
  {
    model_thread_clear(&t);
    store_rig_free(rig);
  }
  void Store(uint64_t va)
  {
    store_rig_store(rig, 0, va, 8, kWriterPc);
  }
  // An event: the model's time moves, and the next store to a page is the
  // first since it.
  void Event()
  {
    model_dsb(store_rig_model(rig), &t);
  }
  // Whether the model keeps a store to the word at VA (its record has a
  // fresh-after bound; a word never stored has none), as when QEMU
  // translates a fetch of it.
  bool Kept(uint64_t va)
  {
    model *m = store_rig_model(rig);
    const model_word *w = model_word_for_fetch(m, va, kMovInsn, false);
    return w && model_fresh_after(m, w, MODEL_OWN_VIEW) != 0;
  }

  plugin_rig *rig;
  model_thread t;
};

TEST_F(StoreUnit, WhileStoresAreSerialTheFirstStoreAfterAnEventTakesNoLock)
{
  Store(kPage); // the page's first store: a miss, under the lock
  uint64_t before = store_rig_epoch(rig);
  Event();
  Store(kPage + 0x10);
  Event();
  Store(kPage + 0x20);
  EXPECT_EQ(store_rig_epoch(rig), before);
  EXPECT_TRUE(Kept(kPage));
  EXPECT_TRUE(Kept(kPage + 0x10));
  EXPECT_TRUE(Kept(kPage + 0x20));
  EXPECT_FALSE(Kept(kPage + 0x30));
}

TEST_F(StoreUnit, OnceStoresMayRaceTheFirstStoreAfterAnEventTakesTheLock)
{
  Store(kPage);
  store_rig_parallel(rig);
  uint64_t before = store_rig_epoch(rig);
  Store(kPage + 0x10); // the same time: the quick path, no lock
  EXPECT_EQ(store_rig_epoch(rig), before);
  Event();
  Store(kPage + 0x20);
  EXPECT_GT(store_rig_epoch(rig), before);
  EXPECT_TRUE(Kept(kPage + 0x10));
  EXPECT_TRUE(Kept(kPage + 0x20));
}

} // namespace
