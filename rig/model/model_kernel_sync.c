/*
 * What arm64 Linux does for user code by itself (model_kernel_sync.h), and why.
 *
 * The flag. Each page (folio) has PG_dcache_clean (PG_arch_1,
 * arch/arm64/include/asm/cacheflush.h): set, the kernel knows the page's
 * D-side is clean and its I-side invalid for it. It is clear on a freshly
 * allocated page, since page flags are reset when a page is freed; and
 * flush_dcache_folio() (flush_dcache_page() before folios,
 * arch/arm64/mm/flush.c) clears it whenever the kernel writes a page:
 * page-cache reads and writes, shmem zeroing a new page, the copy of a
 * copy-on-write fault (copy_user_highpage). Nothing a user store does
 * touches it.
 *
 * The sync. set_ptes() calls __sync_cache_and_tags()
 * (arch/arm64/include/asm/pgtable.h), which for a present, user-executable,
 * non-special entry calls __sync_icache_dcache() (arch/arm64/mm/flush.c):
 * when the flag is clear, sync_icache_aliases() cleans the D-side and
 * invalidates the I-side over the whole folio (the whole I-cache when it
 * may alias), then the flag is set. So the page is synced the first time
 * it is mapped user-executable while the flag is clear: by mmap with
 * PROT_EXEC (at the fault that maps each page), by mprotect adding
 * PROT_EXEC (change_pte_range rewrites the present entries through
 * set_ptes), or at the first fault of a lazily mapped executable view.
 * Later executable mappings of the same page find the flag set and do
 * nothing: code rewritten after the first publication needs the
 * program's own maintenance. mremap moves the entries (move_ptes) and
 * madvise drops them; neither writes a page, so neither clears the flag.
 *
 * Copy-on-write after fork (mm/memory.c, wp_page_copy): the first store
 * to a private page both processes still map copies it into a new page,
 * whose flags are clear and which copy_user_highpage() leaves clear
 * (arch/arm64/mm/copypage.c: copy_highpage, then flush_dcache_page on the
 * copy); the fault installs the new entry through set_ptes, so an RWX
 * copy is synced right there, before the faulting store is made. The rig
 * models the child's first store to each page it had at the fork as that
 * copy (model_kernel_forked, model_kernel_store).
 *
 * Older kernels (MODEL_KERNEL_ANON_SKIP): __sync_icache_dcache returned at
 * once for a page without page_mapping(), which anonymous memory and a
 * copy-on-write copy are ("no flushing needed for anonymous pages"; the
 * tags v3.11 to v4.6 have it, v3.7 to v3.9 and v4.7 on do not, Samsung's
 * 3.18.14 Exynos 8890 tree has it: docs/COHERENCE-MODEL.md lists the
 * sources read). Shared memory and file pages have a mapping and were
 * synced as today. macOS,
 * Windows and the BSDs give no such guarantee (docs/COHERENCE-MODEL.md).
 *
 * Kernel writes into an executable mapping (ptrace POKETEXT,
 * /proc/PID/mem, process_vm_writev) go through copy_to_user_page() ->
 * flush_ptrace_access(), which syncs the range written. The rig does not
 * see those bytes as stores at all, so the model holds no stale store for
 * them and needs no event here.
 */
#include "rig_release.h"
#include "model_kernel_sync.h"

#define PAGE_SHIFT MODEL_PAGE_SHIFT
#define PAGE_SIZE (UINT64_C(1) << PAGE_SHIFT)

struct model_kernel {
  struct model *m;
  enum model_kernel_sync_mode mode;
  enum model_kernel_version version;
  GHashTable *clean;     /* canonical page numbers whose flag is set */
  GHashTable *lazy;      /* view VA page number -> note index + 1 */
  GHashTable *published; /* canonical page number -> note index + 1 */
  GHashTable *exec;      /* private page numbers mapped executable now */
  GHashTable *cow;       /* private page numbers shared with the parent */
  GArray *notes;         /* struct model_kernel_note */
};

struct model_kernel *model_kernel_new(struct model *m, enum model_kernel_sync_mode mode)
{
  struct model_kernel *k = g_new0(struct model_kernel, 1);
  k->m = m;
  k->mode = mode;
  k->clean = g_hash_table_new(g_direct_hash, g_direct_equal);
  k->lazy = g_hash_table_new(g_direct_hash, g_direct_equal);
  k->published = g_hash_table_new(g_direct_hash, g_direct_equal);
  k->exec = g_hash_table_new(g_direct_hash, g_direct_equal);
  k->cow = g_hash_table_new(g_direct_hash, g_direct_equal);
  k->notes = g_array_new(false, true, sizeof(struct model_kernel_note));
  model_trust_kernel_sync(m, mode == MODEL_KERNEL_SYNC_LINUX);
  return k;
}

