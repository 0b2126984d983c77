/*
 * The coherence model of the jitflush rig: does a fetch of a 4-byte
 * instruction word W on emulated CPU k see what the program last stored to
 * W, according to the architecture rather than according to QEMU (which
 * keeps its instruction side coherent by re-translating)?
 *
 * Model (docs/COHERENCE-MODEL.md), one record per word W, one global clock
 * (so "after" is a comparison; see "Time" below):
 *
 *   store       a guest store (or dc zva) makes W dirty in the writer's
 *               D-cache: W.store = now, W.writer = the writer's cluster.
 *   clean       dc cvau|cvac|civac|cvap|cvadp|ivac A on CPU i cleans W when
 *               W lies in i's DminLine-aligned line holding A, and also in
 *               the writer's DminLine-aligned line holding A: the dirty copy
 *               sits in the writer's cache in the writer's geometry, and the
 *               issuer clears only the line its own CTR describes. A clean
 *               stepped with another core's line size therefore misses words.
 *   invalidate  ic ivau A (broadcast to the Inner Shareable domain) drops,
 *               in every core k, the IminLine_k-aligned line holding A; W is
 *               tracked per cluster (cores of a cluster share a geometry).
 *   completion  maintenance completes at the issuing thread's next DSB
 *               (except DSB *LD). Each operation waits in its thread's
 *               pending list; a migration completes it too, because Linux's
 *               __switch_to issues dsb(ish) so that maintenance a task
 *               started finishes before it runs elsewhere
 *               (arch/arm64/kernel/process.c).
 *   sync        a thread's pipeline is synchronised by its own isb, by every
 *               exception return (syscall return, migration) and by
 *               membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED_SYNC_CORE).
 *               Synchronisation is tracked per thread, not per emulated
 *               core: linux-user runs several guest threads on one emulated
 *               core at the same time, while on hardware a thread switched
 *               onto a core passes an exception return first. So "core k
 *               is synchronised" reads "the thread now on k is": another
 *               thread's isb or syscall on another core never counts, and
 *               membarrier SYNC_CORE, which IPIs every core currently
 *               running one of the process's threads (and lets the others
 *               pass an exception return when they are scheduled in,
 *               kernel/sched/membarrier.c), synchronises every live thread.
 *
 * A fetch of W by thread T on core k (cluster c) is STALE unless, after
 * W's last store:
 *   1. a clean of W issued after the store completed (skipped when every
 *      core has CTR.IDC: the D side is then coherent to PoU);
 *   2. then an invalidate of W in c's geometry, ISSUED after that clean
 *      COMPLETED, completed (skipped when c has CTR.DIC). An ic issued
 *      before the dsb that completes the clean does not count: it may refill
 *      the line from the PoU before the clean lands;
 *   3. then T was synchronised.
 * The record keeps the FIRST completion that satisfies each step, so that a
 * redundant later clean does not undo a finished sequence. Words that were
 * never stored (the loader's code) are never stale. When both the old and
 * the new encoding of W are B, BL, BRK, HVC, ISB, NOP, SMC or SVC, the Arm
 * ARM lets a concurrent fetch see either, so a fetch by another thread
 * than the writer, which only lacks its context synchronisation, is not
 * stale (cmodx_covers).
 *
 * Clean ordering (herd7 -variant ifetch; docs/COHERENCE-MODEL.md). A clean
 * counts for another thread's store only if that store came before the
 * cleaning thread's latest event that orders its dc after its earlier
 * accesses (CLEAN_ORDER_SEQ: a full dmb, any dsb, a context
 * synchronisation) or before a later store it fetched (FETCHED_STORE_SEQ),
 * or if the dc itself is ordered after its loads (a dependency in its
 * block: the caller says so). A load-acquire does not order it: herd7
 * allows ldar flag; dc cvau; dsb; ic ivau; dsb; isb to fetch stale
 * (jf.MP.RF+dmb.st+acq-dc-dsb-ic-dsb-isb), the dc being no explicit
 * memory access.
 * A dc is otherwise free to be performed before the load that told its
 * thread the code was ready (MP.RF+dmb.st+dmb.ld-dc-dsb-ic-dsb-isb and
 * SB.RF+dmb+dmb.st-cachesync-isb are allowed to fetch stale). The storing
 * thread's own clean needs nothing: a dc by VA is ordered after earlier
 * stores to its line. Words seeded from a page summary have no certain
 * writer (WRITER_EXACT false) and are not held to the rule.
 *
 * Cost: a store costs a hash lookup of its page. Pages start "store-only":
 * a bitmap of the words ever stored and the last store's time. Only when a
 * page is fetched from (translated) or maintained does it get dense
 * per-word records; words stored before that take the page's last store
 * time, which can only make the model stricter, never miss a stale fetch.
 * QEMU re-translates a page's TBs when the page is written, so a word on a
 * page never stored at translation time cannot become stale without a new
 * translation, and such code gets no fetch check at all.
 *
 * Time. Every event (a clean or invalidate issued, a DSB, a context
 * synchronisation, a cluster coming online) takes the next even time. A
 * store takes the odd time just after the latest event and does not move
 * the clock: every comparison the rules make is between a store and an
 * event, never between two stores, so stores with no event between them
 * may share a time. That is what lets a store be recorded without a lock.
 *
 * Concurrency. The caller serialises every call with one lock, except
 * jf_model_store_quick: most of a program's stores go to its stack and
 * heap, pages that are never fetched from, and a lock and a hash lookup per
 * store were most of the rig's cost on store-heavy programs. The quick path
 * takes a page record the caller looked up earlier under the lock
 * (jf_model_store_page; a record lives until its memory is unmapped,
 * jf_model_forget, and then until the caller frees it) and, while the
 * page is store-only, adds the store to its summary with atomic
 * read-modify-writes. The only writer of the summary under the lock is the
 * store-only branch of jf_model_store, and the only reader is
 * page_make_dense, which first raises the page's DENSIFYING flag; a quick
 * store that finds the flag raised after its update reports failure and is
 * made again with jf_model_store under the lock (Dekker's pattern:
 * sequentially consistent on both sides, so one of the two sees the
 * other). A store that happens before an event in the program (same
 * thread, or published to the other thread through memory) reads a clock
 * no later than that event's time, so it lands before it.
 *
 * Words are keyed by canonical address (plugin_alias.c), so a store and a
 * clean through a double-mapped RW view reach the word fetched, and
 * invalidated, through the RX view.
 *
 * VIPT. The D side behaves as physically indexed and tagged on AArch64, so
 * a clean through either view reaches the word. The I side need not: CTR_EL0
 * L1Ip [15:14] says how the L1 instruction cache is indexed (2 VIPT, 3
 * PIPT; 0 VPIPT, 1 reserved). The Arm ARM (DDI 0487, "Caches in AArch64
 * state", on VIPT instruction caches) lets a VIPT instruction cache index
 * by the virtual address of the fetch, so one physical line can sit at a
 * different index for each VA that maps it ("aliasing is permitted in the
 * I-cache", arch/arm64/include/asm/cachetype.h), and an invalidate by VA
 * looks the line up at the index of the VA it was given. Linux treats every
 * VIPT or reserved L1Ip as aliasing (arch/arm64/kernel/cpuinfo.c, since
 * 4.11, commit 3689c75af2a3) and invalidates the whole I-cache when it
 * maintains code through its own linear alias (arch/arm64/mm/flush.c,
 * sync_icache_aliases). Hence, for clusters whose L1Ip is VIPT or reserved,
 * an ic ivau counts for a fetch of W only when it was issued through the
 * same view as the fetch: the same virtual address of W, told apart by the
 * view's distance from the canonical address (jf_model_view). For PIPT
 * and VPIPT clusters the view does not matter. Two cases get their own
 * reason when no invalidate through the fetching view counts:
 *   - an ic through a non-executable view (jf_alias_nonexec_view; nothing
 *     is ever fetched through it): "invalidated through a non-executable
 *     alias";
 *   - an ic through another executable view of the same pages (a JIT that
 *     maps its code twice and flushes one mapping, runs the other):
 *     "invalidated through another executable view".
 * The rule is all or nothing: two VAs whose index bits happen to agree
 * would reach the same set on hardware, and the model still asks for the
 * fetching VA. Per word, the step-2 slots of a VIPT cluster belong to the
 * first view invalidated through since the record was made (W.iview); a
 * second view of the same word gets its own slots in the model's
 * view_extra table (view_slots), so a JIT that invalidates through every
 * view it runs from is fresh through each.
 *
 * Provenance. Each word also remembers the PC of the store that last wrote
 * it, and the latest clean and invalidate SITE that reached it, in any
 * cluster's geometry or within the stride of the loop that issued it. A
 * loop is recognised as consecutive operations of one thread from one site:
 * when an operation follows the previous one of its site by S bytes (0 < S
 * <= one page), S is that loop's stride and the words between the two
 * addresses are claimed by the site. So a word that a loop stepped over
 * (the Exynos 8890 bug: a 128-byte stride on a 64-byte-line core) names the
 * loop that skipped it, not nothing.
 *
 * Hotplug. A CPU that the kernel brings online turns its MMU on with the
 * set_sctlr macro (arch/arm64/include/asm/assembler.h, through
 * set_sctlr_el1, used by __enable_mmu in arch/arm64/kernel/head.S on the
 * secondary_startup path), which follows the SCTLR write with a local
 * `ic iallu; dsb nsh; isb` "so that any instructions fetched speculatively
 * from the PoC are discarded", before the CPU runs any user code; the
 * Galaxy S7's own 3.18 kernel (Samsung's universal8890 tree) has the same
 * three instructions inline in __enable_mmu. So when a cluster whose CPUs
 * were all offline gets one back, its I-cache holds nothing older than the
 * PoU: every word whose clean had completed by then counts as invalidated
 * in that cluster's geometry at that moment (jf_model_cluster_online); a
 * word cleaned later still needs an invalidate in this geometry after its
 * clean, as usual. Nothing is credited on the D side: PSCI CPU_ON starts
 * the core from reset, and whether its caches come up invalid depends on
 * the core and the firmware; the new CPU has written nothing, and the
 * writers' caches stay as they were (the worst case). When other CPUs of
 * the cluster stayed online the model cannot tell their caches from the
 * new one's (it tracks clusters, not cores) and credits nothing, which is
 * stricter than hardware, never more lenient.
 */
