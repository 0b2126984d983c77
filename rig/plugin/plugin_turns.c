/*
 * The deterministic schedule: one guest thread at a time.
 *
 * linux-user QEMU runs each guest thread on a host thread of its own, so
 * left alone, which guest instruction runs before which is decided by the
 * host's scheduler, and a verdict that depends on the interleaving (a
 * reader fetching code a writer is still flushing) changes with the host's
 * load. Here a thread runs guest code only while it holds the turn, as in
 * record-and-replay tools that serialise threads. The turn passes:
 *
 *   - when the holder has run its quantum: a seeded count of guest
 *     instructions, uniform in [1, 2 * quantum - 1], counted by the same
 *     inline clock as migrations (plugin_vcpu.h);
 *   - at a system call that may block (rig_guest_syscalls.c); calls that cannot
 *     block keep the turn, sched_yield passes it on;
 *   - when the holder's thread ends.
 *
 * The next holder is drawn with the seeded generator among the threads
 * ready to run. For the draw to be the same on every run, the set of ready
 * threads must be: a thread in a blocking call may be about to return (it
 * was woken by the holder's futex wake, a pipe write, a signal) or asleep
 * until another thread wakes it. Before drawing, the schedule therefore
 * waits until every such thread has either come back (it is then ready)
 * or is asleep in the host kernel in the host call that implements its
 * guest call (/proc/self/task/TID/stat and .../syscall). While no thread
 * holds the turn no guest code runs, so what those calls see is fixed.
 * What stays outside the seed's reach is time: a sleep or a timed wait
 * ends when the host's clock says, and a guest that reads the clock may
 * take other paths (docs/RIG.md, "Reproducible runs").
 *
 * Where a thread waits. A new thread waits for its first turn when its
 * vCPU starts, and a thread back from a system call waits in the return
 * callback: both outside QEMU's execution loop. A holder whose quantum
 * ended waits inside it (in a TB callback), where QEMU counts it as
 * running, and an exclusive section of QEMU's (a new vCPU growing the
 * plugin's scoreboards, a fork, a full translation cache, an atomic step
 * the host cannot do in parallel) waits until every running vCPU stops.
 * So such a section is let through, the same way on every run:
 *
 *   - a creator keeps the turn until its new thread's vCPU has started
 *     (the vCPU's start is where the scoreboards grow), so no guest code
 *     runs while the section waits;
 *   - when QEMU's own count says a section waits for running vCPUs
 *     (plugin_qemu_exclusive.h; waiting threads look every STALL_POLL_US), the
 *     threads waiting inside the execution loop are let go one at a time,
 *     in creation order, each once the one before it has left the loop
 *     (the count went down): each runs the rest of the block it stopped
 *     at (QEMU checks for a pending section at block entry, before the
 *     plugin's callback), stops for the section, and waits for its turn
 *     again at its next block ("escapes" in the report). The section
 *     waits at a point of the guest's execution that the schedule fixed,
 *     and whom it lets go, and in which order, is fixed too: the same on
 *     every run, whatever the host's load.
 *
 * A QEMU whose symbol table lacks that count (a stripped build) gets the
 * old guess: nothing moved for STALL_US (no draw, no system call, the
 * holder's clock still) while some thread is asleep in the host. A loaded
 * host can fake that, so the report then names the guess
 * ("exclusive_sections_guessed": why) and says the run is not reproducible
 * if it let any thread go. If nothing moves for GIVE_UP_US even with every
 * such thread let go, the turns are given up for the rest of the run and
 * the report says so ("given_up").
 */
#define _GNU_SOURCE /* syscall */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "rig_guest_syscalls.h"
#include "plugin_sched.h"
#include "plugin_store.h"
#include "plugin_turns.h"
#include "plugin_qemu_exclusive.h"
#include "rig_splitmix.h"
#include "plugin_vcpu.h"

/* How long a waiting thread sleeps between looks when the draw waits for
 * threads in system calls to settle, and otherwise (each look at QEMU's
 * count costs one load: a section waits at most this long); without that
 * count, how long nothing may move before a thread waiting in the
 * execution loop is let go; and how long after the last one before the
 * turns are given up. */
#define SETTLE_POLL_US 100
#define STALL_POLL_US 5000
#define STALL_US 200000
#define GIVE_UP_US 5000000

enum turn_state {
  TURN_STARTING,   /* its creator's clone returned; its vCPU has not started */
  TURN_READY,      /* waiting for the turn */
  TURN_RUNNING,    /* holds the turn */
  TURN_IN_SYSCALL, /* in a call that may block; gave the turn up */
};

