/*
 * Double-mapped code (W^X JITs): one RW view and one RX view of the same
 * shared file or memfd pages. The caches are physically tagged for data and
 * the model must see that a store through the RW view dirties the word the
 * RX view fetches, so every address the model handles is first mapped to a
 * canonical one: for a MAP_SHARED file mapping, the file's identity plus
 * the offset in the file; for everything else, the virtual address itself.
 * Guest VAs are below 2^56, so canonical file addresses set bit 63.
 *
 * The mappings are learnt from the guest's mmap/munmap/mremap syscalls
 * (linux-user passes guest fds through to the host, so fstat on the host
 * names the file) and its System V shmat/shmdt (the segment's id names it).
 * Offsets are page aligned, so cache lines stay aligned. Shared anonymous
 * mappings are kept too, keyed by their own address: madvise must tell
 * them from private memory. The same syscalls, brk and madvise tell the
 * model which memory went away or was given new contents
 * (forget_unmapped, "Memory released"), so that its records of unmapped
 * pages are freed.
 *
 * Each mapping also remembers whether it is executable (mmap's prot, then
 * every mprotect), because the I-side does not treat the views alike: a
 * VIPT instruction cache is indexed by the virtual address, so an
 * `ic ivau` through one view may miss the lines another executable view
 * filled (docs/COHERENCE-MODEL.md#double-mapped-code-and-vipt-instruction-caches;
 * the model tells views apart by their distance from the canonical
 * address, model_view).
 * plugin_alias_nonexec_view says when an address is a view nothing is fetched
 * through: a non-executable mapping of file pages that some other,
 * executable, mapping also shows. A file mapped once and flipped between
 * RW and RX with mprotect has no second view, so maintenance through its
 * one address always counts.
 */
#define _GNU_SOURCE /* fstat on a host fd */
#include <string.h>
#include <sys/shm.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rig_release.h"
#include "model_kernel_sync.h"
#include "plugin_alias.h"
#include "plugin_store.h"

#define NR_SHMDT 197
#define NR_SHMAT 196
#define NR_BRK 214
#define NR_MUNMAP 215
#define NR_MREMAP 216
#define NR_MMAP 222
#define NR_MPROTECT 226
#define NR_MADVISE 233
#define NR_WRITE 64
#define NR_PWRITE64 68
#define GUEST_PROT_WRITE 0x2
#define GUEST_PROT_EXEC 0x4
#define GUEST_PAGE UINT64_C(4096) /* mprotect rounds LEN up to pages */
#define GUEST_MAP_SHARED 0x01
#define GUEST_MAP_SHARED_VALIDATE 0x03
#define GUEST_MAP_ANONYMOUS 0x20
#define GUEST_MADV_DONTNEED 4
#define GUEST_SHM_EXEC 0100000
#define CANON_FILE_BIT (UINT64_C(1) << 63)
#define CANON_ID_SHIFT 44 /* file offsets below 16 TiB */

struct alias_map {
  uint64_t va;
  uint64_t len;
  uint64_t canon;      /* canonical address of VA: VA itself for shared
                          anonymous memory, else CANON_FILE_BIT set */
  bool exec;           /* mapped with PROT_EXEC (now) */
  bool nonexec_view;   /* not exec, and an exec mapping shows some of the
                          same file pages (recomputed at every change) */
  bool exec_elsewhere; /* another exec mapping shows some of its pages
                          (recomputed likewise): stores through it must
                          reach QEMU's translations of that one */
};

struct alias_range {
  uint64_t va, len;
};

struct plugin_alias {
  GArray *maps;         /* struct alias_map, sorted by va, disjoint */
  GHashTable *file_ids; /* "dev:ino" or "shm:ID" -> id (1..) */
  GArray *attached;     /* struct alias_range: System V segments (shmat) */
  uint64_t brk;         /* the program break brk last returned, 0 unknown */
  /* Lines of executable views whose bytes were stored through another
   * view since QEMU last translated them (plugin_alias_refresh_views); the
   * count is read without the lock. */
  GHashTable *stale_lines; /* exec-view VA of a VIEW_LINE-aligned line */
  unsigned stale_count;
};

/* A vCPU's syscall entry and return run in its host thread: the arguments
 * of the one syscall in flight there, and the model's page epoch when it
 * was entered (forget_unmapped), not shared state. */
static _Thread_local uint64_t mmap_args[6];
static _Thread_local uint64_t pages_made_before;
/* The svc and the link register of that syscall, for the kernel's notes;
 * and, for a write to a file some mapping shows, where in the file
 * (canonical) it writes, 0 for none. */
