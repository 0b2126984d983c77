/*
 * Once-only initialisation and the published flush geometry.
 *
 * Not pthread_once: a flush must never block (it may run in a signal
 * handler that interrupted the very thread that is probing), so the state is
 * one atomic word. One caller wins the compare-and-swap and probes;
 * jitflush_init() callers that lose wait for it, flushes that lose use the
 * floor geometry, which is correct on any core, and return at once.
 *
 * The "probing" state holds the prober's process ID. POSIX fork() copies
 * only the calling thread, so a child forked while another thread probed
 * inherits a probe that will never finish. Any caller that sees a probe
 * owned by another process knows it is such an orphan and takes it over.
 * This needs no fork handler: pthread_atfork cannot be registered before
 * the first state change without a window in which a fork() finds the
 * state changed and the handler missing.
 */
#define _GNU_SOURCE 1 /* O_CLOEXEC, syscall(), getauxval under -std=c11 */
#if defined(__linux__)
#include <sched.h>
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

#include "ctr.h"
#include "state.h"
#include "sysfs.h"

/* init_state: STATE_UNINIT, STATE_DONE, or the PID (> 0) of the process
 * whose thread is probing. */
enum { STATE_UNINIT = 0, STATE_DONE = -1 };

static _Atomic long init_state = STATE_UNINIT;
/* 0 until published; layout in lib/state.h. Not static: the flush's
 * fast path (platform_aarch64_linux.c) loads it directly. */
_Atomic uint64_t jf_geometry_word;
/* Two views: a re-probe (jf_state_reprobe) fills the one not published,
 * then publishes it, so a jitflush_get_info() copying the current one is
 * not written under its feet. */
static struct jf_view views[2];
static _Atomic unsigned current_view;
#define the_view (views[atomic_load_explicit(&current_view, memory_order_acquire)])
/* CPUs online or observed at the published probe: a CPU outside it that
 * is online now came online since (jf_state_online_changed). */
static struct jf_cpuset known_online[2];
static _Atomic int reprobing;

#define GEOMETRY_READY JF_GW_READY

static uint64_t pack_geometry(struct jf_geometry g)
{
  return GEOMETRY_READY | ((uint64_t)jf_log2_line(g.iline) << JF_GW_ILOG2_SHIFT) |
         ((uint64_t)jf_log2_line(g.dline) << JF_GW_DLOG2_SHIFT) |
         ((uint64_t)g.idc << JF_GW_FLAGS_SHIFT) | ((uint64_t)g.dic << (JF_GW_FLAGS_SHIFT + 1)) |
         ((uint64_t)g.dc_civac << (JF_GW_FLAGS_SHIFT + 2)) | (g.per_call_guard ? JF_GW_GUARD : 0) |
         (g.online_check ? JF_GW_ONLINE_CHECK : 0) |
         (g.per_call_guard || g.online_check ? 0 : JF_GW_FAST) |
         (!g.per_call_guard && !g.online_check && g.idc && g.dic ? JF_GW_SYNC_ONLY : 0);
}

struct jf_geometry jf_geometry_unpack(uint64_t w)
{
  struct jf_geometry g;
  g.iline = 1u << ((w >> JF_GW_ILOG2_SHIFT) & 0x1f);
  g.dline = 1u << ((w >> JF_GW_DLOG2_SHIFT) & 0x1f);
  g.idc = (w >> JF_GW_FLAGS_SHIFT) & 1;
  g.dic = (w >> (JF_GW_FLAGS_SHIFT + 1)) & 1;
  g.dc_civac = (w >> (JF_GW_FLAGS_SHIFT + 2)) & 1;
  g.per_call_guard = (w & JF_GW_GUARD) != 0;
  g.online_check = (w & JF_GW_ONLINE_CHECK) != 0;
  return g;
}

struct jf_geometry jf_geometry_floor(void)
{
  struct jf_geometry g = {
      JITFLUSH_FLOOR_LINE, JITFLUSH_FLOOR_LINE, false, false, false, false, false};
  return g;
}

struct jf_geometry jf_geometry_from_view(const struct jf_view *view)
{
  struct jf_geometry g;
  g.iline = view->global.iline;
  g.dline = view->global.dline;
  g.idc = view->global.idc;
  g.dic = view->global.dic;
  /* Without the kernel's A53 workaround an affected core may drop a
   * cvau; civac is what the kernel substitutes (cpu_errata.c). */
  g.dc_civac = view->global.use_dc_civac;
  g.per_call_guard = view->global.per_call_guard;
  g.online_check = view->global.online_check;
  return g;
}