struct turn_thread {
  int tid;
  uint64_t serial; /* creation order: the draw's order */
  bool has_serial;
  enum turn_state state;
  bool returning; /* in a system call whose return callback has begun */
  bool started;   /* its vCPU started */
  unsigned vcpu;
  int64_t sc_num; /* the call in flight, and its first two arguments */
  uint64_t sc_a1, sc_a2;
  /* Found asleep in its call at wake epoch ASLEEP_EPOCH: it stays so until
   * a call that may wake it (or time, or the outside world). LOOKED is
   * the look (turns->looks) that last read its state in /proc, and
   * ASLEEP_SINCE the first of the looks since then that found it asleep. */
  bool asleep;
  uint64_t asleep_epoch;
  uint64_t looked;
  uint64_t asleep_since;
  bool may_wake;     /* in a call that may wake others, which has not returned */
  bool in_exec_wait; /* waiting for the turn inside QEMU's execution loop */
  bool escaped;      /* let go for an exclusive section, not yet back */
  int let_go_at;     /* QEMU's count when it was let go (-1: no count) */
};

struct plugin_turns {
  GMutex m;
  GCond changed;
  bool serial;          /* schedule=turns (the default) */
  bool on;              /* the turns are kept: until the process ends or the
                           watchdog gives them up */
  const char *given_up; /* why the turns were given up, or NULL */
  uint64_t quantum;
  uint64_t rng;
  uint64_t next_serial;
  uint64_t handovers;        /* draws that gave the turn to another thread */
  uint64_t wake_epoch;       /* calls so far that may have woken any thread */
  unsigned wakers_in_flight; /* threads in such a call that gave their turn
                                up: until they return, any thread may be
                                woken at any moment */
  uint64_t looks;            /* reads of a thread's state in /proc so far */
  GHashTable *by_tid;        /* tid -> struct turn_thread */
  GPtrArray *by_vcpu;        /* vCPU index -> struct turn_thread */
  struct turn_thread *holder;
  struct turn_thread *last_holder;
  uint64_t escapes; /* threads let go for an exclusive section */
  /* QEMU's count of vCPUs a section waits for, looked up at the first
   * look for a stall (NULL: not in this QEMU, PENDING_WHY says why). */
  bool looked_up;
  const int *pending;
  const char *pending_why;
  /* policy=adversarial: the thread whose turn ended as it published
   * stores to code (plugin_turns_published), left out of the next draw; and
   * how many draws did so. */
  struct turn_thread *publisher;
  uint64_t adversary_handovers;
  /* Progress, to see a stall: events (draws, system calls, starts and
   * exits) and the holder's clock, when they last changed. */
  uint64_t events;
  uint64_t seen_events;
  uint64_t seen_insns;
  gint64 still_since;
};

struct plugin_turns *plugin_turns_new(uint64_t seed, uint64_t quantum, bool on)
{
  struct plugin_turns *turns = g_new0(struct plugin_turns, 1);
  g_mutex_init(&turns->m);
  g_cond_init(&turns->changed);
  turns->serial = on;
  turns->on = on;
  turns->quantum = quantum ? quantum : RIG_QUANTUM_DEFAULT;
  /* Its own stream, apart from the migrations' per-thread ones. */
  turns->rng = seed ^ UINT64_C(0x7475726e73); /* "turns" */
  turns->by_tid = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, g_free);
  turns->by_vcpu = g_ptr_array_new();
  return turns;
}

void plugin_turns_free(struct plugin_turns *turns)
{
  if (!turns) {
    return;
  }
  g_hash_table_destroy(turns->by_tid);
  g_ptr_array_free(turns->by_vcpu, true);
  g_cond_clear(&turns->changed);
  g_mutex_clear(&turns->m);
  g_free(turns);
}

static struct turn_thread *thread_of_vcpu(const struct plugin_turns *turns, unsigned vcpu)
{
  return plugin_vcpu_slot(turns->by_vcpu, vcpu);
}

static struct turn_thread *thread_of_tid(struct plugin_turns *turns, int tid)
{
  struct turn_thread *t = g_hash_table_lookup(turns->by_tid, GINT_TO_POINTER(tid));
  if (!t) {
    t = g_new0(struct turn_thread, 1);
    t->tid = tid;
    t->state = TURN_STARTING;
    g_hash_table_insert(turns->by_tid, GINT_TO_POINTER(tid), t);
  }
  return t;
}

static void give_serial(struct plugin_turns *turns, struct turn_thread *t)
{
  if (!t->has_serial) {
    t->serial = turns->next_serial++;
    t->has_serial = true;
  }
}

/* ---- the host's view of a thread ---------------------------------------- */

/* Reads /proc/self/task/TID/NAME into BUF; false when the thread is gone. */
static bool read_task_file(int tid, const char *name, char *buf, size_t size)
{
  char path[64];
  snprintf(path, sizeof(path), "/proc/self/task/%d/%s", tid, name);
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    return false;
  }
  ssize_t n = read(fd, buf, size - 1);
  close(fd);
  if (n <= 0) {
    return false;
  }
  buf[n] = '\0';
  return true;
}

