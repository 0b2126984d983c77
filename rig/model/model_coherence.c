/*
 * The coherence model's rules and verdicts: stores, cache maintenance and
 * its completion, barriers and context synchronisation, the kernel's sync
 * of a page, and the verdict on a fetch (fresh, or which step is missing).
 * The rules, each with its source: docs/COHERENCE-MODEL.md (#store,
 * #clean, #invalidate, #completion, #synchronisation, #the-stale-verdict).
 * Page records live in model_coherence_pages.c, the sites and strides a report
 * names in model_coherence_attribution.c; the records: model_coherence_internal.h.
 */
#include <inttypes.h>
#include <string.h>

#include "model_coherence_internal.h"
#include "ctr.h"
#include "rig_release.h"

/* One maintenance operation waiting for its issuing thread's next DSB. */
struct maint_op {
  uint64_t addr; /* the VA the guest passed */
  uint64_t issue_seq;
  /* A clean covers another thread's store made before this time only
   * (docs/COHERENCE-MODEL.md#clean-ordering); its issuer's own stores up
   * to ISSUE_SEQ. */
  uint64_t order_seq;
  unsigned cluster;  /* issuing CPU's cluster (its DminLine) */
  unsigned thread;   /* the issuing thread's serial */
  bool is_clean;     /* dc clean, else ic ivau */
  bool nonexec_view; /* ic ivau through a non-executable alias, when it
                        was issued */
  uint64_t view;     /* model_view of ADDR when it was issued (VIPT) */
};

static const struct {
  const char *name;
  const char *reason;
} kind_text[MODEL_STALE_KIND_COUNT] = {
    [MODEL_FRESH] = {"fresh", ""},
    [MODEL_STALE_NOT_CLEANED] = {"not-cleaned", "not cleaned"},
    [MODEL_STALE_CLEAN_NOT_COMPLETED] = {"clean-not-completed", "clean not completed (no dsb)"},
    [MODEL_STALE_CLEAN_NOT_ORDERED] = {"clean-not-ordered",
                                       "cleaned by another thread before the store was ordered "
                                       "before its clean (no barrier after its load)"},
    [MODEL_STALE_INVALIDATED_BEFORE_CLEAN] =
        {"invalidated-before-clean",
         "invalidated before the clean completed (no dsb between dc and ic)"},
    [MODEL_STALE_INVALIDATE_NOT_COMPLETED] = {"invalidate-not-completed",
                                              "invalidate not completed (no dsb)"},
    [MODEL_STALE_NOT_INVALIDATED_IN_GEOMETRY] = {"not-invalidated-in-geometry",
                                                 "not invalidated in this core's geometry"},
    [MODEL_STALE_NONEXEC_ALIAS] = {"invalidated-via-nonexec-alias",
                                   "invalidated through a non-executable alias"},
    [MODEL_STALE_OTHER_EXEC_VIEW] = {"invalidated-via-other-exec-view",
                                     "invalidated through another executable view"},
    [MODEL_STALE_NOT_SYNCHRONISED] = {"not-synchronised", "pipeline not synchronised (no isb)"},
    [MODEL_STALE_KERNEL_SYNC_ASSUMED] = {"kernel-sync-assumed",
                                         "made coherent only by the Linux kernel's sync of a page "
                                         "first mapped executable"},
};

const char *model_stale_kind_name(enum model_stale_kind kind)
{
  return kind < MODEL_STALE_KIND_COUNT ? kind_text[kind].name : "unknown";
}

const char *model_stale_kind_reason(enum model_stale_kind kind)
{
  return kind < MODEL_STALE_KIND_COUNT ? kind_text[kind].reason : "unknown";
}

static void geometry_from_ctr(uint64_t ctr, struct model_geometry *g)
{
  struct jf_ctr d = jf_ctr_decode(ctr);
  g->iline = d.iline;
  g->dline = d.dline;
  g->idc = d.idc;
  g->dic = d.dic;
  /* L1Ip: 0 VPIPT and 3 PIPT are physically indexed; 2 VIPT and the
   * reserved 1 may alias (arch/arm64/kernel/cpuinfo.c). */
  g->vipt = d.l1ip != 0 && d.l1ip != 3;
}

void model_thread_init(struct model_thread *t, unsigned serial, unsigned cpu, unsigned cluster)
{
  memset(t, 0, sizeof(*t));
  t->serial = serial;
  t->cpu = cpu;
  t->cluster = cluster;
  t->pending = g_array_new(false, false, sizeof(struct maint_op));
}

void model_thread_clear(struct model_thread *t)
{
  g_clear_pointer(&t->pending, g_array_unref);
}

static void free_page(gpointer data)
{
  model_page_free(data);
}

struct model *model_new(const uint64_t *ctr, unsigned nclusters, const struct model_views *views)
{
  struct model *m = g_new0(struct model, 1);
  /* A store stamp keeps the writer's cluster in its low bits. */
  g_assert(nclusters <= (1u << STAMP_CLUSTER_BITS));
  m->nclusters = nclusters;
  /* The flags share the record number's 32 bits (MODEL_REC_BITS). */
  _Static_assert(sizeof(struct model_word) == 12, "a model_word is 12 bytes");
  m->word_size = sizeof(struct model_word);
  m->recs = model_recs_new(nclusters);
  m->geo = g_new0(struct model_geometry, nclusters);
  m->online_seq = g_new0(uint64_t, nclusters);
  m->all_idc = true;
  for (unsigned c = 0; c < nclusters; c++) {
    geometry_from_ctr(ctr[c], &m->geo[c]);
    m->all_idc = m->all_idc && m->geo[c].idc;
    m->iline_max = MAX(m->iline_max, m->geo[c].iline);
  }
  if (views) {
    m->views = *views;
  }
  m->pages = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, free_page);
  m->site_stride = g_array_new(false, true, sizeof(unsigned));
  m->dmb_ordered = g_array_new(false, false, sizeof(struct maint_op));
  m->dsb_times = g_array_new(false, false, sizeof(uint64_t));
  m->untracked_cmodx = g_hash_table_new(g_direct_hash, g_direct_equal);
  m->view_extra =
      g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, (GDestroyNotify)g_ptr_array_unref);
  return m;
}

void model_free(struct model *m)
{
  if (m) {
    RIG_RELEASE(g_hash_table_destroy, GHashTable, m->pages, m->untracked_cmodx, m->view_extra);
    model_recs_free(m->recs); /* after the pages, which let go of theirs */
    RIG_RELEASE(g_array_unref, GArray, m->site_stride, m->dmb_ordered, m->dsb_times);
    RIG_RELEASE(g_free, void, m->geo, m->online_seq, m);
  }
}

static bool nonexec_view(const struct model *m, uint64_t va)
{
  return m->views.nonexec_view && m->views.nonexec_view(va, m->views.ctx);
}

