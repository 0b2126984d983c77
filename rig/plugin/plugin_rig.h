/*
 * The plugin's one state object (docs/ARCHITECTURE.md).
 *
 * The QEMU entry points (plugin.c, plugin_instrument.c) create it at
 * install and pass it to every unit; no unit of rig keeps shared state
 * of its own beyond what it is handed here. The units form layers:
 *
 *   QEMU glue      plugin.c, plugin_instrument.c
 *   services       plugin_turns.c, plugin_hotplug.c > plugin_sched.c
 *                  > plugin_store.c, plugin_signal.c > plugin_sched.c,
 *                  plugin_alias.c, plugin_region.c, plugin_findings.c
 *   bottom         plugin_vcpu.h (per-vCPU state), plugin_regs.c, plugin_keep.c,
 *                  plugin_decode.c, and the QEMU-free model
 *                  (model_coherence.c, report_findings.c, rig_config.c, ...)
 *
 * Locking: LOCK guards the scheduler, the model, the findings, the alias
 * tracker, the hotplug state and the signal handlers' addresses. Guest threads run in parallel host
 * threads in linux-user, so every execution callback that touches them
 * takes it, through plugin_rig_lock/plugin_rig_unlock; per-vCPU state lives
 * in a QEMU scoreboard (plugin_vcpu.h) and needs no lock. Two paths work
 * without it: stores to pages no one fetches from (plugin_store.c) and the
 * repeats of a stale block whose verdicts cannot have changed since the
 * last unlock (plugin_instrument.c, "Repeats without the lock").
 */
#ifndef JITFLUSH_EMU_RIG_H
#define JITFLUSH_EMU_RIG_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include <glib.h>

#include "model_coherence.h"
#include "rig_config.h"
#include "plugin_qemu_api.h"

/* The options qemu_plugin_install parsed (rig_contract.h names the keys). */
struct plugin_options {
  const char *config_path;
  const char *report_path;
  bool have_seed;
  uint64_t seed;
  bool have_migrate_every;
  uint64_t migrate_every;
  bool check;
  bool check_full; /* check=full: every fetch of a checked word
                      calls the model (the fast path's reference) */
  bool have_policy;
  enum rig_sched_policy policy;
  bool every_block; /* instrument=every-block: no quiet TBs (plugin_instrument.c) */
  bool have_exec_map_sync;
  enum rig_exec_map_sync exec_map_sync;
  const char *sarif_path;
  const char *sarif_root;      /* SARIF locations relative to it (report_findings.h) */
  const char *summary_path;    /* the summary line, for the runner to parse */
  const char *findings_path;   /* the stderr blocks, for the runner to print */
  const char *overlay_path;    /* the generated ROOT/sys/devices/system/cpu
                                  that hotplug events rewrite; NULL for a
                                  --sysfs-root tree, which is never changed */
  const char *control_path;    /* a FIFO: a byte written there by the runner
                                  asks for the reports now (plugin.c) */
  const char *reproduce;       /* the runner's command line that reproduces
                                  the run, for the reports */
  const char *rerun;           /* the rerun line of the stderr blocks
                                  ("jitflush-emu --reproduce REPORT"), or
                                  NULL: the reproducing command */
  const char *unrecorded;      /* what the rerun line cannot restore (the
                                  environment), or NULL */
  const char *cwd;             /* the run's working folder, for the report's
                                  record of what the run depended on */
  const char *exec_path;       /* where to note each AArch64 program the guest
                                  execs, for the runner (plugin_exec.c) */
  const char *checkpoint_path; /* a folder: the findings so far, kept while
                                  the guest runs (plugin_checkpoint.c) */
  const char *threads_path;    /* where a report the runner asks for names
                                  each thread's last block (plugin.c) */
  const char *follow;          /* the runner's command that follows an exec
                                  (plugin_exec.c), or NULL: status 8 */
  const char *exec_of_path;    /* this program was executed by a process of
                                  the run whose scratch folder this is: its
                                  processes' reports go there (plugin_fork.c) */
  bool parallel;               /* schedule=parallel: threads run as the host
                                  schedules them (plugin_turns.c) */
  uint64_t quantum;            /* mean turn length in instructions, 0: the
                                  default */
  bool report_only_findings;   /* report-when=findings: a process that found
                                  nothing and forked nothing writes neither the
                                  JSON report nor the SARIF log (a suite store's
                                  clean entry; plugin.c, write_reports) */
};

/* The guest's executable as QEMU loaded it: asked of QEMU on a vCPU thread
 * (at the first vCPU's start), because the reports may be written on
 * another (plugin.c, control_thread). PATH is NULL until the guest ran. */
struct plugin_guest_image {
  char *path;
  uint64_t start_code;
};

struct plugin_sched;
struct plugin_turns;
struct plugin_hotplug;
struct plugin_alias;
struct plugin_store;
struct plugin_region;
struct report_findings;
struct plugin_regs;
struct plugin_keep;
struct plugin_decoder;
struct plugin_checkpoint;
struct plugin_fork;
struct plugin_signals;
struct plugin_unwind;

/* A cache line of the hosts the rig runs on (x86_64, AArch64), and N
 * bytes rounded up to whole lines. */
#define PLUGIN_RIG_LINE 64
#define PLUGIN_RIG_LINES(n) (((n) + PLUGIN_RIG_LINE - 1) / PLUGIN_RIG_LINE * PLUGIN_RIG_LINE)