/* The thread's scheduler state letter (proc(5)), or 0 when it is gone. */
static char host_state(int tid)
{
  char buf[512];
  if (!read_task_file(tid, "stat", buf, sizeof(buf))) {
    return 0;
  }
  const char *paren = strrchr(buf, ')'); /* the name may hold anything */
  return paren && paren[1] == ' ' ? paren[2] : 0;
}

/*
 * Whether T, which gave the turn up for a call that may block, is asleep in
 * the host call that implements it: then only another thread (or time)
 * wakes it. Asleep in another host call, it is still on its way (QEMU
 * takes locks of its own around a call), and running, it will come back.
 */
static bool asleep_in_its_call(const struct turn_thread *t)
{
  char state = host_state(t->tid);
  if (state == 0 || state == 'Z' || state == 'X') {
    return true; /* gone: it will never take a turn */
  }
  /* A fork returns by itself: linux-user runs even vfork as a fork, whose
   * parent waits for no other thread of the guest, only for QEMU's
   * exclusive section, which the schedule lets through (escapes, above).
   * The host's fork may still sleep (memory, locks), and a draw made then
   * would run while the fork goes on, with the forking thread out of it;
   * a draw made after its return has it in: which one depended on the
   * host's timing, and so did the whole schedule after the fork (one in
   * a few hundred runs under load, one seed gave different counts). So
   * the draw waits for it. */
  if (t->sc_num == RIG_GUEST_NR_CLONE && !rig_guest_clone_is_thread(t->sc_a1)) {
    return false;
  }
  if (state != 'S' && state != 't' && state != 'T') {
    return false; /* running, or in an uninterruptible wait that ends */
  }
  char buf[256];
  if (!read_task_file(t->tid, "syscall", buf, sizeof(buf))) {
    return true;
  }
  char *end = NULL;
  long long nr = strtoll(buf, &end, 10);
  if (end == buf) {
    return false; /* "running" */
  }
  int64_t expected = rig_guest_call_host_nr(t->sc_num);
  if (expected >= 0 && nr != expected) {
    return false;
  }
  if (expected == 202) { /* futex: QEMU's own locks are futexes too */
    unsigned long long host_uaddr = strtoull(end, NULL, 0);
    return rig_guest_futex_matches(t->sc_a1, host_uaddr);
  }
  return true;
}

/* Whether some thread let go for an exclusive section has not come back
 * to the schedule yet (its next block's start, or a system call). */
static bool escapes_in_flight(struct plugin_turns *turns)
{
  GHashTableIter it;
  gpointer value;
  g_hash_table_iter_init(&it, turns->by_tid);
  while (g_hash_table_iter_next(&it, NULL, &value)) {
    if (((struct turn_thread *)value)->escaped) {
      return true;
    }
  }
  return false;
}

/* Reads T's state in /proc again (the lock held). */
static void look(struct plugin_turns *turns, struct turn_thread *t)
{
  bool was_asleep = t->asleep && t->asleep_epoch == turns->wake_epoch;
  t->looked = ++turns->looks;
  t->asleep = asleep_in_its_call(t);
  t->asleep_epoch = turns->wake_epoch;
  if (t->asleep && !was_asleep) {
    t->asleep_since = t->looked;
  }
}

/* The one thread in a call that may wake others, when exactly one is
 * (the lock held). */
static struct turn_thread *single_waker(const struct plugin_turns *turns)
{
  if (turns->wakers_in_flight != 1) {
    return NULL;
  }
  GHashTableIter it;
  gpointer value;
  g_hash_table_iter_init(&it, turns->by_tid);
  while (g_hash_table_iter_next(&it, NULL, &value)) {
    struct turn_thread *w = value;
    if (w->may_wake) {
      return w;
    }
  }
  return NULL;
}

/* Whether W, in a call, can be looked at there: neither on its way back
 * nor leaving (an exit is settled once the thread is gone). */
static bool sleeps_in_a_call(const struct turn_thread *w)
{
  return w->state == TURN_IN_SYSCALL && !w->returning && w->sc_num != RIG_GUEST_NR_EXIT;
}

/*
 * Whether T's last look, which found it asleep in its call, still holds
 * (the lock held). Only a call that may wake it can end that sleep: one
 * that returned or began since (the wake epoch) or one still in flight (a
 * waker that gave its turn up). A waker acts only while it runs, so when
 * exactly one is in flight and it has slept in its own call since before
 * T's look, nothing the guest does can have woken T since: no thread holds
 * the turn, the others sleep or are not settled, and the waker can be woken
 * only by another thread's call (time and the outside world are beyond the
 * seed's reach anyway). The looks must come in that order because a waker
 * may wake T on its way into its own sleep (a write that raises SIGIO at
 * T). On the V8 row one thread of node sleeps in epoll_pwait (a waker)
 * while the others sleep on futexes: 44.6 thousand looks in one run (14%
 * of its CPU time) became about 1,500. With two wakers in flight one may
 * wake the other after its look, so every thread is looked at again at
 * every draw.
 */
