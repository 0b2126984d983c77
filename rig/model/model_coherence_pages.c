/*
 * The coherence model's page records: one per canonical page ever stored
 * to, made, given per-word records (page_make_dense), forgotten when the
 * guest unmaps its memory, emptied when the kernel refills it, moved with
 * mremap. Why each of these happens:
 * docs/COHERENCE-MODEL.md#how-the-rig-applies-the-verdict-cheaply
 * ("Stores without a lock") and #what-linux-does-for-you.
 */
#include <string.h>

#include "model_coherence_internal.h"

/*
 * Shared records. A word's state beyond its own encoding and flags is a
 * struct model_rec that words in the same state share: the words of a
 * line one loop cleaned and invalidated, of a burst of stores between two
 * events, of a page seeded from its summary, hold one record, so a dense
 * page costs its 16-byte words and a few records rather than a 184-byte
 * record per word (two clusters). A record another word shares is never
 * changed: rec_edit hands out a copy, and committing it makes the word hold
 * the record the previous commit gave a word when the copy is its twin
 * (the next word of the same line, burst or page, which the model reaches
 * in order), else a new record. A record no other word holds is changed in
 * place, then given up for the last one committed if the two are twins
 * (half the stores to code on PCRE2's row reach such a word, and there a
 * copy and two compares per change cost 7% of the CPU time). Every change
 * of a number's content grows its generation, which the memos check
 * (struct rec_memo). Twins that were not made one after the other stay two
 * records: finding them in a table by their content cost the Racket row
 * 30% more CPU time for 5% less memory. A record goes when its last word
 * does. Everything here runs under the caller's lock, like every other
 * change of a word.
 */

struct model_recs *model_recs_new(unsigned nclusters)
{
  struct model_recs *p = g_new0(struct model_recs, 1);
  p->size = sizeof(struct model_rec) + INVAL_SLOTS * (size_t)nclusters * sizeof(uint64_t);
  p->slabs = g_ptr_array_new_with_free_func(g_free);
  p->free = g_array_new(false, false, sizeof(uint32_t));
  p->scratch = g_malloc0(p->size);
  /* The zero record: slab 0 starts zeroed; the rest of a slab is written
   * before a number in it is handed out (rec_new). */
  g_ptr_array_add(p->slabs, g_malloc0(REC_SLAB_RECORDS * p->size));
  p->made = 1;
  return p;
}

void model_recs_free(struct model_recs *p)
{
  if (p) {
    g_ptr_array_unref(p->slabs);
    g_array_unref(p->free);
    g_free(p->scratch);
    g_free(p);
  }
}

size_t model_records_live(const struct model *m)
{
  return m->recs->live;
}

size_t model_records_peak(const struct model *m)
{
  return m->recs->peak;
}

static bool rec_same(const struct model_recs *p, const struct model_rec *x,
                     const struct model_rec *y)
{
  return memcmp((const char *)x + REC_KEY_OFFSET, (const char *)y + REC_KEY_OFFSET,
                p->size - REC_KEY_OFFSET) == 0;
}

static void rec_unref(struct model_recs *p, uint32_t index)
{
  struct model_rec *r = rec_at(p, index);
  if (index == 0 || --r->refs > 0) {
    return;
  }
  r->gen++; /* no memo may lead to it now */
  g_array_append_val(p->free, index);
  p->live--;
  if (p->last == index) {
    p->last = 0;
  }
}

/* The word's record becomes the last one committed when the two are twins;
 * true if it did. */
static bool take_twin(struct model_recs *p, struct model_word *w, const struct model_rec *want)
{
  if (!p->last || p->last == w->rec || !rec_same(p, want, rec_at(p, p->last))) {
    return false;
  }
  rec_at(p, p->last)->refs++;
  rec_unref(p, w->rec);
  w->rec = p->last;
  return true;
}

void model_rec_commit_own(const struct model *m, struct model_word *w)
{
  struct model_recs *p = m->recs;
  struct model_rec *own = rec_at(p, w->rec);
  p->editing = 0;
  own->gen++;
  if (!take_twin(p, w, own)) {
    p->last = w->rec;
  }
}