uint64_t model_view(const struct model *m, uint64_t va)
{
  return va - canon(m, va);
}

/* ---- time ------------------------------------------------------------------ */

/* The next event's time: even, later than every time handed out before.
 * Only the caller's lock serialises events; model_store_quick reads the
 * clock without it, hence the atomic store. */
static uint64_t event_time(struct model *m)
{
  uint64_t now = m->seq + 2;
  __atomic_store_n(&m->seq, now, __ATOMIC_RELEASE);
  return now;
}

static uint64_t store_time(const struct model *m)
{
  return model_store_time(&m->seq);
}

const uint64_t *model_clock(const struct model *m)
{
  return &m->seq;
}

/* ---- stores ------------------------------------------------------------ */

/* A store of word INDEX of the store-only PAGE, under the lock. A store
 * at a later time than the summary's last moves it on: the words stored so
 * far keep the last time as their older one (model_coherence_quick.h). A store
 * that arrives with an earlier time (another thread's, racing) is an
 * older one. */
static void summary_store(struct model_page *page, size_t index, uint64_t stamp, uint64_t writer_pc,
                          unsigned writer_thread)
{
  uint64_t last = __atomic_load_n(&page->last_store, __ATOMIC_SEQ_CST);
  uint64_t time = stamp >> STAMP_CLUSTER_BITS, last_time = last >> STAMP_CLUSTER_BITS;
  if (last != 0 && time > last_time) {
    if (last > __atomic_load_n(&page->older_store, __ATOMIC_RELAXED)) {
      __atomic_store_n(&page->older_store, last, __ATOMIC_SEQ_CST);
    }
    /* Only the blocks with a bit set: a sequentially consistent store is a
     * locked instruction on x86, and a page's stores since the last event
     * are mostly in one or two of its 16 blocks (a frame of the stack).
     * A racing store whose bits this leaves is one that came after the
     * emptying, which it could as well have. */
    for (size_t b = 0; b < G_N_ELEMENTS(page->recent); b++) {
      if (__atomic_load_n(&page->recent[b], __ATOMIC_RELAXED)) {
        __atomic_store_n(&page->recent[b], 0, __ATOMIC_SEQ_CST);
      }
    }
  } else if (time < last_time) {
    __atomic_fetch_or(&page->written[index / 64], UINT64_C(1) << (index % 64), __ATOMIC_SEQ_CST);
    /* Its writer still is this word's (page writers, below). */
    uint64_t *writers = __atomic_load_n(&page->writers, __ATOMIC_SEQ_CST);
    if (writers) {
      __atomic_store_n(&writers[index], writer_pc, __ATOMIC_RELAXED);
    }
    if (stamp > __atomic_load_n(&page->older_store, __ATOMIC_RELAXED)) {
      __atomic_store_n(&page->older_store, stamp, __ATOMIC_SEQ_CST);
    }
    return;
  }
  model_summarise_store(page, index, index, stamp, writer_pc, writer_thread);
}

/*
 * Page writers. A store-only page's summary keeps one writer for all its
 * words; the report names the store that last wrote each word
 * (docs/FINDINGS.md, `writers`), so when a second instruction stores to
 * the page it gets a table of writers, one per word (8 bytes a word, on
 * pages with more than one writer only), seeded with the one writer so
 * far (model_page_writers). The table is published before the words
 * stored so far are read, so a lock-free store (model_summarise_store,
 * which reloads the table after setting its bits) either is among them or
 * writes its own entries; only two threads racing to store into one page
 * with different instructions can leave a word with the other's writer.
 */

/*
 * Stale words. A stale fetch does not run any instruction at all: it may
 * see a word the address held before, and only those. What a fetch of W
 * may see is kept per word in two sets of encodings:
 *   SEEN      the words W held since its last store whose sequence was
 *             complete in every cluster when W was stored again
 *             (model_fresh_after was known then), that store's word
 *             included;
 *   EARLIER   every word before them, which a thread not synchronised
 *             after that sequence's bound (SEEN_AFTER) may still hold in
 *             its pipeline or fetch.
 * A word is known only when QEMU translated it and nothing stored to it
 * since (INSN_IN_MEMORY): the model does not see the values stores write.
 * Anything else is "any word": a page's initial content (zeros on a fresh
 * page, or whatever the kernel left), words seeded from a page summary,
 * and a value two stores in a row wrote and nobody fetched. So the first
 * version of code on a fresh page, or a slot that held other code, may
 * always run something else; only a rewrite with the same bytes of a word
 * whose every earlier version the thread may see was that same word cannot
 * (model_stale_benign). Stricter than the architecture where a value is
 * unknown, never more lenient.
 */
enum seen_set { SEEN_ANY = 0, SEEN_NONE, SEEN_ONE };

/* Adds ADD (a set of at most one known word, ADD_WORD) to SET/WORD. */
static void seen_add(uint8_t *set, uint32_t *word, uint8_t add, uint32_t add_word)
{
  if (add == SEEN_NONE || *set == SEEN_ANY) {
    return;
  }
  /* A set's WORD is read only when it is SEEN_ONE, and kept 0 otherwise,
   * so that words in the same state share their record. */
  if (*set == SEEN_NONE) {
    *set = add;
    *word = add == SEEN_ONE ? add_word : 0;
  } else if (add == SEEN_ANY || add_word != *word) {
    *set = SEEN_ANY;
    *word = 0;
  }
}

/* W, whose record R is being edited, is about to be stored over (lock
 * held): what it holds now joins what a stale fetch of it may see. BOUND is
 * model_fresh_after(W) before the store. */
static void remember_overwritten(struct model_rec *r, struct model_word *w, uint64_t bound)
{
  uint8_t before = w->insn_in_memory ? SEEN_ONE : SEEN_ANY;
  uint32_t word = w->insn_in_memory ? w->insn : 0;
  if (r->store_seq == 0) {
    /* Never stored: its content since it was mapped is all there was. */
    r->earlier = SEEN_NONE;
    r->seen = before;
    r->seen_word = word;
    r->seen_after = 0;
  } else if (bound != UINT64_MAX) {
    seen_add(&r->earlier, &r->earlier_word, r->seen, r->seen_word);
    r->seen = before;
    r->seen_word = word;
    r->seen_after = bound;
  } else {
    seen_add(&r->seen, &r->seen_word, before, word);
  }
  w->insn_in_memory = false;
}

/* Whether every word a thread synchronised at SYNC_SEQ may see in a stale
 * fetch of W is CURRENT; *READS_SYNC: whether the answer depends on it. */