static bool still_asleep(const struct plugin_turns *turns, const struct turn_thread *t)
{
  if (!t->asleep || t->asleep_epoch != turns->wake_epoch) {
    return false;
  }
  if (turns->wakers_in_flight == 0 || (t->may_wake && turns->wakers_in_flight == 1)) {
    return true;
  }
  const struct turn_thread *w = single_waker(turns);
  return w && sleeps_in_a_call(w) && still_asleep(turns, w) && w->asleep_since < t->looked;
}

/* Looks at the one waker in flight first in a draw, when its last look may
 * no longer hold, so that the looks at the others come after it (the lock
 * held). */
static void look_at_the_waker(struct plugin_turns *turns)
{
  struct turn_thread *w = single_waker(turns);
  if (w && sleeps_in_a_call(w) && !still_asleep(turns, w)) {
    look(turns, w);
  }
}

/* ---- the draw ----------------------------------------------------------- */

static gint by_serial(gconstpointer a, gconstpointer b)
{
  const struct turn_thread *x = *(struct turn_thread *const *)a;
  const struct turn_thread *y = *(struct turn_thread *const *)b;
  return x->serial < y->serial ? -1 : x->serial > y->serial;
}

/*
 * With no holder: once every thread has settled, the seeded draw among the
 * ready ones (the lock held). Leaves HOLDER NULL when some thread has not
 * settled yet, or none is ready.
 */
static void try_draw(struct plugin_turns *turns)
{
  GPtrArray *ready = g_ptr_array_new();
  look_at_the_waker(turns);
  GHashTableIter it;
  gpointer value;
  g_hash_table_iter_init(&it, turns->by_tid);
  bool settled = true;
  while (settled && g_hash_table_iter_next(&it, NULL, &value)) {
    struct turn_thread *t = value;
    switch (t->state) {
    case TURN_STARTING:
      settled = false;
      break;
    case TURN_READY:
      /* Let go for an exclusive section and not back at its next block:
       * whether it is back when the next section comes would depend on
       * the host; the draw waits for it. */
      settled = !t->escaped;
      g_ptr_array_add(ready, t);
      break;
    case TURN_IN_SYSCALL:
      if (t->sc_num == RIG_GUEST_NR_EXIT) {
        /* Settled once gone: on its way out QEMU wakes its joiners
         * (CLONE_CHILD_CLEARTID) before the vCPU's exit callback. */
        settled = host_state(t->tid) == 0;
        break;
      }
      if (!t->returning && !still_asleep(turns, t)) {
        /* Reading /proc costs some microseconds a thread: each asleep
         * thread is looked at again only when a call may have woken it. */
        look(turns, t);
      }
      settled = !t->returning && t->asleep;
      break;
    case TURN_RUNNING:
      break;
    }
  }
  if (settled && ready->len > 0) {
    if (turns->publisher && ready->len > 1 && g_ptr_array_remove(ready, turns->publisher)) {
      turns->adversary_handovers++;
    }
    turns->publisher = NULL;
    g_ptr_array_sort(ready, by_serial);
    struct turn_thread *next =
        g_ptr_array_index(ready, rig_splitmix_next(&turns->rng) % ready->len);
    next->state = TURN_RUNNING;
    turns->holder = next;
    if (next != turns->last_holder) {
      turns->handovers++;
    }
    turns->last_holder = next;
    turns->events++;
    g_cond_broadcast(&turns->changed);
  }
  g_ptr_array_free(ready, true);
}

/* Whether T sleeps on the schedule's own lock (a futex wait on the GMutex's
 * word, glib's Linux implementation): the thread looking for a stall holds
 * it, and T goes on as soon as it is released. A thread that reaches the
 * rig late on a loaded host (a new thread's first turn) is found so. */
static bool waits_for_the_schedules_lock(struct plugin_turns *turns, const struct turn_thread *t)
{
  char buf[256];
  if (!read_task_file(t->tid, "syscall", buf, sizeof(buf))) {
    return false;
  }
  char *end = NULL;
  long long nr = strtoll(buf, &end, 10);
  if (end == buf || nr != SYS_futex) {
    return false;
  }
  return strtoull(end, NULL, 0) == (unsigned long long)(uintptr_t)&turns->m;
}

/*
 * Some thread is asleep in the host outside a system call's own wait (in
 * an exclusive section, or waiting for one to end) and none of the others
 * the schedule waits for can still move by itself: none is runnable
 * ('R') or in an uninterruptible wait ('D'). On a host loaded far beyond
 * its CPUs a thread can wait longer than STALL_US for a CPU; it is then
 * runnable, and letting a thread go for an exclusive section that does not
 * exist would change the interleaving from run to run (an escape that
 * showed only under a load average of 20 on 2 CPUs).
 */