#include <inttypes.h>
#include <limits.h>
#include <string.h>

#include "emu_release.h"
#include "coherence.h"
#include "coherence_quick.h"
#include "ctr.h"

#define MODEL_PAGE_SHIFT JF_MODEL_PAGE_SHIFT
#define MODEL_PAGE_SIZE (UINT64_C(1) << MODEL_PAGE_SHIFT)
#define MODEL_PAGE_WORDS JF_MODEL_PAGE_WORDS
#define INVAL_SLOTS 3
#define INVAL_ISSUED(c) (INVAL_SLOTS * (c))
#define INVAL_DONE(c) (INVAL_SLOTS * (c) + 1)
#define INVAL_ALIAS(c) (INVAL_SLOTS * (c) + 2)
/* The longest step between two operations of one loop (a page). */
#define MAX_STRIDE MODEL_PAGE_SIZE
#define STAMP_CLUSTER_BITS JF_STAMP_CLUSTER_BITS

/* One maintenance operation waiting for its issuing thread's next DSB. */
struct maint_op {
  uint64_t addr; /* the VA the guest passed */
  uint64_t issue_seq;
  /* A clean covers another thread's store made before this time only
   * ("Clean ordering"); its issuer's own stores up to ISSUE_SEQ. */
  uint64_t order_seq;
  unsigned cluster;  /* issuing CPU's cluster (its DminLine) */
  unsigned thread;   /* the issuing thread's serial */
  bool is_clean;     /* dc clean, else ic ivau */
  bool nonexec_view; /* ic ivau through a non-executable alias, when it
                        was issued */
  uint64_t view;     /* jf_model_view of ADDR when it was issued (VIPT) */
};

struct jf_word {
  uint64_t store_seq;       /* last store, 0 = never stored */
  uint64_t writer_pc;       /* the instruction that made that store */
  uint64_t clean_issue_seq; /* latest clean issued (for the reason text) */
  uint64_t clean_done_seq;  /* first completed clean issued after the store */
  /* The latest clean that completed after the store but did not count: its
   * thread was not ordered after the store ("Clean ordering"). */
  uint64_t clean_unordered_seq;
  uint64_t clean_site_seq; /* when CLEAN_SITE last reached the word */
  uint64_t inval_site_seq; /* when INVAL_SITE last reached the word */
  uint32_t clean_site;
  uint32_t inval_site;
  uint32_t writer_cluster;
  uint32_t writer_thread; /* the serial of the thread that made that store */
  uint32_t insn;          /* encoding QEMU last translated here */
  uint16_t clean_stride;  /* CLEAN_SITE's loop stride when it reached the word */
  uint16_t inval_stride;  /* INVAL_SITE's, likewise (MAX_STRIDE fits) */
  bool translated;
  /* WRITER_THREAD made the last store (it landed on the dense record);
   * false when the record was seeded from a page summary, which keeps one
   * writer for all its words ("Clean ordering" then does not apply). */
  bool writer_exact;
  bool insn_cmodx_safe;
  bool pair_cmodx_safe;     /* old and new encodings both CMODX-safe */
  bool iview_set;           /* IVIEW names the view of the VIPT slots below */
  bool extra_views;         /* view_extra holds slots of other views of it */
  uint16_t clean_cluster;   /* the cluster that issued CLEAN_SITE's operation */
  uint32_t version;         /* jf_model_fetch_stamp: grows with every change above */
  uint64_t kernel_sync_seq; /* the kernel's last sync of the page (jf_model_kernel_sync) */
  /* What a stale fetch may see ("Stale words"): the words since the
   * latest store whose sequence was complete when the next one came
   * (SEEN), those before it (EARLIER), and the bound of that sequence
   * (SEEN_AFTER): a thread synchronised after it sees none of EARLIER. */
  uint64_t seen_after;
  uint32_t seen_word, earlier_word;
  uint8_t seen, earlier; /* enum seen_set */
  bool insn_in_memory;   /* INSN is what memory holds: no store since */
  uint64_t iview;        /* the view whose ic the VIPT clusters' slots hold */
  /* Per cluster c: inval[INVAL_ISSUED(c)] = latest ic issued,
   * inval[INVAL_DONE(c)] = first completed ic that satisfies step 2 (for a
   * VIPT cluster, both through the view IVIEW; other views: view_slots),
   * inval[INVAL_ALIAS(c)] = latest ic issued through a non-executable alias
   * that did not count for c (VIPT, see above). */
  uint64_t inval[];
};

/* struct jf_model_page: coherence_quick.h. */

/* A cluster's cache geometry, as its CTR_EL0 reports it (common/ctr.c),
 * derived once in jf_model_new. */
struct jf_model_geometry {
  unsigned iline; /* bytes */
  unsigned dline; /* bytes */
  bool idc;
  bool dic;
  bool vipt; /* L1Ip says the I-cache may be indexed by VA (aliasing) */
};

