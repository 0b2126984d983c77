/*
 * The emulated topology: which emulated CPU each guest thread runs on, the
 * affinity syscalls answered on that topology, and seeded migrations.
 *
 * The host has only a couple of CPUs, so the guest's affinity syscalls
 * cannot go to the host unchanged: a mask naming CPU 5 would fail there.
 * QEMU runs the host syscall between the plugin's syscall entry and return
 * callbacks, and the aarch64 cpu_loop writes the host result into x0 after
 * the return callback (so a register write there is lost). The plugin
 * therefore rewrites guest memory instead: the mask argument before the
 * host call (restored afterwards) so that the host call succeeds or fails
 * exactly when Linux would on the emulated system, and the outputs (the
 * mask, the CPU number) after it.
 *
 * Migrations are drawn per thread from a PRNG seeded with the run's seed
 * and the thread's creation order, at instruction counts uniform in
 * [1, 2 * migrate-every - 1] (mean migrate-every). They are checked at
 * every TB start, so one can land between two iterations of a flush loop.
 *
 * policy=adversarial (the default) adds two moves on top of those, aimed at
 * the bug this field actually has: a stride read from CTR_EL0 on one core
 * and used on another. When a thread whose mask allows CPUs that show
 * different CTR_EL0 geometries executes `mrs ctr_el0`, it is first moved to
 * the most permissive of them (DIC, then IDC, then the largest I and D
 * lines), so the value it latches is the largest; at its next maintenance
 * instruction it is moved to the least permissive one, so the loop that
 * uses that value runs, and the code it flushed is then fetched, where the
 * lines are smallest. Each move is one the kernel could make at that point
 * (any CPU of the mask, at any instruction), and each passes through
 * migrate() with its DSB and context synchronisation like every other: the
 * policy only chooses the worst legal schedule, it never relaxes a rule.
 * A thread pinned to one CPU, or whose CPUs all agree, is never moved by it.
 */
#define _GNU_SOURCE /* sched_getaffinity, CPU_SET, syscall */
#include <errno.h>
#include <sched.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "fast_mod.h"
#include "plugin.h"

/* Linux's generic syscall numbers, which aarch64 uses
 * (include/uapi/asm-generic/unistd.h). */
#define NR_CLONE 220
#define NR_SCHED_SETAFFINITY 122
#define NR_SCHED_GETAFFINITY 123
#define NR_GETCPU 168
#define NR_MEMBARRIER 283
#define GUEST_CLONE_VM 0x00000100
#define GUEST_CLONE_THREAD 0x00010000
#define MEMBARRIER_CMD_PRIVATE_EXPEDITED_SYNC_CORE 32
#define MASK_BYTES_MAX (EMU_MAX_CPUS / 8)

static struct jf_cpuset process_allowed; /* [process] allowed ∩ online */
static struct jf_cpuset allowed_all;     /* [process] allowed, offline CPUs too */
static unsigned process_allowed_count;
static GPtrArray *threads;  /* every struct jf_thread, by serial */
static GPtrArray *by_vcpu;  /* vCPU index -> live struct jf_thread */
static GQueue children;     /* made at clone, waiting for their vCPU */
static uint64_t *cpu_insns; /* per emulated CPU */
static uint64_t seed;
static uint64_t migrate_every;
/* The remainders a migration draws (fast_mod.h): by 2 * migrate_every - 1
 * for the interval, by n - 1 (PICK_MOD[n - 1]) for the target among the n
 * CPUs of a mask. */
static struct jf_fast_mod interval_mod;
static struct jf_fast_mod *pick_mod;
static uint8_t host_mask[MASK_BYTES_MAX]; /* the host's own affinity */

/* splitmix64: small, good enough, and the same on every host. */
static uint64_t rng_next(uint64_t *state)
{
  uint64_t z = (*state += UINT64_C(0x9e3779b97f4a7c15));
  z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
  z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
  return z ^ (z >> 31);
}

/* Sets only ever hold CPUs of the config: the words past its last CPU are
 * zero, and the migration callback (every few hundred guest instructions)
 * need not look at them. */
static unsigned cpu_words(void)
{
  return (jf_config->ncpus + 63) / 64;
}

static unsigned cpuset_count(const struct jf_cpuset *s)
{
  unsigned n = 0;
  for (unsigned i = 0; i < cpu_words(); i++) {
    n += (unsigned)__builtin_popcountll(s->bits[i]);
  }
  return n;
}

