/*
 * The coherence model's internals, shared by its files and by no one else
 * (model_coherence.h is the model's interface): the records of words, pages and
 * the model itself, and the helpers that the store and fetch paths inline.
 * The model's files: model_coherence.c (the rules and the verdicts),
 * model_coherence_pages.c (page records: made, made dense, forgotten, emptied,
 * moved), model_coherence_attribution.c (which loop and stride a stale word
 * names). What a record means: docs/COHERENCE-MODEL.md#what-is-tracked.
 */
#ifndef JITFLUSH_EMU_COHERENCE_INTERNAL_H
#define JITFLUSH_EMU_COHERENCE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <glib.h>

#include "model_coherence.h"
#include "model_coherence_quick.h"

#define MODEL_PAGE_SIZE (UINT64_C(1) << MODEL_PAGE_SHIFT)
#define INVAL_SLOTS 3
#define INVAL_ISSUED(c) (INVAL_SLOTS * (c))
#define INVAL_DONE(c) (INVAL_SLOTS * (c) + 1)
#define INVAL_ALIAS(c) (INVAL_SLOTS * (c) + 2)
/* The longest step between two operations of one loop (a page). */
#define MAX_STRIDE MODEL_PAGE_SIZE
#define STAMP_CLUSTER_BITS MODEL_STAMP_CLUSTER_BITS

/*
 * A word's record comes in two parts (docs/COHERENCE-MODEL.md#what-is-tracked,
 * "How the records are kept"). What is the word's own (the encoding QEMU
 * translated, its flags, the stamp's version) sits in the page's dense array,
 * 16 bytes a word, whose addresses the plugin keeps; everything else (its
 * store, maintenance and per-cluster state) is a struct model_rec, shared by
 * words in the same state: the words of a line a loop cleaned and
 * invalidated, of a store burst, of a page seeded from its summary. A
 * record is never changed while another word shares it: a change writes a
 * copy (rec_edit), and rec_commit gives the word the copy's twin, its own
 * record changed, or a new one (model_coherence_pages.c, "Shared records").
 */
struct model_rec {
  uint32_t refs; /* words that hold it (the zero record: none counted) */
  /* Grows whenever its number takes other content: changed in place,
   * or freed (then reused). struct rec_memo's check. */
  uint32_t gen;
  /* From here on, the record's key: two records with the same bytes here
   * are the same state (padding included: records are only ever copied
   * from the zeroed record [0]). */
  uint64_t store_seq;       /* last store, 0 = never stored */
  uint64_t writer_pc;       /* the instruction that made that store */
  uint64_t clean_issue_seq; /* latest clean issued (for the reason text) */
  uint64_t clean_done_seq;  /* first completed clean issued after the store */
  /* The latest clean that completed after the store but did not count: its
   * thread was not ordered after the store (COHERENCE-MODEL.md#clean-ordering). */
  uint64_t clean_unordered_seq;
  uint64_t clean_site_seq;  /* when CLEAN_SITE last reached the word */
  uint64_t inval_site_seq;  /* when INVAL_SITE last reached the word */
  uint64_t kernel_sync_seq; /* the kernel's last sync of the page (model_kernel_sync) */
  /* What a stale fetch may see (model_coherence.c, "Stale words"): the words since the
   * latest store whose sequence was complete when the next one came
   * (SEEN), those before it (EARLIER), and the bound of that sequence
   * (SEEN_AFTER): a thread synchronised after it sees none of EARLIER. */
  uint64_t seen_after;
  uint64_t iview; /* the view whose ic the VIPT clusters' slots hold */
  uint32_t clean_site;
  uint32_t inval_site;
  uint32_t writer_cluster;
  uint32_t writer_thread; /* the serial of the thread that made that store */
  uint32_t seen_word, earlier_word;
  uint16_t clean_stride;  /* CLEAN_SITE's loop stride when it reached the word */
  uint16_t inval_stride;  /* INVAL_SITE's, likewise (MAX_STRIDE fits) */
  uint16_t clean_cluster; /* the cluster that issued CLEAN_SITE's operation */
  uint8_t seen, earlier;  /* enum seen_set */
  /* WRITER_THREAD made the last store (it landed on the dense record);
   * false when the record was seeded from a page summary, which keeps one
   * writer for all its words (#clean-ordering then does not apply). */
  bool writer_exact;
  bool iview_set; /* IVIEW names the view of the VIPT slots below */
  uint8_t pad[6]; /* zero: part of the key */
  /* Per cluster c: inval[INVAL_ISSUED(c)] = latest ic issued,
   * inval[INVAL_DONE(c)] = first completed ic that satisfies step 2 (for a
   * VIPT cluster, both through the view IVIEW; other views: view_slots),
   * inval[INVAL_ALIAS(c)] = latest ic issued through a non-executable alias
   * that did not count for c (VIPT:
   * COHERENCE-MODEL.md#double-mapped-code-and-vipt-instruction-caches). */
  uint64_t inval[];
};