void model_kernel_free(struct model_kernel *k)
{
  if (k) {
    RIG_RELEASE(g_hash_table_destroy, GHashTable, k->clean, k->lazy, k->published, k->exec, k->cow);
    g_array_unref(k->notes);
    g_free(k);
  }
}

void model_kernel_set_version(struct model_kernel *k, enum model_kernel_version version)
{
  k->version = version;
}

/* The index (from 1) of the note of CALL at PC/LR, made if new. */
static guint note_of(struct model_kernel *k, const char *call, uint64_t pc, uint64_t lr)
{
  for (guint i = 0; i < k->notes->len; i++) {
    const struct model_kernel_note *n = &g_array_index(k->notes, struct model_kernel_note, i);
    if (n->pc == pc && n->lr == lr && g_str_equal(n->call, call)) {
      return i + 1;
    }
  }
  struct model_kernel_note n = {.call = call, .pc = pc, .lr = lr};
  g_array_append_val(k->notes, n);
  return k->notes->len;
}

/* __sync_icache_dcache for the page CANON, on behalf of note NOTE; ANON:
 * a private page, which has no page_mapping(). */
static bool sync_page(struct model_kernel *k, uint64_t canon, bool anon, guint note)
{
  if (anon && k->version == MODEL_KERNEL_ANON_SKIP) {
    return false; /* returns before it looks at the flag */
  }
  gpointer key = GSIZE_TO_POINTER(canon >> PAGE_SHIFT);
  if (g_hash_table_contains(k->clean, key)) {
    return false; /* PG_dcache_clean set: the kernel does nothing */
  }
  g_hash_table_add(k->clean, key);
  unsigned published = model_kernel_sync(k->m, canon);
  if (published && k->mode == MODEL_KERNEL_SYNC_LINUX) {
    struct model_kernel_note *n = &g_array_index(k->notes, struct model_kernel_note, note - 1);
    n->pages++;
    n->words += published;
    g_hash_table_insert(k->published, key, GUINT_TO_POINTER(note));
  }
  return true;
}

bool model_kernel_exec_mapped(struct model_kernel *k, uint64_t canon, bool anon, const char *call,
                              uint64_t pc, uint64_t lr)
{
  if (anon) {
    g_hash_table_add(k->exec, GSIZE_TO_POINTER(canon >> PAGE_SHIFT));
  }
  return sync_page(k, canon, anon, note_of(k, call, pc, lr));
}

/* Removes the page numbers of [START, END) from TABLE. */
static void drop_pages(GHashTable *table, uint64_t start, uint64_t end)
{
  if (end <= start) {
    return;
  }
  uint64_t first = start >> PAGE_SHIFT, last = (end - 1) >> PAGE_SHIFT;
  if (last - first >= g_hash_table_size(table)) {
    GHashTableIter it;
    gpointer key;
    g_hash_table_iter_init(&it, table);
    while (g_hash_table_iter_next(&it, &key, NULL)) {
      uint64_t p = GPOINTER_TO_SIZE(key);
      if (p >= first && p <= last) {
        g_hash_table_iter_remove(&it);
      }
    }
    return;
  }
  for (uint64_t p = first; p <= last; p++) {
    g_hash_table_remove(table, GSIZE_TO_POINTER(p));
  }
}

void model_kernel_written(struct model_kernel *k, uint64_t start, uint64_t end)
{
  /* flush_dcache_folio: the next executable mapping syncs again. */
  drop_pages(k->clean, start, end);
}

void model_kernel_fresh(struct model_kernel *k, uint64_t start, uint64_t end)
{
  /* A new page's flags are clear (they are reset when a page is freed). */
  drop_pages(k->clean, start, end);
  drop_pages(k->published, start, end);
  drop_pages(k->cow, start, end); /* the parent never saw them */
}

void model_kernel_not_exec(struct model_kernel *k, uint64_t va, uint64_t len)
{
  drop_pages(k->exec, va, va + len);
}

/* Adds PAGE to K's copy-on-write pages when IS_PRIVATE says it is private. */
static void share_if_private(struct model_kernel *k, uint64_t page,
                             bool (*is_private)(uint64_t canon, void *ctx), void *ctx)
{
  if (is_private(page << PAGE_SHIFT, ctx)) {
    g_hash_table_add(k->cow, GSIZE_TO_POINTER(page));
  }
}