static bool someone_asleep(struct plugin_turns *turns)
{
  bool asleep = false;
  GHashTableIter it;
  gpointer value;
  g_hash_table_iter_init(&it, turns->by_tid);
  while (g_hash_table_iter_next(&it, NULL, &value)) {
    struct turn_thread *t = value;
    if (t->in_exec_wait || (t->state == TURN_IN_SYSCALL && t->asleep) ||
        (t->state == TURN_READY && !t->escaped)) {
      continue; /* waiting where the schedule knows why */
    }
    char state = host_state(t->tid);
    if (state == 'R' || state == 'D' || (state == 'S' && waits_for_the_schedules_lock(turns, t))) {
      return false; /* slow, not stalled */
    }
    asleep = asleep || state == 'S';
  }
  return asleep;
}

/* QEMU's count of vCPUs an exclusive section waits for (plugin_qemu_exclusive.h),
 * or -1 when this QEMU does not show it. */
static int section_count(struct plugin_turns *turns)
{
  if (!turns->looked_up) {
    turns->pending = plugin_qemu_pending_cpus(&turns->pending_why);
    turns->looked_up = true;
  }
  return turns->pending ? __atomic_load_n(turns->pending, __ATOMIC_ACQUIRE) : -1;
}

/* Whether T, let go for a section, still runs the rest of its block. It
 * has left the execution loop once QEMU's count went below what it was
 * when T was let go. Asleep in the host other than on the schedule's lock,
 * it has stopped as well: that also covers a thread let go for a section
 * that ended and stopped again for the next one, whose count does not
 * include it. Without the count, asleep is all there is to go by. */
static bool still_running_its_block(struct plugin_turns *turns, const struct turn_thread *t,
                                    int count)
{
  if (count >= 0 && count < t->let_go_at) {
    return false;
  }
  return host_state(t->tid) != 'S' || waits_for_the_schedules_lock(turns, t);
}

/* The next thread to let go: the oldest one waiting inside the execution
 * loop, once the one let go before it has stopped. */
static struct turn_thread *next_escape(struct plugin_turns *turns, int count)
{
  struct turn_thread *next = NULL;
  GHashTableIter it;
  gpointer value;
  g_hash_table_iter_init(&it, turns->by_tid);
  while (g_hash_table_iter_next(&it, NULL, &value)) {
    struct turn_thread *t = value;
    if (t->escaped && !t->in_exec_wait && still_running_its_block(turns, t, count)) {
      return NULL;
    }
    if (t->in_exec_wait && !t->escaped && (!next || t->serial < next->serial)) {
      next = t;
    }
  }
  return next;
}

/* Lets the next thread waiting inside the execution loop go for a section,
 * if there is one to let go now. */
static bool let_one_go(struct plugin_turns *turns, int count)
{
  struct turn_thread *t = next_escape(turns, count);
  if (!t) {
    return false;
  }
  t->escaped = true;
  t->let_go_at = count;
  turns->escapes++;
  g_cond_broadcast(&turns->changed);
  return true;
}

/* Called by waiting threads as they wake: lets threads waiting inside the
 * execution loop go when an exclusive section waits for them (see the
 * top), and gives the turns up when nothing moves at all. */
static void watch_for_stall(struct plugin_rig *rig, struct plugin_turns *turns)
{
  int count = section_count(turns);
  if (count > 1 && let_one_go(turns, count)) {
    return;
  }
  uint64_t insns = 0;
  if (turns->holder && turns->holder->started) {
    insns = plugin_vcpu_clock_counts(plugin_vcpu(rig, turns->holder->vcpu)).insns;
  }
  gint64 now = g_get_monotonic_time();
  if (turns->still_since == 0 || turns->events != turns->seen_events ||
      insns != turns->seen_insns) {
    turns->seen_events = turns->events;
    turns->seen_insns = insns;
    turns->still_since = now;
    return;
  }
  if (now - turns->still_since < STALL_US || !someone_asleep(turns)) {
    return;
  }
  if (count < 0 && let_one_go(turns, count)) {
    turns->still_since = now; /* give it STALL_US to stop */
  } else if (now - turns->still_since >= GIVE_UP_US) {
    turns->on = false;
    turns->given_up = "nothing moved for 5 s with every thread waiting inside QEMU's "
                      "execution loop let go";
    /* Before any waiting thread goes: their stores may race from now on. */
    plugin_store_parallel(rig->store);
    g_cond_broadcast(&turns->changed);
  }
}

/* Waits until T holds the turn, or, waiting inside the execution loop
 * (IN_EXEC), until it is let go for an exclusive section: returns false
 * then (the lock held). */
