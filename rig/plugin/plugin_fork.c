/*
 * A process the guest forks. linux-user QEMU forks the host
 * process for a guest fork() (do_fork in linux-user/syscall.c, without
 * CLONE_VM), so the child holds a copy of the whole rig: the model with
 * the parent's cache state at that moment, which is what the child's
 * caches hold too (fork copies memory, the caches are the same hardware),
 * the scheduler, the counters and the findings. The child goes on checking
 * its fetches against that copy. What it must not do is write the run's
 * reports: they are the parent's, and two processes writing one file at
 * their exits would leave whichever came last.
 *
 * So at the fork's return in the child, its findings restart empty (sites
 * kept: the model's records name them), its counters are noted and the
 * parent's other threads, absent from the child, count as idle; at its
 * exit it writes, next to the runner's summary, process-PID.json (its pid,
 * its parent's, its counters since the fork and its findings),
 * process-PID.findings (their stderr blocks) and, when the run writes a
 * SARIF log, process-PID.sarif (its results). The runner merges them into
 * the one report, its stderr and its status (runner_fork.c). A process
 * forked by a forked process does the same.
 *
 * Its private pages are its parent's too until it writes them: its first
 * store to each is a copy-on-write fault, whose new page the kernel syncs
 * at its next executable mapping (model_kernel_sync.c, plugin_alias_forked).
 */
#define _GNU_SOURCE /* getppid */
#include <unistd.h>

#include "rig_json.h"
#include "plugin_alias.h"
#include "plugin_findings.h"
#include "plugin_fork.h"
#include "plugin_store.h"
#include "rig_contract.h"
#include "plugin_vcpu.h"

#define NR_CLONE 220
#define NR_CLONE3 435

struct plugin_fork {
  pid_t pid, parent;
  bool executed; /* started by an exec, not a fork (plugin_fork_executed) */
  uint64_t at_fork[RIG_NCOUNTERS];
};

static pid_t current_process(const struct plugin_rig *rig)
{
  return rig->fork ? rig->fork->pid : rig->install_pid;
}

void plugin_fork_syscall_ret(struct plugin_rig *rig, unsigned vcpu, int64_t num, int64_t ret)
{
  if ((num != NR_CLONE && num != NR_CLONE3) || ret != 0 || getpid() == current_process(rig)) {
    return; /* not the child of a fork (a new thread shares the pid) */
  }
  plugin_rig_lock(rig);
  struct plugin_fork *f = rig->fork ? rig->fork : g_new0(struct plugin_fork, 1);
  f->parent = current_process(rig);
  f->executed = false;
  f->pid = getpid();
  plugin_vcpu_counter_totals(rig, f->at_fork);
  report_findings_restart(rig->findings);
  if (rig->fork_child_repeats) {
    rig->fork_child_repeats();
  }
  rig->fork = f;
  plugin_rig_unlock(rig);
  /* Only the forking thread lives on in the child: the parent's other
   * vCPUs never run here, so they hold no model record (plugin_store.c
   * waits for every vCPU before it frees one). */
  for (unsigned i = 0; i < (unsigned)qemu_plugin_num_vcpus(); i++) {
    if (i != vcpu) {
      plugin_store_syscall(rig->store, i, true);
    }
  }
  /* Its private pages are the parent's too until it writes them. */
  plugin_alias_forked(rig);
}

bool plugin_fork_is_child(const struct plugin_rig *rig)
{
  return rig->fork && getpid() == rig->fork->pid;
}

void plugin_fork_executed(struct plugin_rig *rig)
{
  struct plugin_fork *f = g_new0(struct plugin_fork, 1);
  f->pid = getpid();
  f->parent = getppid();
  f->executed = true;
  rig->fork = f;
}

/* PATH's folder, then NAME; with exec-of=, that folder instead: the run
 * that executed this program merges its processes. */
static char *beside(const struct plugin_rig *rig, const char *path, const char *name)
{
  char *dir = rig->opts.exec_of_path ? g_strdup(rig->opts.exec_of_path) : g_path_get_dirname(path);
  char *file = g_build_filename(dir, name, NULL);
  g_free(dir);
  return file;
}

void plugin_fork_report(struct plugin_rig *rig)
{
  const struct plugin_fork *f = rig->fork;
  if (!rig->opts.summary_path) {
    return; /* not run by jitflush-emu: nobody to merge it */
  }
  uint64_t now[RIG_NCOUNTERS];
  plugin_vcpu_counter_totals(rig, now);
  JsonObject *o = json_object_new();
  json_object_set_int_member(o, "pid", f->pid);
  json_object_set_int_member(o, "parent", f->parent);
  if (f->executed) {
    json_object_set_boolean_member(o, "executed", true);
  }
  for (size_t c = 0; c < RIG_NCOUNTERS; c++) {
    /* A gauge is the process's own value; a count, what it added. */
    uint64_t v = rig_counters[c].source == RIG_SOURCE_MODEL ? now[c] : now[c] - f->at_fork[c];
    json_object_set_int_member(o, rig_counters[c].name, (gint64)v);
  }
  char *name = g_strdup_printf(RIG_PROCESS_FILE_PREFIX "%d.findings", (int)f->pid);
  char *text_path = beside(rig, rig->opts.summary_path, name);
  g_free(name);
  char *sarif_path = NULL;
  /* A program executed in the run has no --sarif of its own; the run that
   * executed it may have one. */
  if (rig->opts.sarif_path || rig->opts.exec_of_path) {
    name = g_strdup_printf(RIG_PROCESS_FILE_PREFIX "%d.sarif", (int)f->pid);
    sarif_path = beside(rig, rig->opts.summary_path, name);
    g_free(name);
  }
  /* Under the lock: with exec-of=, the runner may ask for this while the
   * guest still runs (plugin.c, control_thread). */
  plugin_rig_lock(rig);
  const struct plugin_guest_image image = rig->image;
  plugin_findings_report(rig->findings, &image, o, text_path, sarif_path);
  plugin_rig_unlock(rig);
  g_free(text_path);
  g_free(sarif_path);
  name = g_strdup_printf(RIG_PROCESS_FILE_PREFIX "%d.json", (int)f->pid);
  char *json_path = beside(rig, rig->opts.summary_path, name);
  GString *json = rig_json_write_object(o);
  plugin_write_file(json_path, json);
  g_string_free(json, true);
  g_free(name);
  g_free(json_path);
}

void plugin_fork_free(struct plugin_rig *rig)
{
  g_clear_pointer(&rig->fork, g_free);
}