/* The INDEX-th CPU (from 0) of S, which must hold more than INDEX. */
static unsigned cpuset_nth(const struct jf_cpuset *s, unsigned index)
{
  for (unsigned cpu = 0; cpu < jf_config->ncpus; cpu++) {
    if (jf_cpuset_has(s, cpu) && index-- == 0) {
      return cpu;
    }
  }
  g_assert_not_reached();
}

static void thread_free(gpointer data)
{
  struct jf_thread *t = data;
  jf_model_thread_clear(&t->mt);
  if (t->sc_saved) {
    g_byte_array_unref(t->sc_saved);
  }
  g_free(t);
}

bool jf_sched_init(char **error)
{
  const struct emu_config *cfg = jf_config;
  memset(&process_allowed, 0, sizeof(process_allowed));
  memset(&allowed_all, 0, sizeof(allowed_all));
  for (unsigned cpu = 0; cpu < cfg->ncpus; cpu++) {
    if (cfg->allowed[cpu]) {
      jf_cpuset_add(&allowed_all, cpu);
    }
    if (cfg->allowed[cpu] && cfg->cpus[cpu].online) {
      jf_cpuset_add(&process_allowed, cpu);
    }
  }
  process_allowed_count = cpuset_count(&process_allowed);
  if (process_allowed_count == 0) {
    *error = g_strdup_printf("%s: [process] allowed has no online CPU", cfg->path);
    return false;
  }
  seed = jf_opts.have_seed ? jf_opts.seed : cfg->seed;
  migrate_every = jf_opts.have_migrate_every ? jf_opts.migrate_every : cfg->migrate_every;
  interval_mod = jf_fast_mod_for(migrate_every ? 2 * migrate_every - 1 : 1);
  pick_mod = g_new(struct jf_fast_mod, cfg->ncpus + 1);
  for (unsigned d = 1; d <= cfg->ncpus; d++) {
    pick_mod[d] = jf_fast_mod_for(d);
  }
  threads = g_ptr_array_new_with_free_func(thread_free);
  by_vcpu = g_ptr_array_new();
  g_queue_init(&children);
  cpu_insns = g_new0(uint64_t, cfg->ncpus);

  cpu_set_t host;
  CPU_ZERO(&host);
  if (sched_getaffinity(0, sizeof(host), &host) != 0) {
    CPU_SET(0, &host);
  }
  memcpy(host_mask, &host, MIN(sizeof(host), sizeof(host_mask)));
  return true;
}

void jf_sched_free(void)
{
  g_clear_pointer(&threads, g_ptr_array_unref);
  g_clear_pointer(&by_vcpu, g_ptr_array_unref);
  g_queue_clear(&children);
  g_clear_pointer(&cpu_insns, g_free);
  g_clear_pointer(&pick_mod, g_free);
}

uint64_t jf_sched_cpu_insns(unsigned cpu)
{
  return cpu_insns[cpu];
}
unsigned jf_sched_nthreads(void)
{
  return threads ? threads->len : 0;
}

uint64_t jf_sched_settled_before(void)
{
  /* A thread that is not alive yet is synchronised when it starts
   * (jf_sched_vcpu_init), later than anything the model holds now. */
  uint64_t oldest = UINT64_MAX;
  /* by_vcpu holds the live threads only, and its length is bounded by the
   * most threads alive at once (QEMU reuses vCPU indices), not by every
   * thread the program ever started. */
  for (guint i = 0; by_vcpu && i < by_vcpu->len; i++) {
    const struct jf_thread *t = g_ptr_array_index(by_vcpu, i);
    if (t) {
      oldest = MIN(oldest, t->mt.sync_seq);
    }
  }
  return oldest;
}

static struct jf_thread *thread_new(const struct jf_cpuset *mask)
{
  struct jf_thread *t = g_new0(struct jf_thread, 1);
  jf_model_thread_init(&t->mt, threads->len, 0, 0);
  t->mask = *mask;
  t->wanted = *mask;
  t->rng = seed ^ (UINT64_C(0xd1b54a32d192ed03) * (t->mt.serial + 1));
  g_ptr_array_add(threads, t);
  return t;
}

struct jf_thread *jf_sched_thread(unsigned vcpu)
{
  return vcpu < by_vcpu->len ? g_ptr_array_index(by_vcpu, vcpu) : NULL;
}