static bool wait_turn(struct plugin_rig *rig, struct plugin_turns *turns, struct turn_thread *t,
                      bool in_exec)
{
  t->in_exec_wait = in_exec;
  while (turns->on && turns->holder != t && !(in_exec && t->escaped)) {
    if (!turns->holder) {
      try_draw(turns);
      if (turns->holder == t) {
        break;
      }
    }
    gint64 wait_us = turns->holder ? STALL_POLL_US : SETTLE_POLL_US;
    if (!g_cond_wait_until(&turns->changed, &turns->m, g_get_monotonic_time() + wait_us) &&
        turns->on) {
      watch_for_stall(rig, turns);
    }
  }
  t->in_exec_wait = false;
  return !(in_exec && t->escaped && turns->holder != t && turns->on);
}

/* T, let go for an exclusive section, runs the rest of its block and waits
 * for its turn at the start of the next (on its own vCPU). */
static void escape(struct plugin_rig *rig, struct turn_thread *t)
{
  struct plugin_vcpu *v = plugin_vcpu(rig, t->vcpu);
  v->clock.until_handover = 0;
  if (v->reg.pending) {
    v->clock.parked = PLUGIN_MIGRATE_DUE;
  } else {
    plugin_vcpu_set_clock(v, PLUGIN_MIGRATE_DUE);
  }
}

/* T comes back from an escape, at a system call (outside the execution
 * loop) or at its next block's start (IN_EXEC, inside it): it waits for
 * its turn like any thread (the lock held). Returns false when it did not
 * escape; else whether it holds the turn now, which it does unless, inside
 * the loop, it was let go again for the next section. */
static bool back_from_escape(struct plugin_rig *rig, struct plugin_turns *turns,
                             struct turn_thread *t, bool in_exec, bool *again)
{
  *again = false;
  if (!t->escaped) {
    return false;
  }
  t->escaped = false;
  if (turns->holder != t && !wait_turn(rig, turns, t, in_exec)) {
    *again = true;
  }
  return true;
}

/* T's turn begins: a fresh quantum on its clock (on its own vCPU). */
static void begin_turn(struct plugin_rig *rig, struct plugin_turns *turns, struct turn_thread *t)
{
  uint64_t quantum = UINT64_MAX;
  if (turns->on) {
    quantum = 1 + rig_splitmix_next(&turns->rng) % (2 * turns->quantum - 1);
  }
  struct plugin_vcpu *v = plugin_vcpu(rig, t->vcpu);
  v->clock.until_handover = quantum;
  v->clock.code_stored = 0;
  plugin_sched_rearm(v);
}

/* T gives the turn up (the lock held). */
static void release(struct plugin_turns *turns, struct turn_thread *t, enum turn_state next)
{
  t->state = next;
  if (turns->holder == t) {
    turns->holder = NULL;
  }
  g_cond_broadcast(&turns->changed);
}

/* ---- events ------------------------------------------------------------- */

/* A call about to run, or that has just returned, may have woken threads
 * asleep in theirs: those are looked at again before the next draw (the
 * lock held). Returns whether it may wake any. */
static bool note_wakes(struct plugin_turns *turns, int64_t num, uint64_t a1, uint64_t a2)
{
  uint64_t word = 0;
  switch (rig_guest_call_wakes(num, a1, a2, &word)) {
  case RIG_WAKES_NONE:
    return false;
  case RIG_WAKES_FUTEX_WORD: {
    GHashTableIter it;
    gpointer value;
    g_hash_table_iter_init(&it, turns->by_tid);
    while (g_hash_table_iter_next(&it, NULL, &value)) {
      struct turn_thread *t = value;
      if (t->state == TURN_IN_SYSCALL && rig_guest_call_host_nr(t->sc_num) == 202 &&
          t->sc_a1 == word) {
        t->asleep = false;
      }
    }
    return true;
  }
  case RIG_WAKES_ANY:
    turns->wake_epoch++;
    return true;
  }
  return true;
}

void plugin_turns_thread_start(struct plugin_rig *rig, unsigned vcpu)
{
  struct plugin_turns *turns = rig->turns;
  int tid = (int)syscall(SYS_gettid);
  g_mutex_lock(&turns->m);
  struct turn_thread *t = thread_of_tid(turns, tid);
  t->vcpu = vcpu;
  t->started = true;
  plugin_vcpu_slot_set(turns->by_vcpu, vcpu, t);
  if (g_hash_table_size(turns->by_tid) == 1 && !turns->holder) {
    /* The main thread: the first turn is its own. */
    give_serial(turns, t);
    t->state = TURN_RUNNING;
    turns->holder = t;
    turns->last_holder = t;
  } else {
    /* Its serial comes from its creator's clone return, which the
     * creator, holding the turn, reaches before any draw. */
    t->state = TURN_READY;
    turns->events++;
    g_cond_broadcast(&turns->changed);
    wait_turn(rig, turns, t, false);
  }
  begin_turn(rig, turns, t);
  g_mutex_unlock(&turns->m);
}

