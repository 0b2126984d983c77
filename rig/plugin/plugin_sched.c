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
 * migrate() as a random migration does (a context synchronisation that
 * completes nothing, MOVE_PREEMPT): the policy only chooses the worst
 * legal schedule, it never relaxes a rule.
 * A thread pinned to one CPU, or whose CPUs all agree, is never moved by it.
 */
#define _GNU_SOURCE /* sched_getaffinity, CPU_SET, syscall */
#include <errno.h>
#include <sched.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "rig_release.h"
#include "rig_fast_mod.h"
#include "rig_guest_syscalls.h"
#include "ctr.h"
#include "plugin_regs.h"
#include "plugin_sched.h"
#include "plugin_store.h"
#include "rig_splitmix.h"

/* Linux's generic syscall numbers, which aarch64 uses
 * (include/uapi/asm-generic/unistd.h). */
#define NR_SCHED_SETAFFINITY 122
#define NR_SCHED_GETAFFINITY 123
#define NR_GETCPU 168
#define NR_MEMBARRIER 283
#define MEMBARRIER_CMD_PRIVATE_EXPEDITED_SYNC_CORE 32
#define MASK_BYTES_MAX (JF_MAX_CPUS / 8)

#define PLUGIN_SCHED_ERROR (g_quark_from_static_string("jf-sched-error"))

struct plugin_sched {
  struct jf_cpuset process_allowed; /* [process] allowed ∩ online */
  struct jf_cpuset allowed_all;     /* [process] allowed, offline CPUs too */
  unsigned ncpus;
  GPtrArray *threads;  /* every struct plugin_thread, by serial */
  GPtrArray *by_vcpu;  /* vCPU index -> live struct plugin_thread */
  GQueue children;     /* made at clone, waiting for their vCPU */
  GCond child_known;   /* a clone returned: a child's tid is known */
  uint64_t *cpu_insns; /* per emulated CPU */
  uint64_t seed;
  uint64_t migrate_every;
  bool adversarial;
  uint64_t *laxness; /* per CPU: what its visible CTR_EL0 lets a flush skip */
  /* The remainders a migration draws (rig_fast_mod.h): by 2 * migrate_every - 1
   * for the interval, by n - 1 (PICK_MOD[n - 1]) for the target among the n
   * CPUs of a mask. */
  struct rig_fast_mod interval_mod;
  struct rig_fast_mod *pick_mod;
  uint8_t host_mask[MASK_BYTES_MAX]; /* the host's own affinity */
};

/* Sets only ever hold CPUs of the config: the words past its last CPU are
 * zero, and the migration callback (every few hundred guest instructions)
 * need not look at them. */
static unsigned cpuset_count(const struct plugin_sched *sc, const struct jf_cpuset *s)
{
  unsigned n = 0;
  for (unsigned i = 0; i < (sc->ncpus + 63) / 64; i++) {
    n += (unsigned)__builtin_popcountll(s->bits[i]);
  }
  return n;
}

/* jf_cpuset_has for a CPU of the config, inline: the migration callback
 * (every few hundred guest instructions) tests every CPU of a mask. */
static inline bool has_cpu(const struct jf_cpuset *s, unsigned cpu)
{
  return (s->bits[cpu / 64] >> (cpu % 64)) & 1;
}

/* The INDEX-th CPU (from 0) of S, which must hold more than INDEX. */
static unsigned cpuset_nth(const struct plugin_sched *sc, const struct jf_cpuset *s, unsigned index)
{
  for (unsigned cpu = 0; cpu < sc->ncpus; cpu++) {
    if (has_cpu(s, cpu) && index-- == 0) {
      return cpu;
    }
  }
  g_assert_not_reached();
}

static void thread_free(gpointer data)
{
  struct plugin_thread *t = data;
  model_thread_clear(&t->mt);
  if (t->sc_saved) {
    g_byte_array_unref(t->sc_saved);
  }
  g_free(t);
}

/* How much a flush routine that trusts CTR may skip: DIC, then IDC, then
 * the I line, then the D line (larger skips more; policy=adversarial). */
static uint64_t laxness_of(uint64_t ctr_el0)
{
  const struct jf_ctr ctr = jf_ctr_decode(ctr_el0);
  return ((uint64_t)ctr.dic << 63) | ((uint64_t)ctr.idc << 62) | ((uint64_t)ctr.iline << 31) |
         ctr.dline;
}