static struct jf_thread *thread_by_tid(int tid)
{
  for (guint i = 0; i < threads->len; i++) {
    struct jf_thread *t = g_ptr_array_index(threads, i);
    if (t->alive && t->tid == tid) {
      return t;
    }
  }
  return NULL;
}

static uint64_t draw_interval(struct jf_thread *t)
{
  return 1 + jf_fast_remainder(rng_next(&t->rng), &interval_mod);
}

/* Sets S's clock for the next stretch of the instructions to its next
 * migration: at most JF_CLOCK_CHUNK, so that the fetch checks the clock
 * also counts never reach an instruction's worth. The TB callback fires
 * once the clock reaches JF_MIGRATE_DUE; the inline add of each TB
 * (jf_clock_tick) moves it forward. */
static void arm_stretch(struct jf_vcpu_score *s)
{
  uint64_t stretch = MIN(s->until_migration, JF_CLOCK_CHUNK);
  s->until_migration -= stretch;
  jf_score_set_clock(s, JF_MIGRATE_DUE - (stretch << JF_CLOCK_INSN_SHIFT));
}

/* T's vCPU's entry is S. */
static void arm_migration_clock(struct jf_thread *t, struct jf_vcpu_score *s)
{
  s->until_migration = migrate_every ? draw_interval(t) : UINT64_MAX; /* never */
  arm_stretch(s);
}

/* Moves the instructions T executed since the last call onto its CPU. S
 * is the scoreboard entry of T's vCPU. The callers that already hold it
 * pass it: qemu_plugin_scoreboard_find is a call into QEMU, and a
 * migration made six of them (5% of a --check off run of testinput17). */
static void credit_with(struct jf_thread *t, const struct jf_vcpu_score *s)
{
  uint64_t now = jf_score_counts(s).insns;
  cpu_insns[t->mt.cpu] += now - t->insns_credited;
  t->insns_credited = now;
}

static void credit(struct jf_thread *t)
{
  credit_with(t, jf_vcpu_score(t->vcpu));
}

void jf_sched_credit_all(void)
{
  g_mutex_lock(&jf_lock);
  for (guint i = 0; threads && i < threads->len; i++) {
    struct jf_thread *t = g_ptr_array_index(threads, i);
    if (t->alive) {
      credit(t);
    }
  }
  g_mutex_unlock(&jf_lock);
}

/* Puts T on CPU (the model tracks the CPU's cluster with it). */
static void place(struct jf_thread *t, unsigned cpu)
{
  t->mt.cpu = cpu;
  t->mt.cluster = jf_cluster_of(cpu);
  if (t->alive) {
    jf_store_thread_placed(t->vcpu, t->mt.cluster);
  }
}

/* jf_sched_sync; OWN is T's vCPU's entry when T is alive, else NULL. */
static void sync_with(struct jf_thread *t, struct jf_vcpu_score *own)
{
  jf_model_sync(jf_model, &t->mt);
  if (own) {
    /* Only grows; a vCPU reading an older value only takes the slow path. */
    own->sync_seq = t->mt.sync_seq;
  }
}

void jf_sched_sync(struct jf_thread *t)
{
  sync_with(t, t->alive ? jf_vcpu_score(t->vcpu) : NULL);
}

/*
 * Runs T on NEW_CPU from now on. The kernel's context switch completes the
 * task's outstanding cache maintenance (dsb(ish) in __switch_to) and the
 * return to user space is an exception return, a context synchronisation.
 * OWN is T's vCPU's entry (NULL: looked up), COUNTER the entry that counts
 * the migration.
 */
static void migrate_with(struct jf_thread *t, unsigned new_cpu, struct jf_vcpu_score *own,
                         struct jf_vcpu_score *counter)
{
  if (!own) {
    own = jf_vcpu_score(t->vcpu);
  }
  credit_with(t, own);
  jf_model_dsb(jf_model, &t->mt);
  place(t, new_cpu);
  sync_with(t, t->alive ? own : NULL);
  counter->migrations++;
}

static void migrate(struct jf_thread *t, unsigned new_cpu, unsigned counter_vcpu)
{
  migrate_with(t, new_cpu, NULL, jf_vcpu_score(counter_vcpu));
}