void plugin_turns_thread_exit(struct plugin_rig *rig, unsigned vcpu)
{
  struct plugin_turns *turns = rig->turns;
  g_mutex_lock(&turns->m);
  struct turn_thread *t = plugin_vcpu_slot_take(turns->by_vcpu, vcpu);
  if (t) {
    if (turns->last_holder == t) {
      turns->last_holder = NULL;
    }
    release(turns, t, TURN_IN_SYSCALL);
    turns->wakers_in_flight -= t->may_wake;
    g_hash_table_remove(turns->by_tid, GINT_TO_POINTER(t->tid));
    /* The kernel wakes the thread's joiners (CLONE_CHILD_CLEARTID). */
    turns->wake_epoch++;
    turns->events++;
  }
  g_mutex_unlock(&turns->m);
}

bool plugin_turns_syscall(struct plugin_rig *rig, unsigned vcpu, int64_t num, uint64_t a1,
                          uint64_t a2)
{
  struct plugin_turns *turns = rig->turns;
  enum rig_guest_call_kind kind = rig_guest_call_kind(num, a1, a2);
  g_mutex_lock(&turns->m);
  struct turn_thread *t = thread_of_vcpu(turns, vcpu);
  turns->events++;
  if (t) {
    /* Let go for an exclusive section, its block ended in this call. */
    bool again;
    back_from_escape(rig, turns, t, false, &again);
    t->sc_num = num;
    t->sc_a1 = a1;
    t->sc_a2 = a2;
    t->asleep = false;
  }
  bool wakes = note_wakes(turns, num, a1, a2);
  if (!turns->on || !t || kind == RIG_CALL_KEEPS_TURN || kind == RIG_CALL_ENDS_PROCESS) {
    g_mutex_unlock(&turns->m);
    return kind == RIG_CALL_ENDS_PROCESS;
  }
  if (kind == RIG_CALL_YIELDS) {
    release(turns, t, TURN_READY);
    wait_turn(rig, turns, t, false);
    begin_turn(rig, turns, t);
  } else {
    t->returning = false;
    /* Whom it wakes, it may wake at any moment until it returns: a write
     * to a pipe wakes the reader halfway through, a partial write may
     * block after. */
    t->may_wake = wakes;
    turns->wakers_in_flight += wakes;
    release(turns, t, TURN_IN_SYSCALL);
  }
  g_mutex_unlock(&turns->m);
  return false;
}

/* In the child of a fork: the only thread of a new process, whatever the
 * parent's threads were (the lock held). */
static void forked(struct plugin_turns *turns, struct turn_thread *self)
{
  GHashTableIter it;
  gpointer value;
  g_hash_table_iter_init(&it, turns->by_tid);
  while (g_hash_table_iter_next(&it, NULL, &value)) {
    struct turn_thread *t = value;
    if (t != self) {
      if (t->started) {
        plugin_vcpu_slot_take(turns->by_vcpu, t->vcpu);
      }
      g_hash_table_iter_remove(&it);
    }
  }
  /* linux-user's fork keeps the thread's id only in the parent. */
  g_hash_table_steal(turns->by_tid, GINT_TO_POINTER(self->tid));
  self->tid = (int)syscall(SYS_gettid);
  g_hash_table_insert(turns->by_tid, GINT_TO_POINTER(self->tid), self);
  self->state = TURN_RUNNING;
  self->may_wake = false;
  turns->wakers_in_flight = 0;
  turns->holder = self;
  turns->last_holder = self;
}

void plugin_turns_syscall_ret(struct plugin_rig *rig, unsigned vcpu, int64_t num, int64_t ret)
{
  struct plugin_turns *turns = rig->turns;
  g_mutex_lock(&turns->m);
  struct turn_thread *t = thread_of_vcpu(turns, vcpu);
  if (!t) {
    g_mutex_unlock(&turns->m);
    return;
  }
  turns->events++;
  if (num == RIG_GUEST_NR_CLONE && rig_guest_clone_is_thread(t->sc_a1) && ret > 0) {
    /* The child's place in the draw's order, given while the creator
     * holds the turn: before any draw can see the child. */
    give_serial(turns, thread_of_tid(turns, (int)ret));
  } else if (num == RIG_GUEST_NR_CLONE && !rig_guest_clone_is_thread(t->sc_a1) && ret == 0) {
    forked(turns, t);
  }
  if (t->may_wake) {
    t->may_wake = false;
    turns->wakers_in_flight--;
    note_wakes(turns, t->sc_num, t->sc_a1, t->sc_a2);
  }
  if (turns->on && t->state == TURN_IN_SYSCALL) {
    t->returning = true;
    t->state = TURN_READY;
    g_cond_broadcast(&turns->changed);
    wait_turn(rig, turns, t, false);
    t->returning = false;
    begin_turn(rig, turns, t);
  }
  g_mutex_unlock(&turns->m);
}