static bool stale_benign(const struct model_rec *w, uint64_t sync_seq, uint32_t current,
                         bool *reads_sync)
{
  *reads_sync = false;
  if (w->seen != SEEN_ONE || w->seen_word != current) {
    return false;
  }
  if (w->earlier == SEEN_NONE || (w->earlier == SEEN_ONE && w->earlier_word == current)) {
    return true;
  }
  *reads_sync = true;
  return sync_seq > w->seen_after;
}

bool model_stale_benign(const struct model *m, const struct model_thread *t,
                        const struct model_word *w, uint32_t current, bool *reads_sync)
{
  bool reads = false;
  bool benign = stale_benign(word_rec(m, w), t->sync_seq, current, &reads);
  if (reads_sync) {
    *reads_sync = reads;
  }
  return benign;
}

bool model_fetch_benign(const struct model *m, const struct model_thread *t,
                        const struct model_word *w, bool *reads_sync)
{
  if (reads_sync) {
    *reads_sync = false;
  }
  /* Memory holds the word translated (no store since): what the fetch
   * should run is known. */
  return w->insn_in_memory && model_stale_benign(m, t, w, w->insn, reads_sync);
}

/* Whether the slots an ic through VIEW writes for cluster C are in R
 * itself (or will be: R names no view yet), not in the word's own table
 * of other views (view_slots): only then is the ic's change one of R
 * alone, which a memo may repeat. */
static bool view_in_record(const struct model *m, const struct model_rec *r, unsigned c,
                           uint64_t view)
{
  return !m->geo[c].vipt || !r->iview_set || r->iview == view;
}

/* Whether M->store_memo is for a store of W at NOW by WRITER_PC of T. */
static bool store_memo_holds(const struct model *m, const struct model_word *w, uint64_t now,
                             const struct model_thread *t, uint64_t writer_pc)
{
  const struct store_memo *s = &m->store_memo;
  return s->now == now && s->shared == m->shared && s->writer_pc == writer_pc &&
         s->thread == t->serial && s->cluster == t->cluster &&
         s->insn_in_memory == w->insn_in_memory && (!s->insn_in_memory || s->insn == w->insn);
}

/* The store of dense word W at time NOW by WRITER_PC of T. */
static void store_word(struct model *m, struct model_word *w, uint64_t now,
                       const struct model_thread *t, uint64_t writer_pc)
{
  struct store_memo *memo = &m->store_memo;
  if (store_memo_holds(m, w, now, t, writer_pc)) {
    if (rec_memo_take(m, w, &memo->step, 0)) {
      w->insn_in_memory = false; /* as remember_overwritten */
      return;
    }
  } else {
    *memo = (struct store_memo){.now = now,
                                .shared = m->shared,
                                .writer_pc = writer_pc,
                                .thread = t->serial,
                                .cluster = t->cluster,
                                .insn = w->insn,
                                .insn_in_memory = w->insn_in_memory};
  }
  const struct model_rec *before = word_rec(m, w);
  /* The bound reads the own view's slots: the record's own unless a VIPT
   * cluster keeps them beside the word (view_slots), which a memo cannot
   * repeat. */
  bool own = true;
  for (unsigned c = 0; c < m->nclusters; c++) {
    own = own && view_in_record(m, before, c, MODEL_OWN_VIEW);
  }
  uint64_t bound = before->store_seq ? model_fresh_after(m, w, MODEL_OWN_VIEW) : UINT64_MAX;
  struct model_rec *r = rec_edit(m, w);
  remember_overwritten(r, w, bound);
  r->store_seq = now;
  w->version++;
  r->writer_pc = writer_pc;
  r->writer_cluster = t->cluster;
  r->writer_thread = t->serial;
  r->writer_exact = true;
  if (own) {
    rec_commit_memo(m, w, &memo->step, 0, true);
  } else {
    /* This commit may free the record a memo leads to (a twin found for
     * W leaves W's record), which a later store would then take. */
    rec_memos_clear(&memo->step);
    rec_commit(m, w);
  }
}

/* The store of the words [FIRST, END) of PAGE at time NOW (lock held). */
static void store_in_page(struct model *m, struct model_page *page, uint64_t first, uint64_t end,
                          uint64_t now, struct model_thread *t, uint64_t writer_pc)
{
  if (page->kernel_sync_seq) {
    page_make_dense(m, page); /* owed the kernel's sync (sync_store_only) */
  }
  for (uint64_t a = first; a < end; a += 4) {
    if (page->words) {
      store_word(m, page_word(m, page, a), now, t, writer_pc);
    } else {
      size_t index = (a & (MODEL_PAGE_SIZE - 1)) / 4;
      model_page_writers(page, writer_pc);
      summary_store(page, index, model_store_stamp(now, t->cluster), writer_pc, t->serial);
    }
  }
}

void model_store(struct model *m, struct model_thread *t, uint64_t va, unsigned bytes,
                 uint64_t writer_pc)
{
  uint64_t now = store_time(m);
  uint64_t end = va + (bytes ? bytes : 1);
  for (uint64_t a = va & ~UINT64_C(3); a < end;) {
    uint64_t stop = MIN(end, (a | (MODEL_PAGE_SIZE - 1)) + 1);
    store_in_page(m, page_get(m, a), a, stop, now, t, writer_pc);
    a = stop;
  }
}

void model_store_on_page(struct model *m, struct model_thread *t, struct model_page *page,
                         uint64_t va, unsigned bytes, uint64_t writer_pc)
{
  uint64_t end = va + (bytes ? bytes : 1);
  if (((end - 1) ^ va) >> MODEL_PAGE_SHIFT) {
    model_store(m, t, va, bytes, writer_pc);
    return;
  }
  store_in_page(m, page, va & ~UINT64_C(3), end, store_time(m), t, writer_pc);
}

struct model_page *model_store_page(struct model *m, uint64_t va)
{
  return page_get(m, va);
}

/* ---- maintenance ---------------------------------------------------------- */

/* Whether a clean of ADDR reaches W, whose dirty copy sits in the
 * writer's cache in the writer's DminLine geometry. */
static bool in_writer_line(const struct model *m, const struct model_rec *w, uint64_t word_va,
                           uint64_t addr)
{
  uint64_t mask = ~((uint64_t)m->geo[w->writer_cluster].dline - 1);
  return (word_va & mask) == (addr & mask);
}

struct clean_issue {
  struct site_mark mark;
  uint64_t addr;
  struct rec_memos memo;
};

static void mark_clean_issued(const struct model *m, struct model_word *w, uint64_t word_va,
                              void *ctx)
{
  struct clean_issue *c = ctx;
  bool in_line = in_writer_line(m, word_rec(m, w), word_va, c->addr);
  if (rec_memo_take(m, w, &c->memo, in_line)) {
    return;
  }
  struct model_rec *r = rec_edit(m, w);
  w->version++;
  mark_site_on(r, &c->mark);
  if (in_line) {
    r->clean_issue_seq = c->mark.seq;
  }
  rec_commit_memo(m, w, &c->memo, in_line, true);
}