#define REC_KEY_OFFSET offsetof(struct model_rec, store_seq)

/* Bits of a record's number in a word: the flags share its 32 bits, so that
 * a word takes 12 bytes rather than 16. Every page that holds code has
 * 1,024 of them (on the Racket row, 6,555 such pages: 26 MiB saved); 2^27
 * records of 176 bytes would be 22 GiB. */
#define MODEL_REC_BITS 27

struct model_word {
  uint32_t rec : MODEL_REC_BITS; /* its struct model_rec, by number (0: the zero record) */
  uint32_t translated : 1;
  uint32_t insn_cmodx_safe : 1;
  uint32_t pair_cmodx_safe : 1; /* old and new encodings both CMODX-safe */
  uint32_t insn_in_memory : 1;  /* INSN is what memory holds: no store since */
  uint32_t extra_views : 1;     /* view_extra holds slots of other views of it */
  uint32_t insn;                /* encoding QEMU last translated here */
  uint32_t version;             /* model_fetch_stamp: grows with every change of the word */
};

/* The pool of shared records (model_coherence_pages.c, "Shared records"). */
/* Records per slab: struct model_recs keeps them in slabs by number, not
 * one allocation each (a malloc'd record cost 16 bytes of header and a
 * pointer to find it; the Racket row made 13 million of them). */
#define REC_SLAB_SHIFT 12
#define REC_SLAB_RECORDS (UINT32_C(1) << REC_SLAB_SHIFT)

struct model_recs {
  /* Record N is in slab N >> REC_SLAB_SHIFT; [0] is the zero record. */
  GPtrArray *slabs;
  uint32_t made;             /* numbers handed out so far, the zero record's included */
  GArray *free;              /* uint32_t: numbers free for reuse (their REFS 0) */
  size_t size;               /* bytes of one record (its per-cluster slots included) */
  struct model_rec *scratch; /* the copy rec_edit hands out */
  uint32_t last;             /* the record the latest commit gave a word (0: none) */
  /* The record rec_edit handed out to change in place (no other word
   * holds it), until rec_commit; 0: the edit is in SCRATCH. */
  uint32_t editing;
  size_t live; /* records held by a word ([0] not counted) */
  size_t peak; /* the most records live at once */
};

/* struct model_page: model_coherence_quick.h. */

/* A cluster's cache geometry, as its CTR_EL0 reports it (common/ctr.c),
 * derived once in model_new. */
struct model_geometry {
  unsigned iline; /* bytes */
  unsigned dline; /* bytes */
  bool idc;
  bool dic;
  bool vipt; /* L1Ip says the I-cache may be indexed by VA (aliasing) */
};

/*
 * One change made to many words (the words of a line one cache operation
 * reaches) gives words that hold the same record the same result. A memo
 * keeps such a step, FROM to TO, so that the next word holding FROM takes
 * TO without rec_edit's copy and rec_commit's compares: on the Racket row
 * those were 18% of the checker's time. VARIANT holds what else the change
 * depended on for that word (whether it lies in the writer's line); the
 * two generations void the memo once either number took other content.
 */
struct rec_memo {
  uint32_t from, to;
  uint32_t from_gen, to_gen;
  uint8_t variant;
  bool bumped; /* the change grew the word's version */
  bool set;
};

/* The memos of one operation, by FROM: a line's words often alternate
 * between a few records (code stored by several instructions in turn),
 * which one memo would lose at every word. */
