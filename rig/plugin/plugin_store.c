/*
 * Guest stores into the coherence model. Every storing instruction runs
 * this callback, once per access (an stp is two), so it is the hottest
 * one the rig has: a store-heavy program (PCRE2's interpreter, a JIT
 * compiler) makes tens of millions of them. Taking the rig's lock and a hash
 * lookup for each was most of the checker's cost there.
 *
 * So each vCPU keeps a small direct-mapped cache, page number -> the
 * model's page record (model_store_page), filled under the lock when a
 * store misses it, and records a store on a cached page with
 * model_store_quick, without any lock. The model refuses the quick path
 * for pages that have per-word records (code, or pages that were
 * maintained) and for stores that leave an aligned block; those, and
 * misses, take the lock and model_store. The verdicts are the
 * same either way (model_coherence_quick.h; stores without a lock in
 * docs/COHERENCE-MODEL.md#how-the-rig-applies-the-verdict-cheaply).
 *
 * model_store_quick is safe against every race: another thread's store
 * to the page, its first fetch or maintenance under the lock. It pays
 * for that with locked read-modify-writes, and it leaves the first store
 * after an event (every migration is one) to the lock. Under the turns
 * (plugin_turns.c) one thread's guest code runs at a time, and a thread
 * waiting for its turn touches the model only once it has it, so nothing
 * races a store: it takes model_store_serial, plain writes and no lock,
 * until the turns end (plugin_store_parallel). On a guest that spills to
 * its stack between migrations the quick path's locked OR on the page's
 * bitmap was a quarter of its time, and the lock for the first stores
 * after each migration another fifth.
 *
 * A cache's entries are keyed by the guest address, the model's by the
 * canonical one (plugin_alias.c): when the double mappings change, every
 * cache is emptied (plugin_store_forget_pages).
 *
 * The thread each vCPU runs is told to this unit by the scheduler
 * (plugin_store_thread_placed), so that the store path needs nothing above it.
 */
#include "model_coherence_quick.h"
#include "plugin_keep.h"
#include "plugin_store.h"
#include "plugin_vcpu.h"

/* Slots per vCPU: a program's hot store targets (stack, a few heap pages,
 * a JIT's buffer) rarely collide in 64. */
#define STORE_CACHE_SLOTS 64
/* vCPUs with a cache; a guest with more live threads than this takes the
 * locked path for the others. */
#define STORE_CACHE_VCPUS 256
/* Access sizes remembered (size_shift). */
#define SIZE_MEMO_SLOTS 16

/*
 * Only the vCPU a cache belongs to fills its slots (under the lock); other
 * threads only empty them, also under the lock, by zeroing KEY: when the
 * double mappings change (plugin_store_forget_pages) or the vCPU's thread
 * exits. So the hot path needs no generation or liveness check: an empty
 * slot sends the store to the locked path, which finds the current
 * canonical page, or no thread at all.
 */
struct store_cache {
  unsigned cluster; /* atomic: the cluster of the thread on the vCPU */
  unsigned serial;  /* atomic: that thread's serial (the store's writer) */
  struct {
    uint64_t key; /* atomic: page number + 1; 0 = empty */
    struct model_page *page;
  } slot[STORE_CACHE_SLOTS];
};

struct plugin_store {
  /* In place rather than allocated per vCPU: one dependent load fewer on
   * every store (264 KiB of zero pages until vCPUs touch them). */
  struct store_cache caches[STORE_CACHE_VCPUS];
  /* One more than the highest vCPU ever placed (written under the lock):
   * the caches plugin_store_forget_pages must empty, on every mmap of a JIT. */
  unsigned caches_used;
  /* The model's clock, read by every quick store. */
  const uint64_t *model_clock;
  /* meminfo -> access size: info << 8 | 0x80 | shift, or 0. Calling
   * qemu_plugin_mem_size_shift through the PLT for every store made the
   * callback a non-leaf function, which cost more than the rest of its hot
   * path; a program uses a handful of meminfo values. Keyed by the whole
   * value, so nothing depends on how QEMU lays it out. */
  uint64_t size_memo[SIZE_MEMO_SLOTS];
  /* vCPU index -> the struct model_thread it runs (the lock held). */
  GPtrArray *thread_of_vcpu;
  struct plugin_rig *rig; /* its lock and model, for the locked path */
  bool note_code_stores;  /* plugin_rig_adversary_hands_over */
  /* Atomic: one thread's guest code runs at a time (the turns, until they
   * are given up): stores take model_store_serial. */
  bool serial;
  /* Page records of unmapped memory and writers' tables, oldest first,
   * waiting until no vCPU can still hold them (plugin_store_retire). */
  GQueue retired;
  /* Writers' tables the model gave up, not yet in a batch (retire_table). */
  GPtrArray *tables;
  /* Told of every store made under the lock (plugin_store_watch). */
  void (*watch)(void *ctx, uint64_t vaddr, unsigned bytes, uint64_t writer_pc);
  void *watch_ctx;
  /* Told of it after the model (plugin_store_after_locked). */
  plugin_store_locked_fn after_locked;
};