void jf_sched_vcpu_init(unsigned vcpu)
{
  g_mutex_lock(&jf_lock);
  struct jf_thread *t = g_queue_pop_head(&children);
  bool is_main = threads->len == 0;
  if (!t) {
    t = thread_new(&process_allowed);
    t->wanted = allowed_all; /* Linux's default: every CPU, as they come */
  }
  unsigned n = cpuset_count(&t->mask);
  if (is_main) {
    /* The first allowed CPU, as a process started by a shell on Linux
     * usually is before the scheduler balances it. */
    place(t, cpuset_nth(&t->mask, 0));
    t->tid = getpid();
  } else {
    /* Round robin over the inherited mask from a seeded offset. */
    place(t, cpuset_nth(&t->mask, (unsigned)((seed + t->mt.serial) % n)));
  }
  t->vcpu = vcpu;
  t->alive = true;
  jf_store_thread_placed(vcpu, t->mt.cluster);
  if (by_vcpu->len <= vcpu) {
    g_ptr_array_set_size(by_vcpu, (gint)vcpu + 1);
  }
  g_ptr_array_index(by_vcpu, vcpu) = t;
  /* The scoreboard slot may have served an earlier thread. */
  t->insns_credited = jf_score_counts(jf_vcpu_score(vcpu)).insns;
  jf_vcpu_score(vcpu)->reg_pending = 0; /* not for this thread */
  jf_sched_sync(t);
  arm_migration_clock(t, jf_vcpu_score(vcpu));
  g_mutex_unlock(&jf_lock);
}

void jf_sched_vcpu_exit(unsigned vcpu)
{
  g_mutex_lock(&jf_lock);
  struct jf_thread *t = jf_sched_thread(vcpu);
  if (t) {
    credit(t);
    jf_model_dsb(jf_model, &t->mt);
    t->alive = false;
    jf_store_thread_gone(vcpu);
    g_ptr_array_index(by_vcpu, vcpu) = NULL;
    jf_vcpu_score(vcpu)->sync_seq = 0; /* the slot's next thread starts over */
  }
  g_mutex_unlock(&jf_lock);
}

void jf_sched_migration_due(unsigned vcpu, struct jf_vcpu_score *s)
{
  if (s->until_migration > 0) {
    arm_stretch(s); /* only a stretch ended: no migration point */
    return;
  }
  jf_hotplug_poll(vcpu);
  g_mutex_lock(&jf_lock);
  struct jf_thread *t = jf_sched_thread(vcpu);
  if (!t) {
    /* No thread to move: the clock stays due, and what it counted is
     * folded into the bases. */
    jf_score_set_clock(s, s->migrate_clock);
  } else {
    unsigned n = cpuset_count(&t->mask);
    if (n > 1) {
      /* Uniform over the other CPUs of the mask. */
      unsigned pick = (unsigned)jf_fast_remainder(rng_next(&t->rng), &pick_mod[n - 1]);
      unsigned target = cpuset_nth(&t->mask, pick);
      if (target == t->mt.cpu) {
        target = cpuset_nth(&t->mask, n - 1);
      }
      migrate_with(t, target, s, s);
    }
    arm_migration_clock(t, s);
  }
  g_mutex_unlock(&jf_lock);
}

/* ---- policy=adversarial -------------------------------------------------- */

/* How much a flush routine that trusts CPU's CTR_EL0 may skip: DIC, then
 * IDC, then the I line, then the D line (larger skips more). */
static uint64_t laxness(unsigned cpu)
{
  struct jf_model_geometry g;
  jf_model_geometry_from_ctr(jf_visible_ctr(cpu), &g);
  return ((uint64_t)g.dic << 63) | ((uint64_t)g.idc << 62) | ((uint64_t)g.iline << 31) | g.dline;
}

/* The most and least lax CPUs of T's mask (the first of equals); false when
 * every CPU of the mask shows the same geometry. */
static bool mask_extremes(const struct jf_thread *t, unsigned *laxest, unsigned *strictest)
{
  bool any = false;
  uint64_t hi = 0, lo = 0;
  for (unsigned cpu = 0; cpu < jf_config->ncpus; cpu++) {
    if (!jf_cpuset_has(&t->mask, cpu)) {
      continue;
    }
    uint64_t l = laxness(cpu);
    if (!any || l > hi) {
      hi = l;
      *laxest = cpu;
    }
    if (!any || l < lo) {
      lo = l;
      *strictest = cpu;
    }
    any = true;
  }
  return any && hi != lo;
}

