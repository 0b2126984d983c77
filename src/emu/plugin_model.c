/*
 * The coherence model of the jitflush rig: does a fetch of a 4-byte
 * instruction word W on emulated CPU k see what the program last stored to
 * W, according to the architecture rather than according to QEMU (which
 * keeps its instruction side coherent by re-translating)?
 *
 * Model (DESIGN.md section 4), one record per word W, one global clock
 * (model_seq, bumped by every event, so "after" is a comparison):
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
 * ARM lets a concurrent fetch see either, so the fetch is not stale.
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
 * sync_icache_aliases). Hence: an ic ivau whose address lies in a
 * non-executable view of double-mapped pages (jf_alias_nonexec_view) does
 * not invalidate W for clusters whose L1Ip is VIPT or reserved; for PIPT
 * and VPIPT clusters it counts like any other. A fetch left stale by it
 * gets the reason "invalidated through a non-executable alias".
 */
#include <inttypes.h>
#include <string.h>

#include "plugin.h"

#define MODEL_PAGE_SHIFT 12
#define MODEL_PAGE_SIZE (UINT64_C(1) << MODEL_PAGE_SHIFT)
#define MODEL_PAGE_WORDS (MODEL_PAGE_SIZE / 4)
#define MODEL_STALE_KEEP 100
#define INVAL_SLOTS 3
#define INVAL_ISSUED(c) (INVAL_SLOTS * (c))
#define INVAL_DONE(c) (INVAL_SLOTS * (c) + 1)
#define INVAL_ALIAS(c) (INVAL_SLOTS * (c) + 2)
/* CTR_EL0.L1Ip [15:14] (Arm ARM D19.2). */
#define CTR_L1IP(ctr) (((ctr) >> 14) & 3)
#define L1IP_VPIPT 0
#define L1IP_PIPT 3

/* The stale reason of a fetch whose only invalidate went through the RW
 * view (scenario tests match this text). */
#define REASON_NONEXEC_ALIAS "invalidated through a non-executable alias"

struct jf_word {
  uint64_t store_seq;        /* last store, 0 = never stored */
  uint64_t clean_issue_seq;  /* latest clean issued (for the reason text) */
  uint64_t clean_done_seq;   /* first completed clean issued after the store */
  uint32_t writer_cluster;
  uint32_t insn;             /* encoding QEMU last translated here */
  bool translated;
  bool insn_cmodx_safe;
  bool pair_cmodx_safe;      /* old and new encodings both CMODX-safe */
  /* Per cluster c: inval[INVAL_ISSUED(c)] = latest ic issued,
   * inval[INVAL_DONE(c)] = first completed ic that satisfies step 2,
   * inval[INVAL_ALIAS(c)] = latest ic issued through a non-executable alias
   * that did not count for c (VIPT, see above). */
  uint64_t inval[];
};

struct model_page {
  uint64_t written[MODEL_PAGE_WORDS / 64]; /* store-only mode */
  uint64_t last_store_seq;
  unsigned last_writer_cluster;
  char *words;                             /* dense records, or NULL */
};

struct stale_entry {
  uint64_t addr;
  unsigned cpu;
  unsigned thread;
  const char *reason;
};

static uint64_t model_seq;
static GHashTable *pages;        /* page number -> struct model_page */
static size_t word_size;         /* sizeof(struct jf_word) + per-cluster */
static bool all_idc;             /* every core has CTR_EL0.IDC */
static unsigned *cluster_iline;  /* bytes, from each cluster's CTR */
static unsigned *cluster_dline;
static bool *cluster_dic;
static bool *cluster_vipt;       /* I-cache indexed by VA (aliasing) */
static GArray *stale_kept;       /* struct stale_entry, the first 100 */

static unsigned ctr_line_bytes(uint64_t ctr, unsigned shift) {
  return 4u << ((ctr >> shift) & 0xf);
}

static void free_page(gpointer data) {
  struct model_page *page = data;
  g_free(page->words);
  g_free(page);
}

