/*
 * The guest's entropy under the run's seed (plugin_entropy.h).
 *
 * QEMU's linux-user passes getrandom and reads of the random devices to
 * the host kernel, so each run of one seed would see other bytes: a
 * Python's string hashes, a Scheme's symbol table order, a JIT's choice
 * of addresses, and with them the code the guest writes and the stale
 * fetches the rig counts, would change from run to run. The rig lets the
 * host call happen (its result length, its errors, its blocking stay the
 * kernel's) and then overwrites the bytes it returned with bytes drawn from
 * a splitmix64 stream seeded with the run's seed. Under the turns one
 * guest thread runs at a time (plugin_turns.c), so the calls draw from the
 * stream in the same order on every run.
 *
 * The random devices are followed by descriptor: an openat of
 * /dev/urandom or /dev/random (the paths the kernel's drivers/char/mem.c
 * registers, as the guest names them), the copies dup, dup3 and fcntl
 * make, until close or close_range. A read, pread64, readv, preadv or
 * preadv2 from one is overwritten; a transfer that moves the device's
 * bytes without passing them through guest memory the rig sees (sendfile,
 * splice, copy_file_range) is named in the report as outside the seed's
 * reach.
 *
 * The clock is not made from the seed: a guest that waits for time to pass
 * needs the host's. A read of it (clock_gettime, gettimeofday, times: QEMU's
 * vDSO for aarch64 makes each a system call) is counted and named in the
 * report as outside the seed's reach, since what the guest does with the
 * time it read may differ from run to run.
 */
#include "plugin_entropy.h"

#include <string.h>
#include <unistd.h>

#include <glib.h>

#include "plugin_qemu_api.h"
#include "rig_splitmix.h"

/* aarch64 system call numbers (the kernel's include/uapi/asm-generic/unistd.h). */
#define NR_DUP 23
#define NR_DUP3 24
#define NR_FCNTL 25
#define NR_OPENAT 56
#define NR_CLOSE 57
#define NR_READ 63
#define NR_READV 65
#define NR_PREAD64 67
#define NR_PREADV 69
#define NR_SENDFILE 71
#define NR_SPLICE 76
#define NR_CLOCK_GETTIME 113
#define NR_TIMES 153
#define NR_GETTIMEOFDAY 169
#define NR_CLONE 220
#define NR_GETRANDOM 278
#define NR_COPY_FILE_RANGE 285
#define NR_PREADV2 286
#define NR_CLONE3 435
#define NR_CLOSE_RANGE 436
#define NR_OPENAT2 437

/* fcntl's duplicating commands and close_range's flag that closes nothing
 * (include/uapi/asm-generic/fcntl.h, include/uapi/linux/close_range.h). */
#define GUEST_F_DUPFD 0
#define GUEST_F_DUPFD_CLOEXEC 1030
#define GUEST_CLOSE_RANGE_CLOEXEC 4

/* The longest device path followed, with its terminating NUL. */
#define DEVICE_PATH_MAX sizeof("/dev/urandom")

/* An iovec's two 64-bit words, as the guest lays it out. */
#define IOVEC_BYTES 16
/* Guest memory is written in pieces of at most this many bytes. */
#define WRITE_CHUNK 4096

/* What a system call's return needs from its entry, per vCPU. */
struct pending {
  int64_t num;
  uint64_t args[6];
  const char *device; /* openat/openat2 of a random device: its path */
};

struct plugin_entropy {
  GMutex m;
  uint64_t state;  /* the splitmix64 stream */
  pid_t pid;       /* the process this state belongs to */
  GHashTable *fds; /* guest fd -> the device's path (static) */
  GArray *pending; /* struct pending, by vCPU index */
  uint64_t getrandom_calls, device_reads, bytes, clock_reads;
  GPtrArray *outside; /* what reached the guest unseeded, each once */
};