void model_rec_commit(const struct model *m, struct model_word *w)
{
  struct model_recs *p = m->recs;
  const struct model_rec *want = p->scratch;
  if (take_twin(p, w, want)) {
    return;
  }
  if (rec_same(p, want, rec_at(p, 0))) {
    rec_unref(p, w->rec);
    w->rec = 0;
    return;
  }
  uint32_t number;
  if (p->free->len) {
    number = g_array_index(p->free, uint32_t, p->free->len - 1);
    g_array_set_size(p->free, p->free->len - 1);
  } else {
    if (p->made >> MODEL_REC_BITS) {
      g_error("jitflush: the coherence model ran out of record numbers (%u distinct word "
              "states live at once)",
              p->made);
    }
    number = p->made++;
    if ((number >> REC_SLAB_SHIFT) == p->slabs->len) {
      g_ptr_array_add(p->slabs, g_malloc0(REC_SLAB_RECORDS * p->size));
    }
  }
  struct model_rec *r = rec_at(p, number);
  uint32_t gen = r->gen;
  memcpy(r, want, p->size);
  r->refs = 1;
  r->gen = gen + 1;
  rec_unref(p, w->rec);
  w->rec = number;
  p->last = number;
  if (++p->live > p->peak) {
    p->peak = p->live;
  }
}

void model_rec_adopt(const struct model *m, struct model_word *w, uint32_t to)
{
  struct model_recs *p = m->recs;
  if (to != 0) {
    rec_at(p, to)->refs++;
  }
  rec_unref(p, w->rec);
  w->rec = to;
}

void model_rec_release(const struct model *m, struct model_word *w)
{
  rec_unref(m->recs, w->rec);
  w->rec = 0;
}

/* Every word of PAGE lets go of its record. */
static void release_words(const struct model *m, struct model_page *page)
{
  for (size_t i = 0; i < MODEL_PAGE_WORDS; i++) {
    struct model_word *w = (struct model_word *)(page->words + i * m->word_size);
    if (w->rec) {
      model_rec_release(m, w);
    }
  }
}

/* A new, empty record for the canonical page CANON_PAGE. */
struct model_page *model_page_new(struct model *m, uint64_t canon_page)
{
  struct model_page *page = g_new0(struct model_page, 1);
  page->born = m->pages_made++;
  page->model = m;
  g_hash_table_insert(m->pages, GSIZE_TO_POINTER(canon_page), page);
  size_t allocated = g_hash_table_size(m->pages) + m->pages_retired;
  if (allocated > m->pages_peak) {
    /* Read without the lock by the counters (model_pages_peak). */
    __atomic_store_n(&m->pages_peak, allocated, __ATOMIC_RELAXED);
  }
  return page;
}

/* The store-only summary of PAGE as read once, under the lock
 * (model_page_seed). */
struct page_summary {
  uint64_t last, older, writer_pc;
  uint32_t writer_thread;
};

static struct page_summary read_summary(const struct model_page *page)
{
  return (struct page_summary){
      __atomic_load_n(&page->last_store, __ATOMIC_SEQ_CST),
      __atomic_load_n(&page->older_store, __ATOMIC_SEQ_CST),
      __atomic_load_n(&page->last_writer_pc, __ATOMIC_SEQ_CST),
      __atomic_load_n(&page->last_writer_thread, __ATOMIC_SEQ_CST),
  };
}

/* What PAGE's summary S says of its word I: the store's stamp and writer;
 * false when the word was never stored. */
struct word_seed {
  uint64_t stamp, writer_pc;
};

static bool seed_of(const struct model_page *page, const struct page_summary *s, size_t i,
                    struct word_seed *out)
{
  uint64_t written = __atomic_load_n(&page->written[i / 64], __ATOMIC_SEQ_CST);
  if (!((written >> (i % 64)) & 1)) {
    return false;
  }
  /* A word stored before LAST_STORE's time takes the latest time
   * before it (model_coherence_quick.h): its own or later. */
  uint64_t recent = __atomic_load_n(&page->recent[i / 64], __ATOMIC_SEQ_CST);
  out->stamp = ((recent >> (i % 64)) & 1) || s->older == 0 ? s->last : s->older;
  const uint64_t *writers = __atomic_load_n(&page->writers, __ATOMIC_SEQ_CST);
  uint64_t exact = writers ? __atomic_load_n(&writers[i], __ATOMIC_SEQ_CST) : 0;
  out->writer_pc = exact ? exact : s->writer_pc;
  return true;
}

/* The record SEED gives a word of PAGE (summary S), into R (a copy of the
 * zero record). The kernel's sync the page is owed counts for every word
 * stored before it, which is every word the summary holds (DENSIFYING has
 * been up since). */