void jf_model_init(void) {
  unsigned n = jf_config->nclusters;
  word_size = sizeof(struct jf_word) + INVAL_SLOTS * n * sizeof(uint64_t);
  word_size = (word_size + 7) & ~(size_t)7;
  cluster_iline = g_new0(unsigned, n);
  cluster_dline = g_new0(unsigned, n);
  cluster_dic = g_new0(bool, n);
  cluster_vipt = g_new0(bool, n);
  all_idc = true;
  for (unsigned c = 0; c < n; c++) {
    /* CTR_EL0: IminLine [3:0], DminLine [19:16], IDC [28], DIC [29]. */
    uint64_t ctr = jf_config->clusters[c].ctr;
    cluster_iline[c] = ctr_line_bytes(ctr, 0);
    cluster_dline[c] = ctr_line_bytes(ctr, 16);
    cluster_dic[c] = (ctr >> 29) & 1;
    cluster_vipt[c] = CTR_L1IP(ctr) != L1IP_PIPT && CTR_L1IP(ctr) != L1IP_VPIPT;
    all_idc = all_idc && ((ctr >> 28) & 1);
  }
  pages = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL,
                                free_page);
  stale_kept = g_array_new(false, true, sizeof(struct stale_entry));
}

void jf_model_free(void) {
  g_clear_pointer(&pages, g_hash_table_destroy);
  g_clear_pointer(&stale_kept, g_array_unref);
  g_clear_pointer(&cluster_iline, g_free);
  g_clear_pointer(&cluster_dline, g_free);
  g_clear_pointer(&cluster_dic, g_free);
  g_clear_pointer(&cluster_vipt, g_free);
}

uint64_t jf_model_next_seq(void) { return ++model_seq; }

/* The record of the page holding VA, through its canonical address (the
 * same for the RW and RX views of double-mapped code, plugin_alias.c). */
static struct model_page *page_find(uint64_t va) {
  return g_hash_table_lookup(
      pages, GSIZE_TO_POINTER(jf_alias_canon(va) >> MODEL_PAGE_SHIFT));
}

static struct jf_word *page_word(struct model_page *page, uint64_t va) {
  size_t index = (va & (MODEL_PAGE_SIZE - 1)) / 4;
  return (struct jf_word *)(page->words + index * word_size);
}

/* Gives PAGE per-word records, seeded from its store-only summary. */
static void page_make_dense(struct model_page *page) {
  if (page->words) {
    return;
  }
  page->words = g_malloc0(word_size * MODEL_PAGE_WORDS);
  for (size_t i = 0; i < MODEL_PAGE_WORDS; i++) {
    if ((page->written[i / 64] >> (i % 64)) & 1) {
      struct jf_word *w = (struct jf_word *)(page->words + i * word_size);
      w->store_seq = page->last_store_seq;
      w->writer_cluster = page->last_writer_cluster;
    }
  }
}

void jf_model_store(struct jf_thread *t, uint64_t va, unsigned bytes) {
  uint64_t seq = ++model_seq;
  unsigned cluster = jf_cluster_of(t->cpu);
  uint64_t first = va & ~UINT64_C(3);
  uint64_t end = va + (bytes ? bytes : 1);
  struct model_page *page = NULL;
  uint64_t va_page = UINT64_MAX;

  for (uint64_t a = first; a < end; a += 4) {
    if ((a >> MODEL_PAGE_SHIFT) != va_page) {
      va_page = a >> MODEL_PAGE_SHIFT;
      gpointer key = GSIZE_TO_POINTER(jf_alias_canon(a) >> MODEL_PAGE_SHIFT);
      page = g_hash_table_lookup(pages, key);
      if (!page) {
        page = g_new0(struct model_page, 1);
        g_hash_table_insert(pages, key, page);
      }
    }
    if (page->words) {
      struct jf_word *w = page_word(page, a);
      w->store_seq = seq;
      w->writer_cluster = cluster;
    } else {
      size_t index = (a & (MODEL_PAGE_SIZE - 1)) / 4;
      page->written[index / 64] |= UINT64_C(1) << (index % 64);
      page->last_store_seq = seq;
      page->last_writer_cluster = cluster;
    }
  }
}