void model_kernel_forked(struct model_kernel *k, bool (*is_private)(uint64_t canon, void *ctx),
                         void *ctx)
{
  /* copy_page_range: fork shares every present private page with the
   * child, write-protected in both. A page the model holds stores of, or
   * whose flag is set, is one the parent had touched. */
  g_hash_table_remove_all(k->cow);
  GArray *pages = g_array_new(false, false, sizeof(uint64_t));
  model_page_numbers(k->m, pages);
  for (guint i = 0; i < pages->len; i++) {
    share_if_private(k, g_array_index(pages, uint64_t, i), is_private, ctx);
  }
  g_array_unref(pages);
  GHashTableIter it;
  gpointer key;
  g_hash_table_iter_init(&it, k->clean);
  while (g_hash_table_iter_next(&it, &key, NULL)) {
    share_if_private(k, GPOINTER_TO_SIZE(key), is_private, ctx);
  }
}

bool model_kernel_cow_pending(const struct model_kernel *k)
{
  return g_hash_table_size(k->cow) != 0;
}

bool model_kernel_store(struct model_kernel *k, uint64_t canon, uint64_t pc)
{
  gpointer key = GSIZE_TO_POINTER(canon >> PAGE_SHIFT);
  if (!g_hash_table_remove(k->cow, key)) {
    return false; /* the child's own page, or already copied */
  }
  /* wp_page_copy: a new folio (flags clear), filled by copy_user_highpage,
   * whose flush_dcache_page keeps the flag clear; then set_ptes installs
   * the writable entry, executable when the mapping is, which syncs the
   * copy. The store is made after the fault returns. */
  g_hash_table_remove(k->clean, key);
  if (!g_hash_table_contains(k->exec, key)) {
    return false;
  }
  return sync_page(k, canon, true, note_of(k, "copy-on-write fault", pc, 0));
}

/* Moves TABLE's entries for the pages of [OLD, OLD + LEN) to NEW. */
static void move_pages(GHashTable *table, uint64_t old, uint64_t new_start, uint64_t len)
{
  if (len == 0) {
    return;
  }
  uint64_t first = old >> PAGE_SHIFT, last = (old + len - 1) >> PAGE_SHIFT;
  GArray *moving = g_array_new(false, false, sizeof(gpointer[2]));
  GHashTableIter it;
  gpointer key, value;
  g_hash_table_iter_init(&it, table);
  while (g_hash_table_iter_next(&it, &key, &value)) {
    uint64_t p = GPOINTER_TO_SIZE(key);
    if (p >= first && p <= last) {
      gpointer entry[2] = {GSIZE_TO_POINTER(p - first + (new_start >> PAGE_SHIFT)), value};
      g_array_append_val(moving, entry);
      g_hash_table_iter_remove(&it);
    }
  }
  drop_pages(table, new_start, new_start + len);
  for (guint i = 0; i < moving->len; i++) {
    gpointer *entry = &g_array_index(moving, gpointer, 2 * i);
    g_hash_table_insert(table, entry[0], entry[1]);
  }
  g_array_unref(moving);
}

void model_kernel_move(struct model_kernel *k, uint64_t old, uint64_t new_start, uint64_t len)
{
  move_pages(k->clean, old, new_start, len);
  move_pages(k->published, old, new_start, len);
  move_pages(k->exec, old, new_start, len);
  move_pages(k->cow, old, new_start, len);
}

void model_kernel_lazy_view(struct model_kernel *k, uint64_t va, uint64_t len, const char *call,
                            uint64_t pc, uint64_t lr)
{
  guint note = note_of(k, call, pc, lr);
  for (uint64_t p = va >> PAGE_SHIFT; len && p <= (va + len - 1) >> PAGE_SHIFT; p++) {
    g_hash_table_insert(k->lazy, GSIZE_TO_POINTER(p), GUINT_TO_POINTER(note));
  }
}

void model_kernel_view_gone(struct model_kernel *k, uint64_t va, uint64_t len)
{
  drop_pages(k->lazy, va, va + len);
}

void model_kernel_fetch(struct model_kernel *k, uint64_t va, uint64_t canon)
{
  gpointer view_page = GSIZE_TO_POINTER(va >> PAGE_SHIFT);
  guint lazy = GPOINTER_TO_UINT(g_hash_table_lookup(k->lazy, view_page));
  if (lazy) {
    /* The first access through the view faults the page in: set_ptes with
     * an executable entry, so __sync_icache_dcache runs now. */
    g_hash_table_remove(k->lazy, view_page);
    sync_page(k, canon, false, lazy);
  }
  gpointer page = GSIZE_TO_POINTER(canon >> PAGE_SHIFT);
  guint note = GPOINTER_TO_UINT(g_hash_table_lookup(k->published, page));
  if (note) {
    g_array_index(k->notes, struct model_kernel_note, note - 1).fetched = true;
    g_hash_table_remove(k->published, page);
  }
}

const GArray *model_kernel_notes(const struct model_kernel *k)
{
  return k->notes;
}