static _Thread_local uint64_t call_pc, call_lr, write_canon;

struct plugin_alias *plugin_alias_new(void)
{
  struct plugin_alias *a = g_new0(struct plugin_alias, 1);
  a->maps = g_array_new(false, false, sizeof(struct alias_map));
  a->file_ids = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
  a->attached = g_array_new(false, false, sizeof(struct alias_range));
  a->stale_lines = g_hash_table_new(g_direct_hash, g_direct_equal);
  return a;
}

void plugin_alias_free(struct plugin_alias *a)
{
  if (a) {
    RIG_RELEASE(g_array_unref, GArray, a->maps, a->attached);
    RIG_RELEASE(g_hash_table_destroy, GHashTable, a->file_ids, a->stale_lines);
    g_free(a);
  }
}

static uint64_t page_align_up(uint64_t len)
{
  return (len + GUEST_PAGE - 1) & ~(GUEST_PAGE - 1);
}

/* The mapping holding VA, or NULL when VA is in no shared mapping. */
static const struct alias_map *find(const struct plugin_alias *a, uint64_t va)
{
  const GArray *maps = a->maps;
  if (maps->len == 0) {
    return NULL;
  }
  guint lo = 0, hi = maps->len;
  while (lo < hi) {
    guint mid = lo + (hi - lo) / 2;
    const struct alias_map *m = &g_array_index(maps, struct alias_map, mid);
    if (va < m->va) {
      hi = mid;
    } else if (va - m->va >= m->len) {
      lo = mid + 1;
    } else {
      return m;
    }
  }
  return NULL;
}

uint64_t plugin_alias_canon(const struct plugin_alias *a, uint64_t va)
{
  const struct alias_map *m = find(a, va);
  return m ? m->canon + (va - m->va) : va;
}

bool plugin_alias_nonexec_view(const struct plugin_alias *a, uint64_t va)
{
  const struct alias_map *m = find(a, va);
  return m && m->nonexec_view;
}

static gboolean line_gone(gpointer key, gpointer value, gpointer data)
{
  (void)value;
  const struct alias_map *m = find(data, GPOINTER_TO_SIZE(key));
  return !m || !m->exec;
}

/*
 * Marks every non-executable mapping whose file range overlaps an
 * executable mapping's. Per mapping, not per page: an RW view larger than
 * its RX twin counts as a view over all of its range, which only matters
 * for pages nothing fetches. Runs at mmap/mprotect/munmap, quadratic in
 * the number of shared file mappings (a handful in a JIT), so that the
 * ic ivau callback is a binary search.
 */
static void recompute_views(struct plugin_alias *a, struct plugin_store *store)
{
  GArray *maps = a->maps;
  /* The store caches map guest pages to canonical records. */
  plugin_store_forget_pages(store);
  /* Marked lines no executable view shows any more are dropped: QEMU
   * dropped their translations when it unmapped or re-protected them. */
  g_hash_table_foreach_remove(a->stale_lines, line_gone, a);
  __atomic_store_n(&a->stale_count, g_hash_table_size(a->stale_lines), __ATOMIC_RELAXED);
  for (guint i = 0; i < maps->len; i++) {
    struct alias_map *m = &g_array_index(maps, struct alias_map, i);
    m->exec_elsewhere = false;
    for (guint j = 0; j < maps->len; j++) {
      const struct alias_map *x = &g_array_index(maps, struct alias_map, j);
      if (j != i && x->exec && x->canon < m->canon + m->len && m->canon < x->canon + x->len) {
        m->exec_elsewhere = true;
      }
    }
    m->nonexec_view = !m->exec && m->exec_elsewhere;
  }
}

static bool is_file(const struct alias_map *m)
{
  return (m->canon & CANON_FILE_BIT) != 0;
}

/* The part of M within [LO, HI), which must not be empty. */
static struct alias_map piece_of(const struct alias_map *m, uint64_t lo, uint64_t hi)
{
  struct alias_map piece = *m;
  piece.va = MAX(m->va, lo);
  piece.len = MIN(m->va + m->len, hi) - piece.va;
  piece.canon = m->canon + (piece.va - m->va);
  return piece;
}

/* Forgets what the mappings show of [va, va + len): replaced or unmapped.
 * The parts of a mapping outside the range stay. Each dropped part is
 * appended to DROPPED. Returns whether any was. */