struct plugin_entropy *plugin_entropy_new(uint64_t seed)
{
  struct plugin_entropy *e = g_new0(struct plugin_entropy, 1);
  g_mutex_init(&e->m);
  /* A stream of its own: the scheduler's streams start from the seed
   * itself (plugin_sched.c), and these bytes must not repeat theirs. */
  e->state = seed ^ UINT64_C(0x656e74726f707921);
  e->pid = getpid();
  e->fds = g_hash_table_new(g_direct_hash, g_direct_equal);
  e->pending = g_array_new(FALSE, TRUE, sizeof(struct pending));
  e->outside = g_ptr_array_new_with_free_func(g_free);
  return e;
}

void plugin_entropy_free(struct plugin_entropy *e)
{
  if (!e) {
    return;
  }
  g_hash_table_destroy(e->fds);
  g_array_unref(e->pending);
  g_ptr_array_unref(e->outside);
  g_mutex_clear(&e->m);
  g_free(e);
}

/* The random device PATH names, or NULL. Reads the guest's string one
 * byte at a time: a longer read could cross into a page that is not
 * mapped although the string ends before it. */
static const char *device_at(uint64_t path)
{
  char name[DEVICE_PATH_MAX] = {0};
  GByteArray *buf = g_byte_array_new();
  size_t n = 0;
  for (; n < sizeof name; n++) {
    if (!qemu_plugin_read_memory_vaddr(path + n, buf, 1) || buf->len != 1) {
      break;
    }
    name[n] = (char)buf->data[0];
    if (!name[n]) {
      break;
    }
  }
  g_byte_array_unref(buf);
  if (n == sizeof name || name[n] != '\0') {
    return NULL;
  }
  if (strcmp(name, "/dev/urandom") == 0) {
    return "/dev/urandom";
  }
  if (strcmp(name, "/dev/random") == 0) {
    return "/dev/random";
  }
  return NULL;
}

void plugin_entropy_syscall(struct plugin_entropy *e, unsigned vcpu, int64_t num,
                            const uint64_t args[6])
{
  struct pending p = {.num = num};
  memcpy(p.args, args, sizeof p.args);
  if (num == NR_OPENAT || num == NR_OPENAT2) {
    p.device = device_at(args[1]);
  }
  g_mutex_lock(&e->m);
  if (e->pending->len <= vcpu) {
    g_array_set_size(e->pending, vcpu + 1);
  }
  g_array_index(e->pending, struct pending, vcpu) = p;
  g_mutex_unlock(&e->m);
}

/* LEN seeded bytes into BYTES (call with the lock held). */
static void draw(struct plugin_entropy *e, uint8_t *bytes, size_t len)
{
  for (size_t i = 0; i < len; i += 8) {
    uint64_t v = rig_splitmix_next(&e->state);
    size_t n = len - i < 8 ? len - i : 8;
    for (size_t k = 0; k < n; k++) {
      bytes[i + k] = (uint8_t)(v >> (8 * k));
    }
  }
}

/* Bytes to write into guest memory once the lock is released. */
struct piece {
  uint64_t addr;
  GByteArray *bytes;
};

static void add_piece(struct plugin_entropy *e, GArray *pieces, uint64_t addr, uint64_t len)
{
  for (uint64_t done = 0; done < len; done += WRITE_CHUNK) {
    size_t n = len - done < WRITE_CHUNK ? (size_t)(len - done) : WRITE_CHUNK;
    struct piece p = {addr + done, g_byte_array_sized_new((guint)n)};
    g_byte_array_set_size(p.bytes, (guint)n);
    draw(e, p.bytes->data, n);
    e->bytes += n;
    g_array_append_val(pieces, p);
  }
}

/* WHAT reached the guest without the seed (call with the lock held). */
static void outside(struct plugin_entropy *e, const char *what)
{
  for (guint i = 0; i < e->outside->len; i++) {
    if (strcmp(g_ptr_array_index(e->outside, i), what) == 0) {
      return;
    }
  }
  g_ptr_array_add(e->outside, g_strdup(what));
}

static const char *device_of(struct plugin_entropy *e, uint64_t fd)
{
  return g_hash_table_lookup(e->fds, GINT_TO_POINTER((gint)(int32_t)fd));
}