void model_dc_clean(struct model *m, struct model_thread *t, uint64_t va, uint32_t site,
                    bool after_loads)
{
  uint64_t now = event_time(m);
  /* Clean ordering: what the dc is ordered after. */
  uint64_t seen = MAX(t->clean_order_seq, t->fetched_store_seq);
  uint64_t order = after_loads ? now : seen;
  struct maint_op op = {.addr = va,
                        .issue_seq = now,
                        .order_seq = order,
                        .cluster = t->cluster,
                        .thread = t->serial,
                        .is_clean = true};
  m->shared++; /* model_follow_loop: the site's stride */
  unsigned stride = model_follow_loop(m, site, va, &t->clean_loop, false, op.issue_seq, op.cluster,
                                      m->geo[op.cluster].dline);
  struct clean_issue issue = {.mark = {site, op.issue_seq, false, stride, op.cluster}, .addr = va};
  for_each_word_in_line(m, va, m->geo[op.cluster].dline, mark_clean_issued, &issue);
  if (!stride && site != MODEL_NO_SITE) {
    model_claim_lines(m, va, &issue.mark);
  }
  g_array_append_val(t->pending, op);
}

/* Whether an ic ivau issued through a non-executable alias misses the
 * lines that cluster C fetched through the executable view (VIPT). */
static bool inval_misses(const struct model *m, const struct maint_op *op, unsigned c)
{
  return op->nonexec_view && m->geo[c].vipt;
}

/*
 * Step-2 slots per view (docs/COHERENCE-MODEL.md#double-mapped-code-and-vipt-instruction-caches).
 * The slots of cluster C that an ic through VIEW writes and a fetch through VIEW reads: [0] the
 * latest issued, [1] the first completed that counts. A PIPT cluster has one pair for every view; a
 * VIPT cluster's pair in the word belongs to the first view invalidated through (IVIEW), and each
 * other view gets a block of its own in view_extra: its view, then the pair of every cluster. A JIT
 * has one executable view almost always, so the table stays empty.
 */
static const uint64_t *find_view_slots(const struct model *m, const struct model_word *w,
                                       const struct model_rec *r, unsigned c, uint64_t view)
{
  if (!m->geo[c].vipt || !r->iview_set || r->iview == view) {
    return &r->inval[INVAL_ISSUED(c)];
  }
  const GPtrArray *blocks = w && w->extra_views ? g_hash_table_lookup(m->view_extra, w) : NULL;
  for (guint i = 0; blocks && i < blocks->len; i++) {
    const uint64_t *b = g_ptr_array_index(blocks, i);
    if (b[0] == view) {
      return &b[1 + 2 * c];
    }
  }
  return NULL; /* never invalidated through VIEW on a VIPT cluster */
}

/* The same slots, made when missing (an ic through VIEW reached W, whose
 * record R is being edited). */
static uint64_t *view_slots(const struct model *m, struct model_word *w, struct model_rec *r,
                            unsigned c, uint64_t view)
{
  if (m->geo[c].vipt && !r->iview_set) {
    r->iview_set = true;
    r->iview = view;
  }
  const uint64_t *found = find_view_slots(m, w, r, c, view);
  if (found) {
    return (uint64_t *)found; /* R or W's block: not const */
  }
  GPtrArray *blocks = w->extra_views ? g_hash_table_lookup(m->view_extra, w) : NULL;
  if (!blocks) {
    blocks = g_ptr_array_new_with_free_func(g_free);
    g_hash_table_insert(m->view_extra, w, blocks);
    w->extra_views = true;
  }
  uint64_t *b = g_new0(uint64_t, 1 + 2 * (size_t)m->nclusters);
  b[0] = view;
  g_ptr_array_add(blocks, b);
  return &b[1 + 2 * c];
}

/* Whether an ic through an executable view other than VIEW was issued
 * for VIPT cluster C after W's last store (the reason of a stale fetch). */
static bool other_view_issued(const struct model *m, const struct model_word *w,
                              const struct model_rec *r, unsigned c, uint64_t view)
{
  if (!m->geo[c].vipt || !r->iview_set) {
    return false;
  }
  if (r->iview != view && r->inval[INVAL_ISSUED(c)] > r->store_seq) {
    return true;
  }
  const GPtrArray *blocks = w->extra_views ? g_hash_table_lookup(m->view_extra, w) : NULL;
  for (guint i = 0; blocks && i < blocks->len; i++) {
    const uint64_t *b = g_ptr_array_index(blocks, i);
    if (b[0] != view && b[1 + 2 * c] > r->store_seq) {
      return true;
    }
  }
  return false;
}

struct inval_issue {
  unsigned cluster;
  bool alias;    /* through a non-executable alias that misses CLUSTER */
  uint64_t view; /* model_view of the address */
  struct site_mark mark;
  struct rec_memos memo;
};

static void mark_inval_issued(const struct model *m, struct model_word *w, uint64_t word_va,
                              void *ctx)
{
  (void)word_va;
  struct inval_issue *issue = ctx;
  if (rec_memo_take(m, w, &issue->memo, 0)) {
    return;
  }
  struct model_rec *r = rec_edit(m, w);
  bool own = issue->alias || view_in_record(m, r, issue->cluster, issue->view);
  if (issue->alias) {
    r->inval[INVAL_ALIAS(issue->cluster)] = issue->mark.seq;
  } else {
    view_slots(m, w, r, issue->cluster, issue->view)[0] = issue->mark.seq;
  }
  w->version++;
  mark_site_on(r, &issue->mark);
  if (own) {
    rec_commit_memo(m, w, &issue->memo, 0, true);
  } else {
    rec_commit(m, w);
  }
}

static void complete_dmb_ordered(struct model *m, unsigned except_thread, uint64_t done);

void model_ic_ivau(struct model *m, struct model_thread *t, uint64_t va, uint32_t site)
{
  if (m->dmb_ordered->len) {
    /* Another thread's DMB-ordered clean comes before this invalidate,
     * as before a DSB (model_dmb). */
    complete_dmb_ordered(m, t->serial, event_time(m));
  }
  struct maint_op op = {.addr = va,
                        .issue_seq = event_time(m),
                        .cluster = t->cluster,
                        .thread = t->serial,
                        .is_clean = false,
                        .nonexec_view = nonexec_view(m, va),
                        .view = model_view(m, va)};
  m->shared++; /* model_follow_loop: the site's stride */
  /* Every cluster's line around VA gets the mark (below): the largest
   * holds them all. */
  unsigned stride =
      model_follow_loop(m, site, va, &t->inval_loop, true, op.issue_seq, op.cluster, m->iline_max);
  /* Broadcast: every cluster drops its own line holding VA. */
  struct site_mark mark = {site, op.issue_seq, true, stride, op.cluster};
  for (unsigned c = 0; c < m->nclusters; c++) {
    struct inval_issue issue = {
        .cluster = c, .alias = inval_misses(m, &op, c), .view = op.view, .mark = mark};
    for_each_word_in_line(m, va, m->geo[c].iline, mark_inval_issued, &issue);
  }
  if (!stride && site != MODEL_NO_SITE) {
    model_claim_lines(m, va, &mark);
  }
  g_array_append_val(t->pending, op);
}