static bool adversarial(void)
{
  enum emu_sched_policy p = jf_opts.have_policy ? jf_opts.policy : jf_config->policy;
  return p == EMU_SCHED_ADVERSARIAL;
}

void jf_sched_adversary_ctr_read(struct jf_thread *t)
{
  unsigned laxest, strictest;
  if (!adversarial() || !mask_extremes(t, &laxest, &strictest)) {
    return;
  }
  if (laxness(t->mt.cpu) != laxness(laxest)) {
    migrate(t, laxest, t->vcpu);
  }
  t->adversary_armed = true;
}

void jf_sched_adversary_maintenance(struct jf_thread *t)
{
  unsigned laxest, strictest;
  if (!t->adversary_armed) {
    return;
  }
  t->adversary_armed = false;
  if (mask_extremes(t, &laxest, &strictest) && laxness(t->mt.cpu) != laxness(strictest)) {
    migrate(t, strictest, t->vcpu);
  }
}

/* ---- hotplug (plugin_hotplug.c) ------------------------------------------- */

/* T's mask: what it asked for within the process's online CPUs; when none
 * of those is online, all of them (the kernel's fallback for a task whose
 * CPUs all went offline, select_fallback_rq in kernel/sched/core.c). */
static void effective_mask(struct jf_thread *t)
{
  unsigned n = 0;
  for (unsigned i = 0; i < JF_CPU_WORDS; i++) {
    t->mask.bits[i] = t->wanted.bits[i] & process_allowed.bits[i];
    n += (unsigned)__builtin_popcountll(t->mask.bits[i]);
  }
  if (n == 0) {
    t->mask = process_allowed;
  }
}

void jf_sched_set_online(const struct jf_cpuset *online, unsigned vcpu)
{
  for (unsigned i = 0; i < JF_CPU_WORDS; i++) {
    process_allowed.bits[i] = allowed_all.bits[i] & online->bits[i];
  }
  process_allowed_count = cpuset_count(&process_allowed);
  for (guint i = 0; i < threads->len; i++) {
    struct jf_thread *t = g_ptr_array_index(threads, i);
    effective_mask(t);
    if (t->alive && !jf_cpuset_has(&t->mask, t->mt.cpu)) {
      /* Its CPU went offline: the kernel migrates it away before the CPU
       * dies (migrate_tasks, kernel/sched/core.c). */
      migrate(t, cpuset_nth(&t->mask, (unsigned)(rng_next(&t->rng) % cpuset_count(&t->mask))),
              vcpu);
    }
  }
}

/* ---- affinity syscalls --------------------------------------------------- */

static bool guest_read(uint64_t addr, GByteArray *buf, size_t len)
{
  return len > 0 && qemu_plugin_read_memory_vaddr(addr, buf, len);
}

/*
 * Guest memory is written only after jf_lock is released: QEMU's memory
 * access takes its mmap_lock, and a thread that is translating holds
 * mmap_lock while it waits for jf_lock in jf_instrument_tb, so writing
 * under jf_lock deadlocks. The syscall callbacks queue their writes here
 * (per host thread, at most three per syscall) and flush them on the way
 * out.
 */
struct pending_write {
  uint64_t addr;
  size_t len;
  uint8_t bytes[MASK_BYTES_MAX];
};
static __thread struct pending_write pending_writes[3];
static __thread unsigned pending_count;

static void guest_write(uint64_t addr, const void *bytes, size_t len)
{
  g_assert(pending_count < G_N_ELEMENTS(pending_writes) && len <= MASK_BYTES_MAX);
  struct pending_write *w = &pending_writes[pending_count++];
  w->addr = addr;
  w->len = len;
  memcpy(w->bytes, bytes, len);
}

/* Call with jf_lock released. */
static void flush_guest_writes(void)
{
  for (unsigned i = 0; i < pending_count; i++) {
    GByteArray *buf = g_byte_array_new();
    g_byte_array_append(buf, pending_writes[i].bytes, (guint)pending_writes[i].len);
    qemu_plugin_write_memory_vaddr(pending_writes[i].addr, buf);
    g_byte_array_unref(buf);
  }
  pending_count = 0;
}