static bool forget(struct plugin_alias *a, uint64_t va, uint64_t len, GArray *dropped)
{
  GArray *kept = g_array_new(false, false, sizeof(struct alias_map));
  guint before = dropped->len;
  uint64_t end = va + page_align_up(len);
  for (guint i = 0; i < a->maps->len; i++) {
    const struct alias_map *m = &g_array_index(a->maps, struct alias_map, i);
    if (m->va + m->len <= va || end <= m->va) {
      g_array_append_val(kept, *m);
      continue;
    }
    struct alias_map gone = piece_of(m, va, end);
    g_array_append_val(dropped, gone);
    if (m->va < va) {
      struct alias_map left = piece_of(m, m->va, va);
      g_array_append_val(kept, left);
    }
    if (end < m->va + m->len) {
      struct alias_map right = piece_of(m, end, m->va + m->len);
      g_array_append_val(kept, right);
    }
  }
  g_array_unref(a->maps);
  a->maps = kept; /* still sorted: pieces replace their mapping in order */
  return dropped->len > before;
}

static gint by_va(gconstpointer a, gconstpointer b)
{
  const struct alias_map *x = a, *y = b;
  return x->va < y->va ? -1 : x->va > y->va;
}

static void add_map(struct plugin_alias *a, uint64_t va, uint64_t len, uint64_t canon, bool exec)
{
  struct alias_map m = {.va = va, .len = page_align_up(len), .canon = canon, .exec = exec};
  g_array_append_val(a->maps, m);
  g_array_sort(a->maps, by_va);
}

/* The canonical address of OFFSET in the shared object named KEY (taken). */
static uint64_t file_canon(struct plugin_alias *a, char *key, uint64_t offset)
{
  uint64_t id = GPOINTER_TO_SIZE(g_hash_table_lookup(a->file_ids, key));
  if (id == 0) {
    id = g_hash_table_size(a->file_ids) + 1;
    g_hash_table_insert(a->file_ids, key, GSIZE_TO_POINTER(id));
  } else {
    g_free(key);
  }
  return CANON_FILE_BIT | (id << CANON_ID_SHIFT) | offset;
}

/* Returns whether the mapping was learnt (a file fstat could name). */
static bool learn(struct plugin_alias *a, uint64_t va, uint64_t len, int fd, uint64_t offset,
                  bool exec)
{
  struct stat st;
  if (fstat(fd, &st) != 0 || S_ISCHR(st.st_mode) || offset >= (UINT64_C(1) << CANON_ID_SHIFT)) {
    return false; /* a shared mapping of /dev/zero is anonymous memory */
  }
  char *key = g_strdup_printf("%ju:%ju", (uintmax_t)st.st_dev, (uintmax_t)st.st_ino);
  add_map(a, va, len, file_canon(a, key, offset), exec);
  return true;
}

/*
 * mprotect(VA, LEN, PROT) succeeded: the part of each mapping inside
 * [va, va + len) takes the new permission, split off from the rest.
 * Returns whether any mapping changed.
 */
static bool reprotect(struct plugin_alias *a, uint64_t va, uint64_t len, bool exec)
{
  GArray *maps = a->maps;
  uint64_t end = va + ((len + GUEST_PAGE - 1) & ~(GUEST_PAGE - 1));
  bool changed = false;
  GArray *pieces = g_array_new(false, false, sizeof(struct alias_map));
  for (guint i = 0; i < maps->len; i++) {
    const struct alias_map *m = &g_array_index(maps, struct alias_map, i);
    uint64_t m_end = m->va + m->len;
    if (m_end <= va || end <= m->va || m->exec == exec) {
      g_array_append_val(pieces, *m);
      continue;
    }
    changed = true;
    uint64_t cut[4] = {m->va, MAX(m->va, va), MIN(m_end, end), m_end};
    for (int k = 0; k < 3; k++) {
      if (cut[k] < cut[k + 1]) {
        struct alias_map piece = *m;
        piece.va = cut[k];
        piece.len = cut[k + 1] - cut[k];
        piece.canon = m->canon + (cut[k] - m->va);
        piece.exec = k == 1 ? exec : m->exec;
        g_array_append_val(pieces, piece);
      }
    }
  }
  g_array_unref(a->maps);
  a->maps = pieces; /* still sorted: pieces replace their mapping in order */
  return changed;
}

/* ---- the kernel's own maintenance ------------------------------------------- */

/* The most pages one call marks (a 1 GiB executable mapping); beyond it the
 * rest of a huge mapping is left to the faults the rig does not see
 * (docs/COHERENCE-MODEL.md, "What Linux does for you"). */
#define KERNEL_MAX_PAGES (UINT64_C(1) << 18)