static uint64_t store_completion(const struct model *m, const struct model_rec *w);

/* The time W's D side became coherent with its last store for the thread
 * with serial READER, or 0 if not. Under IDC: for the storing thread, when
 * its store completed; for any other thread, which can only act on the
 * store after seeing it (directly or through a flag), the store itself
 * ("Store completion"). */
static uint64_t clean_point(const struct model *m, const struct model_rec *w, unsigned reader)
{
  if (m->all_idc) {
    return reader == w->writer_thread ? store_completion(m, w) : w->store_seq;
  }
  return w->clean_done_seq > w->store_seq ? w->clean_done_seq : 0;
}

struct completion {
  const struct maint_op *op;
  unsigned cluster; /* the geometry being invalidated (ic) */
  uint64_t done_seq;
  struct rec_memos memo; /* emptied for each cluster */
};

static void complete_clean(const struct model *m, struct model_word *w, uint64_t word_va, void *ctx)
{
  struct completion *c = ctx;
  const struct model_rec *r = word_rec(m, w);
  if (!in_writer_line(m, r, word_va, c->op->addr)) {
    return;
  }
  if (rec_memo_take(m, w, &c->memo, 0)) {
    return;
  }
  if (r->store_seq == 0 || c->op->issue_seq < r->store_seq) {
    return; /* nothing dirty yet, or stored again after the clean issued */
  }
  if (r->writer_exact && r->writer_thread != c->op->thread && c->op->order_seq < r->store_seq) {
    if (r->clean_unordered_seq < c->done_seq) {
      rec_edit(m, w)->clean_unordered_seq = c->done_seq; /* for the reason only */
      rec_commit_memo(m, w, &c->memo, 0, true);
      w->version++;
    }
    return; /* another thread's store the clean is not ordered after */
  }
  if (r->clean_done_seq <= r->store_seq) {
    rec_edit(m, w)->clean_done_seq = c->done_seq;
    rec_commit_memo(m, w, &c->memo, 0, true);
    w->version++;
  }
}

static void complete_inval(const struct model *m, struct model_word *w, uint64_t word_va, void *ctx)
{
  struct completion *c = ctx;
  (void)word_va;
  const struct model_rec *now = word_rec(m, w);
  uint64_t cleaned = clean_point(m, now, c->op->thread);
  if (now->store_seq == 0 || cleaned == 0 || c->op->issue_seq <= cleaned) {
    return; /* issued before the clean completed: may refill stale data */
  }
  if (rec_memo_take(m, w, &c->memo, 0)) {
    return;
  }
  struct model_rec *r = rec_edit(m, w);
  bool own = view_in_record(m, r, c->cluster, c->op->view);
  uint64_t *done = &view_slots(m, w, r, c->cluster, c->op->view)[1];
  bool bumped = *done <= cleaned;
  if (bumped) {
    *done = c->done_seq;
    w->version++;
  }
  if (own) {
    rec_commit_memo(m, w, &c->memo, 0, bumped);
  } else {
    rec_commit(m, w);
  }
}

/* Completes the operations OPS at time DONE. */
static void complete_ops(struct model *m, GArray *ops, uint64_t done)
{
  for (guint i = 0; i < ops->len; i++) {
    const struct maint_op *op = &g_array_index(ops, struct maint_op, i);
    struct completion c = {.op = op, .cluster = op->cluster, .done_seq = done};
    if (op->is_clean) {
      for_each_word_in_line(m, op->addr, m->geo[op->cluster].dline, complete_clean, &c);
    } else {
      for (unsigned k = 0; k < m->nclusters; k++) {
        if (inval_misses(m, op, k)) {
          continue; /* completes, but never reached k's VA-indexed lines */
        }
        c.cluster = k;
        rec_memos_clear(&c.memo);
        for_each_word_in_line(m, op->addr, m->geo[k].iline, complete_inval, &c);
      }
    }
  }
  g_array_set_size(ops, 0);
}

/* ---- store completion ------------------------------------------------------ */

/*
 * Store completion. Under CTR_EL0.IDC the clean is not needed, but the
 * store itself must complete before the invalidate or the context
 * synchronisation that relies on it: the Arm ARM's sequence keeps the
 * dsb ish after the (skipped) clean, Linux's IDC path issues dsb ishst, and
 * the formal model agrees (herd7 -variant ifetch: str; isb under IDC and
 * DIC, and str; ic ivau; dsb ish; isb under IDC, both may fetch stale; the
 * catalogue's DIC1.SM.B+isb is allowed). For the storing thread a store
 * completes at the next DSB of any thread (its own, or that of a thread
 * that saw it). Another thread can only rely on the store after seeing it,
 * directly (IDC1.2SM.B+cachesync-isb, the reader loads the new instruction,
 * is forbidden) or through a flag ordered after it
 * (IDC1.MP.RF+dmb.st+ctrlisb-ic-dsb-isb, DIC1.WRC-inst: forbidden), and the
 * formal model then needs no DSB of it: for another thread the store is
 * its own clean point (clean_point). As for the other cross-thread rules,
 * the model's order stands for the observation.
 */
static uint64_t first_after(const GArray *times, uint64_t after)
{
  guint lo = 0, hi = times->len;
  while (lo < hi) {
    guint mid = lo + (hi - lo) / 2;
    if (g_array_index(times, uint64_t, mid) > after) {
      hi = mid;
    } else {
      lo = mid + 1;
    }
  }
  return lo < times->len ? g_array_index(times, uint64_t, lo) : 0;
}

/* When W's last store completed (0: not yet). */
static uint64_t store_completion(const struct model *m, const struct model_rec *w)
{
  return first_after(m->dsb_times, w->store_seq);
}

/* Completes the DMB-ordered cleans of every thread but EXCEPT_THREAD. */
static void complete_dmb_ordered(struct model *m, unsigned except_thread, uint64_t done)
{
  GArray *keep = g_array_new(false, false, sizeof(struct maint_op));
  GArray *now = g_array_new(false, false, sizeof(struct maint_op));
  for (guint i = 0; i < m->dmb_ordered->len; i++) {
    const struct maint_op *op = &g_array_index(m->dmb_ordered, struct maint_op, i);
    g_array_append_val(op->thread == except_thread ? keep : now, *op);
  }
  complete_ops(m, now, done);
  g_array_unref(now);
  g_array_unref(m->dmb_ordered);
  m->dmb_ordered = keep;
}