/* Page records and writers' tables retired together, and each vCPU's
 * instruction count then. */
struct retired_batch {
  GPtrArray *pages;  /* model_page_free'd, or NULL */
  GPtrArray *tables; /* g_free'd, or NULL */
  GArray *insns;     /* uint64_t, indexed by vCPU */
};

/* Writers' tables of pages made dense, freed a batch at a time: a batch
 * costs a snapshot of every vCPU's count, a table 8 KiB. */
#define TABLES_PER_BATCH 64

static void retire_table(void *ctx, void *table);

struct plugin_store *plugin_store_new(struct plugin_rig *rig)
{
  struct plugin_store *st = g_new0(struct plugin_store, 1);
  st->model_clock = model_clock(rig->model);
  st->thread_of_vcpu = g_ptr_array_new();
  st->rig = rig;
  st->note_code_stores = plugin_rig_adversary_hands_over(rig);
  st->serial = !rig->opts.parallel;
  st->tables = g_ptr_array_new_with_free_func(g_free);
  model_retire_writers_to(rig->model, retire_table, st);
  return st;
}

static void forget_slots(struct store_cache *c)
{
  for (size_t i = 0; i < STORE_CACHE_SLOTS; i++) {
    __atomic_store_n(&c->slot[i].key, 0, __ATOMIC_RELAXED);
  }
}

void plugin_store_thread_placed(struct plugin_store *st, unsigned vcpu, struct model_thread *mt)
{
  if (vcpu < STORE_CACHE_VCPUS) {
    __atomic_store_n(&st->caches[vcpu].cluster, mt->cluster, __ATOMIC_RELAXED);
    __atomic_store_n(&st->caches[vcpu].serial, mt->serial, __ATOMIC_RELAXED);
    st->caches_used = MAX(st->caches_used, vcpu + 1);
  }
  if (st->thread_of_vcpu->len <= vcpu) {
    g_ptr_array_set_size(st->thread_of_vcpu, (gint)vcpu + 1);
  }
  g_ptr_array_index(st->thread_of_vcpu, vcpu) = mt;
}

void plugin_store_thread_gone(struct plugin_store *st, unsigned vcpu)
{
  if (vcpu < STORE_CACHE_VCPUS) {
    forget_slots(&st->caches[vcpu]);
  }
  if (vcpu < st->thread_of_vcpu->len) {
    g_ptr_array_index(st->thread_of_vcpu, vcpu) = NULL;
  }
}

void plugin_store_forget_pages(struct plugin_store *st)
{
  for (unsigned i = 0; i < st->caches_used; i++) {
    forget_slots(&st->caches[i]);
  }
}

static void batch_free(struct retired_batch *b)
{
  if (b->pages) {
    g_ptr_array_unref(b->pages);
  }
  if (b->tables) {
    g_ptr_array_unref(b->tables);
  }
  g_array_unref(b->insns);
  g_free(b);
}

void plugin_store_free(struct plugin_store *st)
{
  if (st) {
    model_retire_writers_to(st->rig->model, NULL, NULL);
    struct retired_batch *b;
    while ((b = g_queue_pop_head(&st->retired))) {
      batch_free(b);
    }
    g_ptr_array_unref(st->tables);
    g_ptr_array_unref(st->thread_of_vcpu);
    g_free(st);
  }
}