struct plugin_sched *plugin_sched_new(struct plugin_rig *rig, GError **error)
{
  const struct rig_config *cfg = rig->config;
  struct plugin_sched *sc = g_new0(struct plugin_sched, 1);
  sc->ncpus = cfg->ncpus;
  for (unsigned cpu = 0; cpu < cfg->ncpus; cpu++) {
    if (jf_cpuset_has(&cfg->allowed, cpu)) {
      jf_cpuset_add(&sc->allowed_all, cpu);
    }
    if (jf_cpuset_has(&cfg->allowed, cpu) && cfg->cpus[cpu].online) {
      jf_cpuset_add(&sc->process_allowed, cpu);
    }
  }
  if (cpuset_count(sc, &sc->process_allowed) == 0) {
    g_set_error(error, PLUGIN_SCHED_ERROR, 1, "%s: [process] allowed has no online CPU", cfg->path);
    g_free(sc);
    return NULL;
  }
  sc->seed = plugin_rig_seed(rig);
  sc->migrate_every = rig->opts.have_migrate_every ? rig->opts.migrate_every : cfg->migrate_every;
  sc->adversarial = plugin_rig_policy(rig) == RIG_SCHED_ADVERSARIAL;
  sc->laxness = g_new(uint64_t, cfg->ncpus);
  for (unsigned cpu = 0; cpu < cfg->ncpus; cpu++) {
    sc->laxness[cpu] = laxness_of(rig_config_visible_ctr(cfg, cpu));
  }
  sc->interval_mod = rig_fast_mod_for(sc->migrate_every ? 2 * sc->migrate_every - 1 : 1);
  sc->pick_mod = g_new(struct rig_fast_mod, cfg->ncpus + 1);
  for (unsigned d = 1; d <= cfg->ncpus; d++) {
    sc->pick_mod[d] = rig_fast_mod_for(d);
  }
  sc->threads = g_ptr_array_new_with_free_func(thread_free);
  sc->by_vcpu = g_ptr_array_new();
  g_queue_init(&sc->children);
  g_cond_init(&sc->child_known);
  sc->cpu_insns = g_new0(uint64_t, cfg->ncpus);

  cpu_set_t host;
  CPU_ZERO(&host);
  if (sched_getaffinity(0, sizeof(host), &host) != 0) {
    CPU_SET(0, &host);
  }
  memcpy(sc->host_mask, &host, MIN(sizeof(host), sizeof(sc->host_mask)));
  return sc;
}

void plugin_sched_free(struct plugin_sched *sc)
{
  if (!sc) {
    return;
  }
  RIG_RELEASE(g_ptr_array_unref, GPtrArray, sc->threads, sc->by_vcpu);
  g_queue_clear(&sc->children);
  g_cond_clear(&sc->child_known);
  RIG_RELEASE(g_free, void, sc->cpu_insns, sc->pick_mod, sc->laxness, sc);
}

uint64_t plugin_sched_cpu_insns(const struct plugin_sched *sc, unsigned cpu)
{
  return sc->cpu_insns[cpu];
}

unsigned plugin_sched_nthreads(const struct plugin_sched *sc)
{
  return sc->threads->len;
}

uint64_t plugin_sched_settled_before(const struct plugin_sched *sc)
{
  /* A thread that is not alive yet is synchronised when it starts
   * (plugin_sched_vcpu_init), later than anything the model holds now. */
  uint64_t oldest = UINT64_MAX;
  /* by_vcpu holds the live threads only, and its length is bounded by the
   * most threads alive at once (QEMU reuses vCPU indices), not by every
   * thread the program ever started. */
  for (guint i = 0; i < sc->by_vcpu->len; i++) {
    const struct plugin_thread *t = g_ptr_array_index(sc->by_vcpu, i);
    if (t) {
      oldest = MIN(oldest, t->mt.sync_seq);
    }
  }
  return oldest;
}