static void seed_record(const struct model_page *page, const struct page_summary *s,
                        const struct word_seed *seed, struct model_rec *r)
{
  r->store_seq = seed->stamp >> STAMP_CLUSTER_BITS;
  r->writer_pc = seed->writer_pc;
  r->writer_thread = s->writer_thread;
  r->writer_cluster = (uint32_t)(seed->stamp & ((1u << STAMP_CLUSTER_BITS) - 1));
  r->kernel_sync_seq = page->kernel_sync_seq;
}

bool model_page_seed(const struct model *m, const struct model_page *page, size_t i,
                     struct model_rec *r)
{
  memcpy(r, rec_at(m->recs, 0), m->recs->size);
  struct page_summary s = read_summary(page);
  struct word_seed seed;
  if (!seed_of(page, &s, i, &seed)) {
    return false;
  }
  seed_record(page, &s, &seed, r);
  return true;
}

/* Seeds remembered while a page is made dense: the words of one burst of
 * stores (one time, one writer) get one record, and a page's bursts
 * interleave little. */
#define SEED_MEMO_SLOTS 8

/* Gives PAGE per-word records, seeded from its store-only summary. The
 * caller holds the lock; lock-free stores may still be landing in the
 * summary. Raising DENSIFYING first (sequentially consistent, like their
 * read-modify-writes and their last check of it) means that each of them
 * is either in what is read below or sees the flag and is made again under
 * the lock (model_store_quick). */
void model_page_make_dense(const struct model *m, struct model_page *page)
{
  __atomic_store_n(&page->densifying, 1, __ATOMIC_SEQ_CST);
  char *words = g_malloc0(m->word_size * MODEL_PAGE_WORDS);
  struct page_summary s = read_summary(page);
  /* The records remembered stay as they are until the loop ends: every
   * word starts with the zero record, so no commit changes one in place
   * or frees one. */
  struct {
    struct word_seed seed;
    uint32_t rec;
  } memo[SEED_MEMO_SLOTS] = {0};
  for (size_t i = 0; i < MODEL_PAGE_WORDS; i++) {
    struct model_word *w = (struct model_word *)(words + i * m->word_size);
    struct word_seed seed;
    if (!seed_of(page, &s, i, &seed)) {
      continue;
    }
    size_t k = (seed.stamp ^ seed.writer_pc >> 2) % SEED_MEMO_SLOTS;
    if (memo[k].rec && memo[k].seed.stamp == seed.stamp &&
        memo[k].seed.writer_pc == seed.writer_pc) {
      model_rec_adopt(m, w, memo[k].rec);
      continue;
    }
    seed_record(page, &s, &seed, rec_edit(m, w));
    rec_commit(m, w);
    memo[k].seed = seed;
    memo[k].rec = w->rec;
  }
  page->kernel_sync_seq = 0; /* given to the words */
  page->words = words;
  /* Its writers are the words' now; no store reads the table again, but
   * one racing this may still write into it (model_store_quick). */
  if (m->retire_writers) {
    uint64_t *table = __atomic_exchange_n(&page->writers, NULL, __ATOMIC_SEQ_CST);
    if (table) {
      m->retire_writers(m->retire_ctx, table);
    }
  }
}

void model_retire_writers_to(struct model *m, model_retire_fn fn, void *ctx)
{
  m->retire_writers = fn;
  m->retire_ctx = ctx;
}

void model_page_free(struct model_page *page)
{
  if (page) {
    if (page->words) {
      release_words(page->model, page);
    }
    g_free(page->writers);
    g_free(page->words);
    g_free(page);
  }
}

/* PAGE's record leaves the model (forgotten, emptied, replaced): so do
 * the other views' slots of its words, before their memory can be reused
 * for another word. */
static void drop_extra_views(const struct model *m, const struct model_page *page)
{
  if (!page->words || g_hash_table_size(m->view_extra) == 0) {
    return;
  }
  for (size_t i = 0; i < MODEL_PAGE_WORDS; i++) {
    struct model_word *w = (struct model_word *)(page->words + i * m->word_size);
    if (w->extra_views) {
      g_hash_table_remove(m->view_extra, w);
      w->extra_views = false;
    }
  }
}

/* ---- forgetting unmapped memory ---------------------------------------------- */