static void follow(struct plugin_entropy *e, int64_t fd, const char *device)
{
  if (device) {
    g_hash_table_insert(e->fds, GINT_TO_POINTER((gint)fd), (gpointer)device);
  } else {
    g_hash_table_remove(e->fds, GINT_TO_POINTER((gint)fd));
  }
}

/* The iovecs of a readv-like call: where the RET bytes it read went. Read
 * before the lock is taken; returns the (base, len) pairs. */
static GArray *read_iovecs(uint64_t iov, uint64_t count)
{
  GArray *out = g_array_new(FALSE, FALSE, sizeof(uint64_t));
  GByteArray *buf = g_byte_array_new();
  for (uint64_t i = 0; i < count && i < 1024; i++) {
    if (!qemu_plugin_read_memory_vaddr(iov + i * IOVEC_BYTES, buf, IOVEC_BYTES) ||
        buf->len != IOVEC_BYTES) {
      break;
    }
    uint64_t pair[2];
    memcpy(pair, buf->data, sizeof pair); /* the guest is little-endian, as the host */
    g_array_append_vals(out, pair, 2);
  }
  g_byte_array_unref(buf);
  return out;
}

void plugin_entropy_syscall_ret(struct plugin_entropy *e, unsigned vcpu, int64_t num, int64_t ret)
{
  if (num == NR_CLONE || num == NR_CLONE3) {
    if (ret == 0 && getpid() != e->pid) {
      /* A forked child: it inherited the parent's stream, and would read
       * the bytes its parent reads next. A fixed step away from it keeps
       * the two apart and the child's bytes the same on every run. */
      g_mutex_lock(&e->m);
      e->pid = getpid();
      e->state ^= UINT64_C(0x6368696c64706964);
      rig_splitmix_next(&e->state);
      g_mutex_unlock(&e->m);
    }
    return;
  }
  g_mutex_lock(&e->m);
  struct pending p = {.num = -1};
  if (vcpu < e->pending->len) {
    p = g_array_index(e->pending, struct pending, vcpu);
  }
  g_mutex_unlock(&e->m);
  if (p.num != num) {
    return; /* a return without its entry (a thread's first, after clone) */
  }
  GArray *iov = NULL;
  if ((num == NR_READV || num == NR_PREADV || num == NR_PREADV2) && ret > 0) {
    g_mutex_lock(&e->m);
    const bool random = device_of(e, p.args[0]) != NULL;
    g_mutex_unlock(&e->m);
    if (random) {
      iov = read_iovecs(p.args[1], p.args[2]);
    }
  }

  GArray *pieces = g_array_new(FALSE, FALSE, sizeof(struct piece));
  g_mutex_lock(&e->m);
  switch (num) {
  case NR_GETRANDOM:
    if (ret > 0) {
      e->getrandom_calls++;
      add_piece(e, pieces, p.args[0], (uint64_t)ret);
    }
    break;
  case NR_READ:
  case NR_PREAD64:
    if (ret > 0 && device_of(e, p.args[0])) {
      e->device_reads++;
      add_piece(e, pieces, p.args[1], (uint64_t)ret);
    }
    break;
  case NR_READV:
  case NR_PREADV:
  case NR_PREADV2:
    if (iov) {
      e->device_reads++;
      uint64_t left = (uint64_t)ret;
      for (guint i = 0; i + 1 < iov->len && left > 0; i += 2) {
        uint64_t base = g_array_index(iov, uint64_t, i);
        uint64_t len = g_array_index(iov, uint64_t, i + 1);
        uint64_t n = len < left ? len : left;
        add_piece(e, pieces, base, n);
        left -= n;
      }
      if (left > 0) {
        char *what = g_strdup_printf("a readv of %s whose iovecs could not be read",
                                     device_of(e, p.args[0]));
        outside(e, what);
        g_free(what);
      }
    }
    break;
  case NR_SENDFILE:
  case NR_SPLICE:
  case NR_COPY_FILE_RANGE: {
    /* sendfile's source is its second argument, the others' their first. */
    const char *dev = device_of(e, num == NR_SENDFILE ? p.args[1] : p.args[0]);
    if (ret > 0 && dev) {
      char *what = g_strdup_printf("%s of %s",
                                   num == NR_SENDFILE ? "sendfile"
                                   : num == NR_SPLICE ? "splice"
                                                      : "copy_file_range",
                                   dev);
      outside(e, what);
      g_free(what);
    }
    break;
  }
  case NR_CLOCK_GETTIME:
  case NR_GETTIMEOFDAY:
  case NR_TIMES:
    if (ret >= 0) {
      e->clock_reads++;
      outside(e, num == NR_CLOCK_GETTIME  ? "the host's clock (clock_gettime)"
                 : num == NR_GETTIMEOFDAY ? "the host's clock (gettimeofday)"
                                          : "the host's clock (times)");
    }
    break;
  case NR_OPENAT:
  case NR_OPENAT2:
    if (ret >= 0) {
      follow(e, ret, p.device);
    }
    break;
  case NR_DUP:
  case NR_DUP3: /* the new descriptor is what the old one was (or nothing) */
    if (ret >= 0) {
      follow(e, ret, device_of(e, p.args[0]));
    }
    break;
  case NR_FCNTL:
    if (ret >= 0 && (p.args[1] == GUEST_F_DUPFD || p.args[1] == GUEST_F_DUPFD_CLOEXEC)) {
      follow(e, ret, device_of(e, p.args[0]));
    }
    break;
  case NR_CLOSE:
    if (ret == 0) {
      follow(e, (int64_t)(int32_t)p.args[0], NULL);
    }
    break;
  case NR_CLOSE_RANGE:
    if (ret == 0 && !(p.args[2] & GUEST_CLOSE_RANGE_CLOEXEC)) {
      GHashTableIter it;
      gpointer key;
      g_hash_table_iter_init(&it, e->fds);
      while (g_hash_table_iter_next(&it, &key, NULL)) {
        uint64_t fd = (uint64_t)(uint32_t)GPOINTER_TO_INT(key);
        if (fd >= (uint32_t)p.args[0] && fd <= (uint32_t)p.args[1]) {
          g_hash_table_iter_remove(&it);
        }
      }
    }
    break;
  default:
    break;
  }
  g_mutex_unlock(&e->m);

  for (guint i = 0; i < pieces->len; i++) {
    struct piece *w = &g_array_index(pieces, struct piece, i);
    if (!qemu_plugin_write_memory_vaddr(w->addr, w->bytes)) {
      g_mutex_lock(&e->m);
      outside(e, num == NR_GETRANDOM ? "getrandom bytes the rig could not overwrite"
                                     : "random device bytes the rig could not overwrite");
      g_mutex_unlock(&e->m);
    }
    g_byte_array_unref(w->bytes);
  }
  g_array_free(pieces, TRUE);
  if (iov) {
    g_array_free(iov, TRUE);
  }
}

void plugin_entropy_report(struct plugin_entropy *e, JsonObject *schedule)
{
  JsonObject *o = json_object_new();
  g_mutex_lock(&e->m);
  json_object_set_int_member(o, "getrandom_calls", (gint64)e->getrandom_calls);
  json_object_set_int_member(o, "device_reads", (gint64)e->device_reads);
  json_object_set_int_member(o, "bytes", (gint64)e->bytes);
  json_object_set_int_member(o, "clock_reads", (gint64)e->clock_reads);
  if (e->outside->len > 0) {
    JsonArray *a = json_array_new();
    for (guint i = 0; i < e->outside->len; i++) {
      json_array_add_string_element(a, g_ptr_array_index(e->outside, i));
    }
    json_object_set_array_member(o, "outside_seed", a);
    json_object_set_boolean_member(schedule, "reproducible", FALSE);
  }
  g_mutex_unlock(&e->m);
  json_object_set_object_member(schedule, "entropy", o);
}
