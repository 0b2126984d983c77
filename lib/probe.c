/*
 * The per-core probe: gathers the raw facts about every possible CPU.
 *
 * CTR_EL0 and MIDR_EL1 describe only the core that executes the mrs, so the
 * only way to learn another core's values is to run there. A helper thread
 * pins itself to each possible CPU in turn and reads both registers; the
 * caller's own affinity is never touched, so a JIT thread the application
 * pinned stays pinned. CPUs the helper cannot reach (offline, outside the
 * cpuset, or pinning refused by seccomp) keep only what sysfs says about
 * them; the policy decides what that is worth.
 */
#define _GNU_SOURCE 1 /* O_CLOEXEC, syscall(), getauxval under -std=c11 */
#if defined(__linux__)
#include <pthread.h>
#include <string.h>

#include "ctr.h"
#include "os.h"
#include "regs.h"
#include "sysfs.h"
#include "view.h"

struct probe_job {
  struct jf_view *view;
  struct jf_cpuset targets;
};

static struct jitflush_cpu_info *record_for(struct jf_view *view, unsigned cpu)
{
  for (unsigned i = 0; i < view->ncpus; i++) {
    if (view->cpus[i].cpu == (int)cpu) {
      return &view->cpus[i];
    }
  }
  return NULL;
}

static void observe_here(struct jitflush_cpu_info *rec)
{
  rec->observed = true;
  rec->online = true; /* it just ran code */
  rec->ctr_el0 = jf_regs_read_ctr();
  uint64_t midr;
  if (jf_regs_read_midr(&midr)) {
    rec->midr = midr;
    rec->midr_source = JITFLUSH_SRC_CTR_EL0;
  }
}

static void *probe_thread(void *arg)
{
  struct probe_job *job = arg;
  unsigned end = jf_cpuset_end(&job->targets);
  bool pinned_any = false;
  for (unsigned cpu = 0; cpu < end; cpu++) {
    if (!jf_cpuset_has(&job->targets, cpu) || !jf_os_pin_self(cpu)) {
      continue;
    }
    /* Trust the pin only if the kernel agrees where we run: a read taken
     * on another core would be filed under the wrong CPU. */
    int here = jf_os_current_cpu();
    if (here >= 0 && here != (int)cpu) {
      continue;
    }
    pinned_any = true;
    struct jitflush_cpu_info *rec = record_for(job->view, cpu);
    if (rec) {
      observe_here(rec);
    }
  }
  if (!pinned_any) {
    /* Pinning refused (seccomp, a frozen cpuset): the core we run on is
     * still a fact worth having. */
    int here = jf_os_current_cpu();
    struct jitflush_cpu_info *rec = here >= 0 ? record_for(job->view, (unsigned)here) : NULL;
    if (rec) {
      observe_here(rec);
    }
  }
  return NULL;
}

/* Which CPUs exist. "possible" is the set the kernel may ever bring
 * online (Documentation/admin-guide/cputopology.rst); older or sandboxed
 * systems may lack it, then "present", then our own affinity mask. */
static void find_possible(struct jf_view *view, const struct jf_cpuset *allowed, bool allowed_known,
                          struct jf_cpuset *possible)
{
  view->possible_known =
      jf_sysfs_read_cpulist("possible", possible) || jf_sysfs_read_cpulist("present", possible);
  if (!view->possible_known) {
    jf_cpuset_clear(possible);
    if (allowed_known) {
      *possible = *allowed;
    }
    int here = jf_os_current_cpu();
    if (here >= 0) {
      jf_cpuset_add(possible, (unsigned)here);
    }
  }
}

/* What the policy needs from sysfs, read after the helper thread so that
 * an observed CPU costs no file at all (its CTR_EL0 beats any sysfs line):
 * an unobserved CPU's L1 lines and MIDR; an observed CPU's MIDR only when
 * mrs could not give it (no HWCAP_CPUID), for the A53 errata check. */
static void read_sysfs_facts(struct jf_view *view)
{
  for (unsigned i = 0; i < view->ncpus; i++) {
    struct jitflush_cpu_info *rec = &view->cpus[i];
    if (!rec->observed) {
      struct jf_sysfs_cpu sys;
      jf_sysfs_read_cpu((unsigned)rec->cpu, &sys);
      rec->sysfs_l1i_line = sys.l1i_line;
      rec->sysfs_l1d_line = sys.l1d_line;
      if (sys.has_midr) {
        rec->midr = sys.midr;
        rec->midr_source = JITFLUSH_SRC_SYSFS;
      }
    } else if (rec->midr_source == JITFLUSH_SRC_NONE &&
               jf_sysfs_read_midr((unsigned)rec->cpu, &rec->midr)) {
      rec->midr_source = JITFLUSH_SRC_SYSFS;
    }
  }
}

/* The kernel's groupings of the observed CPUs, which the policy uses to
 * infer the lines of offline ones; read only when there is one. */
static void read_domains(struct jf_view *view)
{
  bool any_offline = false;
  for (unsigned i = 0; i < view->ncpus; i++) {
    any_offline = any_offline || (!view->cpus[i].observed && !view->cpus[i].online);
  }
  if (!any_offline) {
    return;
  }
  for (unsigned i = 0; i < view->ncpus && !view->domains_overflow; i++) {
    struct jf_cpuset group;
    if (view->cpus[i].observed && jf_sysfs_read_domain((unsigned)view->cpus[i].cpu, &group)) {
      jf_view_set_domain(view, i, &group);
    }
  }
}

int jf_probe(struct jf_view *view)
{
  memset(view, 0, sizeof *view);

  struct jf_cpuset allowed, possible, online;
  bool allowed_known = jf_os_get_affinity(&allowed);
  find_possible(view, &allowed, allowed_known, &possible);
  bool online_known = jf_sysfs_read_cpulist("online", &online);

  view->ncpus_possible = jf_cpuset_count(&possible);
  unsigned end = jf_cpuset_end(&possible);
  for (unsigned cpu = 0; cpu < end; cpu++) {
    if (!jf_cpuset_has(&possible, cpu)) {
      continue;
    }
    struct jitflush_cpu_info *rec = &view->cpus[view->ncpus++];
    rec->cpu = (int)cpu;
    rec->online = online_known && jf_cpuset_has(&online, cpu);
  }

  /* Try every possible CPU, not only those in the caller's mask: a JIT
   * thread the application pinned to one core would otherwise leave the
   * view incomplete and every flush paying the per-call guard. The kernel
   * lets a thread move to any online CPU of its cpuset whatever its current
   * mask, and refuses the others with EINVAL (sched_setaffinity(2),
   * kernel/sched/core.c: the new mask is intersected with the cpuset's), so
   * an offline CPU, one outside the cpuset or a stale online list costs one
   * failed system call and nothing else. */
  struct probe_job job = {.view = view, .targets = possible};

  pthread_t thread;
  int rc = 0;
  if (pthread_create(&thread, NULL, probe_thread, &job) != 0) {
    rc = JITFLUSH_ERR_PROBE;
  } else {
    pthread_join(thread, NULL);
    view->probe_ran = true;
  }
  read_sysfs_facts(view);
  read_domains(view);
  return rc;
}
#endif
