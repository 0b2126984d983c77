/*
 * CPU hotplug during a run: the [hotplug] events of the config (docs/RIG.md
 * section 4), "+6-7@2000000,-5@9000000": once the guest has executed N
 * instructions (all threads together), the CPUs listed come online (+) or
 * go offline (-).
 *
 * An event changes everything the guest can see, as Linux's hotplug does:
 *   - the overlay: ROOT/sys/devices/system/cpu/{online,offline} and the
 *     per-CPU folders (created for a CPU that comes online, removed for one
 *     that goes offline; rig_sysfs_overlay.c), when the runner generated it
 *     (a --sysfs-root tree is a dump and is never changed);
 *   - the scheduler (plugin_sched.c, plugin_sched_set_online): the affinity
 *     syscalls and getcpu answer on the new online set, a thread gets back
 *     the CPUs it asked for when they return, and a thread on a CPU that
 *     goes offline moves off it;
 *   - the coherence model (model_coherence.c, model_cluster_online): what
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

#include "cpuset.h"
#include "plugin_hotplug.h"
#include "plugin_sched.h"
#include "rig_sysfs_overlay.h"
#include "plugin_vcpu.h"

struct plugin_hotplug {
  struct jf_cpuset online;
  unsigned next_event;
  /* The next event's instruction count, read without the lock on the fast
   * path (UINT64_MAX once every event has happened). */
  uint64_t next_at;
  bool overlay_warned;
};

static uint64_t event_at(const struct rig_config *cfg, unsigned event)
{
  return event < cfg->nevents ? cfg->events[event].at : UINT64_MAX;
}

struct plugin_hotplug *plugin_hotplug_new(const struct rig_config *cfg)
{
  struct plugin_hotplug *h = g_new0(struct plugin_hotplug, 1);
  for (unsigned cpu = 0; cpu < cfg->ncpus; cpu++) {
    if (cfg->cpus[cpu].online) {
      jf_cpuset_add(&h->online, cpu);
    }
  }
  h->next_at = event_at(cfg, 0);
  return h;
}

void plugin_hotplug_free(struct plugin_hotplug *h)
{
  g_free(h);
}

static bool cluster_has_online(const struct rig_config *cfg, const struct plugin_hotplug *h,
                               unsigned cluster)
{
  for (unsigned cpu = 0; cpu < cfg->ncpus; cpu++) {
    if (rig_config_cluster_of(cfg, cpu) == cluster && jf_cpuset_has(&h->online, cpu)) {
      return true;
    }
  }
  return false;
}

static void update_overlay(struct plugin_rig *rig)
{
  struct plugin_hotplug *h = rig->hotplug;
  if (!rig->opts.overlay_path) {
    return;
  }
  GError *err = NULL;
  if (!rig_overlay_set_online(rig->config, rig->opts.overlay_path, &h->online, &err)) {
    if (!h->overlay_warned) {
      fprintf(stderr, "jitflush plugin: hotplug: %s\n", err->message);
      h->overlay_warned = true;
    }
    g_error_free(err);
  }
}

/* The lock held. */
static void apply(struct plugin_rig *rig, const struct rig_hotplug_event *e, unsigned vcpu)
{
  const struct rig_config *cfg = rig->config;
  struct plugin_hotplug *h = rig->hotplug;
  unsigned n = cfg->nclusters;
  bool *was_up = g_new0(bool, n);
  for (unsigned c = 0; c < n; c++) {
    was_up[c] = cluster_has_online(cfg, h, c);
  }
  for (unsigned cpu = 0; cpu < cfg->ncpus; cpu++) {
    if (!jf_cpuset_has(&e->cpus, cpu)) {
      continue;
    }
    if (e->online) {
      jf_cpuset_add(&h->online, cpu);
    } else {
      jf_cpuset_remove(&h->online, cpu);
    }
  }
  /* Files first: a CPU is visible in sysfs before anything runs on it. */
  update_overlay(rig);
  for (unsigned c = 0; c < n; c++) {
    if (!was_up[c] && cluster_has_online(cfg, h, c)) {
      model_cluster_online(rig->model, c);
    }
  }
  g_free(was_up);
  plugin_sched_set_online(rig, &h->online, vcpu);
}

void plugin_hotplug_poll(struct plugin_rig *rig, unsigned vcpu)
{
  struct plugin_hotplug *h = rig->hotplug;
  const struct rig_config *cfg = rig->config;
  if (__atomic_load_n(&h->next_at, __ATOMIC_RELAXED) == UINT64_MAX) {
    return;
  }
  uint64_t now = plugin_vcpu_clock_totals(rig).insns;
  if (now < __atomic_load_n(&h->next_at, __ATOMIC_RELAXED)) {
    return;
  }
  plugin_rig_lock(rig);
  while (h->next_event < cfg->nevents && cfg->events[h->next_event].at <= now) {
    apply(rig, &cfg->events[h->next_event], vcpu);
    h->next_event++;
  }
  __atomic_store_n(&h->next_at, event_at(cfg, h->next_event), __ATOMIC_RELAXED);
  plugin_rig_unlock(rig);
}