struct jf_model {
  uint64_t seq;         /* the latest event's time (see "Time" above) */
  uint64_t shared;      /* jf_model_fetch_stamp: changes read outside words */
  GHashTable *pages;    /* canonical page number -> jf_model_page */
  uint64_t pages_made;  /* page records ever made (jf_model_page_epoch) */
  size_t pages_retired; /* forgotten, not yet released by the caller */
  size_t pages_peak;    /* the most records allocated at once */
  size_t word_size;     /* sizeof(struct jf_word) + per cluster */
  unsigned nclusters;
  struct jf_model_geometry *geo;
  uint64_t *online_seq;  /* per cluster: when it came back online */
  bool all_idc;          /* every core has CTR_EL0.IDC */
  bool kernel_untrusted; /* jf_model_trust_kernel_sync(m, false) */
  struct jf_model_views views;
  GArray *site_stride; /* unsigned, indexed by site */
  /* The line sizes the program read from CTR_EL0 (jf_model_ctr_read), bit
   * k for 4 << k bytes: the lines a flush routine can have latched. */
  uint32_t ilines_read, dlines_read;
  /* Cleans that their issuer ordered with a DMB before anything it did
   * next: the next DSB of any thread completes them ("Completion through
   * another thread"). */
  GArray *dmb_ordered;
  GArray *dsb_times; /* uint64_t: every DSB's time (store_completion) */
  /* Canonical address -> encoding + 1, of the CMODX-safe words QEMU
   * translated on pages never stored to (jf_model_word_for_fetch). */
  GHashTable *untracked_cmodx;
  /* struct jf_word * -> GPtrArray of the step-2 slots of its views other
   * than IVIEW on VIPT clusters (view_slots); an entry leaves with its
   * page's record (drop_extra_views). */
  GHashTable *view_extra;
};

static const struct {
  const char *name;
  const char *reason;
} kind_text[JF_STALE_KIND_COUNT] = {
    [JF_FRESH] = {"fresh", ""},
    [JF_STALE_NOT_CLEANED] = {"not-cleaned", "not cleaned"},
    [JF_STALE_CLEAN_NOT_COMPLETED] = {"clean-not-completed", "clean not completed (no dsb)"},
    [JF_STALE_CLEAN_NOT_ORDERED] = {"clean-not-ordered",
                                    "cleaned by another thread before the store was ordered "
                                    "before its clean (no barrier after its load)"},
    [JF_STALE_INVALIDATED_BEFORE_CLEAN] =
        {"invalidated-before-clean",
         "invalidated before the clean completed (no dsb between dc and ic)"},
    [JF_STALE_INVALIDATE_NOT_COMPLETED] = {"invalidate-not-completed",
                                           "invalidate not completed (no dsb)"},
    [JF_STALE_NOT_INVALIDATED_IN_GEOMETRY] = {"not-invalidated-in-geometry",
                                              "not invalidated in this core's geometry"},
    [JF_STALE_NONEXEC_ALIAS] = {"invalidated-via-nonexec-alias",
                                "invalidated through a non-executable alias"},
    [JF_STALE_OTHER_EXEC_VIEW] = {"invalidated-via-other-exec-view",
                                  "invalidated through another executable view"},
    [JF_STALE_NOT_SYNCHRONISED] = {"not-synchronised", "pipeline not synchronised (no isb)"},
    [JF_STALE_KERNEL_SYNC_ASSUMED] = {"kernel-sync-assumed",
                                      "made coherent only by the Linux kernel's sync of a page "
                                      "first mapped executable"},
};

const char *jf_stale_kind_name(enum jf_stale_kind kind)
{
  return kind < JF_STALE_KIND_COUNT ? kind_text[kind].name : "unknown";
}

const char *jf_stale_kind_reason(enum jf_stale_kind kind)
{
  return kind < JF_STALE_KIND_COUNT ? kind_text[kind].reason : "unknown";
}

static void geometry_from_ctr(uint64_t ctr, struct jf_model_geometry *g)
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

void jf_model_thread_init(struct jf_model_thread *t, unsigned serial, unsigned cpu,
                          unsigned cluster)
{
  memset(t, 0, sizeof(*t));
  t->serial = serial;
  t->cpu = cpu;
  t->cluster = cluster;
  t->pending = g_array_new(false, false, sizeof(struct maint_op));
}

void jf_model_thread_clear(struct jf_model_thread *t)
{
  g_clear_pointer(&t->pending, g_array_unref);
}

static void free_page(gpointer data)
{
  jf_model_page_free(data);
}

void jf_model_page_free(struct jf_model_page *page)
{
  if (page) {
    g_free(page->writers);
    g_free(page->words);
    g_free(page);
  }
}