static void cpuset_to_bytes(const struct jf_cpuset *s, uint8_t *out, size_t len)
{
  memset(out, 0, len);
  for (size_t i = 0; i < len && i < MASK_BYTES_MAX; i++) {
    out[i] = (uint8_t)(s->bits[i / 8] >> (8 * (i % 8)));
  }
}

/* pid 0 and the caller's own tid mean the caller (sched_setaffinity(2));
 * other tids must be one of the process's live threads. */
static struct jf_thread *affinity_target(struct jf_thread *self, int64_t pid)
{
  if (pid == 0 || pid == self->tid) {
    return self;
  }
  return thread_by_tid((int)pid);
}

/* ORIG is the guest's mask, read before jf_lock was taken (see
 * guest_write), or NULL when it could not be read. Takes ownership. */
static void setaffinity_enter(struct jf_thread *t, uint64_t pid, uint64_t addr, GByteArray *orig)
{
  struct jf_thread *target = affinity_target(t, (int64_t)pid);
  if (!target || !orig) {
    if (orig) {
      g_byte_array_unref(orig);
    }
    return; /* let the host report ESRCH / EFAULT / EINVAL itself */
  }
  size_t n = orig->len;
  /* Linux: the new mask is the user's mask within the cpuset's CPUs and
   * the active ones; nothing left is EINVAL (kernel/sched/core.c,
   * __sched_setaffinity). Bytes past LEN count as zero. */
  struct jf_cpuset wanted;
  memset(&wanted, 0, sizeof(wanted));
  for (size_t i = 0; i < n; i++) {
    wanted.bits[i / 8] |= (uint64_t)orig->data[i] << (8 * (i % 8));
  }
  struct jf_cpuset online_part;
  for (unsigned i = 0; i < JF_CPU_WORDS; i++) {
    wanted.bits[i] &= allowed_all.bits[i]; /* kept for hotplug */
    online_part.bits[i] = wanted.bits[i] & process_allowed.bits[i];
  }
  bool empty = cpuset_count(&online_part) == 0;
  uint8_t replacement[MASK_BYTES_MAX];
  memset(replacement, 0, sizeof(replacement));
  if (!empty) {
    memcpy(replacement, host_mask, n);
  }
  /* An empty mask makes the host fail with EINVAL, as Linux would here. */
  guest_write(addr, replacement, n);
  t->sc_saved = orig;
  t->sc_apply = !empty;
  t->sc_mask = wanted;
  t->sc_target = target;
}

static void setaffinity_return(struct jf_thread *t, int64_t ret, unsigned vcpu)
{
  if (!t->sc_saved) {
    return;
  }
  guest_write(t->sc_args[2], t->sc_saved->data, t->sc_saved->len);
  g_clear_pointer(&t->sc_saved, g_byte_array_unref);
  struct jf_thread *target = t->sc_target;
  if (ret == 0 && t->sc_apply && target->alive) {
    target->wanted = t->sc_mask;
    effective_mask(target);
    if (!jf_cpuset_has(&target->mask, target->mt.cpu)) {
      /* Linux moves a task off a CPU its new mask excludes at once. */
      migrate(target, cpuset_nth(&target->mask, 0), vcpu);
    }
  }
}

static void getaffinity_return(struct jf_thread *t, int64_t ret, unsigned vcpu)
{
  struct jf_thread *target = affinity_target(t, (int64_t)t->sc_args[0]);
  if (ret <= 0 || !target) {
    return;
  }
  /*
   * Linux answers with cpumask_size() bytes, whole unsigned longs covering
   * nr_cpu_ids, and fails with EINVAL when LEN is shorter than nr_cpu_ids
   * bits or not a multiple of a long (kernel/sched/core.c,
   * sys_sched_getaffinity). The host answered for its own couple of CPUs,
   * so both the bytes and, for more than 64 emulated CPUs, the result in x0
   * are the emulated system's. x0 is written by the cpu_loop after this
   * callback, hence the override at the next TB start.
   */
  uint64_t len = t->sc_args[1];
  uint64_t size = (jf_config->ncpus + 63) / 64 * 8;
  if (len * 8 < jf_config->ncpus) {
    jf_instrument_defer_reg_write(vcpu, 0, (uint64_t)-EINVAL);
    return;
  }
  uint8_t bytes[MASK_BYTES_MAX];
  size_t n = MIN(size, (uint64_t)MASK_BYTES_MAX);
  cpuset_to_bytes(&target->mask, bytes, n);
  guest_write(t->sc_args[2], bytes, n);
  if ((uint64_t)ret != n) {
    jf_instrument_defer_reg_write(vcpu, 0, n);
  }
}