/*
 * Calls FN on every word of the LINE-byte aligned block holding VA whose
 * page was ever stored to (other words cannot be stale). Lines are powers
 * of two; one larger than a page (Neoverse N1's 4 KiB "IminLine") spans
 * several.
 */
typedef void (*word_fn)(struct jf_word *w, uint64_t word_va, void *ctx);

static void for_each_word_in_line(uint64_t va, unsigned line, word_fn fn,
                                  void *ctx) {
  uint64_t start = va & ~((uint64_t)line - 1);
  uint64_t end = start + line;
  for (uint64_t p = start; p < end;) {
    uint64_t page_end = (p | (MODEL_PAGE_SIZE - 1)) + 1;
    uint64_t stop = MIN(end, page_end);
    struct model_page *page = page_find(p);
    if (page) {
      page_make_dense(page);
      for (uint64_t a = p; a < stop; a += 4) {
        fn(page_word(page, a), a, ctx);
      }
    }
    p = stop;
  }
}

static void mark_clean_issued(struct jf_word *w, uint64_t word_va,
                              void *ctx) {
  (void)word_va;
  w->clean_issue_seq = *(uint64_t *)ctx;
}

void jf_model_dc_clean(struct jf_thread *t, uint64_t va) {
  struct jf_maint_op op = {.addr = va,
                           .issue_seq = ++model_seq,
                           .cluster = jf_cluster_of(t->cpu),
                           .is_clean = true};
  for_each_word_in_line(va, cluster_dline[op.cluster], mark_clean_issued,
                        &op.issue_seq);
  g_array_append_val(t->pending_maint, op);
}

/* Whether an ic ivau issued through a non-executable alias misses the
 * lines that cluster C fetched through the executable view (VIPT). */
static bool inval_misses(const struct jf_maint_op *op, unsigned c) {
  return op->nonexec_view && cluster_vipt[c];
}

struct inval_issue {
  size_t slot;  /* INVAL_ISSUED(c) or INVAL_ALIAS(c) */
  uint64_t seq;
};

static void mark_inval_issued(struct jf_word *w, uint64_t word_va,
                              void *ctx) {
  const struct inval_issue *issue = ctx;
  (void)word_va;
  w->inval[issue->slot] = issue->seq;
}

void jf_model_ic_ivau(struct jf_thread *t, uint64_t va) {
  struct jf_maint_op op = {.addr = va,
                           .issue_seq = ++model_seq,
                           .cluster = jf_cluster_of(t->cpu),
                           .is_clean = false,
                           .nonexec_view = jf_alias_nonexec_view(va)};
  for (unsigned c = 0; c < jf_config->nclusters; c++) {
    struct inval_issue issue = {
        inval_misses(&op, c) ? INVAL_ALIAS(c) : INVAL_ISSUED(c),
        op.issue_seq};
    for_each_word_in_line(va, cluster_iline[c], mark_inval_issued, &issue);
  }
  g_array_append_val(t->pending_maint, op);
}

/* The time W's D side became coherent with its last store, or 0 if not. */
static uint64_t clean_point(const struct jf_word *w) {
  if (all_idc) {
    return w->store_seq;
  }
  return w->clean_done_seq > w->store_seq ? w->clean_done_seq : 0;
}

struct completion {
  const struct jf_maint_op *op;
  unsigned cluster;   /* the geometry being invalidated (ic) */
  uint64_t done_seq;
};

static void complete_clean(struct jf_word *w, uint64_t word_va, void *ctx) {
  const struct completion *c = ctx;
  unsigned wline = cluster_dline[w->writer_cluster];
  /* The dirty copy lives in the writer's line: the operation reaches W
   * only if W also shares the writer's line with the address cleaned. */
  if ((word_va & ~((uint64_t)wline - 1)) !=
      (c->op->addr & ~((uint64_t)wline - 1))) {
    return;
  }
  if (w->store_seq == 0 || c->op->issue_seq < w->store_seq) {
    return; /* nothing dirty yet, or stored again after the clean issued */
  }
  if (w->clean_done_seq <= w->store_seq) {
    w->clean_done_seq = c->done_seq;
  }
}