/*
 * A DSB is an event even when nothing is pending: it orders the thread's
 * earlier stores before its later ones, which fetch ordering compares
 * (stores between two events share a time).
 */
void model_dsb(struct model *m, struct model_thread *t)
{
  uint64_t done = event_time(m);
  t->clean_order_seq = done;
  complete_ops(m, m->dmb_ordered, done);
  complete_ops(m, t->pending, done);
  if (m->all_idc) {
    g_array_append_val(m->dsb_times, done);
    m->shared++; /* store_completion */
  }
}

/*
 * Completion through another thread (ESOP 2020's ifetch model; the
 * catalogue's MP.RF+dc.cvau-dmb.ish+dsb.ish-ic.ivau-dsb.ish-isb is
 * forbidden): a clean that its issuer follows with a DMB ordering loads and
 * stores is ordered before whatever the issuer does next, such as
 * publishing a flag; a thread that then issues a DSB waits for it, so its
 * later ic ivau comes after the clean. The rig does not see which loads
 * read which stores, so it takes the model's order for the observation:
 * the next DSB of any thread after the DMB completes such cleans, and so
 * does the next ic ivau of another thread (a control or address dependency
 * on the flag orders an ic after the load: the catalogue's
 * MP.RF+dc.cvau-dmb.ish+ctrl-ic.ivau-dsb.ish-isb is forbidden). The
 * issuer's own ic after a DMB gets nothing (herd7: dc cvau; dmb ish;
 * ic ivau; dsb ish; isb in one thread is allowed to fetch stale), and a
 * DMB *ST or *LD does not order the clean at all (herd7, dmb st in the
 * writer: stale allowed). Invalidates are not carried over: herd7 asks
 * for the DSB after them in the fetching thread's own sequence anyway.
 */
void model_dmb(struct model *m, struct model_thread *t, bool full)
{
  uint64_t now = event_time(m);
  if (!full) {
    return;
  }
  t->clean_order_seq = now;
  GArray *ops = t->pending;
  for (guint i = 0; i < ops->len;) {
    const struct maint_op *op = &g_array_index(ops, struct maint_op, i);
    if (op->is_clean) {
      g_array_append_val(m->dmb_ordered, *op);
      g_array_remove_index(ops, i);
    } else {
      i++;
    }
  }
}

void model_sync(struct model *m, struct model_thread *t)
{
  t->sync_seq = event_time(m);
  /* An isb after a control dependency orders what follows (herd7:
   * MP.RF+ctrlisb-dc-dsb+ic-dsb-isb is forbidden); the rig does not see
   * the dependency and takes the lenient side. Exception entry and return
   * (a system call, a migration, a signal) order too. */
  t->clean_order_seq = t->sync_seq;
}

void model_order_cleans(struct model *m, struct model_thread *t)
{
  t->clean_order_seq = event_time(m);
}

/*
 * Hotplug (docs/COHERENCE-MODEL.md#hotplug). A CPU the kernel brings
 * online turns its MMU on with set_sctlr (arch/arm64/include/asm/
 * assembler.h, through set_sctlr_el1 in __enable_mmu, arch/arm64/kernel/
 * head.S, on the secondary_startup path), which follows the SCTLR write
 * with a local `ic iallu; dsb nsh; isb` before any user code runs; the
 * Galaxy S7's own 3.18 kernel (Samsung's universal8890 tree) has the same
 * three instructions inline in __enable_mmu. So when a cluster whose CPUs
 * were all offline gets one back, every word whose clean had completed by
 * then counts as invalidated in its geometry (inval_point). Nothing is
 * credited on the D side (PSCI CPU_ON starts the core from reset; whether
 * its caches come up invalid depends on the core and the firmware), nor
 * when other CPUs of the cluster stayed online: the model tracks clusters,
 * not cores, so it cannot tell their caches from the new one's.
 */
void model_cluster_online(struct model *m, unsigned cluster)
{
  if (cluster < m->nclusters) {
    m->online_seq[cluster] = event_time(m);
    m->shared++; /* inval_point */
  }
}

/* ---- fetches ----------------------------------------------------------------- */

struct model_word *model_word_for_fetch(struct model *m, uint64_t va, uint32_t insn,
                                        bool cmodx_safe)
{
  struct model_page *page = page_find(m, va);
  if (!page) {
    uint64_t c = canon(m, va);
    if (c == va) {
      /* Not checked, but remembered when CMODX-safe: the Arm ARM's
       * concurrent modification rule covers a NOP patched to a B in code
       * that was translated before its page was first stored to. */
      if (cmodx_safe) {
        g_hash_table_insert(m->untracked_cmodx, GSIZE_TO_POINTER(va),
                            GSIZE_TO_POINTER((gsize)insn + 1));
      } else {
        g_hash_table_remove(m->untracked_cmodx, GSIZE_TO_POINTER(va));
      }
      return NULL;
    }
    /* QEMU does not re-translate the RX view when the RW view is written,
     * so a double-mapped page is checked even before its first store. */
    page = model_page_new(m, c >> MODEL_PAGE_SHIFT);
  }
  page_make_dense(m, page);
  struct model_word *w = page_word(m, page, va);
  if (!w->translated) {
    /* Translated before the page was tracked (above): that encoding is the
     * one this translation replaces. */
    gpointer before = g_hash_table_lookup(m->untracked_cmodx, GSIZE_TO_POINTER(canon(m, va)));
    if (before) {
      w->translated = true;
      w->version++;
      w->insn = (uint32_t)(GPOINTER_TO_SIZE(before) - 1);
      w->insn_cmodx_safe = true;
      g_hash_table_remove(m->untracked_cmodx, GSIZE_TO_POINTER(canon(m, va)));
    }
  }
  if (!w->translated || w->insn != insn || !w->insn_in_memory) {
    w->version++;
    if (!w->translated || w->insn != insn) {
      w->pair_cmodx_safe = w->translated && w->insn_cmodx_safe && cmodx_safe;
    }
    w->insn = insn;
    w->insn_cmodx_safe = cmodx_safe;
    w->translated = true;
    w->insn_in_memory = true; /* what memory holds now ("Stale words") */
  }
  return w;
}

struct model_word *model_word_now(struct model *m, uint64_t va)
{
  struct model_page *page = page_find(m, va);
  if (!page) {
    return NULL;
  }
  page_make_dense(m, page);
  return page_word(m, page, va);
}

/* Step 2 for cluster C: the first completed invalidate that counts (DONE,
 * through the fetching view), or the moment C came back online when W's
 * clean had completed before that: the boot's ic iallu empties the whole
 * I-cache, every view's lines. */