static struct plugin_thread *thread_new(struct plugin_sched *sc, const struct jf_cpuset *mask)
{
  struct plugin_thread *t = g_new0(struct plugin_thread, 1);
  model_thread_init(&t->mt, sc->threads->len, 0, 0);
  t->mask = *mask;
  t->wanted = *mask;
  t->rng = sc->seed ^ (UINT64_C(0xd1b54a32d192ed03) * (t->mt.serial + 1));
  g_ptr_array_add(sc->threads, t);
  return t;
}

struct plugin_thread *plugin_sched_thread(const struct plugin_sched *sc, unsigned vcpu)
{
  return plugin_vcpu_slot(sc->by_vcpu, vcpu);
}

static struct plugin_thread *thread_by_tid(const struct plugin_sched *sc, int tid)
{
  for (guint i = 0; i < sc->threads->len; i++) {
    struct plugin_thread *t = g_ptr_array_index(sc->threads, i);
    if (t->alive && t->tid == tid) {
      return t;
    }
  }
  return NULL;
}

/* The clock value for the next stretch of the instructions to V's next
 * migration or the end of its turn, whichever comes first: at most
 * PLUGIN_CLOCK_CHUNK, so that the fetch checks the clock also counts never
 * reach an instruction's worth. The TB callback fires once the clock
 * reaches PLUGIN_MIGRATE_DUE; the inline add of each TB (plugin_clock_tick) moves
 * it forward. */
static uint64_t next_stretch(struct plugin_vcpu *v)
{
  struct plugin_vcpu_clock *c = &v->clock;
  uint64_t stretch = MIN(MIN(c->until_migration, c->until_handover), PLUGIN_CLOCK_CHUNK);
  c->until_migration -= stretch;
  if (c->until_handover != UINT64_MAX) {
    c->until_handover -= stretch;
  }
  return PLUGIN_MIGRATE_DUE - (stretch << PLUGIN_CLOCK_INSN_SHIFT);
}

static void arm_stretch(struct plugin_vcpu *v)
{
  plugin_vcpu_set_clock(v, next_stretch(v));
}

void plugin_sched_rearm(struct plugin_vcpu *v)
{
  /* A pending register write parks the clock (plugin_regs.c): the stretch
   * in progress is the parked value's. */
  uint64_t at = v->reg.pending ? v->clock.parked : v->clock.now;
  if (at < PLUGIN_MIGRATE_DUE) {
    v->clock.until_migration += (PLUGIN_MIGRATE_DUE - at) >> PLUGIN_CLOCK_INSN_SHIFT;
  }
  if (v->reg.pending) {
    v->clock.parked = next_stretch(v);
  } else {
    arm_stretch(v);
  }
}

/* T's vCPU's entry is V. */
static void arm_migration_clock(struct plugin_sched *sc, struct plugin_thread *t,
                                struct plugin_vcpu *v)
{
  v->clock.until_migration =
      sc->migrate_every ? 1 + rig_fast_remainder(rig_splitmix_next(&t->rng), &sc->interval_mod)
                        : UINT64_MAX; /* never */
  arm_stretch(v);
}

/* Moves the instructions T executed since the last call onto its CPU. V
 * is the entry of T's vCPU. The callers that already hold it pass it:
 * qemu_plugin_scoreboard_find is a call into QEMU, and migrations are
 * frequent (docs/BENCHMARKS.md). */
static void credit_with(struct plugin_sched *sc, struct plugin_thread *t,
                        const struct plugin_vcpu *v)
{
  uint64_t now = plugin_vcpu_clock_counts(v).insns;
  sc->cpu_insns[t->mt.cpu] += now - t->insns_credited;
  t->insns_credited = now;
}

void plugin_sched_credit_all(struct plugin_rig *rig)
{
  struct plugin_sched *sc = rig->sched;
  plugin_rig_lock(rig);
  for (guint i = 0; i < sc->threads->len; i++) {
    struct plugin_thread *t = g_ptr_array_index(sc->threads, i);
    if (t->alive) {
      credit_with(sc, t, plugin_vcpu(rig, t->vcpu));
    }
  }
  plugin_rig_unlock(rig);
}

/* Puts T on CPU (the model tracks the CPU's cluster with it). */
static void place(struct plugin_rig *rig, struct plugin_thread *t, unsigned cpu)
{
  t->mt.cpu = cpu;
  t->mt.cluster = rig_config_cluster_of(rig->config, cpu);
  if (t->alive) {
    plugin_store_thread_placed(rig->store, t->vcpu, &t->mt);
  }
}