struct jf_model *jf_model_new(const uint64_t *ctr, unsigned nclusters,
                              const struct jf_model_views *views)
{
  struct jf_model *m = g_new0(struct jf_model, 1);
  /* A store stamp keeps the writer's cluster in its low bits. */
  g_assert(nclusters <= (1u << STAMP_CLUSTER_BITS));
  m->nclusters = nclusters;
  m->word_size = sizeof(struct jf_word) + INVAL_SLOTS * nclusters * sizeof(uint64_t);
  m->word_size = (m->word_size + 7) & ~(size_t)7;
  m->geo = g_new0(struct jf_model_geometry, nclusters);
  m->online_seq = g_new0(uint64_t, nclusters);
  m->all_idc = true;
  for (unsigned c = 0; c < nclusters; c++) {
    geometry_from_ctr(ctr[c], &m->geo[c]);
    m->all_idc = m->all_idc && m->geo[c].idc;
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

void jf_model_free(struct jf_model *m)
{
  if (m) {
    EMU_RELEASE(g_hash_table_destroy, GHashTable, m->pages, m->untracked_cmodx, m->view_extra);
    EMU_RELEASE(g_array_unref, GArray, m->site_stride, m->dmb_ordered, m->dsb_times);
    EMU_RELEASE(g_free, void, m->geo, m->online_seq, m);
  }
}

static uint64_t canon(const struct jf_model *m, uint64_t va)
{
  return m->views.canon ? m->views.canon(va, m->views.ctx) : va;
}

static bool nonexec_view(const struct jf_model *m, uint64_t va)
{
  return m->views.nonexec_view && m->views.nonexec_view(va, m->views.ctx);
}

uint64_t jf_model_view(const struct jf_model *m, uint64_t va)
{
  return va - canon(m, va);
}

/* ---- time ------------------------------------------------------------------ */

/* The next event's time: even, later than every time handed out before.
 * Only the caller's lock serialises events; jf_model_store_quick reads the
 * clock without it, hence the atomic store. */
static uint64_t event_time(struct jf_model *m)
{
  uint64_t now = m->seq + 2;
  __atomic_store_n(&m->seq, now, __ATOMIC_RELEASE);
  return now;
}

static uint64_t store_time(const struct jf_model *m)
{
  return jf_model_store_time(&m->seq);
}

const uint64_t *jf_model_clock(const struct jf_model *m)
{
  return &m->seq;
}

/* The record of the page holding VA, through its canonical address (the
 * same for the RW and RX views of double-mapped code, plugin_alias.c). */
static struct jf_model_page *page_find(const struct jf_model *m, uint64_t va)
{
  return g_hash_table_lookup(m->pages, GSIZE_TO_POINTER(canon(m, va) >> MODEL_PAGE_SHIFT));
}

static struct jf_word *page_word(const struct jf_model *m, struct jf_model_page *page, uint64_t va)
{
  size_t index = (va & (MODEL_PAGE_SIZE - 1)) / 4;
  return (struct jf_word *)(page->words + index * m->word_size);
}

/* Gives PAGE per-word records, seeded from its store-only summary. The
 * caller holds the lock; lock-free stores may still be landing in the
 * summary. Raising DENSIFYING first (sequentially consistent, like their
 * read-modify-writes and their last check of it) means that each of them
 * is either in what is read below or sees the flag and is made again under
 * the lock (jf_model_store_quick). */
static void page_make_dense(const struct jf_model *m, struct jf_model_page *page)
{
  if (page->words) {
    return;
  }
  __atomic_store_n(&page->densifying, 1, __ATOMIC_SEQ_CST);
  char *words = g_malloc0(m->word_size * MODEL_PAGE_WORDS);
  uint64_t last = __atomic_load_n(&page->last_store, __ATOMIC_SEQ_CST);
  uint64_t older = __atomic_load_n(&page->older_store, __ATOMIC_SEQ_CST);
  uint64_t writer_pc = __atomic_load_n(&page->last_writer_pc, __ATOMIC_SEQ_CST);
  uint32_t writer_thread = __atomic_load_n(&page->last_writer_thread, __ATOMIC_SEQ_CST);
  for (size_t i = 0; i < MODEL_PAGE_WORDS; i++) {
    uint64_t written = __atomic_load_n(&page->written[i / 64], __ATOMIC_SEQ_CST);
    if ((written >> (i % 64)) & 1) {
      struct jf_word *w = (struct jf_word *)(words + i * m->word_size);
      /* A word stored before LAST_STORE's time takes the latest time
       * before it (coherence_quick.h): its own or later. */
      uint64_t recent = __atomic_load_n(&page->recent[i / 64], __ATOMIC_SEQ_CST);
      uint64_t stamp = ((recent >> (i % 64)) & 1) || older == 0 ? last : older;
      uint64_t exact = page->writers ? __atomic_load_n(&page->writers[i], __ATOMIC_SEQ_CST) : 0;
      w->store_seq = stamp >> STAMP_CLUSTER_BITS;
      w->writer_pc = exact ? exact : writer_pc;
      w->writer_thread = writer_thread;
      w->writer_cluster = (uint32_t)(stamp & ((1u << STAMP_CLUSTER_BITS) - 1));
    }
  }
  page->words = words;
}

/* ---- stores ------------------------------------------------------------ */

/* A new, empty record for the canonical page CANON_PAGE. */
static struct jf_model_page *page_new(struct jf_model *m, uint64_t canon_page)
{
  struct jf_model_page *page = g_new0(struct jf_model_page, 1);
  page->born = m->pages_made++;
  g_hash_table_insert(m->pages, GSIZE_TO_POINTER(canon_page), page);
  size_t allocated = g_hash_table_size(m->pages) + m->pages_retired;
  if (allocated > m->pages_peak) {
    /* Read without the lock by the counters (jf_model_pages_peak). */
    __atomic_store_n(&m->pages_peak, allocated, __ATOMIC_RELAXED);
  }
  return page;
}

static struct jf_model_page *page_get(struct jf_model *m, uint64_t va)
{
  uint64_t key = canon(m, va) >> MODEL_PAGE_SHIFT;
  struct jf_model_page *page = g_hash_table_lookup(m->pages, GSIZE_TO_POINTER(key));
  return page ? page : page_new(m, key);
}

/* A store of word INDEX of the store-only PAGE, under the lock. A store
 * at a later time than the summary's last moves it on: the words stored so
 * far keep the last time as their older one (coherence_quick.h). A store
 * that arrives with an earlier time (another thread's, racing) is an
 * older one. */
static void summary_store(struct jf_model_page *page, size_t index, uint64_t stamp,
                          uint64_t writer_pc, unsigned writer_thread)
{
  uint64_t last = __atomic_load_n(&page->last_store, __ATOMIC_SEQ_CST);
  uint64_t time = stamp >> STAMP_CLUSTER_BITS, last_time = last >> STAMP_CLUSTER_BITS;
  if (last != 0 && time > last_time) {
    if (last > __atomic_load_n(&page->older_store, __ATOMIC_RELAXED)) {
      __atomic_store_n(&page->older_store, last, __ATOMIC_SEQ_CST);
    }
    for (size_t b = 0; b < G_N_ELEMENTS(page->recent); b++) {
      __atomic_store_n(&page->recent[b], 0, __ATOMIC_SEQ_CST);
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
  jf_model_summarise_store(page, index, index, stamp, writer_pc, writer_thread);
}

/*
 * Page writers. A store-only page's summary keeps one writer for all its
 * words; the report names the store that last wrote each word
 * (docs/FINDINGS.md, `writers`), so when a second instruction stores to
 * the page it gets a table of writers, one per word (8 bytes a word, on
 * pages with more than one writer only), seeded with the one writer so
 * far (jf_model_page_writers). The table is published before the words
 * stored so far are read, so a lock-free store (jf_model_summarise_store,
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
 *             (jf_model_fresh_after was known then), that store's word
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
 * (jf_model_stale_benign). Stricter than the architecture where a value is
 * unknown, never more lenient.
 */
enum seen_set { SEEN_ANY = 0, SEEN_NONE, SEEN_ONE };

/* Adds ADD (a set of at most one known word, ADD_WORD) to SET/WORD. */
static void seen_add(uint8_t *set, uint32_t *word, uint8_t add, uint32_t add_word)
{
  if (add == SEEN_NONE || *set == SEEN_ANY) {
    return;
  }
  if (*set == SEEN_NONE) {
    *set = add;
    *word = add_word;
  } else if (add == SEEN_ANY || add_word != *word) {
    *set = SEEN_ANY;
  }
}

/* W is about to be stored over (lock held): what it holds now joins what a
 * stale fetch of it may see. */
static void remember_overwritten(const struct jf_model *m, struct jf_word *w)
{
  uint8_t before = w->insn_in_memory ? SEEN_ONE : SEEN_ANY;
  if (w->store_seq == 0) {
    /* Never stored: its content since it was mapped is all there was. */
    w->earlier = SEEN_NONE;
    w->seen = before;
    w->seen_word = w->insn;
    w->seen_after = 0;
  } else {
    uint64_t bound = jf_model_fresh_after(m, w, JF_MODEL_OWN_VIEW);
    if (bound != UINT64_MAX) {
      seen_add(&w->earlier, &w->earlier_word, w->seen, w->seen_word);
      w->seen = before;
      w->seen_word = w->insn;
      w->seen_after = bound;
    } else {
      seen_add(&w->seen, &w->seen_word, before, w->insn);
    }
  }
  w->insn_in_memory = false;
}

/* Whether every word a thread synchronised at SYNC_SEQ may see in a stale
 * fetch of W is CURRENT; *READS_SYNC: whether the answer depends on it. */
static bool stale_benign(const struct jf_word *w, uint64_t sync_seq, uint32_t current,
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

bool jf_model_stale_benign(const struct jf_model *m, const struct jf_model_thread *t,
                           const struct jf_word *w, uint32_t current, bool *reads_sync)
{
  (void)m;
  bool reads = false;
  bool benign = stale_benign(w, t->sync_seq, current, &reads);
  if (reads_sync) {
    *reads_sync = reads;
  }
  return benign;
}

bool jf_model_fetch_benign(const struct jf_model *m, const struct jf_model_thread *t,
                           const struct jf_word *w, bool *reads_sync)
{
  if (reads_sync) {
    *reads_sync = false;
  }
  /* Memory holds the word translated (no store since): what the fetch
   * should run is known. */
  return w->insn_in_memory && jf_model_stale_benign(m, t, w, w->insn, reads_sync);
}

/* The store of the words [FIRST, END) of PAGE at time NOW (lock held). */
static void store_in_page(const struct jf_model *m, struct jf_model_page *page, uint64_t first,
                          uint64_t end, uint64_t now, struct jf_model_thread *t, uint64_t writer_pc)
{
  for (uint64_t a = first; a < end; a += 4) {
    if (page->words) {
      struct jf_word *w = page_word(m, page, a);
      remember_overwritten(m, w);
      w->store_seq = now;
      w->version++;
      w->writer_pc = writer_pc;
      w->writer_cluster = t->cluster;
      w->writer_thread = t->serial;
      w->writer_exact = true;
    } else {
      size_t index = (a & (MODEL_PAGE_SIZE - 1)) / 4;
      jf_model_page_writers(page, writer_pc);
      summary_store(page, index, jf_model_store_stamp(now, t->cluster), writer_pc, t->serial);
    }
  }
}

void jf_model_store(struct jf_model *m, struct jf_model_thread *t, uint64_t va, unsigned bytes,
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

void jf_model_store_on_page(struct jf_model *m, struct jf_model_thread *t,
                            struct jf_model_page *page, uint64_t va, unsigned bytes,
                            uint64_t writer_pc)
{
  uint64_t end = va + (bytes ? bytes : 1);
  if (((end - 1) ^ va) >> MODEL_PAGE_SHIFT) {
    jf_model_store(m, t, va, bytes, writer_pc);
    return;
  }
  store_in_page(m, page, va & ~UINT64_C(3), end, store_time(m), t, writer_pc);
}

struct jf_model_page *jf_model_store_page(struct jf_model *m, uint64_t va)
{
  return page_get(m, va);
}

/*
 * Calls FN on every word of [START, END) whose page was ever stored to
 * (other words cannot be stale).
 */
typedef void (*word_fn)(const struct jf_model *m, struct jf_word *w, uint64_t word_va, void *ctx);

static void for_each_word(const struct jf_model *m, uint64_t start, uint64_t end, word_fn fn,
                          void *ctx)
{
  for (uint64_t p = start & ~UINT64_C(3); p < end;) {
    uint64_t page_end = (p | (MODEL_PAGE_SIZE - 1)) + 1;
    uint64_t stop = MIN(end, page_end);
    struct jf_model_page *page = page_find(m, p);
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
static void for_each_word_in_line(const struct jf_model *m, uint64_t va, unsigned line, word_fn fn,
                                  void *ctx)
{
  uint64_t start = va & ~((uint64_t)line - 1);
  for_each_word(m, start, start + line, fn, ctx);
}

/* ---- sites and loops ------------------------------------------------------ */

struct site_mark {
  uint32_t site;
  uint64_t seq;
  bool inval;       /* an ic ivau site, else a clean */
  unsigned stride;  /* the loop's stride, 0 unknown */
  unsigned cluster; /* the issuing thread's cluster */
};

static void mark_site(const struct jf_model *m, struct jf_word *w, uint64_t word_va, void *ctx)
{
  (void)m;
  (void)word_va;
  const struct site_mark *s = ctx;
  w->version++;
  if (s->inval) {
    w->inval_site = s->site;
    w->inval_site_seq = s->seq;
    w->inval_stride = (uint16_t)s->stride;
  } else {
    w->clean_site = s->site;
    w->clean_site_seq = s->seq;
    w->clean_stride = (uint16_t)s->stride;
    w->clean_cluster = (uint16_t)s->cluster;
  }
}

unsigned jf_model_site_stride(const struct jf_model *m, uint32_t site)
{
  return site < m->site_stride->len ? g_array_index(m->site_stride, unsigned, site) : 0;
}

/*
 * Loop recognition. A step is the distance from the thread's previous
 * operation of the same kind when that came from the same site, in the same
 * loop execution (no barrier instruction in between, jf_model_loops_end),
 * and lies less than a page below; two equal steps in a row make it that
 * execution's stride and the site's latest. A gap between two calls of a
 * flush routine is never a step: each call ends with its dsb. Every
 * operation claims the words up to its next step (with the execution's
 * stride, or while it is not confirmed yet, the site's latest), and the
 * step that confirms a stride claims the two before it, so the words a loop
 * stepped over name that loop and its stride. Returns the stride the
 * operation's own marks carry (0: none known, see claim_lines).
 */
static unsigned follow_loop(struct jf_model *m, uint32_t site, uint64_t va,
                            struct jf_model_loop *loop, bool inval, uint64_t seq, unsigned cluster)
{
  uint64_t step = 0;
  if (site != JF_MODEL_NO_SITE && site == loop->site && va > loop->addr &&
      va - loop->addr <= MAX_STRIDE) {
    step = va - loop->addr;
  }
  if (step != loop->stride) {
    loop->stride = 0; /* another site, or a step out of the loop's pattern */
  }
  struct site_mark s = {site, seq, inval, 0, cluster};
  if (step && step == loop->step) {
    if (m->site_stride->len <= site) {
      g_array_set_size(m->site_stride, site + 1);
    }
    g_array_index(m->site_stride, unsigned, site) = (unsigned)step;
    loop->stride = (unsigned)step;
    s.stride = loop->stride;
    for_each_word(m, va - 2 * step, va, mark_site, &s);
  }
  s.stride = loop->stride ? loop->stride : jf_model_site_stride(m, site);
  if (s.stride) {
    for_each_word(m, va, va + s.stride, mark_site, &s);
  }
  loop->site = site;
  loop->addr = va;
  loop->step = step;
  return s.stride;
}

/*
 * An operation whose loop shows no stride (a call that issued one or two,
 * as a 12-byte flush does, of a routine never seen looping): it claims the
 * words of the largest line the program read from CTR_EL0 around its
 * address (any core's line when it read none: a hard-coded step), each
 * word with the smallest of those lines whose block around the address
 * holds it as its stride. A routine aligns its start down to the line it
 * steps by, and that line came from a CTR_EL0 read, so a word it missed
 * in a smaller geometry lies in the block of the line it used: on
 * the Exynos 8890 the word 0x40 past a 128-byte-aligned ic ivau was
 * meant by a 128-byte line (an Exynos M1's IminLine), and in a 64-byte one
 * on a 32-byte core's clean. Descending, so the smaller blocks, which are
 * inside the larger ones, keep the smaller line.
 */
static void claim_lines(const struct jf_model *m, uint64_t va, struct site_mark *s)
{
  uint32_t read = s->inval ? m->ilines_read : m->dlines_read;
  unsigned done = UINT_MAX;
  for (;;) {
    unsigned line = 0;
    for (unsigned k = 0; k < 32; k++) {
      unsigned l = 4u << k;
      if ((read >> k & 1) && l < done && l > line) {
        line = l;
      }
    }
    for (unsigned c = 0; !read && c < m->nclusters; c++) {
      unsigned l = s->inval ? m->geo[c].iline : m->geo[c].dline;
      if (l < done && l > line) {
        line = l;
      }
    }
    if (!line) {
      return;
    }
    s->stride = line;
    for_each_word_in_line(m, va, line, mark_site, s);
    done = line;
  }
}

void jf_model_ctr_read(struct jf_model *m, uint64_t value)
{
  struct jf_ctr d = jf_ctr_decode(value);
  m->shared++; /* claim_lines: the lines read */
  m->ilines_read |= UINT32_C(1) << (jf_log2_line(d.iline) - 2);
  m->dlines_read |= UINT32_C(1) << (jf_log2_line(d.dline) - 2);
}

void jf_model_loops_end(struct jf_model_thread *t)
{
  memset(&t->clean_loop, 0, sizeof(t->clean_loop));
  memset(&t->inval_loop, 0, sizeof(t->inval_loop));
}

/* ---- maintenance ---------------------------------------------------------- */

/* Whether a clean of ADDR reaches W, whose dirty copy sits in the
 * writer's cache in the writer's DminLine geometry. */
static bool in_writer_line(const struct jf_model *m, const struct jf_word *w, uint64_t word_va,
                           uint64_t addr)
{
  uint64_t mask = ~((uint64_t)m->geo[w->writer_cluster].dline - 1);
  return (word_va & mask) == (addr & mask);
}

struct clean_issue {
  struct site_mark mark;
  uint64_t addr;
};

static void mark_clean_issued(const struct jf_model *m, struct jf_word *w, uint64_t word_va,
                              void *ctx)
{
  const struct clean_issue *c = ctx;
  mark_site(m, w, word_va, (void *)&c->mark);
  if (in_writer_line(m, w, word_va, c->addr)) {
    w->clean_issue_seq = c->mark.seq;
  }
}

void jf_model_dc_clean(struct jf_model *m, struct jf_model_thread *t, uint64_t va, uint32_t site,
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
  m->shared++; /* follow_loop: the site's stride */
  unsigned stride = follow_loop(m, site, va, &t->clean_loop, false, op.issue_seq, op.cluster);
  struct clean_issue issue = {{site, op.issue_seq, false, stride, op.cluster}, va};
  for_each_word_in_line(m, va, m->geo[op.cluster].dline, mark_clean_issued, &issue);
  if (!stride && site != JF_MODEL_NO_SITE) {
    claim_lines(m, va, &issue.mark);
  }
  g_array_append_val(t->pending, op);
}

/* Whether an ic ivau issued through a non-executable alias misses the
 * lines that cluster C fetched through the executable view (VIPT). */
static bool inval_misses(const struct jf_model *m, const struct maint_op *op, unsigned c)
{
  return op->nonexec_view && m->geo[c].vipt;
}

/*
 * Step-2 slots per view ("VIPT" above). The slots of cluster C that an ic
 * through VIEW writes and a fetch through VIEW reads: [0] the latest issued,
 * [1] the first completed that counts. A PIPT cluster has one pair for
 * every view; a VIPT cluster's pair in the word belongs to the first view
 * invalidated through (IVIEW), and each other view gets a block of its own
 * in view_extra: its view, then the pair of every cluster. A JIT has one
 * executable view almost always, so the table stays empty.
 */
static const uint64_t *find_view_slots(const struct jf_model *m, const struct jf_word *w,
                                       unsigned c, uint64_t view)
{
  if (!m->geo[c].vipt || !w->iview_set || w->iview == view) {
    return &w->inval[INVAL_ISSUED(c)];
  }
  const GPtrArray *blocks = w->extra_views ? g_hash_table_lookup(m->view_extra, w) : NULL;
  for (guint i = 0; blocks && i < blocks->len; i++) {
    const uint64_t *b = g_ptr_array_index(blocks, i);
    if (b[0] == view) {
      return &b[1 + 2 * c];
    }
  }
  return NULL; /* never invalidated through VIEW on a VIPT cluster */
}

/* The same slots, made when missing (an ic through VIEW reached W). */
static uint64_t *view_slots(const struct jf_model *m, struct jf_word *w, unsigned c, uint64_t view)
{
  if (m->geo[c].vipt && !w->iview_set) {
    w->iview_set = true;
    w->iview = view;
  }
  const uint64_t *found = find_view_slots(m, w, c, view);
  if (found) {
    return (uint64_t *)found; /* W's own record or its block: not const */
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
static bool other_view_issued(const struct jf_model *m, const struct jf_word *w, unsigned c,
                              uint64_t view)
{
  if (!m->geo[c].vipt || !w->iview_set) {
    return false;
  }
  if (w->iview != view && w->inval[INVAL_ISSUED(c)] > w->store_seq) {
    return true;
  }
  const GPtrArray *blocks = w->extra_views ? g_hash_table_lookup(m->view_extra, w) : NULL;
  for (guint i = 0; blocks && i < blocks->len; i++) {
    const uint64_t *b = g_ptr_array_index(blocks, i);
    if (b[0] != view && b[1 + 2 * c] > w->store_seq) {
      return true;
    }
  }
  return false;
}

/* PAGE's record leaves the model (forgotten, emptied, replaced): so do
 * the other views' slots of its words, before their memory can be reused
 * for another word. */
static void drop_extra_views(const struct jf_model *m, const struct jf_model_page *page)
{
  if (!page->words || g_hash_table_size(m->view_extra) == 0) {
    return;
  }
  for (size_t i = 0; i < MODEL_PAGE_WORDS; i++) {
    struct jf_word *w = (struct jf_word *)(page->words + i * m->word_size);
    if (w->extra_views) {
      g_hash_table_remove(m->view_extra, w);
      w->extra_views = false;
    }
  }
}

struct inval_issue {
  unsigned cluster;
  bool alias;    /* through a non-executable alias that misses CLUSTER */
  uint64_t view; /* jf_model_view of the address */
  struct site_mark mark;
};

static void mark_inval_issued(const struct jf_model *m, struct jf_word *w, uint64_t word_va,
                              void *ctx)
{
  const struct inval_issue *issue = ctx;
  if (issue->alias) {
    w->inval[INVAL_ALIAS(issue->cluster)] = issue->mark.seq;
  } else {
    view_slots(m, w, issue->cluster, issue->view)[0] = issue->mark.seq;
  }
  mark_site(m, w, word_va, (void *)&issue->mark);
}

static void complete_dmb_ordered(struct jf_model *m, unsigned except_thread, uint64_t done);

void jf_model_ic_ivau(struct jf_model *m, struct jf_model_thread *t, uint64_t va, uint32_t site)
{
  if (m->dmb_ordered->len) {
    /* Another thread's DMB-ordered clean comes before this invalidate,
     * as before a DSB (jf_model_dmb). */
    complete_dmb_ordered(m, t->serial, event_time(m));
  }
  struct maint_op op = {.addr = va,
                        .issue_seq = event_time(m),
                        .cluster = t->cluster,
                        .thread = t->serial,
                        .is_clean = false,
                        .nonexec_view = nonexec_view(m, va),
                        .view = jf_model_view(m, va)};
  m->shared++; /* follow_loop: the site's stride */
  unsigned stride = follow_loop(m, site, va, &t->inval_loop, true, op.issue_seq, op.cluster);
  /* Broadcast: every cluster drops its own line holding VA. */
  struct site_mark mark = {site, op.issue_seq, true, stride, op.cluster};
  for (unsigned c = 0; c < m->nclusters; c++) {
    struct inval_issue issue = {c, inval_misses(m, &op, c), op.view, mark};
    for_each_word_in_line(m, va, m->geo[c].iline, mark_inval_issued, &issue);
  }
  if (!stride && site != JF_MODEL_NO_SITE) {
    claim_lines(m, va, &mark);
  }
  g_array_append_val(t->pending, op);
}

static uint64_t store_completion(const struct jf_model *m, const struct jf_word *w);

/* The time W's D side became coherent with its last store for the thread
 * with serial READER, or 0 if not. Under IDC: for the storing thread, when
 * its store completed; for any other thread, which can only act on the
 * store after seeing it (directly or through a flag), the store itself
 * ("Store completion"). */
static uint64_t clean_point(const struct jf_model *m, const struct jf_word *w, unsigned reader)
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
};

static void complete_clean(const struct jf_model *m, struct jf_word *w, uint64_t word_va, void *ctx)
{
  const struct completion *c = ctx;
  if (!in_writer_line(m, w, word_va, c->op->addr)) {
    return;
  }
  if (w->store_seq == 0 || c->op->issue_seq < w->store_seq) {
    return; /* nothing dirty yet, or stored again after the clean issued */
  }
  if (w->writer_exact && w->writer_thread != c->op->thread && c->op->order_seq < w->store_seq) {
    if (w->clean_unordered_seq < c->done_seq) {
      w->clean_unordered_seq = c->done_seq; /* for the reason only */
      w->version++;
    }
    return; /* another thread's store the clean is not ordered after */
  }
  if (w->clean_done_seq <= w->store_seq) {
    w->clean_done_seq = c->done_seq;
    w->version++;
  }
}

static void complete_inval(const struct jf_model *m, struct jf_word *w, uint64_t word_va, void *ctx)
{
  const struct completion *c = ctx;
  (void)word_va;
  uint64_t cleaned = clean_point(m, w, c->op->thread);
  if (w->store_seq == 0 || cleaned == 0 || c->op->issue_seq <= cleaned) {
    return; /* issued before the clean completed: may refill stale data */
  }
  uint64_t *done = &view_slots(m, w, c->cluster, c->op->view)[1];
  if (*done <= cleaned) {
    *done = c->done_seq;
    w->version++;
  }
}

/* Completes the operations OPS at time DONE. */
static void complete_ops(struct jf_model *m, GArray *ops, uint64_t done)
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
static uint64_t store_completion(const struct jf_model *m, const struct jf_word *w)
{
  return first_after(m->dsb_times, w->store_seq);
}

/* Completes the DMB-ordered cleans of every thread but EXCEPT_THREAD. */
static void complete_dmb_ordered(struct jf_model *m, unsigned except_thread, uint64_t done)
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
void jf_model_dsb(struct jf_model *m, struct jf_model_thread *t)
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
void jf_model_dmb(struct jf_model *m, struct jf_model_thread *t, bool full)
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

void jf_model_sync(struct jf_model *m, struct jf_model_thread *t)
{
  t->sync_seq = event_time(m);
  /* An isb after a control dependency orders what follows (herd7:
   * MP.RF+ctrlisb-dc-dsb+ic-dsb-isb is forbidden); the rig does not see
   * the dependency and takes the lenient side. Exception entry and return
   * (a system call, a migration, a signal) order too. */
  t->clean_order_seq = t->sync_seq;
}

void jf_model_order_cleans(struct jf_model *m, struct jf_model_thread *t)
{
  t->clean_order_seq = event_time(m);
}

void jf_model_cluster_online(struct jf_model *m, unsigned cluster)
{
  if (cluster < m->nclusters) {
    m->online_seq[cluster] = event_time(m);
    m->shared++; /* inval_point */
  }
}

/* ---- fetches ----------------------------------------------------------------- */

struct jf_word *jf_model_word_for_fetch(struct jf_model *m, uint64_t va, uint32_t insn,
                                        bool cmodx_safe)
{
  struct jf_model_page *page = page_find(m, va);
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
    page = page_new(m, c >> MODEL_PAGE_SHIFT);
  }
  page_make_dense(m, page);
  struct jf_word *w = page_word(m, page, va);
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

struct jf_word *jf_model_word_now(struct jf_model *m, uint64_t va)
{
  struct jf_model_page *page = page_find(m, va);
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
static uint64_t inval_point(const struct jf_model *m, unsigned c, uint64_t done, uint64_t cleaned)
{
  uint64_t online = m->online_seq[c];
  if (online > cleaned && (done <= cleaned || online < done)) {
    return online;
  }
  return done;
}

/* The kernel synced W's page after W's last store, and the run counts on
 * it (jf_model_kernel_sync). */
static bool kernel_synced(const struct jf_model *m, const struct jf_word *w)
{
  return w->kernel_sync_seq > w->store_seq && !m->kernel_untrusted;
}

/* Which step is missing for a fetch through VIEW, without provenance. */
static enum jf_stale_kind missing_step(const struct jf_model *m, const struct jf_model_thread *t,
                                       const struct jf_word *w, uint64_t view)
{
  if (kernel_synced(m, w)) {
    return JF_FRESH;
  }
  uint64_t ready = clean_point(m, w, t->serial);
  unsigned c = t->cluster;
  if (ready == 0 && m->all_idc) {
    /* Fetch ordering under IDC and DIC: W's store before (an event
     * before) a store this thread saw fetched is enough
     * (DIC1.MP.FF+dmb.st+po is forbidden, DIC1.MP.FF+po allowed). */
    if (m->geo[c].dic && t->fetched_store_seq > w->store_seq) {
      return JF_FRESH;
    }
    return JF_STALE_CLEAN_NOT_COMPLETED; /* the store did not complete */
  }
  if (ready == 0) {
    if (w->clean_unordered_seq > w->store_seq) {
      return JF_STALE_CLEAN_NOT_ORDERED;
    }
    return w->clean_issue_seq > w->store_seq ? JF_STALE_CLEAN_NOT_COMPLETED : JF_STALE_NOT_CLEANED;
  }
  if (!m->geo[c].dic) {
    const uint64_t *slots = find_view_slots(m, w, c, view);
    uint64_t inval_done = inval_point(m, c, slots ? slots[1] : 0, ready);
    if (inval_done <= ready) {
      uint64_t inval_issued = slots ? slots[0] : 0;
      if (inval_issued > ready) {
        return JF_STALE_INVALIDATE_NOT_COMPLETED;
      }
      if (w->inval[INVAL_ALIAS(c)] > w->store_seq) {
        return JF_STALE_NONEXEC_ALIAS;
      }
      if (other_view_issued(m, w, c, view)) {
        return JF_STALE_OTHER_EXEC_VIEW;
      }
      if (inval_issued > w->store_seq) {
        return JF_STALE_INVALIDATED_BEFORE_CLEAN;
      }
      return JF_STALE_NOT_INVALIDATED_IN_GEOMETRY;
    }
    ready = inval_done;
  }
  /* Fetch ordering: see jf_model_fetch. */
  return t->sync_seq <= ready && t->fetched_store_seq <= ready ? JF_STALE_NOT_SYNCHRONISED
                                                               : JF_FRESH;
}

struct jf_fetch_stamp jf_model_fetch_stamp(const struct jf_model *m, const struct jf_word *w)
{
  /* What missing_step, blamed_site and jf_model_fetch read besides the
   * thread and its view: the word's record, whose every writer bumps its
   * version (stores, translations, mark_site, the completions), including
   * its other views' slots in view_extra (written only at an ic, which
   * marks its site, and at a completion), and, outside it,
   * the site strides (follow_loop, at every dc and ic), the DSB times under
   * IDC (store_completion) and the clusters' online times (inval_point),
   * each counted in SHARED. Not the model's clock: a migration's DSB and
   * context synchronisation change no word and no verdict that did not
   * read the thread's sync_seq (jf_model_verdict_reads). */
  return (struct jf_fetch_stamp){m->shared, w->version};
}

unsigned jf_model_verdict_reads(const struct jf_model *m, enum jf_stale_kind kind)
{
  if (m->all_idc) {
    return JF_READS_CLUSTER | JF_READS_SYNC; /* the DIC branch reads both */
  }
  switch (kind) {
  case JF_STALE_KERNEL_SYNC_ASSUMED:
    return JF_READS_CLUSTER | JF_READS_SYNC; /* stands for any missing step */
  case JF_STALE_NOT_CLEANED:
  case JF_STALE_CLEAN_NOT_COMPLETED:
  case JF_STALE_CLEAN_NOT_ORDERED:
    /* missing_step returns before reading the thread's cluster, and the
     * line is the writer's. */
    return 0;
  case JF_STALE_INVALIDATE_NOT_COMPLETED:
  case JF_STALE_NONEXEC_ALIAS:
  case JF_STALE_OTHER_EXEC_VIEW:
  case JF_STALE_INVALIDATED_BEFORE_CLEAN:
  case JF_STALE_NOT_INVALIDATED_IN_GEOMETRY:
    return JF_READS_CLUSTER; /* returned before the last comparison */
  default:
    return JF_READS_CLUSTER | JF_READS_SYNC; /* fresh, not-synchronised */
  }
}

uint64_t jf_model_fresh_after(const struct jf_model *m, const struct jf_word *w, uint64_t view)
{
  if (w->store_seq == 0 || kernel_synced(m, w)) {
    return 0;
  }
  /* The storing thread's clean point is the latest of all (coherence.c,
   * clean_point): a bound for it holds for every thread. */
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
    const uint64_t *slots = find_view_slots(m, w, c, view);
    uint64_t done = slots ? slots[1] : 0;
    if (done <= cleaned) {
      return UINT64_MAX; /* cluster c still misses the invalidate (of VIEW) */
    }
    bound = MAX(bound, done);
  }
  return bound;
}

/* The site whose maintenance should have made W coherent for KIND (the
 * clean or invalidate loop that reached W after its last store), and the
 * stride that loop had when it did. */
static uint32_t blamed_site(const struct jf_word *w, enum jf_stale_kind kind, unsigned *stride)
{
  bool clean_after = w->clean_site_seq > w->store_seq;
  bool inval_after = w->inval_site_seq > w->store_seq;
  bool inval;
  switch (kind) {
  case JF_STALE_NOT_CLEANED:
  case JF_STALE_CLEAN_NOT_COMPLETED:
  case JF_STALE_CLEAN_NOT_ORDERED:
    inval = false;
    break;
  case JF_STALE_NOT_SYNCHRONISED:
    inval = inval_after;
    break;
  default:
    inval = true;
    break;
  }
  if (inval) {
    *stride = inval_after ? w->inval_stride : 0;
    return inval_after ? w->inval_site : JF_MODEL_NO_SITE;
  }
  *stride = clean_after ? w->clean_stride : 0;
  return clean_after ? w->clean_site : JF_MODEL_NO_SITE;
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
static bool cmodx_covers(const struct jf_word *w, const struct jf_model_thread *t,
                         enum jf_stale_kind kind)
{
  return kind == JF_STALE_NOT_SYNCHRONISED && w->writer_thread != t->serial;
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
struct jf_verdict jf_model_fetch(const struct jf_model *m, struct jf_model_thread *t,
                                 const struct jf_word *w, uint64_t view, bool cmodx_safe)
{
  struct jf_verdict v = {.kind = JF_FRESH};
  if (w->store_seq == 0) {
    return v;
  }
  enum jf_stale_kind kind = missing_step(m, t, w, view);
  if (w->store_seq > t->fetched_store_seq) {
    t->fetched_store_seq = w->store_seq;
  }
  if (kind == JF_FRESH || (cmodx_safe && w->pair_cmodx_safe && cmodx_covers(w, t, kind))) {
    return v; /* either encoding is architecturally acceptable */
  }
  if (w->kernel_sync_seq > w->store_seq && w->clean_site_seq <= w->store_seq &&
      w->inval_site_seq <= w->store_seq) {
    /* Stale only because the run does not count on the kernel's sync, and
     * the program did no maintenance of its own: it relied on the kernel.
     * A program whose maintenance reached the word but missed a step keeps
     * that step's kind, the more useful one to fix. */
    kind = JF_STALE_KERNEL_SYNC_ASSUMED;
  }
  v.kind = kind;
  v.writer_pc = w->writer_pc;
  v.flush_site = blamed_site(w, kind, &v.stride);
  if (!v.stride) {
    v.stride = jf_model_site_stride(m, v.flush_site);
  }
  bool clean_step = kind == JF_STALE_NOT_CLEANED || kind == JF_STALE_CLEAN_NOT_COMPLETED ||
                    kind == JF_STALE_CLEAN_NOT_ORDERED;
  /* A clean reaches the words of both the issuer's and the writer's line
   * around its address ("clean" above): the smaller of the two is the
   * line a clean loop has to step by. */
  v.line = clean_step ? m->geo[w->writer_cluster].dline : m->geo[t->cluster].iline;
  if (clean_step && v.flush_site != JF_MODEL_NO_SITE && m->geo[w->clean_cluster].dline < v.line) {
    v.line = m->geo[w->clean_cluster].dline;
    v.line_of_cleaner = true;
    v.cleaner_cluster = w->clean_cluster;
  }
  v.writer_cluster = w->writer_cluster;
  return v;
}

/* ---- the kernel's own maintenance -------------------------------------------- */

void jf_model_trust_kernel_sync(struct jf_model *m, bool trusted)
{
  m->kernel_untrusted = !trusted;
  m->shared++; /* every verdict of a kernel-synced word changes */
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
unsigned jf_model_kernel_sync(struct jf_model *m, uint64_t canon)
{
  struct jf_model_page *page =
      g_hash_table_lookup(m->pages, GSIZE_TO_POINTER(canon >> MODEL_PAGE_SHIFT));
  if (!page) {
    return 0; /* never stored: nothing the caches could hold stale */
  }
  page_make_dense(m, page);
  uint64_t now = event_time(m);
  unsigned published = 0;
  for (size_t i = 0; i < MODEL_PAGE_WORDS; i++) {
    struct jf_word *w = (struct jf_word *)(page->words + i * m->word_size);
    if (w->store_seq == 0) {
      continue;
    }
    if (w->kernel_sync_seq <= w->store_seq &&
        jf_model_fresh_after(m, w, JF_MODEL_OWN_VIEW) == UINT64_MAX) {
      published++;
    }
    w->kernel_sync_seq = now;
    w->version++;
  }
  return published;
}

/* ---- forgetting unmapped memory ---------------------------------------------- */

/*
 * Memory the guest unmaps (munmap, mremap, an mmap that replaces pages)
 * takes its words' history with it: a later mapping at the same address
 * holds other bytes, written by the kernel or by new stores that the model
 * sees afresh. Without forgetting, a program that maps its code at a new
 * address each time left one dense record per page behind (about 100 KiB
 * with two clusters), and the rig grew by gigabytes a minute.
 *
 * The records are not freed here: lock-free stores (coherence_quick.h) and
 * fetch checks translated earlier may still hold them, so the caller frees
 * them with jf_model_page_free once no such reference can remain.
 */

uint64_t jf_model_page_epoch(const struct jf_model *m)
{
  return m->pages_made;
}

size_t jf_model_pages_peak(const struct jf_model *m)
{
  return __atomic_load_n(&m->pages_peak, __ATOMIC_RELAXED);
}

size_t jf_model_pages_live(const struct jf_model *m)
{
  return g_hash_table_size(m->pages);
}

void jf_model_page_numbers(const struct jf_model *m, GArray *out)
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
  const struct jf_model *m;
  uint64_t first, last; /* canonical page numbers, inclusive */
  uint64_t made_before;
  GPtrArray *retired;
};

static gboolean forget_if_in_range(gpointer key, gpointer value, gpointer data)
{
  const struct forget_range *f = data;
  uint64_t page_number = GPOINTER_TO_SIZE(key);
  const struct jf_model_page *page = value;
  if (page_number < f->first || page_number > f->last || page->born >= f->made_before) {
    return false;
  }
  drop_extra_views(f->m, page);
  g_ptr_array_add(f->retired, value);
  return true;
}

size_t jf_model_forget(struct jf_model *m, uint64_t canon_start, uint64_t canon_end,
                       uint64_t made_before, GPtrArray *retired)
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

void jf_model_pages_released(struct jf_model *m, size_t n)
{
  m->pages_retired -= MIN(n, m->pages_retired);
}

/* The numbers of the canonical pages FIRST..LAST (inclusive) that have a
 * record, in no particular order: looked up one by one, or for a range
 * larger than the table (a freed arena, a reservation) by walking it. */
static GArray *pages_in_range(const struct jf_model *m, uint64_t first, uint64_t last)
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
void jf_model_clear(struct jf_model *m, uint64_t canon_start, uint64_t canon_end,
                    uint64_t made_before, GArray *dense)
{
  if (canon_end <= canon_start) {
    return;
  }
  GArray *numbers =
      pages_in_range(m, canon_start >> MODEL_PAGE_SHIFT, (canon_end - 1) >> MODEL_PAGE_SHIFT);
  for (guint i = 0; i < numbers->len; i++) {
    uint64_t number = g_array_index(numbers, uint64_t, i);
    struct jf_model_page *page = g_hash_table_lookup(m->pages, GSIZE_TO_POINTER(number));
    if (page->born >= made_before) {
      continue; /* made by another thread after the madvise began */
    }
    if (page->words) {
      drop_extra_views(m, page);
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
void jf_model_move(struct jf_model *m, uint64_t canon_old, uint64_t canon_new, uint64_t len,
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