struct plugin_rig {
  GMutex lock; /* taken and given back with plugin_rig_lock/_unlock */
  /* Bumped by every plugin_rig_unlock: a stale block's repeats may be
   * counted without the lock while it is unchanged (plugin_instrument.c,
   * "Repeats without the lock"). Atomic. */
  uint64_t epoch;
  /* Folds the calling thread's repeats counted without the lock into the
   * model and findings (plugin_instrument.c); NULL before attach. */
  void (*fold_repeats)(struct plugin_rig *rig);
  /* In a forked child (the lock held): only the forking thread lives on,
   * the other threads' repeats are dropped. NULL before attach. */
  void (*fork_child_repeats)(void);
  /* Every thread's log of those repeats (plugin_instrument.c), guarded by
   * LOCK; NULL until the first. */
  GPtrArray *repeat_logs;
  /* Gates of armed TBs open (plugin_instrument.c, "Armed repeats"),
   * guarded by LOCK: while there are any, an epoch bump first closes them
   * with DISARM_REPEATS. */
  unsigned gates_open;
  void (*disarm_repeats)(struct plugin_rig *rig);
  struct rig_config *config;
  struct plugin_options opts;
  struct qemu_plugin_scoreboard *vcpus; /* struct plugin_vcpu (plugin_vcpu.h) */
  struct model *model;                  /* guarded by LOCK */
  struct model_kernel *kernel;          /* the kernel's own maintenance
                                              (model_kernel_sync.h), guarded by LOCK */
  struct plugin_sched *sched;
  struct plugin_turns *turns;
  struct plugin_hotplug *hotplug;
  struct plugin_alias *alias;
  struct plugin_store *store;
  struct plugin_region *region;
  struct plugin_signals *signals;   /* plugin_signal.c */
  struct plugin_entropy *entropy;   /* plugin_entropy.c */
  struct report_findings *findings; /* report_findings.h, guarded by LOCK */
  struct plugin_unwind *unwind;     /* plugin_findings.c: return rules per flush instruction */
  struct plugin_regs *regs;
  struct plugin_keep *keep;
  struct plugin_decoder *decoder;
  pid_t install_pid;        /* the process QEMU started: it writes the report */
  bool forked;              /* it made a process (clone without CLONE_THREAD);
                               guarded by LOCK */
  struct plugin_fork *fork; /* in a process the guest forked (plugin_fork.c) */
  /* The reports are written once: at exit, or earlier when the runner asks
   * through the control FIFO (it was interrupted). */
  GMutex report_lock;
  bool reported;
  /* The status the program gave exit_group (0-255), or -1 when the report
   * is written before it (a timeout, a signal, an exec, a checkpoint): the
   * report's exit_status, which a rerun compares. */
  int exit_status;
  GThread *control;
  struct plugin_checkpoint *checkpoint; /* NULL without checkpoint= */
  char *checkpoint_line;                /* the summary last written there */
  struct plugin_guest_image image;
  /* The plugin API's self-check (plugin_selfcheck.c): armed on the first
   * block translated, which starts at FIRST_BLOCK. */
  atomic_bool selfcheck_armed;
  uint64_t first_block;
};

/* The rig's lock, taken: first the calling thread's repeats counted
 * without it are folded in, so that whatever the holder does next comes
 * after them, as their fetches did. */
static inline void plugin_rig_lock(struct plugin_rig *rig)
{
  g_mutex_lock(&rig->lock);
  if (rig->fold_repeats) {
    rig->fold_repeats(rig);
  }
}

/* The holder may have changed the model, a thread or the findings: every
 * repeat memo taken before is void, and every armed TB disarmed
 * (plugin_instrument.c). The lock held. */
static inline void plugin_rig_epoch_bump(struct plugin_rig *rig)
{
  if (rig->gates_open) {
    rig->disarm_repeats(rig);
  }
  __atomic_add_fetch(&rig->epoch, 1, __ATOMIC_RELEASE);
}

static inline void plugin_rig_unlock(struct plugin_rig *rig)
{
  plugin_rig_epoch_bump(rig);
  g_mutex_unlock(&rig->lock);
}

/* The run's seed and policy: the option when given, else the config's. */
static inline uint64_t plugin_rig_seed(const struct plugin_rig *rig)
{
  return rig->opts.have_seed ? rig->opts.seed : rig->config->seed;
}

/* The run's [kernel] exec-map-sync: the option when given, else the config's. */
static inline enum rig_exec_map_sync plugin_rig_exec_map_sync(const struct plugin_rig *rig)
{
  return rig->opts.have_exec_map_sync ? rig->opts.exec_map_sync : rig->config->exec_map_sync;
}

static inline enum rig_sched_policy plugin_rig_policy(const struct plugin_rig *rig)
{
  return rig->opts.have_policy ? rig->opts.policy : rig->config->policy;
}

/* Whether the adversary chooses hand-overs too (docs/RIG.md, "Reproducible
 * runs"): under the turns, with policy=adversarial and the checker on (the
 * hand-over follows a store the model saw land on code). */
static inline bool plugin_rig_adversary_hands_over(const struct plugin_rig *rig)
{
  return !rig->opts.parallel && rig->opts.check && plugin_rig_policy(rig) == RIG_SCHED_ADVERSARIAL;
}

#endif /* JITFLUSH_EMU_RIG_H */
