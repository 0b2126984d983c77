/*
 * The rig's coherence model, on its own: no QEMU, no configuration file,
 * no global state. The plugin feeds it events (stores, maintenance,
 * barriers, context synchronisation) and asks it, per instruction fetch,
 * whether the fetch sees what the program last stored
 * (docs/COHERENCE-MODEL.md states the rules; model_coherence.c implements them,
 * one rule per function, model_coherence_pages.c keeps the page records and
 * model_coherence_attribution.c the sites and strides a report names;
 * tests/emu/model/coherence_test.cc checks each rule).
 *
 * Besides the verdict the model keeps the provenance a JIT author needs to
 * act on it: the PC of the store that last wrote the word, and the
 * maintenance site (an opaque number the caller interns, for example one
 * per PC and caller) whose loop should have covered it, with that loop's
 * stride.
 */
#ifndef JITFLUSH_EMU_COHERENCE_H
#define JITFLUSH_EMU_COHERENCE_H

#include <stdbool.h>
#include <stdint.h>

#include <glib.h>

#ifdef __cplusplus
extern "C" {
#endif

/* What the model needs to know about double-mapped code (plugin_alias.c).
 * Either hook may be NULL: every address is then its own canonical one and
 * no view is a non-executable alias. */
struct model_views {
  uint64_t (*canon)(uint64_t va, void *ctx);
  bool (*nonexec_view)(uint64_t va, void *ctx);
  void *ctx;
};

/* The model's pages: 4 KiB, the guest's smallest. */
#define MODEL_PAGE_SHIFT 12

/* "No maintenance site": sites are numbered from 1. */
#define MODEL_NO_SITE 0u

/* Why a fetch is stale, one value per missing step of the sequence
 * dc -> dsb -> ic -> dsb -> isb. The order is the order of the steps. */
enum model_stale_kind {
  MODEL_FRESH = 0,
  MODEL_STALE_NOT_CLEANED,
  MODEL_STALE_CLEAN_NOT_COMPLETED,
  MODEL_STALE_CLEAN_NOT_ORDERED,
  MODEL_STALE_INVALIDATED_BEFORE_CLEAN,
  MODEL_STALE_INVALIDATE_NOT_COMPLETED,
  MODEL_STALE_NOT_INVALIDATED_IN_GEOMETRY,
  MODEL_STALE_NONEXEC_ALIAS,
  MODEL_STALE_OTHER_EXEC_VIEW,
  MODEL_STALE_NOT_SYNCHRONISED,
  /* Fresh only because the kernel synced the page (model_kernel_sync.h), with no
   * maintenance of the program's own reaching the word, and the run was
   * told not to count on that ([kernel] exec-map-sync = none). */
  MODEL_STALE_KERNEL_SYNC_ASSUMED,
  MODEL_STALE_KIND_COUNT
};

/* The finding kind of the report ("not-cleaned", ...). */
const char *model_stale_kind_name(enum model_stale_kind kind);
/* The per-word reason of the report's "stale" list (unchanged wording). */
const char *model_stale_kind_reason(enum model_stale_kind kind);

/* A guest thread as the model sees it. The caller owns it and keeps CPU
 * and CLUSTER current; the model owns PENDING and the stride trackers. */
struct model_thread {
  unsigned serial;   /* creation order, for the report */
  unsigned cpu;      /* emulated CPU it runs on now */
  unsigned cluster;  /* that CPU's cluster */
  uint64_t sync_seq; /* model time of its last context synchronisation */
  /* The latest store time of a stored word it fetched: instruction fetches
   * are ordered, so what was ready before that store is ready for it
   * (docs/COHERENCE-MODEL.md#fetch-ordering). */
  uint64_t fetched_store_seq;
  /* Model time of its last barrier that orders a later clean after its
   * earlier loads and stores (docs/COHERENCE-MODEL.md#clean-ordering). */
  uint64_t clean_order_seq;
  GArray *pending; /* maintenance issued, waiting for its next DSB */
  /* The previous clean and invalidate of the loop running now, to measure
   * its stride; cleared when the thread executes a barrier
   * (model_loops_end), so that no step spans two calls. */
  struct model_loop {
    uint32_t site;
    uint64_t addr;
    uint64_t step;   /* from the operation before, 0 = none */
    unsigned stride; /* confirmed in this loop execution, 0 = not yet */
  } clean_loop, inval_loop;
};

void model_thread_init(struct model_thread *t, unsigned serial, unsigned cpu, unsigned cluster);
void model_thread_clear(struct model_thread *t);

struct model;
struct model_word;

/* A model of NCLUSTERS clusters, cluster C's cores reporting CTR[C] in
 * CTR_EL0 (their own value, not the one a trapping kernel shows): the
 * model reads each cluster's line sizes, IDC, DIC and L1Ip from it. */
struct model *model_new(const uint64_t *ctr, unsigned nclusters, const struct model_views *views);
void model_free(struct model *m);

/* ---- events -------------------------------------------------------------- */
/* A store of BYTES at VA by the instruction at WRITER_PC. */
void model_store(struct model *m, struct model_thread *t, uint64_t va, unsigned bytes,
                 uint64_t writer_pc);
/*
 * Lock-free stores (docs/COHERENCE-MODEL.md#how-the-rig-applies-the-verdict-cheaply,
 * "Stores without a lock"; model_coherence_quick.h). model_store_page,
 * called under the caller's lock like every other function, returns the
 * record of VA's page, created if needed, for the caller to cache: it lives
 * until model_free or, once model_forget retired it, until the
 * caller frees it, and stays VA's record while VA's canonical address
 * (the views' canon hook) does not change. With it, model_coherence_quick.h's
 * model_store_quick records a store WITHOUT the lock, or tells the
 * caller to make it with model_store_on_page (or model_store) under
 * the lock.
 */
struct model_page;
struct model_page *model_store_page(struct model *m, uint64_t va);
/* model_store (under the lock) when PAGE is VA's record: no lookup for
 * a store within the page. */
void model_store_on_page(struct model *m, struct model_thread *t, struct model_page *page,
                         uint64_t va, unsigned bytes, uint64_t writer_pc);
/* dc cvau|cvac|civac|cvap|cvadp|ivac VA, issued at SITE. AFTER_LOADS when
 * the instruction is ordered after T's earlier loads by itself (a
 * dependency on one, or the same address); otherwise only T's barriers
 * order it (docs/COHERENCE-MODEL.md#clean-ordering). */
void model_dc_clean(struct model *m, struct model_thread *t, uint64_t va, uint32_t site,
                    bool after_loads);
/* A barrier of T that orders its later cleans after its earlier loads
 * without completing anything (dsb *ld). */
void model_order_cleans(struct model *m, struct model_thread *t);
/* ic ivau VA, issued at SITE. */
void model_ic_ivau(struct model *m, struct model_thread *t, uint64_t va, uint32_t site);
/* A DSB that waits for maintenance: completes T's pending operations, and
 * the cleans other threads ordered with a DMB (model_coherence.c). */
void model_dsb(struct model *m, struct model_thread *t);
/* T executed a barrier instruction (dsb, isb): any maintenance loop it was
 * running has ended, and the next operation starts a new one. Not called
 * for the kernel's barriers (a migration's context switch), which a loop
 * may straddle. */
void model_loops_end(struct model_thread *t);
/* The program read VALUE from CTR_EL0: its line sizes are ones a flush
 * routine may step by (a call too short to show its stride claims the
 * words of those lines, model_coherence_attribution.c "model_claim_lines"). */
void model_ctr_read(struct model *m, uint64_t value);
/* A DMB by T; FULL when it orders loads and stores (not *LD or *ST). */
void model_dmb(struct model *m, struct model_thread *t, bool full);
/* A context synchronisation of T (isb, exception return, SYNC_CORE). */
void model_sync(struct model *m, struct model_thread *t);
/* Every CPU of CLUSTER was offline and one comes online: its I-cache was
 * invalidated while it booted (model_coherence.c cites the source). */
void model_cluster_online(struct model *m, unsigned cluster);

/*
 * The kernel made the canonical page holding CANON coherent for user
 * execution (model_kernel_sync.c says when Linux does): every word of it counts
 * as cleaned and invalidated for every core and every view, completed, and
 * no thread needs a context synchronisation for it, since the kernel does
 * this before the executable page table entry is written, so no core can
 * have fetched the page through that mapping before. Stores made later
 * need maintenance again as usual. Returns how many stored words were not
 * yet coherent by the program's own maintenance (the ones the kernel
 * published). With model_trust_kernel_sync(M, false) the same words are
 * remembered but stay stale, reported as MODEL_STALE_KERNEL_SYNC_ASSUMED.
 */
unsigned model_kernel_sync(struct model *m, uint64_t canon);
/* Whether model_kernel_sync makes words fresh (the default) or only
 * marks them (a run that must not count on Linux's behaviour). */
void model_trust_kernel_sync(struct model *m, bool trusted);

/* ---- fetches ------------------------------------------------------------- */
/* The record of the word at VA when its page was ever stored to (the only
 * words that can be stale), else NULL. Called when the fetch is translated,
 * with the encoding translated and whether it is CMODX-safe (B, BL, BRK,
 * HVC, ISB, NOP, SMC, SVC). */
struct model_word *model_word_for_fetch(struct model *m, uint64_t va, uint32_t insn,
                                        bool cmodx_safe);

/* The record of the word at VA when its page was ever stored to, else
 * NULL, without recording a translation (model_word_for_fetch does):
 * for a fetch of what an earlier translation holds. */
struct model_word *model_word_now(struct model *m, uint64_t va);

/*
 * Which view of its word a guest address is: its distance from its
 * canonical address (the views' canon hook), so 0 (MODEL_OWN_VIEW) for
 * an address the model keys by itself, and one value per virtual address
 * at which double-mapped pages are mapped. A VIPT I-cache tells views apart
 * (docs/COHERENCE-MODEL.md#double-mapped-code-and-vipt-instruction-caches):
 * pass the view of the fetching address to
 * model_fetch and model_fresh_after.
 */
#define MODEL_OWN_VIEW UINT64_C(0)
uint64_t model_view(const struct model *m, uint64_t va);

struct model_verdict {
  enum model_stale_kind kind; /* MODEL_FRESH when the fetch is coherent */
  uint64_t writer_pc;         /* the store that last wrote the word */
  uint32_t flush_site;        /* the maintenance that should have covered it,
                                 or MODEL_NO_SITE */
  unsigned stride;            /* the stride of the loop execution that reached
                                 the word (else the site's last), 0 unknown */
  unsigned line;              /* the line of this step that was missed: the
                                 fetching cluster's I line, or for the clean
                                 steps the smaller of the writer's and the
                                 cleaning cluster's D line */
  unsigned writer_cluster;    /* the cluster of the CPU that made that store */
  /* For the clean steps: LINE is the D line of the cluster that issued the
   * clean, CLEANER_CLUSTER, smaller than the writer's. */
  bool line_of_cleaner;
  unsigned cleaner_cluster;
};

/* Whether T, fetching W now through VIEW (model_view of the fetching
 * address; with the encoding's CMODX safety), sees the last store; and if
 * not, which step is missing. Records in T that it fetched W (fetch
 * ordering). */
struct model_verdict model_fetch(const struct model *m, struct model_thread *t,
                                 const struct model_word *w, uint64_t view, bool cmodx_safe);

/*
 * Whether every word a stale fetch of W by T may see is CURRENT, the word
 * memory holds now (model_coherence.c, "Stale words"): such a fetch cannot run
 * another instruction than CURRENT. Words are known only from QEMU's
 * translations, so a page's initial content (zeros on a fresh page), a
 * word seeded from a page summary, or one of two stores in a row that
 * nothing fetched between are never CURRENT. *READS_SYNC (may be NULL):
 * whether the answer depends on T's sync_seq, which a verdict's memo must
 * then watch (model_verdict_reads).
 */
bool model_stale_benign(const struct model *m, const struct model_thread *t,
                        const struct model_word *w, uint32_t current, bool *reads_sync);
/* model_stale_benign for a fetch of the encoding last translated at W,
 * while memory still holds it (no store since that translation); false
 * otherwise (what the fetch should run is not known). */
bool model_fetch_benign(const struct model *m, const struct model_thread *t,
                        const struct model_word *w, bool *reads_sync);

/*
 * The fast path's bound: a model time F such that every fetch of W through
 * VIEW by a thread synchronised after F (sync_seq > F), on any cluster, is
 * fresh, and stays fresh until W is stored again. 0 when W was never stored
 * (always fresh); UINT64_MAX when some cluster still lacks a step (for a
 * VIPT cluster, through VIEW), or when a cluster ever came back online (its
 * inval_point may move, see model_coherence.c), so no such bound is known now. F never decreases
 * while W is not stored: every step keeps its FIRST completion. So a fetch with sync_seq > F may
 * skip model_fetch and get exactly the verdict it would have returned.
 */
uint64_t model_fresh_after(const struct model *m, const struct model_word *w, uint64_t view);

/*
 * What a verdict of model_fetch for W depends on besides the fetching
 * thread and the view it fetches through, so that a caller may reuse a
 * verdict it has (plugin_instrument.c, the memo of a checked word, kept per
 * fetching address and so per view): while the stamp is the same, the
 * view and the thread the same (its serial) and the thread's fields that
 * model_verdict_reads names unchanged, model_fetch of W returns the
 * same verdict, and
 * changes nothing in a thread whose fetched_store_seq has not fallen since
 * (it never does). A count of the changes outside the words that verdicts
 * read, and a count of the changes of W's own record, which wraps only
 * after 2^32 of them.
 */
struct model_stamp {
  uint64_t shared;
  uint32_t word;
};
struct model_stamp model_fetch_stamp(const struct model *m, const struct model_word *w);

/* Which fields of the fetching thread a verdict of KIND read, besides its
 * serial: its cluster, and its sync_seq and fetched_store_seq. */
#define MODEL_READS_CLUSTER 1u
#define MODEL_READS_SYNC 2u
unsigned model_verdict_reads(const struct model *m, enum model_stale_kind kind);

/* The stride last measured for SITE's loop (two equal steps within one
 * loop execution), 0 when it never repeated. */
unsigned model_site_stride(const struct model *m, uint32_t site);

/* ---- unmapped memory ----------------------------------------------------- */
/* Page records made so far: a record made later has a larger epoch. */
uint64_t model_page_epoch(const struct model *m);
/* Page records held now, and the most allocated at once over the model's
 * life, held or retired and not yet released (the peak may be read
 * without the caller's lock). */
size_t model_pages_live(const struct model *m);
size_t model_pages_peak(const struct model *m);
/* The distinct word states (shared records) the model holds now, and the
 * most it held at once (lock held): words in the same state share one. */
size_t model_records_live(const struct model *m);
size_t model_records_peak(const struct model *m);
/* Appends the canonical page number (address >> MODEL_PAGE_SHIFT) of
 * every page the model holds a record of to OUT (uint64_t), in no order. */
void model_page_numbers(const struct model *m, GArray *out);
/*
 * The guest unmapped the canonical range [CANON_START, CANON_END): the
 * records of its pages made before the epoch MADE_BEFORE (taken when the
 * unmapping syscall was entered, so that a page another thread maps and
 * writes meanwhile keeps its record) leave the model and are appended to
 * RETIRED; returns how many. The caller frees each with
 * model_page_free once nothing can reach it any more: not a cached
 * store page (model_store_page), not a word a translated fetch check
 * holds (model_word_for_fetch).
 */
size_t model_forget(struct model *m, uint64_t canon_start, uint64_t canon_end, uint64_t made_before,
                    GPtrArray *retired);
void model_page_free(struct model_page *page);
/* The caller freed N of the records model_forget retired. */
void model_pages_released(struct model *m, size_t n);
/*
 * Where a page's table of writers goes once the page is made dense (its
 * words then hold their writers; model_coherence.c, "Page writers"): a
 * lock-free store may still be writing into it, so FN (called under the
 * caller's lock) takes the block and g_frees it once no store callback can
 * hold it, as it does for retired pages. Without FN a page keeps its table
 * until it is freed.
 */
typedef void (*model_retire_fn)(void *ctx, void *block);
void model_retire_writers_to(struct model *m, model_retire_fn fn, void *ctx);
/*
 * The kernel gave the canonical range [CANON_START, CANON_END) new
 * contents without unmapping it (madvise(MADV_DONTNEED) on private
 * memory): the records of its pages made before MADE_BEFORE are emptied in
 * place, as if new (translated fetch checks may still point into them).
 * The numbers of the pages that had per-word records are appended to DENSE
 * (uint64_t).
 */
void model_clear(struct model *m, uint64_t canon_start, uint64_t canon_end, uint64_t made_before,
                 GArray *dense);
/* mremap moved [CANON_OLD, CANON_OLD + LEN) to CANON_NEW: the records move
 * with the pages; a record the new range held is appended to RETIRED, to be
 * freed like model_forget's. */
void model_move(struct model *m, uint64_t canon_old, uint64_t canon_new, uint64_t len,
                GPtrArray *retired);

#ifdef __cplusplus
}
#endif

#endif /* JITFLUSH_EMU_COHERENCE_H */