static void complete_inval(struct jf_word *w, uint64_t word_va, void *ctx) {
  const struct completion *c = ctx;
  (void)word_va;
  uint64_t cleaned = clean_point(w);
  if (w->store_seq == 0 || cleaned == 0 || c->op->issue_seq <= cleaned) {
    return; /* issued before the clean completed: may refill stale data */
  }
  uint64_t *done = &w->inval[INVAL_DONE(c->cluster)];
  if (*done <= cleaned) {
    *done = c->done_seq;
  }
}

void jf_model_dsb(struct jf_thread *t) {
  GArray *ops = t->pending_maint;
  if (ops->len == 0) {
    return;
  }
  uint64_t done = ++model_seq;
  for (guint i = 0; i < ops->len; i++) {
    const struct jf_maint_op *op = &g_array_index(ops, struct jf_maint_op, i);
    struct completion c = {.op = op, .cluster = op->cluster, .done_seq = done};
    if (op->is_clean) {
      for_each_word_in_line(op->addr, cluster_dline[op->cluster],
                            complete_clean, &c);
    } else {
      for (unsigned k = 0; k < jf_config->nclusters; k++) {
        if (inval_misses(op, k)) {
          continue; /* completes, but never reached k's VA-indexed lines */
        }
        c.cluster = k;
        for_each_word_in_line(op->addr, cluster_iline[k], complete_inval, &c);
      }
    }
  }
  g_array_set_size(ops, 0);
}

void jf_model_sync(struct jf_thread *t) { t->sync_seq = ++model_seq; }

struct jf_word *jf_model_word_for_fetch(uint64_t va, uint32_t insn,
                                        bool cmodx_safe) {
  struct model_page *page = page_find(va);
  if (!page) {
    uint64_t canon = jf_alias_canon(va);
    if (canon == va) {
      return NULL;
    }
    /* QEMU does not re-translate the RX view when the RW view is written,
     * so a double-mapped page is checked even before its first store. */
    page = g_new0(struct model_page, 1);
    g_hash_table_insert(pages, GSIZE_TO_POINTER(canon >> MODEL_PAGE_SHIFT),
                        page);
  }
  page_make_dense(page);
  struct jf_word *w = page_word(page, va);
  if (!w->translated || w->insn != insn) {
    w->pair_cmodx_safe = w->translated && w->insn_cmodx_safe && cmodx_safe;
    w->insn = insn;
    w->insn_cmodx_safe = cmodx_safe;
    w->translated = true;
  }
  return w;
}

const char *jf_model_fetch_stale(const struct jf_thread *t,
                                 const struct jf_word *w, bool cmodx_safe) {
  if (w->store_seq == 0) {
    return NULL;
  }
  const char *reason = NULL;
  uint64_t ready = clean_point(w);
  unsigned cluster = jf_cluster_of(t->cpu);
  if (ready == 0) {
    reason = w->clean_issue_seq > w->store_seq ? "clean not completed (no dsb)"
                                               : "not cleaned";
  } else if (!cluster_dic[cluster]) {
    uint64_t inval_done = w->inval[INVAL_DONE(cluster)];
    if (inval_done <= ready) {
      uint64_t inval_issued = w->inval[INVAL_ISSUED(cluster)];
      if (inval_issued > ready) {
        reason = "invalidate not completed (no dsb)";
      } else if (w->inval[INVAL_ALIAS(cluster)] > w->store_seq) {
        reason = REASON_NONEXEC_ALIAS;
      } else if (inval_issued > w->store_seq) {
        reason = "invalidated before the clean completed (no dsb between "
                 "dc and ic)";
      } else {
        reason = "not invalidated in this core's geometry";
      }
    } else {
      ready = inval_done;
    }
  }
  if (!reason && t->sync_seq <= ready) {
    reason = "pipeline not synchronised (no isb)";
  }
  if (reason && cmodx_safe && w->pair_cmodx_safe) {
    return NULL; /* either encoding is architecturally acceptable */
  }
  return reason;
}