/*
 * Freeing the records of unmapped memory. Two kinds of reader may hold a
 * record without the lock: a store callback between reading its cache slot
 * and its quick store (record_store), and a fetch check of a TB translated
 * before the unmap (plugin_instrument.c keeps the word's address). QEMU
 * drops the TBs of executable memory it unmaps before the syscall returns
 * (page_set_flags in accel/tcg/user-exec.c), and plugin_store_retire empties
 * every cache slot, so no NEW access can reach a retired record; only a
 * callback already running on another vCPU can. Such a callback ends
 * before its vCPU starts another observing TB (whose inline add moves the
 * instruction count, plugin_vcpu.h; a quiet TB moves nothing, so a vCPU
 * running only quiet TBs keeps the batch alive a little longer) or enters
 * a syscall (plugin_store_syscall). So a
 * batch is freed once every vCPU has done one or the other since the batch
 * was retired. A vCPU blocked in a syscall or gone holds nothing, so a
 * waiting thread does not keep the memory alive.
 *
 * A page's table of writers goes the same way when the page is made
 * dense (retire_table): a store callback that read the table before the
 * page went dense may still write into it. On the Racket row those tables
 * were 51 MiB of the peak, kept for the life of their pages.
 */
static uint64_t vcpu_insns(const struct plugin_rig *rig, unsigned vcpu)
{
  return plugin_vcpu_clock_counts(plugin_vcpu(rig, vcpu)).insns;
}

static bool batch_quiescent(const struct plugin_store *st, const struct retired_batch *b)
{
  for (guint i = 0; i < b->insns->len; i++) {
    const struct plugin_vcpu *v = plugin_vcpu(st->rig, i);
    if (!__atomic_load_n(&v->in_syscall, __ATOMIC_ACQUIRE) &&
        vcpu_insns(st->rig, i) == g_array_index(b->insns, uint64_t, i)) {
      return false;
    }
  }
  return true;
}

static void reclaim(struct plugin_store *st)
{
  struct retired_batch *b;
  while ((b = g_queue_peek_head(&st->retired)) && batch_quiescent(st, b)) {
    if (b->pages) {
      model_pages_released(st->rig->model, b->pages->len);
    }
    batch_free(g_queue_pop_head(&st->retired));
  }
}

/* A batch of PAGES (or NULL) and of the tables waiting, counted from now. */
static void batch_push(struct plugin_store *st, GPtrArray *pages)
{
  struct retired_batch *b = g_new(struct retired_batch, 1);
  b->pages = pages;
  b->tables = NULL;
  if (st->tables->len) {
    b->tables = st->tables;
    st->tables = g_ptr_array_new_with_free_func(g_free);
  }
  unsigned n = (unsigned)qemu_plugin_num_vcpus();
  b->insns = g_array_sized_new(false, false, sizeof(uint64_t), n);
  for (unsigned i = 0; i < n; i++) {
    uint64_t insns = vcpu_insns(st->rig, i);
    g_array_append_val(b->insns, insns);
  }
  g_queue_push_tail(&st->retired, b);
}

void plugin_store_retire(struct plugin_store *st, GPtrArray *pages)
{
  reclaim(st);
  if (pages->len == 0) {
    g_ptr_array_unref(pages);
    return;
  }
  plugin_store_forget_pages(st);
  g_ptr_array_set_free_func(pages, (GDestroyNotify)model_page_free);
  batch_push(st, pages);
}

/* The model's hook for a page made dense (model_retire_writers_to), under
 * the lock: its table of writers, which a store callback that read it
 * before the page went dense may still be writing, as a retired page's
 * record may still be read. */
static void retire_table(void *ctx, void *table)
{
  struct plugin_store *st = ctx;
  g_ptr_array_add(st->tables, table);
  if (st->tables->len >= TABLES_PER_BATCH) {
    reclaim(st);
    batch_push(st, NULL);
  }
}

void plugin_store_watch(struct plugin_store *st,
                        void (*fn)(void *ctx, uint64_t vaddr, unsigned bytes, uint64_t writer_pc),
                        void *ctx)
{
  st->watch = fn;
  st->watch_ctx = ctx;
}

void plugin_store_after_locked(struct plugin_store *st, plugin_store_locked_fn fn)
{
  st->after_locked = fn;
}

void plugin_store_parallel(struct plugin_store *st)
{
  __atomic_store_n(&st->serial, false, __ATOMIC_SEQ_CST);
}