/* plugin_sched_sync; OWN is T's vCPU's entry when T is alive, else NULL. */
static void sync_with(struct plugin_rig *rig, struct plugin_thread *t, struct plugin_vcpu *own)
{
  model_sync(rig->model, &t->mt);
  if (own) {
    /* Only grows; a vCPU reading an older value only takes the slow path. */
    own->sync_seq = t->mt.sync_seq;
  }
}

void plugin_sched_sync(struct plugin_rig *rig, struct plugin_thread *t)
{
  sync_with(rig, t, t->alive ? plugin_vcpu(rig, t->vcpu) : NULL);
}

/* What a move of a thread to another CPU gives its cache maintenance. */
enum move_kind {
  /* A preemption at a point the rig chose (a random or adversarial
   * migration): nothing is completed. Linux's context switch does complete
   * the task's stores and maintenance (dsb(ish) in __switch_to,
   * arch/arm64/kernel/process.c), but a program cannot count on one
   * falling between its stores and its fetch, and the rig migrates every
   * few hundred instructions where a kernel preempts a thread once per
   * scheduler tick at most: herd7 allows the stale fetch on the path
   * without the switch (DIC1.SM.B+isb, jf.IDC1.SM.B+ic-dsb-isb), so
   * the rig's own migrations must not publish code
   * (docs/COHERENCE-MODEL.md, "Migrations and membarrier"). */
  MOVE_PREEMPT,
  /* A move the kernel makes at once on an event of that execution (an
   * affinity change that excludes the CPU, the CPU going offline): the
   * context switch, and its dsb(ish), happens there on every path. */
  MOVE_FORCED,
};

/*
 * Runs T on NEW_CPU from now on. The return to user space on the new CPU
 * is an exception return, a context synchronisation; a forced move also
 * completes the task's outstanding stores and cache maintenance (KIND).
 * OWN is T's vCPU's entry (NULL: looked up), COUNTER the entry that counts
 * the migration.
 */
static void migrate_with(struct plugin_rig *rig, struct plugin_thread *t, unsigned new_cpu,
                         enum move_kind kind, struct plugin_vcpu *own, struct plugin_vcpu *counter)
{
  if (!own) {
    own = plugin_vcpu(rig, t->vcpu);
  }
  credit_with(rig->sched, t, own);
  if (kind == MOVE_FORCED) {
    model_dsb(rig->model, &t->mt);
  }
  place(rig, t, new_cpu);
  sync_with(rig, t, t->alive ? own : NULL);
  counter->counts.migrations++;
}

static void migrate(struct plugin_rig *rig, struct plugin_thread *t, unsigned new_cpu,
                    enum move_kind kind, unsigned counter_vcpu)
{
  migrate_with(rig, t, new_cpu, kind, NULL, plugin_vcpu(rig, counter_vcpu));
}

/*
 * The record its creator made at clone for the thread TID, which is
 * starting (the lock held). QEMU initialises a vCPU on the new thread
 * itself, when it starts running, which may be before or after the clone
 * returns in the creator. Records are matched by thread id, never by order:
 * with several threads creating threads at once, the oldest record may be
 * another creator's, and a child would start with that creator's affinity.
 * While some clone has not returned yet, the child's record may be that
 * one, so it waits for the return (the lock is released meanwhile, and a
 * clone returns whatever the child does). NULL: no clone made it (the main
 * thread, or a thread QEMU started otherwise).
 */
static struct plugin_thread *claim_child(struct plugin_rig *rig, int tid)
{
  struct plugin_sched *sc = rig->sched;
  for (;;) {
    bool pending = false;
    for (GList *l = sc->children.head; l; l = l->next) {
      struct plugin_thread *c = l->data;
      if (c->tid == tid) {
        g_queue_delete_link(&sc->children, l);
        return c;
      }
      pending |= c->tid == 0;
    }
    if (!pending) {
      return NULL;
    }
    /* Others take the lock meanwhile: what this holder changed is told. */
    plugin_rig_epoch_bump(rig);
    g_cond_wait(&sc->child_known, &rig->lock);
  }
}