/*
 * [VA, VA + LEN) was mapped afresh (FRESH, by mmap) or re-protected, with
 * PROT (lock held): what the kernel does for an executable mapping
 * (model_kernel_sync.c). Anonymous and private memory, and a writable executable
 * view (its first store faults it in), are synced now, page by page; a
 * read-only executable view of shared memory at its first fetch, when it
 * is faulted in. A mapping that is not executable takes no view's place.
 */
static void kernel_mapping(struct plugin_rig *rig, uint64_t va, uint64_t len, uint64_t prot,
                           bool fresh, const char *call)
{
  struct model_kernel *k = rig->kernel;
  len = page_align_up(len);
  model_kernel_view_gone(k, va, len);
  if (fresh) {
    /* The canonical keys of anonymous and private memory are its
     * addresses; shared files keep their pages (and flags). */
    model_kernel_fresh(k, va, va + len);
  }
  if (!(prot & GUEST_PROT_EXEC)) {
    model_kernel_not_exec(k, va, len);
    return;
  }
  uint64_t end = va + MIN(len, KERNEL_MAX_PAGES * GUEST_PAGE);
  for (uint64_t p = va; p < end; p += GUEST_PAGE) {
    const struct alias_map *m = find(rig->alias, p);
    if (m && is_file(m) && !(prot & GUEST_PROT_WRITE)) {
      model_kernel_lazy_view(k, p, GUEST_PAGE, call, call_pc, call_lr);
    } else {
      /* No shared mapping: private memory, anonymous for every page the
       * program stored to (a private file page it wrote is a copy). */
      model_kernel_exec_mapped(k, plugin_alias_canon(rig->alias, p), m == NULL, call, call_pc,
                               call_lr);
    }
  }
}

/* [VA, VA + LEN) is unmapped (lock held): its anonymous pages are freed. */
static void kernel_unmapped(struct plugin_rig *rig, uint64_t va, uint64_t len)
{
  model_kernel_view_gone(rig->kernel, va, page_align_up(len));
  model_kernel_fresh(rig->kernel, va, va + page_align_up(len));
  model_kernel_not_exec(rig->kernel, va, page_align_up(len));
}

/* Whether the canonical page address CANON is private memory (copied on
 * write after fork), not a shared file, segment or shared anonymous map. */
static bool is_private(uint64_t canon, void *ctx)
{
  const struct plugin_alias *a = ctx;
  return !(canon & CANON_FILE_BIT) && find(a, canon) == NULL;
}

void plugin_alias_forked(struct plugin_rig *rig)
{
  plugin_rig_lock(rig);
  model_kernel_forked(rig->kernel, is_private, rig->alias);
  plugin_rig_unlock(rig);
  /* The first store to each page takes the locked path, which faults the
   * copy (plugin_alias_note_store). */
  plugin_store_forget_pages(rig->store);
}

/* At the entry of write(FD, ...) or pwrite64(FD, ..., OFFSET) (lock
 * held): the canonical address of the file bytes it writes when a mapping
 * ever showed that file, else 0. linux-user passes guest fds to the host,
 * so the host's fstat and lseek name the file and the position. */
static uint64_t file_write_canon(struct plugin_alias *a, int64_t num, const uint64_t args[6])
{
  struct stat st;
  int fd = (int)args[0];
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    return 0;
  }
  char *key = g_strdup_printf("%ju:%ju", (uintmax_t)st.st_dev, (uintmax_t)st.st_ino);
  uint64_t id = GPOINTER_TO_SIZE(g_hash_table_lookup(a->file_ids, key));
  g_free(key);
  off_t at = num == NR_PWRITE64 ? (off_t)args[3] : lseek(fd, 0, SEEK_CUR);
  if (id == 0 || at < 0 || (uint64_t)at >= (UINT64_C(1) << CANON_ID_SHIFT)) {
    return 0;
  }
  return CANON_FILE_BIT | (id << CANON_ID_SHIFT) | (uint64_t)at;
}

/* ---- unmapped memory ------------------------------------------------------- */

/* The model forgets the file pages of [START, END) (canonical) that no
 * mapping from FROM on shows any more. */
static void forget_unshown(struct plugin_rig *rig, uint64_t start, uint64_t end, guint from,
                           GPtrArray *retired)
{
  const GArray *maps = rig->alias->maps;
  for (guint i = from; i < maps->len && start < end; i++) {
    const struct alias_map *m = &g_array_index(maps, struct alias_map, i);
    if (m->canon < end && start < m->canon + m->len) {
      forget_unshown(rig, start, m->canon, i + 1, retired);
      forget_unshown(rig, m->canon + m->len, end, i + 1, retired);
      return;
    }
  }
  if (start < end) {
    model_forget(rig->model, start, end, pages_made_before, retired);
  }
}

