/*
 * CPU hotplug during a run: the [hotplug] events of the config (docs/RIG.md
 * section 4), "+6-7@2000000,-5@9000000": once the guest has executed N
 * instructions (all threads together), the CPUs listed come online (+) or
 * go offline (-).
 *
 * An event changes everything the guest can see, as Linux's hotplug does:
 *   - the overlay: ROOT/sys/devices/system/cpu/{online,offline} and the
 *     per-CPU folders (created for a CPU that comes online, removed for one
 *     that goes offline; sysfs_overlay.c), when the runner generated it
 *     (a --sysfs-root tree is a dump and is never changed);
 *   - the scheduler (plugin_sched.c, jf_sched_set_online): the affinity
 *     syscalls and getcpu answer on the new online set, a thread gets back
 *     the CPUs it asked for when they return, and a thread on a CPU that
 *     goes offline moves off it;
 *   - the coherence model (plugin_model.c, jf_model_cluster_online): what
 *     the kernel guarantees about the caches of a cluster that comes back.
 *
 * Events are checked where the scheduler already looks at the clock: at
 * each seeded migration point and each system call. So an event lands at
 * the first such point after its instruction count, within about
 * 2 * migrate-every instructions of one thread (or at the next system call
 * when migrate-every is 0).
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "plugin.h"
#include "sysfs_overlay.h"

static struct jf_cpuset online;
static unsigned next_event;
/* The next event's instruction count, read without jf_lock on the fast
 * path (UINT64_MAX once every event has happened). */
static uint64_t next_at = UINT64_MAX;
static bool overlay_warned;

static void arm_next(void)
{
  next_at = next_event < jf_config->nevents ? jf_config->events[next_event].at : UINT64_MAX;
}

bool jf_hotplug_init(char **error)
{
  (void)error;
  memset(&online, 0, sizeof(online));
  for (unsigned cpu = 0; cpu < jf_config->ncpus; cpu++) {
    if (jf_config->cpus[cpu].online) {
      jf_cpuset_add(&online, cpu);
    }
  }
  next_event = 0;
  overlay_warned = false;
  arm_next();
  return true;
}

void jf_hotplug_free(void)
{
  next_at = UINT64_MAX;
}

bool jf_hotplug_online(unsigned cpu)
{
  return jf_cpuset_has(&online, cpu);
}

static bool cluster_has_online(unsigned cluster)
{
  for (unsigned cpu = 0; cpu < jf_config->ncpus; cpu++) {
    if (jf_cluster_of(cpu) == cluster && jf_cpuset_has(&online, cpu)) {
      return true;
    }
  }
  return false;
}

static void update_overlay(void)
{
  if (!jf_opts.overlay_path) {
    return;
  }
  bool on[EMU_MAX_CPUS] = {false};
  for (unsigned cpu = 0; cpu < jf_config->ncpus; cpu++) {
    on[cpu] = jf_cpuset_has(&online, cpu);
  }
  GError *err = NULL;
  if (!emu_overlay_set_online(jf_config, jf_opts.overlay_path, on, &err)) {
    if (!overlay_warned) {
      fprintf(stderr, "jitflush plugin: hotplug: %s\n", err->message);
      overlay_warned = true;
    }
    g_error_free(err);
  }
}

/* jf_lock held. */
static void apply(const struct emu_hotplug_event *e, unsigned vcpu)
{
  unsigned n = jf_config->nclusters;
  bool *was_up = g_new0(bool, n);
  for (unsigned c = 0; c < n; c++) {
    was_up[c] = cluster_has_online(c);
  }
  for (unsigned cpu = 0; cpu < jf_config->ncpus; cpu++) {
    if (!emu_event_has(e, cpu)) {
      continue;
    }
    if (e->online) {
      jf_cpuset_add(&online, cpu);
    } else {
      online.bits[cpu / 64] &= ~(UINT64_C(1) << (cpu % 64));
    }
  }
  /* Files first: a CPU is visible in sysfs before anything runs on it. */
  update_overlay();
  for (unsigned c = 0; c < n; c++) {
    if (!was_up[c] && cluster_has_online(c)) {
      jf_model_cluster_online(jf_model, c);
    }
  }
  g_free(was_up);
  jf_sched_set_online(&online, vcpu);
}

void jf_hotplug_poll(unsigned vcpu)
{
  if (__atomic_load_n(&next_at, __ATOMIC_RELAXED) == UINT64_MAX) {
    return;
  }
  uint64_t now = jf_clock_totals().insns;
  if (now < __atomic_load_n(&next_at, __ATOMIC_RELAXED)) {
    return;
  }
  g_mutex_lock(&jf_lock);
  while (next_event < jf_config->nevents && jf_config->events[next_event].at <= now) {
    apply(&jf_config->events[next_event], vcpu);
    next_event++;
  }
  uint64_t at = next_event < jf_config->nevents ? jf_config->events[next_event].at : UINT64_MAX;
  __atomic_store_n(&next_at, at, __ATOMIC_RELAXED);
  g_mutex_unlock(&jf_lock);
}