void plugin_store_syscall(struct plugin_store *st, unsigned vcpu, bool entered)
{
  __atomic_store_n(&plugin_vcpu(st->rig, vcpu)->in_syscall, entered, __ATOMIC_RELEASE);
}

static size_t size_memo_index(qemu_plugin_meminfo_t info)
{
  return (info ^ info >> 4 ^ info >> 8) % SIZE_MEMO_SLOTS;
}

__attribute__((noinline, cold)) static unsigned size_shift_slow(struct plugin_store *st,
                                                                qemu_plugin_meminfo_t info)
{
  unsigned shift = qemu_plugin_mem_size_shift(info);
  __atomic_store_n(&st->size_memo[size_memo_index(info)], (uint64_t)info << 8 | 0x80 | shift,
                   __ATOMIC_RELAXED);
  return shift;
}

static inline unsigned size_shift(struct plugin_store *st, qemu_plugin_meminfo_t info)
{
  uint64_t memo = __atomic_load_n(&st->size_memo[size_memo_index(info)], __ATOMIC_RELAXED);
  if (memo >> 8 == info && memo & 0x80) {
    return memo & 0x7f;
  }
  return size_shift_slow(st, info);
}

/* The locked path: a miss in C (then VADDR's record is looked up and C's
 * slot for it filled), a page with per-word records, or a store that
 * leaves its block. PAGE is VADDR's cached record, or NULL. */
__attribute__((noinline, cold)) static void store_locked(struct plugin_store *st, unsigned vcpu,
                                                         struct store_cache *c,
                                                         struct model_page *page, uint64_t vaddr,
                                                         unsigned bytes, uint64_t writer_pc)
{
  struct plugin_rig *rig = st->rig;
  plugin_rig_lock(rig);
  struct model_thread *mt =
      vcpu < st->thread_of_vcpu->len ? g_ptr_array_index(st->thread_of_vcpu, vcpu) : NULL;
  uint64_t page_number = vaddr >> MODEL_PAGE_SHIFT;
  if (page && __atomic_load_n(&c->slot[page_number % STORE_CACHE_SLOTS].key, __ATOMIC_RELAXED) !=
                  page_number + 1) {
    page = NULL; /* emptied since it was read: the record may be retired */
  }
  if (mt && st->watch) {
    st->watch(st->watch_ctx, vaddr, bytes, writer_pc);
  }
  if (mt && page) {
    model_store_on_page(rig->model, mt, page, vaddr, bytes, writer_pc);
  } else if (mt) {
    model_store(rig->model, mt, vaddr, bytes, writer_pc);
    if (c) {
      size_t i = page_number % STORE_CACHE_SLOTS;
      page = c->slot[i].page = model_store_page(rig->model, vaddr);
      __atomic_store_n(&c->slot[i].key, page_number + 1, __ATOMIC_RELAXED);
    }
  }
  if (mt && st->after_locked) {
    /* The running TB may be the code it overwrote (plugin_selfstore.c). */
    st->after_locked(rig, vcpu, mt, vaddr, bytes, writer_pc);
  }
  /* A store to a page the model keeps per-word records for (fetched from or
   * maintained: code) always takes this path; the adversary's hand-over
   * waits for the instruction that may publish it (plugin_turns.c). */
  if (mt && page && st->note_code_stores && __atomic_load_n(&page->densifying, __ATOMIC_RELAXED)) {
    plugin_vcpu(rig, vcpu)->clock.code_stored = 1;
  }
  plugin_rig_unlock(rig);
}

/* model_store_quick, out of the hot path: it runs only once stores may
 * race (plugin_store_parallel). */
__attribute__((noinline, cold)) static bool store_racing(struct plugin_store *st,
                                                         struct model_page *page, uint64_t vaddr,
                                                         unsigned bytes, uint64_t writer_pc,
                                                         unsigned cluster, unsigned writer)
{
  return model_store_quick(st->model_clock, page, vaddr, bytes, writer_pc, cluster, writer);
}

/* One store of BYTES at VADDR by the instruction at WRITER_PC. Inlined in
 * each callback, with model_store_serial: a call per store showed in the
 * profile. */