/* The model forgets the guest range [VA, VA + LEN) (RETIRED gets its
 * records; lock held). */
static void forget_range(struct plugin_rig *rig, uint64_t va, uint64_t len, GPtrArray *retired)
{
  model_forget(rig->model, va, va + page_align_up(len), pages_made_before, retired);
}

/* The shared objects' pages the mappings DROPPED showed: a file page is
 * forgotten once no mapping shows it, since the file keeps its bytes for
 * the next mapping while one does. Shared anonymous memory is keyed by
 * its address and goes with its range. */
static void forget_files(struct plugin_rig *rig, const GArray *dropped, GPtrArray *retired)
{
  for (guint i = 0; i < dropped->len; i++) {
    const struct alias_map *d = &g_array_index(dropped, struct alias_map, i);
    if (is_file(d)) {
      forget_unshown(rig, d->canon, d->canon + d->len, 0, retired);
    }
  }
}

/*
 * The syscall unmapped (or replaced) the guest range [VA, VA + LEN) and
 * dropped the shared mappings DROPPED (lock held): the model forgets what
 * it kept of that memory (model_coherence.h, model_forget).
 */
static void forget_unmapped(struct plugin_rig *rig, uint64_t va, uint64_t len,
                            const GArray *dropped)
{
  GPtrArray *retired = g_ptr_array_new();
  forget_range(rig, va, len, retired);
  forget_files(rig, dropped, retired);
  plugin_store_retire(rig->store, retired);
}

/* munmap(VA, LEN) succeeded, or shmdt of a segment attached there. */
static void unmapped(struct plugin_rig *rig, uint64_t va, uint64_t len)
{
  GArray *dropped = g_array_new(false, false, sizeof(struct alias_map));
  if (forget(rig->alias, va, len, dropped)) {
    recompute_views(rig->alias, rig->store);
  }
  forget_unmapped(rig, va, len, dropped);
  kernel_unmapped(rig, va, len);
  g_array_unref(dropped);
}

/*
 * mremap(OLD, OLD_LEN, NEW_LEN, ...) returned TO. The pages that moved
 * keep their records (model_move: the kernel's move does no cache
 * maintenance), whatever TO's range held before and the pages that left
 * OLD's range without moving are forgotten. A shared file mapping moved
 * whole keeps its file (and so its other view and its records); shared
 * anonymous memory is keyed by its new address.
 */
static void remapped(struct plugin_rig *rig, uint64_t old, uint64_t old_len, uint64_t new_len,
                     uint64_t to)
{
  struct plugin_alias *a = rig->alias;
  if (to == old) {
    if (new_len < old_len) {
      unmapped(rig, old + page_align_up(new_len), old_len - page_align_up(new_len));
    }
    return;
  }
  const struct alias_map *whole = find(a, old);
  struct alias_map moved = {0};
  if (whole && whole->va == old && whole->len == page_align_up(old_len)) {
    moved = *whole;
    moved.va = to;
    moved.len = page_align_up(new_len);
    moved.canon = is_file(whole) ? whole->canon : to;
  }
  GArray *dropped = g_array_new(false, false, sizeof(struct alias_map));
  /* old_len 0 duplicates a shared mapping and unmaps nothing. */
  bool changed = old_len && forget(a, old, old_len, dropped);
  changed |= forget(a, to, new_len, dropped);
  if (moved.len) {
    add_map(a, moved.va, moved.len, moved.canon, moved.exec);
    changed = true;
  }
  if (changed) {
    recompute_views(a, rig->store);
  }
  GPtrArray *retired = g_ptr_array_new();
  forget_range(rig, to, new_len, retired);
  if (old_len && !(moved.len && is_file(&moved))) {
    model_move(rig->model, old, to, page_align_up(MIN(old_len, new_len)), retired);
    model_kernel_move(rig->kernel, old, to, page_align_up(MIN(old_len, new_len)));
    plugin_store_forget_pages(rig->store); /* its caches map old pages to records */
  }
  if (old_len) {
    forget_range(rig, old, old_len, retired);
  }
  forget_files(rig, dropped, retired);
  plugin_store_retire(rig->store, retired);
  g_array_unref(dropped);
}

/* ---- memory released without munmap ---------------------------------------- */

/*
 * brk(ADDR) returned the new program break NOW: a heap that shrank was
 * unmapped (QEMU's do_brk unmaps it, as Linux does), and one that grew
 * shows new zero pages, so the pages between the old and the new break are
 * forgotten either way.
 */