static uint64_t inval_point(const struct model *m, unsigned c, uint64_t done, uint64_t cleaned)
{
  uint64_t online = m->online_seq[c];
  if (online > cleaned && (done <= cleaned || online < done)) {
    return online;
  }
  return done;
}

/* The kernel synced W's page after W's last store, and the run counts on
 * it (model_kernel_sync). */
static bool kernel_synced(const struct model *m, const struct model_rec *w)
{
  return w->kernel_sync_seq > w->store_seq && !m->kernel_untrusted;
}

/* Which step is missing for a fetch through VIEW, without provenance. */
static enum model_stale_kind missing_step(const struct model *m, const struct model_thread *t,
                                          const struct model_word *word, uint64_t view)
{
  const struct model_rec *w = word_rec(m, word);
  if (kernel_synced(m, w)) {
    return MODEL_FRESH;
  }
  uint64_t ready = clean_point(m, w, t->serial);
  unsigned c = t->cluster;
  if (ready == 0 && m->all_idc) {
    /* Fetch ordering under IDC and DIC: W's store before (an event
     * before) a store this thread saw fetched is enough
     * (DIC1.MP.FF+dmb.st+po is forbidden, DIC1.MP.FF+po allowed). */
    if (m->geo[c].dic && t->fetched_store_seq > w->store_seq) {
      return MODEL_FRESH;
    }
    return MODEL_STALE_CLEAN_NOT_COMPLETED; /* the store did not complete */
  }
  if (ready == 0) {
    if (w->clean_unordered_seq > w->store_seq) {
      return MODEL_STALE_CLEAN_NOT_ORDERED;
    }
    return w->clean_issue_seq > w->store_seq ? MODEL_STALE_CLEAN_NOT_COMPLETED
                                             : MODEL_STALE_NOT_CLEANED;
  }
  if (!m->geo[c].dic) {
    const uint64_t *slots = find_view_slots(m, word, w, c, view);
    uint64_t inval_done = inval_point(m, c, slots ? slots[1] : 0, ready);
    if (inval_done <= ready) {
      uint64_t inval_issued = slots ? slots[0] : 0;
      if (inval_issued > ready) {
        return MODEL_STALE_INVALIDATE_NOT_COMPLETED;
      }
      if (w->inval[INVAL_ALIAS(c)] > w->store_seq) {
        return MODEL_STALE_NONEXEC_ALIAS;
      }
      if (other_view_issued(m, word, w, c, view)) {
        return MODEL_STALE_OTHER_EXEC_VIEW;
      }
      if (inval_issued > w->store_seq) {
        return MODEL_STALE_INVALIDATED_BEFORE_CLEAN;
      }
      return MODEL_STALE_NOT_INVALIDATED_IN_GEOMETRY;
    }
    ready = inval_done;
  }
  /* Fetch ordering: see model_fetch. */
  return t->sync_seq <= ready && t->fetched_store_seq <= ready ? MODEL_STALE_NOT_SYNCHRONISED
                                                               : MODEL_FRESH;
}

struct model_stamp model_fetch_stamp(const struct model *m, const struct model_word *w)
{
  /* What missing_step, blamed_site and model_fetch read besides the
   * thread and its view: the word's record, whose every writer bumps its
   * version (stores, translations, mark_site, the completions), including
   * its other views' slots in view_extra (written only at an ic, which
   * marks its site, and at a completion), and, outside it,
   * the site strides (follow_loop, at every dc and ic), the DSB times under
   * IDC (store_completion) and the clusters' online times (inval_point),
   * each counted in SHARED. Not the model's clock: a migration's DSB and
   * context synchronisation change no word and no verdict that did not
   * read the thread's sync_seq (model_verdict_reads). */
  return (struct model_stamp){m->shared, w->version};
}

unsigned model_verdict_reads(const struct model *m, enum model_stale_kind kind)
{
  if (m->all_idc) {
    return MODEL_READS_CLUSTER | MODEL_READS_SYNC; /* the DIC branch reads both */
  }
  switch (kind) {
  case MODEL_STALE_KERNEL_SYNC_ASSUMED:
    return MODEL_READS_CLUSTER | MODEL_READS_SYNC; /* stands for any missing step */
  case MODEL_STALE_NOT_CLEANED:
  case MODEL_STALE_CLEAN_NOT_COMPLETED:
  case MODEL_STALE_CLEAN_NOT_ORDERED:
    /* missing_step returns before reading the thread's cluster, and the
     * line is the writer's. */
    return 0;
  case MODEL_STALE_INVALIDATE_NOT_COMPLETED:
  case MODEL_STALE_NONEXEC_ALIAS:
  case MODEL_STALE_OTHER_EXEC_VIEW:
  case MODEL_STALE_INVALIDATED_BEFORE_CLEAN:
  case MODEL_STALE_NOT_INVALIDATED_IN_GEOMETRY:
    return MODEL_READS_CLUSTER; /* returned before the last comparison */
  default:
    return MODEL_READS_CLUSTER | MODEL_READS_SYNC; /* fresh, not-synchronised */
  }
}

static uint64_t fresh_after(const struct model *m, const struct model_word *word,
                            const struct model_rec *w, uint64_t view);

uint64_t model_fresh_after(const struct model *m, const struct model_word *word, uint64_t view)
{
  return fresh_after(m, word, word_rec(m, word), view);
}

/* model_fresh_after of W's record R (WORD: NULL for a record with no
 * other view's slots, as a store-only page's words have). */
static uint64_t fresh_after(const struct model *m, const struct model_word *word,
                            const struct model_rec *w, uint64_t view)
{
  if (w->store_seq == 0 || kernel_synced(m, w)) {
    return 0;
  }
  /* The storing thread's clean point is the latest of all (clean_point): a bound for it holds for
   * every thread. */
  uint64_t cleaned = clean_point(m, w, w->writer_thread);
  if (cleaned == 0) {
    return UINT64_MAX;
  }
  uint64_t bound = cleaned;
  for (unsigned c = 0; c < m->nclusters; c++) {
    if (m->online_seq[c] != 0) {
      return UINT64_MAX; /* hotplug: keep checking every fetch */
    }
    if (m->geo[c].dic) {
      continue;
    }
    const uint64_t *slots = find_view_slots(m, word, w, c, view);
    uint64_t done = slots ? slots[1] : 0;
    if (done <= cleaned) {
      return UINT64_MAX; /* cluster c still misses the invalidate (of VIEW) */
    }
    bound = MAX(bound, done);
  }
  return bound;
}