__attribute__((always_inline)) static inline void record_store(struct plugin_store *st,
                                                               unsigned vcpu, uint64_t vaddr,
                                                               unsigned bytes, uint64_t writer_pc)
{
  if (__builtin_expect(vcpu >= STORE_CACHE_VCPUS, 0)) {
    store_locked(st, vcpu, NULL, NULL, vaddr, bytes, writer_pc);
    return;
  }
  struct store_cache *c = &st->caches[vcpu];
  struct model_page *page = NULL;
  uint64_t page_number = vaddr >> MODEL_PAGE_SHIFT;
  size_t i = page_number % STORE_CACHE_SLOTS;
  if (__atomic_load_n(&c->slot[i].key, __ATOMIC_RELAXED) == page_number + 1) {
    page = c->slot[i].page;
    unsigned cluster = __atomic_load_n(&c->cluster, __ATOMIC_RELAXED);
    unsigned writer = __atomic_load_n(&c->serial, __ATOMIC_RELAXED);
    if (__builtin_expect(__atomic_load_n(&st->serial, __ATOMIC_RELAXED), 1)
            ? model_store_serial(st->model_clock, page, vaddr, bytes, writer_pc, cluster, writer)
            : store_racing(st, page, vaddr, bytes, writer_pc, cluster, writer)) {
      return;
    }
  }
  store_locked(st, vcpu, c, page, vaddr, bytes, writer_pc);
}

/* Registered for QEMU_PLUGIN_MEM_W only. UDATA is the storing
 * instruction's address (the finding's writer). */
void plugin_store_on_store(struct plugin_store *st, unsigned vcpu, qemu_plugin_meminfo_t info,
                           uint64_t vaddr, void *udata)
{
  record_store(st, vcpu, vaddr, 1u << size_shift(st, info), (uint64_t)(uintptr_t)udata);
}

/* What a group's leader records (model_store_groups.h), relative to its address. */
struct group_record {
  uint32_t n;
  struct {
    int64_t offset;
    uint32_t bytes;
    uint64_t writer_pc;
  } range[];
};

void *plugin_store_group_record(struct plugin_store *st, const struct model_store_group *g,
                                const uint64_t *insn_pc)
{
  struct group_record *r = g_malloc(sizeof(*r) + g->nranges * sizeof(r->range[0]));
  r->n = g->nranges;
  for (uint32_t i = 0; i < g->nranges; i++) {
    r->range[i].offset = g->range[i].offset;
    r->range[i].bytes = g->range[i].bytes;
    r->range[i].writer_pc = insn_pc[g->range[i].last_insn];
  }
  return plugin_keep_until_exit(st->rig->keep, r);
}

/* A span's userdata: the writer's address in the low bits (an AArch64
 * user address has at most 48) and the bytes above. Packed rather than
 * pointing to a record, so the hottest callback (a lone store, or a group
 * that writes on from its leader's address: most of a store-heavy guest's
 * stores) loads no userdata and no access size. */
#define SPAN_BYTES_SHIFT 48
_Static_assert(sizeof(void *) == sizeof(uint64_t), "a span's userdata is a 64-bit pointer");

void *plugin_store_span_udata(uint64_t writer_pc, uint32_t bytes)
{
  if (writer_pc >> SPAN_BYTES_SHIFT || bytes == 0 || bytes >> (64 - SPAN_BYTES_SHIFT)) {
    return NULL;
  }
  return (void *)(uintptr_t)(writer_pc | (uint64_t)bytes << SPAN_BYTES_SHIFT);
}

void plugin_store_on_span(struct plugin_store *st, unsigned vcpu, uint64_t vaddr, void *udata)
{
  uint64_t span = (uint64_t)(uintptr_t)udata;
  record_store(st, vcpu, vaddr, (unsigned)(span >> SPAN_BYTES_SHIFT),
               span & ((UINT64_C(1) << SPAN_BYTES_SHIFT) - 1));
}

void plugin_store_on_group(struct plugin_store *st, unsigned vcpu, uint64_t vaddr, void *udata)
{
  const struct group_record *r = udata;
  for (uint32_t i = 0; i < r->n; i++) {
    record_store(st, vcpu, vaddr + (uint64_t)r->range[i].offset, r->range[i].bytes,
                 r->range[i].writer_pc);
  }
}