static void brk_moved(struct plugin_rig *rig, uint64_t now)
{
  struct plugin_alias *a = rig->alias;
  uint64_t before = a->brk;
  a->brk = now;
  if (before == 0 || now == before) {
    return; /* the first brk tells where the heap starts */
  }
  uint64_t lo = page_align_up(MIN(before, now)), hi = page_align_up(MAX(before, now));
  GArray *none = g_array_new(false, false, sizeof(struct alias_map));
  forget_unmapped(rig, lo, hi - lo, none);
  kernel_unmapped(rig, lo, hi - lo);
  g_array_unref(none);
}

/*
 * shmat(ID, ADDR, FLAGS) attached System V segment ID at VA: its pages are
 * a shared object like a file, so two attachments are two views of it;
 * whatever the range held before is forgotten (SHM_REMAP). The segment's
 * size comes from the host (QEMU hands the guest the host's segments).
 */
static void attached(struct plugin_rig *rig, int id, uint64_t va, bool exec)
{
  struct shmid_ds ds;
  if (shmctl(id, IPC_STAT, &ds) != 0) {
    return;
  }
  struct plugin_alias *a = rig->alias;
  struct alias_range r = {va, page_align_up(ds.shm_segsz)};
  GArray *dropped = g_array_new(false, false, sizeof(struct alias_map));
  forget(a, r.va, r.len, dropped);
  add_map(a, r.va, r.len, file_canon(a, g_strdup_printf("shm:%d", id), 0), exec);
  recompute_views(a, rig->store);
  forget_unmapped(rig, r.va, r.len, dropped);
  g_array_unref(dropped);
  g_array_append_val(a->attached, r);
}

/* shmdt(VA) succeeded: the segment attached at VA is unmapped. */
static void detached(struct plugin_rig *rig, uint64_t va)
{
  GArray *attached = rig->alias->attached;
  for (guint i = 0; i < attached->len; i++) {
    struct alias_range r = g_array_index(attached, struct alias_range, i);
    if (r.va == va) {
      g_array_remove_index_fast(attached, i);
      unmapped(rig, r.va, r.len);
      return;
    }
  }
}

/*
 * madvise(VA, LEN, MADV_DONTNEED) succeeded. QEMU 10 passes it to the host
 * for memory it mapped with the guest's own semantics (every mapping on a
 * host with 4 KiB pages), and:
 * - private memory then reads zeros (anonymous) or its file's bytes again:
 *   new contents the program did not store, so its records are emptied
 *   (model_clear, which says why the fetches of them are fresh);
 * - shared memory (a shared file or anonymous mapping, a System V segment)
 *   keeps its pages in the page cache or shmem, and the next access maps
 *   the same page again with the same bytes and cache state: its records
 *   stay.
 * MADV_FREE, MADV_REMOVE, MADV_DONTNEED_LOCKED and the other advice change
 * nothing here: QEMU 10.2 returns 0 for them without telling the host, so
 * the guest keeps its bytes (on Linux, MADV_FREE too may leave them until
 * memory runs short).
 * The pages of private memory that held translated code are appended to
 * REWRITE, by page number, for drop_translations.
 */
static void dontneed(struct plugin_rig *rig, uint64_t va, uint64_t len, GArray *rewrite)
{
  const GArray *maps = rig->alias->maps;
  uint64_t end = va + page_align_up(len), at = va;
  for (guint i = 0; i < maps->len && at < end; i++) {
    const struct alias_map *m = &g_array_index(maps, struct alias_map, i);
    if (m->va + m->len <= at || end <= m->va) {
      continue;
    }
    if (at < m->va) {
      model_clear(rig->model, at, m->va, pages_made_before, rewrite);
      model_kernel_fresh(rig->kernel, at, m->va); /* a new page at the next touch */
    }
    at = m->va + m->len;
  }
  if (at < end) {
    model_clear(rig->model, at, end, pages_made_before, rewrite);
    model_kernel_fresh(rig->kernel, at, end);
  }
}

/* ---- QEMU's translations of executable views ------------------------------ */

