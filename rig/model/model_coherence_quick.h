/*
 * The model's lock-free store path, inline
 * (docs/COHERENCE-MODEL.md#how-the-rig-applies-the-verdict-cheaply,
 * "Stores without a lock"): the plugin's store callback runs it for every
 * guest store, and a call into the model per store was a measurable part
 * of the rig's cost on store-heavy guests. Only the model's own files
 * (through model_coherence_internal.h) and the plugin's store callback
 * (plugin_store.c) include this file; everything else goes through
 * model_coherence.h.
 */
#ifndef JITFLUSH_EMU_COHERENCE_QUICK_H
#define JITFLUSH_EMU_COHERENCE_QUICK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model_coherence.h"

#ifdef __cplusplus
extern "C" {
#endif

#define MODEL_PAGE_WORDS ((UINT64_C(1) << MODEL_PAGE_SHIFT) / 4)
/* A store stamp's low bits: the writer's cluster (model_store_stamp). */
#define MODEL_STAMP_CLUSTER_BITS 16

/*
 * A page of words. Until it is fetched from or maintained it is
 * "store-only": WRITTEN, RECENT, LAST_STORE, OLDER_STORE and
 * LAST_WRITER_PC summarise its stores, and WRITTEN, RECENT, LAST_STORE and
 * the writer are the only fields that model_store_quick touches without
 * the caller's lock, always through atomics. DENSIFYING is set, under the
 * lock, before the summary is read into per-word records, and from then on
 * every store takes the lock.
 *
 * The summary keeps two store times: the words stored at LAST_STORE's time
 * (RECENT), and, for the others, the latest time before it (OLDER_STORE).
 * Per-word records seeded from it keep the order of two stores with an
 * event between them (a writer's `str; dmb st; str` to two words of code
 * that no one fetched yet: fetch ordering compares the two). A store at a
 * new time moves the summary on under the lock only (model_store_quick
 * refuses it), so RECENT is never emptied under a quick store of the new
 * time.
 */
struct model_page {
  uint64_t written[MODEL_PAGE_WORDS / 64]; /* words ever stored (store-only) */
  uint64_t recent[MODEL_PAGE_WORDS / 64];  /* of them, stored at LAST_STORE's time */
  uint64_t older_store;    /* the latest stamp before LAST_STORE's time (store-only) */
  uint64_t last_store;     /* model_store_stamp() of the latest store (store-only) */
  uint64_t last_writer_pc; /* that store's instruction (store-only) */
  /* Per word, the instruction that last stored it (store-only), once a
   * second instruction stored to the page (made under the lock, then only
   * written, with atomics): a page one instruction wrote needs none. */
  uint64_t *writers;
  uint32_t last_writer_thread; /* that store's thread serial (store-only) */
  int densifying;              /* nonzero once WORDS is being or was built */
  char *words;                 /* dense records, or NULL */
  uint64_t born;               /* model_page_epoch() when it was made */
  struct model *model;         /* whose records WORDS hold (model_page_free) */
  /* The kernel's latest sync of the page while it was store-only: owed to
   * the words stored so far, given to them when the page is made dense
   * (model_kernel_sync; DENSIFYING is raised with it, so every store after
   * it takes the lock and makes the page dense first). */
  uint64_t kernel_sync_seq;
};

/* The model's clock, for model_store_quick: lives as long as M. */
const uint64_t *model_clock(const struct model *m);

/* A store's time: odd, just after the latest event (events take even
 * times). The clock does not move: stores between two events share a
 * time. */
static inline uint64_t model_store_time(const uint64_t *clock)
{
  return __atomic_load_n(clock, __ATOMIC_ACQUIRE) + 1;
}

/* A store-only page's LAST_STORE: the time, then the writer's cluster, so
 * that the latest store is the largest value. */
static inline uint64_t model_store_stamp(uint64_t time, unsigned cluster)
{
  return time << MODEL_STAMP_CLUSTER_BITS | cluster;
}

/* The words FIRST..LAST of its page a store of BYTES at VA reaches;
 * false when they leave one 64-word block of the summary (a store past
 * the page's end also leaves the last one). */
static inline bool model_store_words(uint64_t va, unsigned bytes, size_t *first, size_t *last)
{
  uint64_t offset = va & ((UINT64_C(1) << MODEL_PAGE_SHIFT) - 1);
  *first = offset / 4;
  *last = (offset + (bytes ? bytes : 1) - 1) / 4;
  return (*first ^ *last) < 64;
}

/* The bits of the words FIRST..LAST in their 64-word block. */
static inline uint64_t model_store_bits(size_t first, size_t last)
{
  return ((UINT64_C(2) << (last - first)) - 1) << (first % 64);
}

/*
 * Adds the words FIRST..LAST (indices into one 64-word block of WRITTEN)
 * to a store-only page's summary.
 */
static inline void model_summarise_store(struct model_page *page, size_t first, size_t last,
                                         uint64_t stamp, uint64_t writer_pc, unsigned writer_thread)
{
  uint64_t bits = model_store_bits(first, last);
  uint64_t *block = &page->written[first / 64];
  if ((__atomic_load_n(block, __ATOMIC_RELAXED) & bits) != bits) {
    __atomic_fetch_or(block, bits, __ATOMIC_SEQ_CST);
  }
  block = &page->recent[first / 64];
  if ((__atomic_load_n(block, __ATOMIC_RELAXED) & bits) != bits) {
    __atomic_fetch_or(block, bits, __ATOMIC_SEQ_CST);
  }
  /* The latest store wins; a racing one from another thread may be later. */
  uint64_t seen = __atomic_load_n(&page->last_store, __ATOMIC_RELAXED);
  while (seen < stamp && !__atomic_compare_exchange_n(&page->last_store, &seen, stamp, true,
                                                      __ATOMIC_SEQ_CST, __ATOMIC_RELAXED)) {
  }
  /* Unconditional: a compare first was a mispredicted branch whenever
   * stores from different instructions interleave, which is most of the
   * time. */
  __atomic_store_n(&page->last_writer_pc, writer_pc, __ATOMIC_RELAXED);
  __atomic_store_n(&page->last_writer_thread, writer_thread, __ATOMIC_RELAXED);
  /* Loaded after the bits were set: a table made since those were read
   * for it (model_page_writers) gets this store's words here. */
  uint64_t *writers = __atomic_load_n(&page->writers, __ATOMIC_SEQ_CST);
  for (size_t i = first; writers && i <= last; i++) {
    __atomic_store_n(&writers[i], writer_pc, __ATOMIC_RELAXED);
  }
}

/*
 * Gives a store-only PAGE its table of writers when WRITER_PC is the
 * second instruction to store to it, from any thread, with or without the
 * caller's lock (model_coherence.c, "Page writers"): the table is published
 * first, then seeded with the one writer so far for the words stored so
 * far, entries a racing store wrote itself being left as they are.
 */
static inline void model_page_writers(struct model_page *page, uint64_t writer_pc)
{
  if (__atomic_load_n(&page->writers, __ATOMIC_ACQUIRE) ||
      !__atomic_load_n(&page->last_store, __ATOMIC_RELAXED) ||
      __atomic_load_n(&page->last_writer_pc, __ATOMIC_RELAXED) == writer_pc) {
    return;
  }
  uint64_t *table = g_new0(uint64_t, MODEL_PAGE_WORDS);
  uint64_t *none = NULL;
  if (!__atomic_compare_exchange_n(&page->writers, &none, table, false, __ATOMIC_SEQ_CST,
                                   __ATOMIC_SEQ_CST)) {
    g_free(table); /* another thread made it */
    return;
  }
  uint64_t last = __atomic_load_n(&page->last_writer_pc, __ATOMIC_SEQ_CST);
  for (size_t i = 0; i < MODEL_PAGE_WORDS; i++) {
    uint64_t unset = 0;
    if ((__atomic_load_n(&page->written[i / 64], __ATOMIC_SEQ_CST) >> (i % 64)) & 1) {
      __atomic_compare_exchange_n(&table[i], &unset, last, false, __ATOMIC_SEQ_CST,
                                  __ATOMIC_RELAXED);
    }
  }
}

/*
 * Without the caller's lock, from any thread, concurrently with everything
 * else: records the store of BYTES at VA by the instruction at WRITER_PC of
 * the thread with serial WRITER_THREAD on a CPU of WRITER_CLUSTER, as
 * model_store would, and returns true; or,
 * when PAGE (VA's record, model_store_page) has per-word records or the
 * store leaves a 64-word block, returns false, and the caller must make the
 * store with model_store under its lock. CLOCK is model_clock().
 */
static inline bool model_store_quick(const uint64_t *clock, struct model_page *page, uint64_t va,
                                     unsigned bytes, uint64_t writer_pc, unsigned writer_cluster,
                                     unsigned writer_thread)
{
  size_t first, last;
  if (!model_store_words(va, bytes, &first, &last) ||
      __atomic_load_n(&page->densifying, __ATOMIC_ACQUIRE)) {
    return false; /* crosses a page or a bitmap block, or dense */
  }
  uint64_t time = model_store_time(clock);
  uint64_t stamp = model_store_stamp(time, writer_cluster);
  uint64_t seen = __atomic_load_n(&page->last_store, __ATOMIC_ACQUIRE);
  if (seen == 0) {
    /* The page's first store: nothing older to keep. */
    __atomic_compare_exchange_n(&page->last_store, &seen, stamp, false, __ATOMIC_SEQ_CST,
                                __ATOMIC_ACQUIRE);
    seen = __atomic_load_n(&page->last_store, __ATOMIC_ACQUIRE);
  }
  if (seen >> MODEL_STAMP_CLUSTER_BITS != time) {
    /* The first store since an event: moving the summary on is done under
     * the lock. A store racing with the move lands in RECENT either before
     * it empties RECENT (then the words take OLDER_STORE, which is this
     * store's time) or after (the newer time: stricter, never more
     * lenient). */
    return false;
  }
  model_page_writers(page, writer_pc);
  model_summarise_store(page, first, last, stamp, writer_pc, writer_thread);
  /* Whether the store is in the summary before anyone read it for the
   * dense records (model_page_make_dense): also when this call changed nothing,
   * since the racing store whose bits or time it relied on may itself be
   * redone under the lock for exactly this reason. Sequentially consistent,
   * like the read-modify-writes above and model_page_make_dense's raising of the
   * flag (Dekker's pattern). */
  return !__atomic_load_n(&page->densifying, __ATOMIC_SEQ_CST);
}

/*
 * model_store_quick for a caller whose stores are serial: no other thread
 * records a store or makes a page dense while this runs (the rig's turns
 * run one thread's guest code at a time: plugin_store.c). It records the
 * store of BYTES at VA as model_store would and returns true, or returns
 * false where model_store_quick does, except for the first store since an
 * event: that one moves the summary on here, as summary_store does under
 * the lock, since no quick store of another thread can race the move.
 * With nothing to race, each update is a plain read and write (relaxed
 * atomics, for the readers that take the lock) rather than a locked
 * read-modify-write: setting a RECENT bit again after each event was a
 * quarter of the quick path's time on a store-heavy guest.
 */
__attribute__((always_inline)) static inline bool
model_store_serial(const uint64_t *clock, struct model_page *page, uint64_t va, unsigned bytes,
                   uint64_t writer_pc, unsigned writer_cluster, unsigned writer_thread)
{
  size_t first, last;
  if (!model_store_words(va, bytes, &first, &last) ||
      __atomic_load_n(&page->densifying, __ATOMIC_RELAXED)) {
    return false; /* crosses a page or a bitmap block, or dense */
  }
  uint64_t time = model_store_time(clock);
  uint64_t stamp = model_store_stamp(time, writer_cluster);
  uint64_t seen = __atomic_load_n(&page->last_store, __ATOMIC_RELAXED);
  uint64_t seen_time = seen >> MODEL_STAMP_CLUSTER_BITS;
  if (seen != 0 && seen_time > time) {
    return false; /* an older store: the lock's path keeps it apart */
  }
  if (seen != 0 && seen_time < time) {
    /* The summary moves on: the words stored so far keep SEEN's time. */
    if (seen > __atomic_load_n(&page->older_store, __ATOMIC_RELAXED)) {
      __atomic_store_n(&page->older_store, seen, __ATOMIC_RELAXED);
    }
    for (size_t b = 0; b < MODEL_PAGE_WORDS / 64; b++) {
      if (__atomic_load_n(&page->recent[b], __ATOMIC_RELAXED)) {
        __atomic_store_n(&page->recent[b], 0, __ATOMIC_RELAXED);
      }
    }
  }
  model_page_writers(page, writer_pc);
  uint64_t bits = model_store_bits(first, last);
  uint64_t *block = &page->written[first / 64];
  uint64_t had = __atomic_load_n(block, __ATOMIC_RELAXED);
  if ((had & bits) != bits) {
    __atomic_store_n(block, had | bits, __ATOMIC_RELAXED);
  }
  block = &page->recent[first / 64];
  had = __atomic_load_n(block, __ATOMIC_RELAXED);
  if ((had & bits) != bits) {
    __atomic_store_n(block, had | bits, __ATOMIC_RELAXED);
  }
  if (seen < stamp) {
    __atomic_store_n(&page->last_store, stamp, __ATOMIC_RELAXED);
  }
  __atomic_store_n(&page->last_writer_pc, writer_pc, __ATOMIC_RELAXED);
  __atomic_store_n(&page->last_writer_thread, writer_thread, __ATOMIC_RELAXED);
  uint64_t *writers = __atomic_load_n(&page->writers, __ATOMIC_RELAXED);
  for (size_t i = first; writers && i <= last; i++) {
    __atomic_store_n(&writers[i], writer_pc, __ATOMIC_RELAXED);
  }
  return true;
}

#ifdef __cplusplus
}
#endif

#endif /* JITFLUSH_EMU_COHERENCE_QUICK_H */