static void getcpu_return(struct jf_thread *t, int64_t ret)
{
  if (ret != 0) {
    return;
  }
  uint32_t cpu = t->mt.cpu;
  uint32_t node = 0; /* the emulated SoCs have one NUMA node */
  if (t->sc_args[0]) {
    guest_write(t->sc_args[0], &cpu, sizeof(cpu));
  }
  if (t->sc_args[1]) {
    guest_write(t->sc_args[1], &node, sizeof(node));
  }
}

void jf_sched_syscall(unsigned vcpu, int64_t num, uint64_t a1, uint64_t a2, uint64_t a3)
{
  GByteArray *wanted_mask = NULL;
  jf_hotplug_poll(vcpu);
  if (num == NR_SCHED_SETAFFINITY) {
    /* Read before taking jf_lock, for the reason given at guest_write. */
    wanted_mask = g_byte_array_new();
    if (!guest_read(a3, wanted_mask, MIN(a2, (uint64_t)MASK_BYTES_MAX))) {
      g_clear_pointer(&wanted_mask, g_byte_array_unref);
    }
  }
  g_mutex_lock(&jf_lock);
  struct jf_thread *t = jf_sched_thread(vcpu);
  if (!t) {
    g_mutex_unlock(&jf_lock);
    if (wanted_mask) {
      g_byte_array_unref(wanted_mask);
    }
    return;
  }
  if (t->tid == 0) {
    /* linux-user runs each guest thread in a host thread of the same id. */
    t->tid = (int)syscall(SYS_gettid);
  }
  t->sc_num = num;
  t->sc_args[0] = a1;
  t->sc_args[1] = a2;
  t->sc_args[2] = a3;
  t->sc_clone_child = NULL;
  switch (num) {
  case NR_CLONE:
    if ((a1 & GUEST_CLONE_VM) && (a1 & GUEST_CLONE_THREAD)) {
      /* A new thread inherits its creator's affinity (sched_fork). */
      t->sc_clone_child = thread_new(&t->mask);
      t->sc_clone_child->wanted = t->wanted;
      g_queue_push_tail(&children, t->sc_clone_child);
    }
    break;
  case NR_SCHED_SETAFFINITY:
    setaffinity_enter(t, a1, a3, wanted_mask);
    wanted_mask = NULL;
    break;
  default:
    break;
  }
  g_mutex_unlock(&jf_lock);
  if (wanted_mask) {
    g_byte_array_unref(wanted_mask);
  }
  flush_guest_writes();
}

void jf_sched_syscall_ret(unsigned vcpu, int64_t num, int64_t ret)
{
  g_mutex_lock(&jf_lock);
  struct jf_thread *t = jf_sched_thread(vcpu);
  if (!t || t->sc_num != num) {
    g_mutex_unlock(&jf_lock);
    return;
  }
  switch (num) {
  case NR_CLONE:
    if (t->sc_clone_child) {
      if (ret > 0) {
        t->sc_clone_child->tid = (int)ret;
      } else if (g_queue_remove(&children, t->sc_clone_child)) {
        /* No thread was made: the record stays unused in THREADS. */
      }
    }
    break;
  case NR_SCHED_SETAFFINITY:
    setaffinity_return(t, ret, vcpu);
    break;
  case NR_SCHED_GETAFFINITY:
    getaffinity_return(t, ret, vcpu);
    break;
  case NR_GETCPU:
    getcpu_return(t, ret);
    break;
  case NR_MEMBARRIER:
    if (ret == 0 && t->sc_args[0] == MEMBARRIER_CMD_PRIVATE_EXPEDITED_SYNC_CORE) {
      /* Every core running one of the process's threads gets an IPI and
       * an exception return; the threads not running will pass one when
       * they are scheduled in (kernel/sched/membarrier.c). */
      for (guint i = 0; i < threads->len; i++) {
        struct jf_thread *other = g_ptr_array_index(threads, i);
        if (other->alive) {
          jf_sched_sync(other);
        }
      }
    }
    break;
  default:
    break;
  }
  /* The return to user space is an exception return. */
  jf_sched_sync(t);
  t->sc_num = -1;
  g_mutex_unlock(&jf_lock);
  flush_guest_writes();
}