/*
 * QEMU re-translates code when the guest writes through the address it
 * fetches from, or runs ic ivau on that address (its ic_ivau helper); a
 * store through the RW view of double-mapped code does neither for the RX
 * view, so QEMU went on running the old instructions where the model, and
 * the architecture, say the new ones are fetched: with ic ivau through the
 * RW view on a PIPT I-cache, which the Arm ARM allows, and with no ic at
 * all where CTR_EL0.DIC is set. The same holds for every executable view
 * but the one an ic went through, when the pages have two (ic through
 * RX1, code run through RX2: fresh on a PIPT I-cache), and for a
 * store through a writable executable view, which QEMU sees only at that
 * view's address. So every store through a view of pages that another
 * executable view shows marks every such other view's lines
 * (under the lock, on the locked store path: such pages have per-word
 * records once QEMU translated them); at the next context synchronisation
 * of any thread (isb, a syscall's return) those lines are written back
 * with their own bytes through QEMU's debug write
 * (qemu_plugin_write_memory_vaddr), which for a page without write
 * permission invalidates its translations before it writes
 * (cpu_memory_rw_debug in accel/tcg/user-exec.c). QEMU then fetches the
 * new instruction wherever the model judges the fetch fresh; where the
 * model says stale, the report says so, whichever bytes QEMU runs.
 *
 * The write-back copies bytes it has just read; a store another thread
 * makes to the same bytes between the read and the write would be undone.
 * Such a store races with code being published in the same line and is
 * unsupported (docs/RIG.md, "Limits").
 */
#define VIEW_LINE UINT64_C(64)

void plugin_alias_note_store(struct plugin_rig *rig, uint64_t va, unsigned bytes,
                             uint64_t writer_pc)
{
  struct plugin_alias *a = rig->alias;
  if (model_kernel_cow_pending(rig->kernel)) {
    model_kernel_store(rig->kernel, plugin_alias_canon(a, va), writer_pc);
  }
  const struct alias_map *m = find(a, va);
  if (!m || !m->exec_elsewhere) {
    return;
  }
  uint64_t c = m->canon + (va - m->va), c_end = c + (bytes ? bytes : 1);
  for (guint i = 0; i < a->maps->len; i++) {
    const struct alias_map *x = &g_array_index(a->maps, struct alias_map, i);
    if (x == m || !x->exec || x->canon >= c_end || c >= x->canon + x->len) {
      continue;
    }
    uint64_t first = MAX(c, x->canon), last = MIN(c_end, x->canon + x->len) - 1;
    for (uint64_t line = (first - x->canon + x->va) & ~(VIEW_LINE - 1);
         line <= last - x->canon + x->va; line += VIEW_LINE) {
      g_hash_table_add(a->stale_lines, GSIZE_TO_POINTER(line));
    }
  }
  __atomic_store_n(&a->stale_count, g_hash_table_size(a->stale_lines), __ATOMIC_RELAXED);
}

/* Writes [VA, VA + LEN) back with its own bytes (lock NOT held). */
static void rewrite(uint64_t va, uint64_t len)
{
  GByteArray *bytes = g_byte_array_new();
  if (qemu_plugin_read_memory_vaddr(va, bytes, len) && bytes->len == len) {
    qemu_plugin_write_memory_vaddr(va, bytes);
  }
  g_byte_array_unref(bytes);
}

void plugin_alias_refresh_views(struct plugin_rig *rig)
{
  struct plugin_alias *a = rig->alias;
  if (__atomic_load_n(&a->stale_count, __ATOMIC_RELAXED) == 0) {
    return;
  }
  plugin_rig_lock(rig);
  GList *lines = g_hash_table_get_keys(a->stale_lines);
  g_hash_table_steal_all(a->stale_lines);
  __atomic_store_n(&a->stale_count, 0, __ATOMIC_RELAXED);
  plugin_rig_unlock(rig);
  /* Outside the lock: QEMU's memory access takes its mmap_lock, which a
   * translating thread holds while it waits for the rig's lock. */
  for (GList *l = lines; l; l = l->next) {
    rewrite(GPOINTER_TO_SIZE(l->data), VIEW_LINE);
  }
  g_list_free(lines);
}

static bool maps_memory(int64_t num)
{
  return num == NR_MMAP || num == NR_MUNMAP || num == NR_MREMAP || num == NR_MPROTECT ||
         num == NR_BRK || num == NR_SHMAT || num == NR_SHMDT || num == NR_MADVISE;
}

void plugin_alias_syscall_site(uint64_t pc, uint64_t lr)
{
  call_pc = pc;
  call_lr = lr;
}

void plugin_alias_syscall(struct plugin_rig *rig, int64_t num, const uint64_t args[6])
{
  if (num == NR_WRITE || num == NR_PWRITE64) {
    plugin_rig_lock(rig);
    write_canon = file_write_canon(rig->alias, num, args);
    plugin_rig_unlock(rig);
  }
  if (maps_memory(num)) {
    memcpy(mmap_args, args, sizeof(mmap_args));
    plugin_rig_lock(rig);
    pages_made_before = model_page_epoch(rig->model);
    plugin_rig_unlock(rig);
  }
}