/*
 * Concurrent modification and execution. The Arm ARM lets a thread run
 * either encoding of a word that another thread rewrites between two
 * CMODX-safe instructions; it does not let the rewriting thread skip the
 * maintenance for its own fetches, nor a thread fetch a patch whose writer
 * never made it coherent. The ifetch model allows the old instruction for
 * a thread that stores over its own B and runs it after a DSB, with or
 * without a clean (herd7 -variant ifetch: SM.B+dsb.ish and
 * SM.B+dc.cvau-dsb.ish, also on IDC1 and DIC1 caches), and for another
 * thread when nothing was maintained (MP.FF+dmb.st+po). So the rule covers
 * a fetch by a thread other than the word's last writer, once the clean
 * and the invalidate are done and only the fetching thread's context
 * synchronisation is missing.
 */
static bool cmodx_covers(const struct model_rec *w, const struct model_thread *t,
                         enum model_stale_kind kind)
{
  return kind == MODEL_STALE_NOT_SYNCHRONISED && w->writer_thread != t->serial;
}

/*
 * Fetch ordering (ESOP 2020, the ifetch model's fetch-to-fetch order; the
 * catalogue's MP-inst+dc.cvau-dsb.ish-ic.vau-dsb.ish and
 * DIC1.MP.FF+dsb.ish+po are forbidden): a thread that fetched the new
 * version of a word W2 fetches, later in its program order, the new version
 * of any word whose sequence was complete (clean and invalidate completed,
 * or under DIC the clean) before W2 was stored. So T's fetch of W2 acts for
 * those words as a context synchronisation at W2's store time: T records
 * the latest such time, and step 3 accepts it like its own isb. QEMU always
 * runs the new W2, which is the execution the rig follows (if W2 itself
 * could be stale, that fetch is reported). As for completion, the rig
 * takes the model's order of W2's store after the sequence, without
 * checking which barrier ordered them.
 */
struct model_verdict model_fetch(const struct model *m, struct model_thread *t,
                                 const struct model_word *word, uint64_t view, bool cmodx_safe)
{
  struct model_verdict v = {.kind = MODEL_FRESH};
  const struct model_rec *w = word_rec(m, word);
  if (w->store_seq == 0) {
    return v;
  }
  enum model_stale_kind kind = missing_step(m, t, word, view);
  if (w->store_seq > t->fetched_store_seq) {
    t->fetched_store_seq = w->store_seq;
  }
  if (kind == MODEL_FRESH || (cmodx_safe && word->pair_cmodx_safe && cmodx_covers(w, t, kind))) {
    return v; /* either encoding is architecturally acceptable */
  }
  if (w->kernel_sync_seq > w->store_seq && w->clean_site_seq <= w->store_seq &&
      w->inval_site_seq <= w->store_seq) {
    /* Stale only because the run does not count on the kernel's sync, and
     * the program did no maintenance of its own: it relied on the kernel.
     * A program whose maintenance reached the word but missed a step keeps
     * that step's kind, the more useful one to fix. */
    kind = MODEL_STALE_KERNEL_SYNC_ASSUMED;
  }
  v.kind = kind;
  v.writer_pc = w->writer_pc;
  v.flush_site = model_blamed_site(w, kind, &v.stride);
  if (!v.stride) {
    v.stride = model_site_stride(m, v.flush_site);
  }
  bool clean_step = kind == MODEL_STALE_NOT_CLEANED || kind == MODEL_STALE_CLEAN_NOT_COMPLETED ||
                    kind == MODEL_STALE_CLEAN_NOT_ORDERED;
  /* A clean reaches the words of both the issuer's and the writer's line
   * around its address (docs/COHERENCE-MODEL.md#clean): the smaller of the two is the
   * line a clean loop has to step by. */
  v.line = clean_step ? m->geo[w->writer_cluster].dline : m->geo[t->cluster].iline;
  if (clean_step && v.flush_site != MODEL_NO_SITE && m->geo[w->clean_cluster].dline < v.line) {
    v.line = m->geo[w->clean_cluster].dline;
    v.line_of_cleaner = true;
    v.cleaner_cluster = w->clean_cluster;
  }
  v.writer_cluster = w->writer_cluster;
  return v;
}

/* ---- the kernel's own maintenance -------------------------------------------- */

void model_trust_kernel_sync(struct model *m, bool trusted)
{
  m->kernel_untrusted = !trusted;
  m->shared++; /* every verdict of a kernel-synced word changes */
}

/*
 * A page nobody fetched from or maintained yet (store-only) keeps the
 * sync as a page-level fact rather than per-word records: every word its
 * summary holds was stored before the sync, and gets it when the page is
 * made dense (model_page_make_dense), which the next fetch, maintenance,
 * madvise or store does. DENSIFYING goes up now, as making the page dense
 * here did: a lock-free store racing with the sync is made again under the
 * lock, and every later store takes the lock (model_store_quick), where it
 * makes the page dense before it lands (store_in_page). A program maps
 * most of what it ever makes executable without running all of it.
 */
static unsigned sync_store_only(struct model *m, struct model_page *page)
{
  __atomic_store_n(&page->densifying, 1, __ATOMIC_SEQ_CST);
  uint64_t now = event_time(m);
  unsigned published = 0;
  struct model_rec *r = g_malloc(m->recs->size);
  for (size_t i = 0; i < MODEL_PAGE_WORDS; i++) {
    if (model_page_seed(m, page, i, r) && r->kernel_sync_seq <= r->store_seq &&
        fresh_after(m, NULL, r, MODEL_OWN_VIEW) == UINT64_MAX) {
      published++;
    }
  }
  g_free(r);
  page->kernel_sync_seq = now;
  return published;
}

/*
 * Linux's __sync_icache_dcache (arch/arm64/mm/flush.c) cleans the D-side
 * and invalidates the I-side of the whole folio with sync_icache_aliases,
 * the whole I-cache when it may alias, from set_ptes before the
 * executable entry exists: so the page is coherent for every core, in
 * every geometry and through every view, and nothing older than the sync
 * can be in any pipeline. One event time for the page: a store made after
 * it is later, and needs the program's maintenance again.
 */
unsigned model_kernel_sync(struct model *m, uint64_t canon)
{
  struct model_page *page =
      g_hash_table_lookup(m->pages, GSIZE_TO_POINTER(canon >> MODEL_PAGE_SHIFT));
  if (!page) {
    return 0; /* never stored: nothing the caches could hold stale */
  }
  if (!page->words) {
    return sync_store_only(m, page);
  }
  uint64_t now = event_time(m);
  unsigned published = 0;
  for (size_t i = 0; i < MODEL_PAGE_WORDS; i++) {
    struct model_word *w = (struct model_word *)(page->words + i * m->word_size);
    const struct model_rec *r = word_rec(m, w);
    if (r->store_seq == 0) {
      continue;
    }
    if (r->kernel_sync_seq <= r->store_seq &&
        model_fresh_after(m, w, MODEL_OWN_VIEW) == UINT64_MAX) {
      published++;
    }
    rec_edit(m, w)->kernel_sync_seq = now;
    rec_commit(m, w);
    w->version++;
  }
  return published;
}