void plugin_turns_await_child(struct plugin_rig *rig, unsigned vcpu, int64_t num, int64_t ret)
{
  if (num != RIG_GUEST_NR_CLONE || ret <= 0) {
    return;
  }
  struct plugin_turns *turns = rig->turns;
  g_mutex_lock(&turns->m);
  struct turn_thread *self = thread_of_vcpu(turns, vcpu);
  if (!self || !rig_guest_clone_is_thread(self->sc_a1)) {
    g_mutex_unlock(&turns->m);
    return;
  }
  struct turn_thread *child = thread_of_tid(turns, (int)ret);
  /* The new vCPU's start may have been an exclusive section (QEMU grows
   * the plugin's scoreboards there): the creator goes on once the threads
   * let go for it are back, as the draw does (try_draw). */
  while (turns->on && (!child->started || escapes_in_flight(turns))) {
    if (!g_cond_wait_until(&turns->changed, &turns->m, g_get_monotonic_time() + STALL_POLL_US)) {
      watch_for_stall(rig, turns);
    }
  }
  g_mutex_unlock(&turns->m);
}

void plugin_turns_quantum_ended(struct plugin_rig *rig, unsigned vcpu)
{
  struct plugin_turns *turns = rig->turns;
  g_mutex_lock(&turns->m);
  struct turn_thread *t = thread_of_vcpu(turns, vcpu);
  bool again = false;
  if (t && turns->on && !back_from_escape(rig, turns, t, true, &again) && turns->holder == t) {
    release(turns, t, TURN_READY);
    turns->events++;
    again = !wait_turn(rig, turns, t, true);
  }
  if (again) {
    /* Let go for an exclusive section: the rest of this block runs, and
     * the next one's start comes back here. */
    escape(rig, t);
    g_mutex_unlock(&turns->m);
    return;
  }
  if (t) {
    begin_turn(rig, turns, t);
  }
  g_mutex_unlock(&turns->m);
}

/*
 * policy=adversarial. The thread on VCPU stored to code in this turn and
 * now runs an instruction that may publish it (a release store, a DMB that
 * orders stores): its turn ends at its next block, and the draw goes to
 * another ready thread. A JIT that publishes new code before its
 * maintenance is complete (the flag before the flush) is then caught on
 * every seed, where quanta of thousands of instructions would almost
 * always let the writer finish its flush first. Once per turn: the flag is
 * cleared here and when a turn begins.
 */
void plugin_turns_published(struct plugin_rig *rig, unsigned vcpu)
{
  struct plugin_vcpu *v = plugin_vcpu(rig, vcpu);
  v->clock.code_stored = 0;
  struct plugin_turns *turns = rig->turns;
  g_mutex_lock(&turns->m);
  struct turn_thread *t = thread_of_vcpu(turns, vcpu);
  if (t && turns->on && turns->holder == t && g_hash_table_size(turns->by_tid) > 1) {
    turns->publisher = t;
    v->clock.until_handover = 0;
    plugin_sched_rearm(v);
  }
  g_mutex_unlock(&turns->m);
}

void plugin_turns_lock(struct plugin_turns *turns)
{
  g_mutex_lock(&turns->m);
}

void plugin_turns_unlock(struct plugin_turns *turns)
{
  g_mutex_unlock(&turns->m);
}

void plugin_turns_finish(struct plugin_turns *turns)
{
  g_mutex_lock(&turns->m);
  turns->on = false;
  g_cond_broadcast(&turns->changed);
  g_mutex_unlock(&turns->m);
}

uint64_t plugin_turns_looks(struct plugin_turns *turns)
{
  g_mutex_lock(&turns->m);
  uint64_t looks = turns->looks;
  g_mutex_unlock(&turns->m);
  return looks;
}

void plugin_turns_report(struct plugin_turns *turns, JsonObject *report)
{
  JsonObject *o = json_object_new();
  g_mutex_lock(&turns->m);
  json_object_set_string_member(o, "mode", turns->serial ? "turns" : "parallel");
  json_object_set_int_member(o, "quantum", (gint64)turns->quantum);
  json_object_set_int_member(o, "handovers", (gint64)turns->handovers);
  json_object_set_int_member(o, "escapes", (gint64)turns->escapes);
  /* Named only when QEMU's count was missing and sections were guessed:
   * whether a run looked at all depends on how long its waits were. */
  bool guessed = turns->looked_up && !turns->pending;
  if (guessed) {
    json_object_set_string_member(o, "exclusive_sections_guessed", turns->pending_why);
  }
  json_object_set_int_member(o, "adversary_handovers", (gint64)turns->adversary_handovers);
  json_object_set_boolean_member(
      o, "reproducible", turns->serial && !turns->given_up && !(guessed && turns->escapes > 0));
  if (turns->given_up) {
    json_object_set_string_member(o, "given_up", turns->given_up);
  }
  g_mutex_unlock(&turns->m);
  json_object_set_object_member(report, "schedule", o);
}