#define REC_MEMO_WAYS 4

struct rec_memos {
  struct rec_memo way[REC_MEMO_WAYS];
};

static inline void rec_memos_clear(struct rec_memos *memos)
{
  for (unsigned i = 0; i < REC_MEMO_WAYS; i++) {
    memos->way[i].set = false;
  }
}

/* The latest store that changed a dense word (store_in_page): the next
 * word that held the same record, with the same encoding in memory or
 * none, stored by the same instruction of the same thread at the same
 * time (a JIT's code emitted word by word), takes the same result. */
struct store_memo {
  struct rec_memos step;
  uint64_t now, shared, writer_pc;
  uint32_t thread, cluster, insn;
  bool insn_in_memory;
};

struct model {
  uint64_t seq;            /* the latest event's time (COHERENCE-MODEL.md#what-is-tracked) */
  uint64_t shared;         /* model_fetch_stamp: changes read outside words */
  GHashTable *pages;       /* canonical page number -> model_page */
  uint64_t pages_made;     /* page records ever made (model_page_epoch) */
  size_t pages_retired;    /* forgotten, not yet released by the caller */
  size_t pages_peak;       /* the most records allocated at once */
  size_t word_size;        /* sizeof(struct model_word) */
  struct model_recs *recs; /* the words' shared records */
  unsigned nclusters;
  struct model_geometry *geo;
  uint64_t *online_seq;  /* per cluster: when it came back online */
  bool all_idc;          /* every core has CTR_EL0.IDC */
  unsigned iline_max;    /* the largest I line of any cluster (bytes) */
  bool kernel_untrusted; /* model_trust_kernel_sync(m, false) */
  struct model_views views;
  GArray *site_stride; /* unsigned, indexed by site */
  /* The line sizes the program read from CTR_EL0 (model_ctr_read), bit
   * k for 4 << k bytes: the lines a flush routine can have latched. */
  uint32_t ilines_read, dlines_read;
  /* Cleans that their issuer ordered with a DMB before anything it did
   * next: the next DSB of any thread completes them ("Completion through
   * another thread"). */
  GArray *dmb_ordered;
  GArray *dsb_times; /* uint64_t: every DSB's time (store_completion) */
  /* Canonical address -> encoding + 1, of the CMODX-safe words QEMU
   * translated on pages never stored to (model_word_for_fetch). */
  GHashTable *untracked_cmodx;
  /* struct model_word * -> GPtrArray of the step-2 slots of its views other
   * than IVIEW on VIPT clusters (view_slots); an entry leaves with its
   * page's record (drop_extra_views). */
  GHashTable *view_extra;
  struct store_memo store_memo;
  model_retire_fn retire_writers; /* model_retire_writers_to */
  void *retire_ctx;
};

static inline uint64_t canon(const struct model *m, uint64_t va)
{
  return m->views.canon ? m->views.canon(va, m->views.ctx) : va;
}

/* ---- shared records (model_coherence_pages.c) ----------------------------------- */

static inline struct model_rec *rec_at(const struct model_recs *p, uint32_t number)
{
  char *slab = g_ptr_array_index(p->slabs, number >> REC_SLAB_SHIFT);
  return (struct model_rec *)(slab + (size_t)(number & (REC_SLAB_RECORDS - 1)) * p->size);
}

static inline const struct model_rec *word_rec(const struct model *m, const struct model_word *w)
{
  return rec_at(m->recs, w->rec);
}

/* W's record, to change and hand to rec_commit (lock held; one at a
 * time): the record itself when no other word holds it (no copy, and
 * rec_commit compares it with nothing but the last record committed), else
 * a copy. */
static inline struct model_rec *rec_edit(const struct model *m, const struct model_word *w)
{
  struct model_recs *p = m->recs;
  struct model_rec *own = rec_at(p, w->rec);
  if (w->rec != 0 && own->refs == 1) {
    p->editing = w->rec;
    return own;
  }
  memcpy(p->scratch, own, p->size);
  return p->scratch;
}

/* W's record becomes the copy rec_edit handed out, as changed. */
void model_rec_commit(const struct model *m, struct model_word *w);
/* W's own record was changed in place (rec_edit). */
void model_rec_commit_own(const struct model *m, struct model_word *w);