/* Probes into the view that is not published, then publishes it. */
static void probe_and_publish(bool again)
{
  unsigned now = atomic_load_explicit(&current_view, memory_order_acquire);
  unsigned next = again ? 1u - now : now;
  struct jf_view *view = &views[next];
  /* A probe orphaned by fork() may have written part of the view. */
  memset(view, 0, sizeof *view);
  int rc = jf_probe(view);
  jf_policy_apply(view);
  /* A re-probe keeps the status jitflush_init() returned. */
  if (rc == JITFLUSH_ERR_PROBE || (again && views[now].global.status == JITFLUSH_ERR_PROBE)) {
    view->global.status = JITFLUSH_ERR_PROBE;
  }
  jf_cpuset_clear(&known_online[next]);
  for (unsigned i = 0; i < view->ncpus; i++) {
    if (view->cpus[i].online || view->cpus[i].observed) {
      jf_cpuset_add(&known_online[next], (unsigned)view->cpus[i].cpu);
    }
  }
  /* The word before the index: a flush that finds the new index (and its
   * known_online) then also finds the new word, so it cannot pair the new
   * CPU list with maintenance done in the old geometry (see
   * flush_views_slow in platform_aarch64_linux.c). */
  atomic_store_explicit(&jf_geometry_word, pack_geometry(jf_geometry_from_view(view)),
                        memory_order_release);
  atomic_store_explicit(&current_view, next, memory_order_release);
}

static void run_probe(void)
{
  probe_and_publish(false);
  atomic_store_explicit(&init_state, STATE_DONE, memory_order_release);
}

enum jf_online_change jf_state_online_changed(void)
{
  struct jf_cpuset online;
  if (!jf_sysfs_read_cpulist("online", &online)) {
    return JF_ONLINE_UNKNOWN;
  }
  const struct jf_cpuset *known =
      &known_online[atomic_load_explicit(&current_view, memory_order_acquire)];
  unsigned end = jf_cpuset_end(&online);
  for (unsigned cpu = 0; cpu < end; cpu++) {
    if (jf_cpuset_has(&online, cpu) && !jf_cpuset_has(known, cpu)) {
      return JF_ONLINE_NEW_CPU;
    }
  }
  return JF_ONLINE_SAME;
}

bool jf_state_reprobe(void)
{
  int expected = 0;
  if (atomic_load_explicit(&init_state, memory_order_acquire) != STATE_DONE ||
      !atomic_compare_exchange_strong_explicit(&reprobing, &expected, 1, memory_order_acquire,
                                               memory_order_relaxed)) {
    return false;
  }
  probe_and_publish(true);
  atomic_store_explicit(&reprobing, 0, memory_order_release);
  return true;
}

/* getpid() is a plain system call (glibc >= 2.25 caches nothing), hence
 * async-signal-safe, and it is only reached while no probe has finished. */
static long this_process(void)
{
  return (long)getpid();
}

/* Takes the probe over if SEEN (the state just read) is unclaimed or a
 * probe orphaned by fork() in an ancestor process. */
static bool try_to_become_prober(long seen)
{
  long me = this_process();
  /* A thread of this process is probing. (A grandchild whose PID reuses
   * that of a dead ancestor that was probing would wait here; that needs
   * the ancestor to exit and its PID to be recycled within one probe.) */
  if (seen != STATE_UNINIT && seen == me) {
    return false;
  }
  return atomic_compare_exchange_strong_explicit(&init_state, &seen, me, memory_order_acquire,
                                                 memory_order_acquire);
}

int jf_state_init(void)
{
  for (;;) {
    long state = atomic_load_explicit(&init_state, memory_order_acquire);
    if (state == STATE_DONE) {
      return the_view.global.status;
    }
    if (try_to_become_prober(state)) {
      run_probe();
      return the_view.global.status;
    }
    sched_yield();
  }
}

struct jf_geometry jf_state_geometry(void)
{
  uint64_t w = atomic_load_explicit(&jf_geometry_word, memory_order_acquire);
  if (w & GEOMETRY_READY) {
    return jf_geometry_unpack(w);
  }
  long state = atomic_load_explicit(&init_state, memory_order_acquire);
  if (state == STATE_DONE) { /* finished since the first load */
    return jf_geometry_unpack(atomic_load_explicit(&jf_geometry_word, memory_order_acquire));
  }
  if (try_to_become_prober(state)) {
    run_probe();
    return jf_geometry_unpack(atomic_load_explicit(&jf_geometry_word, memory_order_acquire));
  }
  return jf_geometry_floor();
}

const struct jf_view *jf_state_view(void)
{
  if (atomic_load_explicit(&init_state, memory_order_acquire) != STATE_DONE) {
    return NULL;
  }
  return &the_view;
}

void jf_state_reset(void)
{
  atomic_store(&jf_geometry_word, 0);
  memset(views, 0, sizeof views);
  atomic_store(&current_view, 0);
  memset(known_online, 0, sizeof known_online);
  atomic_store(&reprobing, 0);
  atomic_store(&init_state, STATE_UNINIT);
}
#endif
