/*
 * Double-mapped code (W^X JITs): one RW view and one RX view of the same
 * shared file or memfd pages. The caches are physically tagged for data and
 * the model must see that a store through the RW view dirties the word the
 * RX view fetches, so every address the model handles is first mapped to a
 * canonical one: for a MAP_SHARED file mapping, the file's identity plus
 * the offset in the file; for everything else, the virtual address itself.
 * Guest VAs are below 2^56, so canonical file addresses set bit 63.
 *
 * The mappings are learnt from the guest's mmap/munmap syscalls (linux-user
 * passes guest fds through to the host, so fstat on the host names the
 * file). Offsets are page aligned, so cache lines stay aligned.
 */
#define _GNU_SOURCE /* fstat on a host fd */
#include <string.h>
#include <sys/stat.h>

#include "plugin.h"

#define NR_MUNMAP 215
#define NR_MMAP 222
#define GUEST_MAP_SHARED 0x01
#define GUEST_MAP_SHARED_VALIDATE 0x03
#define CANON_FILE_BIT (UINT64_C(1) << 63)
#define CANON_ID_SHIFT 44 /* file offsets below 16 TiB */

struct alias_map {
  uint64_t va;
  uint64_t len;
  uint64_t canon; /* canonical address of VA */
};

static GArray *maps;        /* struct alias_map, sorted by va, disjoint */
static GHashTable *file_ids; /* "dev:ino" -> id (1..) */
/* A vCPU's syscall entry and return run in its host thread. */
static _Thread_local uint64_t mmap_args[6];

void jf_alias_init(void) {
  maps = g_array_new(false, false, sizeof(struct alias_map));
  file_ids = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
}

void jf_alias_free(void) {
  g_clear_pointer(&maps, g_array_unref);
  g_clear_pointer(&file_ids, g_hash_table_destroy);
}

uint64_t jf_alias_canon(uint64_t va) {
  if (!maps || maps->len == 0) {
    return va;
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
      return m->canon + (va - m->va);
    }
  }
  return va;
}

/* Forgets every mapping overlapping [va, va + len): replaced or unmapped.
 * A partial unmap drops the whole entry (the rest then counts by VA). */
static void forget(uint64_t va, uint64_t len) {
  for (guint i = 0; i < maps->len;) {
    const struct alias_map *m = &g_array_index(maps, struct alias_map, i);
    if (m->va < va + len && va < m->va + m->len) {
      g_array_remove_index(maps, i);
    } else {
      i++;
    }
  }
}

static gint by_va(gconstpointer a, gconstpointer b) {
  const struct alias_map *x = a, *y = b;
  return x->va < y->va ? -1 : x->va > y->va;
}

static void learn(uint64_t va, uint64_t len, int fd, uint64_t offset) {
  struct stat st;
  if (fstat(fd, &st) != 0 || offset >= (UINT64_C(1) << CANON_ID_SHIFT)) {
    return;
  }
  char *key = g_strdup_printf("%ju:%ju", (uintmax_t)st.st_dev,
                              (uintmax_t)st.st_ino);
  uint64_t id = GPOINTER_TO_SIZE(g_hash_table_lookup(file_ids, key));
  if (id == 0) {
    id = g_hash_table_size(file_ids) + 1;
    g_hash_table_insert(file_ids, key, GSIZE_TO_POINTER(id));
  } else {
    g_free(key);
  }
  struct alias_map m = {va, len, CANON_FILE_BIT | (id << CANON_ID_SHIFT) | offset};
  g_array_append_val(maps, m);
  g_array_sort(maps, by_va);
}

void jf_alias_syscall(int64_t num, const uint64_t args[6]) {
  if (num == NR_MMAP || num == NR_MUNMAP) {
    memcpy(mmap_args, args, sizeof(mmap_args));
  }
}

void jf_alias_syscall_ret(int64_t num, int64_t ret) {
  if (num == NR_MUNMAP && ret == 0) {
    g_mutex_lock(&jf_lock);
    forget(mmap_args[0], mmap_args[1]);
    g_mutex_unlock(&jf_lock);
  } else if (num == NR_MMAP && ret >= 0) {
    uint64_t va = (uint64_t)ret, len = mmap_args[1];
    uint64_t flags = mmap_args[3] & GUEST_MAP_SHARED_VALIDATE;
    int fd = (int)mmap_args[4];
    g_mutex_lock(&jf_lock);
    forget(va, len);
    if ((flags == GUEST_MAP_SHARED || flags == GUEST_MAP_SHARED_VALIDATE) &&
        fd >= 0) {
      learn(va, len, fd, mmap_args[5]);
    }
    g_mutex_unlock(&jf_lock);
  }
}