static inline void rec_commit(const struct model *m, struct model_word *w)
{
  if (m->recs->editing) {
    model_rec_commit_own(m, w);
    return;
  }
  const struct model_rec *now = word_rec(m, w);
  if (memcmp((const char *)now + REC_KEY_OFFSET, (const char *)m->recs->scratch + REC_KEY_OFFSET,
             m->recs->size - REC_KEY_OFFSET) != 0) {
    model_rec_commit(m, w);
  }
}

/* W's record becomes number TO (held: a shared record). */
void model_rec_adopt(const struct model *m, struct model_word *w, uint32_t to);

/* Whether one of MEMOS applied to W (for VARIANT): then W holds the record
 * the change gave the last word in W's state, and its version grew if that
 * one's did. */
static inline bool rec_memo_take(const struct model *m, struct model_word *w,
                                 const struct rec_memos *memos, uint8_t variant)
{
  const struct rec_memo *memo = &memos->way[w->rec % REC_MEMO_WAYS];
  if (!memo->set || memo->from != w->rec || memo->variant != variant ||
      rec_at(m->recs, memo->from)->gen != memo->from_gen) {
    return false;
  }
  if (memo->to != memo->from) {
    /* A freed number's generation grew: the record was freed, or took
     * other content, since the memo was made. */
    if (rec_at(m->recs, memo->to)->gen != memo->to_gen) {
      return false;
    }
    model_rec_adopt(m, w, memo->to);
  }
  if (memo->bumped) {
    w->version++;
  }
  return true;
}

/* rec_commit, remembering the step in MEMOS unless it changed W's record
 * in place (its number then names other content). Only for a change that
 * depends on nothing of W but its record and VARIANT; BUMPED: whether it
 * grew W's version. */
static inline void rec_commit_memo(const struct model *m, struct model_word *w,
                                   struct rec_memos *memos, uint8_t variant, bool bumped)
{
  uint32_t from = w->rec;
  uint32_t from_gen = rec_at(m->recs, from)->gen;
  bool in_place = m->recs->editing != 0;
  rec_commit(m, w);
  memos->way[from % REC_MEMO_WAYS] = (struct rec_memo){
      from, w->rec, from_gen, rec_at(m->recs, w->rec)->gen, variant, bumped, !in_place};
}

struct model_recs *model_recs_new(unsigned nclusters);
void model_recs_free(struct model_recs *p);

/* W no longer holds its record (its page's words are emptied or freed). */
void model_rec_release(const struct model *m, struct model_word *w);

/* ---- page records (model_coherence_pages.c) ------------------------------------- */

/* A new, empty record for the canonical page CANON_PAGE. */
struct model_page *model_page_new(struct model *m, uint64_t canon_page);

/* Gives PAGE, still store-only, per-word records seeded from its summary
 * (lock held; page_make_dense). */
void model_page_make_dense(const struct model *m, struct model_page *page);

/* Word I of the store-only PAGE as its summary gives it, into R (record
 * bytes); false when it was never stored (lock held). */
bool model_page_seed(const struct model *m, const struct model_page *page, size_t i,
                     struct model_rec *r);

/* The record of the page holding VA, through its canonical address (the
 * same for the RW and RX views of double-mapped code, plugin_alias.c). */
static inline struct model_page *page_find(const struct model *m, uint64_t va)
{
  return g_hash_table_lookup(m->pages, GSIZE_TO_POINTER(canon(m, va) >> MODEL_PAGE_SHIFT));
}

static inline struct model_word *page_word(const struct model *m, struct model_page *page,
                                           uint64_t va)
{
  size_t index = (va & (MODEL_PAGE_SIZE - 1)) / 4;
  return (struct model_word *)(page->words + index * m->word_size);
}

/* PAGE's per-word records, made from its summary the first time (lock held). */
static inline void page_make_dense(const struct model *m, struct model_page *page)
{
  if (!page->words) {
    model_page_make_dense(m, page);
  }
}