void jf_model_record_stale(uint64_t va, const struct jf_thread *t,
                           const char *reason) {
  if (stale_kept->len < MODEL_STALE_KEEP) {
    struct stale_entry e = {va, t->cpu, t->serial, reason};
    g_array_append_val(stale_kept, e);
  }
}

void jf_model_report_stale(GString *json) {
  g_string_append(json, "[");
  for (guint i = 0; stale_kept && i < stale_kept->len; i++) {
    const struct stale_entry *e =
        &g_array_index(stale_kept, struct stale_entry, i);
    g_string_append_printf(json,
                           "%s\n    {\"addr\": \"0x%" PRIx64 "\", \"cpu\": %u, "
                           "\"thread\": %u, \"reason\": \"%s\"}",
                           i ? "," : "", e->addr, e->cpu, e->thread,
                           e->reason);
  }
  g_string_append(json, stale_kept && stale_kept->len ? "\n  ]" : "]");
}

/*
 * A cluster comes online (a hotplug event brought up its first CPU; the
 * others were all offline). What the kernel and firmware guarantee about
 * its caches at that point:
 *
 *  - I side: Linux invalidates the booting CPU's whole I-cache when it
 *    turns the MMU on: "ic iallu; dsb nsh; isb" in set_sctlr_el1
 *    (arch/arm64/include/asm/assembler.h, macro set_sctlr, used by
 *    __enable_mmu in arch/arm64/kernel/head.S on the secondary_startup
 *    path), with the comment that instructions fetched speculatively from
 *    the PoC "may have been dynamically patched at the PoU". The Galaxy S7's
 *    own 3.18 kernel has the same three instructions inline in __enable_mmu
 *    (Samsung's universal8890 tree, arch/arm64/kernel/head.S). It is a local
 *    invalidate, completed by its dsb, so afterwards the cluster's I-cache
 *    holds nothing older than the PoU. Only a word whose clean to the PoU had
 *    completed by then is therefore fresh for the cluster; a word not yet
 *    cleaned still needs an invalidate in this cluster's geometry after its
 *    clean, as usual (the CPU may refill its line from the PoU before that).
 *  - D side: nothing is credited. PSCI CPU_ON starts the core from reset,
 *    and whether its caches come up invalid depends on the core and the
 *    firmware; the new CPU has written nothing, so what matters is the
 *    writers' caches, which the model keeps as they were (worst case).
 *
 * Only a whole cluster coming back is credited, because the model keeps one
 * I-side record per cluster: a CPU joining cluster-mates that stayed online
 * gets no credit (theirs were not invalidated), which is stricter than the
 * hardware, never more lenient.
 */
struct online_credit {
  unsigned cluster;
  uint64_t seq;
};

static void credit_boot_invalidate(gpointer key, gpointer value, gpointer ctx) {
  (void)key;
  struct model_page *page = value;
  const struct online_credit *credit = ctx;
  if (!page->words) {
    return; /* store-only: nothing on it was cleaned yet */
  }
  for (size_t i = 0; i < MODEL_PAGE_WORDS; i++) {
    struct jf_word *w = (struct jf_word *)(page->words + i * word_size);
    uint64_t cleaned = w->store_seq ? clean_point(w) : 0;
    uint64_t *done = &w->inval[INVAL_DONE(credit->cluster)];
    if (cleaned != 0 && *done <= cleaned) {
      *done = credit->seq;
    }
  }
}

void jf_model_cluster_online(unsigned cluster) {
  struct online_credit credit = {cluster, ++model_seq};
  g_hash_table_foreach(pages, credit_boot_invalidate, &credit);
}