/*
 * Memory the guest unmaps (munmap, mremap, an mmap that replaces pages)
 * takes its words' history with it: a later mapping at the same address
 * holds other bytes, written by the kernel or by new stores that the model
 * sees afresh. Without forgetting, a program that maps its code at a new
 * address each time left one dense record per page behind (16 KiB of
 * words and their shared records; 184 KiB when each word had a record of
 * its own), and the rig grew by gigabytes a minute.
 *
 * The records are not freed here: lock-free stores (model_coherence_quick.h) and
 * fetch checks translated earlier may still hold them, so the caller frees
 * them with model_page_free once no such reference can remain.
 */

uint64_t model_page_epoch(const struct model *m)
{
  return m->pages_made;
}

size_t model_pages_peak(const struct model *m)
{
  return __atomic_load_n(&m->pages_peak, __ATOMIC_RELAXED);
}

size_t model_pages_live(const struct model *m)
{
  return g_hash_table_size(m->pages);
}

void model_page_numbers(const struct model *m, GArray *out)
{
  GHashTableIter it;
  gpointer key;
  g_hash_table_iter_init(&it, m->pages);
  while (g_hash_table_iter_next(&it, &key, NULL)) {
    uint64_t page = GPOINTER_TO_SIZE(key);
    g_array_append_val(out, page);
  }
}

struct forget_range {
  const struct model *m;
  uint64_t first, last; /* canonical page numbers, inclusive */
  uint64_t made_before;
  GPtrArray *retired;
};

static gboolean forget_if_in_range(gpointer key, gpointer value, gpointer data)
{
  const struct forget_range *f = data;
  uint64_t page_number = GPOINTER_TO_SIZE(key);
  const struct model_page *page = value;
  if (page_number < f->first || page_number > f->last || page->born >= f->made_before) {
    return false;
  }
  drop_extra_views(f->m, page);
  g_ptr_array_add(f->retired, value);
  return true;
}

size_t model_forget(struct model *m, uint64_t canon_start, uint64_t canon_end, uint64_t made_before,
                    GPtrArray *retired)
{
  if (canon_end <= canon_start) {
    return 0;
  }
  struct forget_range f = {m, canon_start >> MODEL_PAGE_SHIFT, (canon_end - 1) >> MODEL_PAGE_SHIFT,
                           made_before, retired};
  guint before = retired->len;
  if (f.last - f.first >= g_hash_table_size(m->pages)) {
    /* A large range (a freed heap arena, a reservation): walk the table. */
    g_hash_table_foreach_steal(m->pages, forget_if_in_range, &f);
  } else {
    for (uint64_t p = f.first; p <= f.last; p++) {
      gpointer key = GSIZE_TO_POINTER(p);
      gpointer page = g_hash_table_lookup(m->pages, key);
      if (page && forget_if_in_range(key, page, &f)) {
        g_hash_table_steal(m->pages, key);
      }
    }
  }
  m->pages_retired += retired->len - before;
  return retired->len - before;
}

void model_pages_released(struct model *m, size_t n)
{
  m->pages_retired -= MIN(n, m->pages_retired);
}

/* The numbers of the canonical pages FIRST..LAST (inclusive) that have a
 * record, in no particular order: looked up one by one, or for a range
 * larger than the table (a freed arena, a reservation) by walking it. */
static GArray *pages_in_range(const struct model *m, uint64_t first, uint64_t last)
{
  GArray *numbers = g_array_new(false, false, sizeof(uint64_t));
  if (last - first >= g_hash_table_size(m->pages)) {
    GHashTableIter it;
    gpointer key;
    g_hash_table_iter_init(&it, m->pages);
    while (g_hash_table_iter_next(&it, &key, NULL)) {
      uint64_t p = GPOINTER_TO_SIZE(key);
      if (p >= first && p <= last) {
        g_array_append_val(numbers, p);
      }
    }
    return numbers;
  }
  for (uint64_t p = first; p <= last; p++) {
    if (g_hash_table_contains(m->pages, GSIZE_TO_POINTER(p))) {
      g_array_append_val(numbers, p);
    }
  }
  return numbers;
}

/* ---- memory the kernel refilled or moved --------------------------------- */