/* mmap(ADDR, LEN, PROT, FLAGS, FD, OFFSET) returned VA (lock held). */
static void mapped(struct plugin_rig *rig, uint64_t va)
{
  struct plugin_alias *a = rig->alias;
  uint64_t len = mmap_args[1];
  uint64_t shared = mmap_args[3] & GUEST_MAP_SHARED_VALIDATE;
  bool exec = (mmap_args[2] & GUEST_PROT_EXEC) != 0;
  int fd = (int)mmap_args[4];
  GArray *dropped = g_array_new(false, false, sizeof(struct alias_map));
  bool changed = forget(a, va, len, dropped);
  if (shared == GUEST_MAP_SHARED || shared == GUEST_MAP_SHARED_VALIDATE) {
    /* Shared memory without a file the rig can name is keyed by its
     * address. */
    if ((mmap_args[3] & GUEST_MAP_ANONYMOUS) || fd < 0 ||
        !learn(a, va, len, fd, mmap_args[5], exec)) {
      add_map(a, va, len, va, exec);
    }
    changed = true;
  }
  if (changed) {
    recompute_views(a, rig->store);
  }
  /* Whatever the range held before (MAP_FIXED over old pages, or pages
   * unmapped in a way the rig did not see) is not these pages. */
  forget_unmapped(rig, va, len, dropped);
  kernel_mapping(rig, va, len, mmap_args[2], true, "mmap");
  g_array_unref(dropped);
}

/*
 * Drops QEMU's translations of the guest pages PAGES (numbers) by writing
 * each back with its own bytes (plugin_alias_refresh_views says how that
 * works): madvise gave them new contents, and QEMU does not notice a page
 * the host replaced (target_madvise in linux-user/mmap.c invalidates no
 * translation), so it would go on running the old instructions where the
 * model now judges fetches of the new ones.
 */
static void drop_translations(const GArray *pages)
{
  for (guint i = 0; i < pages->len; i++) {
    uint64_t page = g_array_index(pages, uint64_t, i);
    rewrite(page << MODEL_PAGE_SHIFT, GUEST_PAGE);
  }
}

void plugin_alias_syscall_ret(struct plugin_rig *rig, int64_t num, int64_t ret)
{
  if ((num == NR_WRITE || num == NR_PWRITE64) && write_canon && ret > 0) {
    /* The kernel wrote the file's page-cache pages: flush_dcache_folio. */
    plugin_rig_lock(rig);
    model_kernel_written(rig->kernel, write_canon, write_canon + (uint64_t)ret);
    plugin_rig_unlock(rig);
    write_canon = 0;
  }
  if (!maps_memory(num) || (ret < 0 && ret > -4096)) {
    return; /* failed: nothing changed */
  }
  struct plugin_alias *a = rig->alias;
  GArray *rewrite_pages = g_array_new(false, false, sizeof(uint64_t));
  plugin_rig_lock(rig);
  if (num == NR_MUNMAP) {
    unmapped(rig, mmap_args[0], mmap_args[1]);
  } else if (num == NR_MREMAP) {
    remapped(rig, mmap_args[0], mmap_args[1], mmap_args[2], (uint64_t)ret);
  } else if (num == NR_MPROTECT) {
    if (reprotect(a, mmap_args[0], mmap_args[1], (mmap_args[2] & GUEST_PROT_EXEC) != 0)) {
      recompute_views(a, rig->store);
    }
    kernel_mapping(rig, mmap_args[0], mmap_args[1], mmap_args[2], false, "mprotect");
  } else if (num == NR_MMAP) {
    mapped(rig, (uint64_t)ret);
  } else if (num == NR_BRK) {
    brk_moved(rig, (uint64_t)ret);
  } else if (num == NR_SHMAT) {
    attached(rig, (int)mmap_args[0], (uint64_t)ret, (mmap_args[2] & GUEST_SHM_EXEC) != 0);
  } else if (num == NR_SHMDT) {
    detached(rig, mmap_args[0]);
  } else if (num == NR_MADVISE && mmap_args[2] == GUEST_MADV_DONTNEED) {
    dontneed(rig, mmap_args[0], mmap_args[1], rewrite_pages);
  }
  plugin_rig_unlock(rig);
  /* Outside the lock, like plugin_alias_refresh_views. */
  drop_translations(rewrite_pages);
  g_array_unref(rewrite_pages);
}