void plugin_sched_vcpu_init(struct plugin_rig *rig, unsigned vcpu)
{
  struct plugin_sched *sc = rig->sched;
  /* linux-user runs each guest thread in a host thread of the same id, and
   * the vCPU is initialised on it. */
  int tid = (int)syscall(SYS_gettid);
  plugin_rig_lock(rig);
  struct plugin_thread *t = claim_child(rig, tid);
  bool is_main = sc->threads->len == 0;
  if (!t) {
    t = thread_new(sc, &sc->process_allowed);
    t->wanted = sc->allowed_all; /* Linux's default: every CPU, as they come */
  }
  unsigned n = cpuset_count(sc, &t->mask);
  if (is_main) {
    /* The first allowed CPU, as a process started by a shell on Linux
     * usually is before the scheduler balances it. */
    place(rig, t, cpuset_nth(sc, &t->mask, 0));
  } else {
    /* Round robin over the inherited mask from a seeded offset. */
    place(rig, t, cpuset_nth(sc, &t->mask, (unsigned)((sc->seed + t->mt.serial) % n)));
  }
  t->tid = tid;
  t->vcpu = vcpu;
  t->alive = true;
  plugin_store_thread_placed(rig->store, vcpu, &t->mt);
  plugin_vcpu_slot_set(sc->by_vcpu, vcpu, t);
  /* The vCPU's entry may have served an earlier thread. */
  struct plugin_vcpu *v = plugin_vcpu(rig, vcpu);
  t->insns_credited = plugin_vcpu_clock_counts(v).insns;
  plugin_regs_forget_pending(rig, vcpu); /* not for this thread */
  sync_with(rig, t, v);
  arm_migration_clock(sc, t, v);
  plugin_rig_unlock(rig);
}

void plugin_sched_vcpu_exit(struct plugin_rig *rig, unsigned vcpu)
{
  plugin_rig_lock(rig);
  struct plugin_thread *t = plugin_vcpu_slot_take(rig->sched->by_vcpu, vcpu);
  if (t) {
    struct plugin_vcpu *v = plugin_vcpu(rig, vcpu);
    credit_with(rig->sched, t, v);
    model_dsb(rig->model, &t->mt);
    t->alive = false;
    plugin_store_thread_gone(rig->store, vcpu);
    v->sync_seq = 0; /* the slot's next thread starts over */
  }
  plugin_rig_unlock(rig);
}

bool plugin_sched_stretch_ended(struct plugin_vcpu *v)
{
  if (v->clock.until_migration > 0 && v->clock.until_handover > 0) {
    arm_stretch(v); /* only a stretch ended: no migration point */
    return true;
  }
  return false;
}

/* Keeps T among the CPUs of its mask whose geometry is its least
 * permissive one (policy=adversarial, between a move there and the next CTR_EL0
 * read): a random migration back to a larger-line CPU would let the code
 * that a latched stride skipped be fetched where the stride was right, and
 * whether it did would depend on where the seeded migration points fall,
 * which moves with anything the program does before (its environment, its
 * arguments). */
static void hold_on_strictest(const struct plugin_sched *sc, struct plugin_thread *t)
{
  struct jf_cpuset *held = &t->held;
  uint64_t least = UINT64_MAX;
  for (unsigned cpu = 0; cpu < sc->ncpus; cpu++) {
    if (jf_cpuset_has(&t->mask, cpu)) {
      least = MIN(least, sc->laxness[cpu]);
    }
  }
  jf_cpuset_clear(held);
  for (unsigned cpu = 0; cpu < sc->ncpus; cpu++) {
    if (jf_cpuset_has(&t->mask, cpu) && sc->laxness[cpu] == least) {
      jf_cpuset_add(held, cpu);
    }
  }
  t->adversary_holding = true;
}