/*
 * madvise(MADV_DONTNEED) on private memory frees its pages without
 * unmapping them: the next access reads a new zero page (anonymous) or the
 * file's page again (a private file mapping). Neither holds a store the
 * program made, and both reach user space through a new page table entry,
 * which on arm64 cleans and invalidates a page the kernel wrote before it
 * becomes executable (__sync_icache_dcache in arch/arm64/mm/flush.c runs
 * sync_icache_aliases for a folio without PG_dcache_clean, and
 * flush_dcache_folio clears that flag whenever the kernel writes one). So
 * the words start afresh, as after a new mapping.
 *
 * Unlike after munmap, QEMU keeps its translations of the range and the
 * fetch checks translated into them point into these records, so the
 * records are emptied in place rather than retired: they hold what a new
 * record holds (no store, no maintenance). Pages with per-word records
 * (QEMU translated code there) are appended to DENSE, by canonical page
 * number, for the caller to drop QEMU's translations of.
 */
void model_clear(struct model *m, uint64_t canon_start, uint64_t canon_end, uint64_t made_before,
                 GArray *dense)
{
  if (canon_end <= canon_start) {
    return;
  }
  GArray *numbers =
      pages_in_range(m, canon_start >> MODEL_PAGE_SHIFT, (canon_end - 1) >> MODEL_PAGE_SHIFT);
  for (guint i = 0; i < numbers->len; i++) {
    uint64_t number = g_array_index(numbers, uint64_t, i);
    struct model_page *page = g_hash_table_lookup(m->pages, GSIZE_TO_POINTER(number));
    if (page->born >= made_before) {
      continue; /* made by another thread after the madvise began */
    }
    if (page->kernel_sync_seq) {
      page_make_dense(m, page); /* as it was made at the sync (model_kernel_sync) */
    }
    if (page->words) {
      drop_extra_views(m, page);
      release_words(m, page);
      memset(page->words, 0, m->word_size * MODEL_PAGE_WORDS);
      g_array_append_val(dense, number);
      continue;
    }
    /* A store-only page: lock-free stores read and write these (a store
     * racing with the madvise that frees its page is the program's race). */
    for (size_t w = 0; w < G_N_ELEMENTS(page->written); w++) {
      __atomic_store_n(&page->written[w], 0, __ATOMIC_SEQ_CST);
      __atomic_store_n(&page->recent[w], 0, __ATOMIC_SEQ_CST);
    }
    __atomic_store_n(&page->last_store, 0, __ATOMIC_SEQ_CST);
    __atomic_store_n(&page->older_store, 0, __ATOMIC_SEQ_CST);
  }
  g_array_unref(numbers);
}

/*
 * mremap moved the pages of [CANON_OLD, CANON_OLD + LEN) to CANON_NEW: the
 * same physical pages with the same bytes, and the same cache state. The
 * kernel moves their page table entries (move_ptes in mm/mremap.c), and
 * the new entry does no maintenance for a page the program stored to:
 * __sync_icache_dcache only cleans a folio without PG_dcache_clean, which
 * only the kernel's own writes clear. So code the program wrote and never
 * cleaned before the move is as stale at the new address as it was at the
 * old one, and the records move with the pages. A record the new range
 * still held (the caller forgot it first; one another thread made since)
 * is appended to RETIRED.
 */
void model_move(struct model *m, uint64_t canon_old, uint64_t canon_new, uint64_t len,
                GPtrArray *retired)
{
  if (len == 0) {
    return;
  }
  uint64_t first = canon_old >> MODEL_PAGE_SHIFT;
  GArray *numbers = pages_in_range(m, first, (canon_old + len - 1) >> MODEL_PAGE_SHIFT);
  GPtrArray *moving = g_ptr_array_new();
  for (guint i = 0; i < numbers->len; i++) {
    gpointer key = GSIZE_TO_POINTER(g_array_index(numbers, uint64_t, i));
    g_ptr_array_add(moving, g_hash_table_lookup(m->pages, key));
    g_hash_table_steal(m->pages, key);
  }
  uint64_t to_first = canon_new >> MODEL_PAGE_SHIFT;
  for (guint i = 0; i < moving->len; i++) {
    gpointer to = GSIZE_TO_POINTER(g_array_index(numbers, uint64_t, i) - first + to_first);
    gpointer there = g_hash_table_lookup(m->pages, to);
    if (there) {
      g_hash_table_steal(m->pages, to);
      drop_extra_views(m, there);
      g_ptr_array_add(retired, there);
      m->pages_retired++;
    }
    g_hash_table_insert(m->pages, to, g_ptr_array_index(moving, i));
  }
  g_ptr_array_unref(moving);
  g_array_unref(numbers);
}