static inline struct model_page *page_get(struct model *m, uint64_t va)
{
  uint64_t key = canon(m, va) >> MODEL_PAGE_SHIFT;
  struct model_page *page = g_hash_table_lookup(m->pages, GSIZE_TO_POINTER(key));
  return page ? page : model_page_new(m, key);
}

/*
 * Calls FN on every word of [START, END) whose page was ever stored to
 * (other words cannot be stale).
 */
typedef void (*word_fn)(const struct model *m, struct model_word *w, uint64_t word_va, void *ctx);

static inline void for_each_word(const struct model *m, uint64_t start, uint64_t end, word_fn fn,
                                 void *ctx)
{
  for (uint64_t p = start & ~UINT64_C(3); p < end;) {
    uint64_t page_end = (p | (MODEL_PAGE_SIZE - 1)) + 1;
    uint64_t stop = MIN(end, page_end);
    struct model_page *page = page_find(m, p);
    if (page) {
      page_make_dense(m, page);
      for (uint64_t a = p; a < stop; a += 4) {
        fn(m, page_word(m, page, a), a, ctx);
      }
    }
    p = stop;
  }
}

/* The LINE-byte aligned block holding VA. Lines are powers of two; one
 * larger than the model's page (the page-sized "IminLine" a kernel reports
 * for Neoverse N1 erratum 1542419 with 16 or 64 KiB pages) spans several. */
static inline void for_each_word_in_line(const struct model *m, uint64_t va, unsigned line,
                                         word_fn fn, void *ctx)
{
  uint64_t start = va & ~((uint64_t)line - 1);
  for_each_word(m, start, start + line, fn, ctx);
}

/* ---- sites and loops (model_coherence_attribution.c) ---------------------------- */

/* What an operation of a site leaves on the words it reaches (mark_site). */
struct site_mark {
  uint32_t site;
  uint64_t seq;
  bool inval;       /* an ic ivau site, else a clean */
  unsigned stride;  /* the loop's stride, 0 unknown */
  unsigned cluster; /* the issuing thread's cluster */
};

/* Names the operation S in the record R being edited, for the report. */
static inline void mark_site_on(struct model_rec *r, const struct site_mark *s)
{
  if (s->inval) {
    r->inval_site = s->site;
    r->inval_site_seq = s->seq;
    r->inval_stride = (uint16_t)s->stride;
  } else {
    r->clean_site = s->site;
    r->clean_site_seq = s->seq;
    r->clean_stride = (uint16_t)s->stride;
    r->clean_cluster = (uint16_t)s->cluster;
  }
}

/* A site's mark left on the words of a range (mark_site). */
struct site_claim {
  struct site_mark mark;
  struct rec_memos memo; /* emptied with every new mark */
};

/* Names the operation of the struct site_claim CTX on W, for the report
 * (model_coherence_attribution.c): a loop's claims reach most words that
 * maintenance does, line after line of words that share a record. */
static inline void mark_site(const struct model *m, struct model_word *w, uint64_t word_va,
                             void *ctx)
{
  (void)word_va;
  struct site_claim *claim = ctx;
  if (rec_memo_take(m, w, &claim->memo, 0)) {
    return;
  }
  w->version++;
  mark_site_on(rec_edit(m, w), &claim->mark);
  rec_commit_memo(m, w, &claim->memo, 0, true);
}

/* Follows the loop of SITE to VA; returns the stride the operation's marks
 * carry, 0 when none is known (model_coherence_attribution.c, "Loop
 * recognition"). LINE: the operation marks the words of the LINE-byte
 * block around VA itself, after this. */
unsigned model_follow_loop(struct model *m, uint32_t site, uint64_t va, struct model_loop *loop,
                           bool inval, uint64_t seq, unsigned cluster, unsigned line);

/* An operation whose loop shows no stride claims the lines the program read
 * from CTR_EL0 around VA (model_coherence_attribution.c). */
void model_claim_lines(const struct model *m, uint64_t va, struct site_mark *s);

/* The site whose maintenance should have made W coherent for KIND, and the
 * stride its loop had then (*STRIDE). */
uint32_t model_blamed_site(const struct model_rec *w, enum model_stale_kind kind, unsigned *stride);

#endif /* JITFLUSH_EMU_COHERENCE_INTERNAL_H */