void plugin_sched_migrate(struct plugin_rig *rig, unsigned vcpu, struct plugin_vcpu *v)
{
  struct plugin_sched *sc = rig->sched;
  plugin_rig_lock(rig);
  struct plugin_thread *t = plugin_sched_thread(sc, vcpu);
  if (!t) {
    /* No thread to move: the clock stays due, and what it counted is
     * folded into the bases. */
    plugin_vcpu_set_clock(v, v->clock.now);
  } else {
    const struct jf_cpuset *from = t->adversary_holding ? &t->held : &t->mask;
    unsigned n = cpuset_count(sc, from);
    if (!has_cpu(from, t->mt.cpu)) {
      /* Held, and moved off that geometry by the kernel (an affinity
       * change, hotplug): back onto it, uniform over its CPUs. */
      unsigned pick = (unsigned)rig_fast_remainder(rig_splitmix_next(&t->rng), &sc->pick_mod[n]);
      migrate_with(rig, t, cpuset_nth(sc, from, pick), MOVE_PREEMPT, v, v);
    } else if (n > 1) {
      /* Uniform over the other CPUs. */
      unsigned pick =
          (unsigned)rig_fast_remainder(rig_splitmix_next(&t->rng), &sc->pick_mod[n - 1]);
      unsigned target = cpuset_nth(sc, from, pick);
      if (target == t->mt.cpu) {
        target = cpuset_nth(sc, from, n - 1);
      }
      migrate_with(rig, t, target, MOVE_PREEMPT, v, v);
    }
    arm_migration_clock(sc, t, v);
  }
  plugin_rig_unlock(rig);
}

/* ---- policy=adversarial -------------------------------------------------- */

static uint64_t laxness(const struct plugin_rig *rig, unsigned cpu)
{
  return rig->sched->laxness[cpu];
}

/* The most and least lax CPUs of T's mask (the first of equals); false when
 * every CPU of the mask shows the same geometry. */
static bool mask_extremes(const struct plugin_rig *rig, const struct plugin_thread *t,
                          unsigned *laxest, unsigned *strictest)
{
  bool any = false;
  uint64_t hi = 0, lo = 0;
  for (unsigned cpu = 0; cpu < rig->config->ncpus; cpu++) {
    if (!jf_cpuset_has(&t->mask, cpu)) {
      continue;
    }
    uint64_t l = laxness(rig, cpu);
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

void plugin_sched_adversary_ctr_read(struct plugin_rig *rig, struct plugin_thread *t)
{
  unsigned laxest, strictest;
  if (!rig->sched->adversarial || !mask_extremes(rig, t, &laxest, &strictest)) {
    return;
  }
  if (laxness(rig, t->mt.cpu) != laxness(rig, laxest)) {
    migrate(rig, t, laxest, MOVE_PREEMPT, t->vcpu);
  }
  t->adversary_armed = true;
  t->adversary_holding = false;
}

void plugin_sched_adversary_maintenance(struct plugin_rig *rig, struct plugin_thread *t)
{
  unsigned laxest, strictest;
  if (!t->adversary_armed) {
    return;
  }
  t->adversary_armed = false;
  if (mask_extremes(rig, t, &laxest, &strictest)) {
    if (laxness(rig, t->mt.cpu) != laxness(rig, strictest)) {
      migrate(rig, t, strictest, MOVE_PREEMPT, t->vcpu);
    }
    hold_on_strictest(rig->sched, t);
  }
}

/* ---- hotplug (plugin_hotplug.c) ------------------------------------------- */

/* T's mask: what it asked for within the process's online CPUs; when none
 * of those is online, all of them (the kernel's fallback for a task whose
 * CPUs all went offline, select_fallback_rq in kernel/sched/core.c). */
static void effective_mask(const struct plugin_sched *sc, struct plugin_thread *t)
{
  jf_cpuset_and(&t->wanted, &sc->process_allowed, &t->mask);
  if (cpuset_count(sc, &t->mask) == 0) {
    t->mask = sc->process_allowed;
  }
  if (t->adversary_holding) {
    hold_on_strictest(sc, t); /* within the new mask */
  }
}

void plugin_sched_set_online(struct plugin_rig *rig, const struct jf_cpuset *online, unsigned vcpu)
{
  struct plugin_sched *sc = rig->sched;
  jf_cpuset_and(&sc->allowed_all, online, &sc->process_allowed);
  for (guint i = 0; i < sc->threads->len; i++) {
    struct plugin_thread *t = g_ptr_array_index(sc->threads, i);
    effective_mask(sc, t);
    if (t->alive && !jf_cpuset_has(&t->mask, t->mt.cpu)) {
      /* Its CPU went offline: the kernel migrates it away before the CPU
       * dies (migrate_tasks, kernel/sched/core.c). */
      unsigned pick = (unsigned)(rig_splitmix_next(&t->rng) % cpuset_count(sc, &t->mask));
      migrate(rig, t, cpuset_nth(sc, &t->mask, pick), MOVE_FORCED, vcpu);
    }
  }
}

/* ---- affinity syscalls --------------------------------------------------- */

static bool guest_read(uint64_t addr, GByteArray *buf, size_t len)
{
  return len > 0 && qemu_plugin_read_memory_vaddr(addr, buf, len);
}

/*
 * Guest memory is written only after the rig's lock is released: QEMU's
 * memory access takes its mmap_lock, and a thread that is translating
 * holds mmap_lock while it waits for the rig's lock, so writing under the
 * lock deadlocks. The syscall callbacks queue their writes here (per host
 * thread, at most three per syscall: not shared state) and flush them on
 * the way out.
 */
struct pending_write {
  uint64_t addr;
  size_t len;
  uint8_t bytes[MASK_BYTES_MAX];
};
static _Thread_local struct pending_write pending_writes[3];
static _Thread_local unsigned pending_count;

static void guest_write(uint64_t addr, const void *bytes, size_t len)
{
  g_assert(pending_count < G_N_ELEMENTS(pending_writes) && len <= MASK_BYTES_MAX);
  struct pending_write *w = &pending_writes[pending_count++];
  w->addr = addr;
  w->len = len;
  memcpy(w->bytes, bytes, len);
}

/* Call with the lock released. */
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
static struct plugin_thread *affinity_target(const struct plugin_sched *sc,
                                             struct plugin_thread *self, int64_t pid)
{
  if (pid == 0 || pid == self->tid) {
    return self;
  }
  return thread_by_tid(sc, (int)pid);
}

/* ORIG is the guest's mask, read before the lock was taken (see
 * guest_write), or NULL when it could not be read. Takes ownership. */
static void setaffinity_enter(struct plugin_sched *sc, struct plugin_thread *t, uint64_t pid,
                              uint64_t addr, GByteArray *orig)
{
  struct plugin_thread *target = affinity_target(sc, t, (int64_t)pid);
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
  jf_cpuset_clear(&wanted);
  for (size_t i = 0; i < n; i++) {
    wanted.bits[i / 8] |= (uint64_t)orig->data[i] << (8 * (i % 8));
  }
  struct jf_cpuset online_part;
  jf_cpuset_and(&wanted, &sc->allowed_all, &wanted); /* kept for hotplug */
  jf_cpuset_and(&wanted, &sc->process_allowed, &online_part);
  bool empty = cpuset_count(sc, &online_part) == 0;
  uint8_t replacement[MASK_BYTES_MAX];
  memset(replacement, 0, sizeof(replacement));
  if (!empty) {
    memcpy(replacement, sc->host_mask, n);
  }
  /* An empty mask makes the host fail with EINVAL, as Linux would here. */
  guest_write(addr, replacement, n);
  t->sc_saved = orig;
  t->sc_apply = !empty;
  t->sc_mask = wanted;
  t->sc_target = target;
}

static void setaffinity_return(struct plugin_rig *rig, struct plugin_thread *t, int64_t ret,
                               unsigned vcpu)
{
  if (!t->sc_saved) {
    return;
  }
  guest_write(t->sc_args[2], t->sc_saved->data, t->sc_saved->len);
  g_clear_pointer(&t->sc_saved, g_byte_array_unref);
  struct plugin_thread *target = t->sc_target;
  if (ret == 0 && t->sc_apply && target->alive) {
    target->wanted = t->sc_mask;
    effective_mask(rig->sched, target);
    if (!jf_cpuset_has(&target->mask, target->mt.cpu)) {
      /* Linux moves a task off a CPU its new mask excludes at once. */
      migrate(rig, target, cpuset_nth(rig->sched, &target->mask, 0), MOVE_FORCED, vcpu);
    }
  }
}

static void getaffinity_return(struct plugin_rig *rig, struct plugin_thread *t, int64_t ret,
                               unsigned vcpu)
{
  struct plugin_thread *target = affinity_target(rig->sched, t, (int64_t)t->sc_args[0]);
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
  unsigned ncpus = rig->config->ncpus;
  uint64_t size = (ncpus + 63) / 64 * 8;
  if (len * 8 < ncpus) {
    plugin_regs_defer_write(rig, vcpu, 0, (uint64_t)-EINVAL);
    return;
  }
  uint8_t bytes[MASK_BYTES_MAX];
  size_t n = MIN(size, (uint64_t)MASK_BYTES_MAX);
  cpuset_to_bytes(&target->mask, bytes, n);
  guest_write(t->sc_args[2], bytes, n);
  if ((uint64_t)ret != n) {
    plugin_regs_defer_write(rig, vcpu, 0, n);
  }
}

static void getcpu_return(struct plugin_thread *t, int64_t ret)
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

void plugin_sched_syscall(struct plugin_rig *rig, unsigned vcpu, int64_t num, uint64_t a1,
                          uint64_t a2, uint64_t a3)
{
  struct plugin_sched *sc = rig->sched;
  GByteArray *wanted_mask = NULL;
  if (num == NR_SCHED_SETAFFINITY) {
    /* Read before taking the lock, for the reason given at guest_write. */
    wanted_mask = g_byte_array_new();
    if (!guest_read(a3, wanted_mask, MIN(a2, (uint64_t)MASK_BYTES_MAX))) {
      g_clear_pointer(&wanted_mask, g_byte_array_unref);
    }
  }
  plugin_rig_lock(rig);
  struct plugin_thread *t = plugin_sched_thread(sc, vcpu);
  if (!t) {
    plugin_rig_unlock(rig);
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
  case RIG_GUEST_NR_CLONE:
    if (rig_guest_clone_is_thread(a1)) {
      /* A new thread inherits its creator's affinity (sched_fork). */
      t->sc_clone_child = thread_new(sc, &t->mask);
      t->sc_clone_child->wanted = t->wanted;
      g_queue_push_tail(&sc->children, t->sc_clone_child);
    }
    break;
  case NR_SCHED_SETAFFINITY:
    setaffinity_enter(sc, t, a1, a3, wanted_mask);
    wanted_mask = NULL;
    break;
  default:
    break;
  }
  plugin_rig_unlock(rig);
  if (wanted_mask) {
    g_byte_array_unref(wanted_mask);
  }
  flush_guest_writes();
}

void plugin_sched_syscall_ret(struct plugin_rig *rig, unsigned vcpu, int64_t num, int64_t ret)
{
  struct plugin_sched *sc = rig->sched;
  plugin_rig_lock(rig);
  struct plugin_thread *t = plugin_sched_thread(sc, vcpu);
  if (!t || t->sc_num != num) {
    plugin_rig_unlock(rig);
    return;
  }
  switch (num) {
  case RIG_GUEST_NR_CLONE:
    if (t->sc_clone_child) {
      if (ret > 0) {
        t->sc_clone_child->tid = (int)ret;
      } else if (g_queue_remove(&sc->children, t->sc_clone_child)) {
        /* No thread was made: the record stays unused in THREADS. */
      }
      g_cond_broadcast(&sc->child_known); /* claim_child */
    }
    break;
  case NR_SCHED_SETAFFINITY:
    setaffinity_return(rig, t, ret, vcpu);
    break;
  case NR_SCHED_GETAFFINITY:
    getaffinity_return(rig, t, ret, vcpu);
    break;
  case NR_GETCPU:
    getcpu_return(t, ret);
    break;
  case NR_MEMBARRIER:
    if (ret == 0 && t->sc_args[0] == MEMBARRIER_CMD_PRIVATE_EXPEDITED_SYNC_CORE) {
      /* Every core running one of the process's threads gets an IPI and
       * an exception return; the threads not running will pass one when
       * they are scheduled in (kernel/sched/membarrier.c). */
      for (guint i = 0; i < sc->threads->len; i++) {
        struct plugin_thread *other = g_ptr_array_index(sc->threads, i);
        if (other->alive) {
          plugin_sched_sync(rig, other);
        }
      }
    }
    break;
  default:
    break;
  }
  /* The return to user space is an exception return. */
  plugin_sched_sync(rig, t);
  t->sc_num = -1;
  plugin_rig_unlock(rig);
  flush_guest_writes();
}
