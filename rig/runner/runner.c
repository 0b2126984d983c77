/*
 * jitflush-emu, the runner (docs/RIG.md#the-runner-jitflush-emu): main and
 * the top-level flow. Which program this is (--merge, --binfmt-*, the
 * jitflush-emu-binfmt name, --reproduce), the command line and the config,
 * the checks before QEMU starts (runner_checks.c), one run of QEMU with the
 * plugin (the overlay, QEMU's command line, the run, its outcome) and the
 * suite store's entry. Each step's details are in the file named at it.
 * The options and the variables that stand in for them are the rows of
 * runner_options.def, the exit statuses those of runner_exit_statuses.def
 * (`jitflush-emu --help`; docs/RIG.md#exit-statuses).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib.h>

#include "rig_config.h"
#include "runner_exit_statuses.h"
#include "runner_args.h"
#include "runner_binfmt.h"
#include "runner_checks.h"
#include "runner_cleaner.h"
#include "runner_exec.h"
#include "runner_fail.h"
#include "runner_locate.h"
#include "runner_outcome.h"
#include "runner_output.h"
#include "runner_plugin_option.h"
#include "runner_record.h"
#include "runner_reproduce.h"
#include "runner_rerun.h"
#include "runner_scratch.h"
#include "runner_store.h"

/*
 * The guest's address space, reserved by QEMU (-R) apart from everything
 * QEMU and the plugin map. Without it linux-user QEMU on a
 * 64-bit host lets guest and host mappings share one address space, and
 * the guest's /proc/self/maps shows only the guest's: a program that picks
 * a range it sees free and maps it with MAP_FIXED (PHP's opcache places its
 * shared memory so) replaces QEMU's or the plugin's memory under them, and
 * QEMU dies with "QEMU internal SIGSEGV". 1 TiB leaves room for the largest
 * reservations real JITs make (V8's pointer cage, HotSpot's heap).
 */
#define RUNNER_GUEST_RESERVED_VA "0x10000000000"

/* One run of QEMU in the scratch folder TMP: the overlay, QEMU's command
 * line with the plugin's option, the run itself and its outcome. */
static int run(const struct runner_options *o, const struct rig_config *cfg, const char *sysroot,
               const char *qemu, const char *plugin, const char *tmp,
               const struct runner_record *rec, bool *ran, int *died_of)
{
  int status = 0;
  struct runner_overlay ov;
  if ((status = runner_scratch_overlay_build(o, cfg, sysroot, tmp, &ov)) != 0) {
    runner_scratch_overlay_free(&ov);
    return status;
  }
  const char *root = ov.root;
  char *summary = g_build_filename(tmp, "summary", NULL);
  char *findings = g_build_filename(tmp, "findings", NULL);
  char *control = g_build_filename(tmp, "control", NULL);
  GString *plugin_opt =
      runner_plugin_option(o, cfg, plugin, root, summary, findings, control, tmp, qemu, rec);
  char *checkpoint = g_build_filename(tmp, RUNNER_SCRATCH_CHECKPOINT, NULL);
  if (mkdir(checkpoint, 0700) != 0) {
    /* The plugin then keeps nothing: a killed QEMU loses its findings. */
    fprintf(stderr, "jitflush-emu: warning: cannot create %s: %s\n", checkpoint, g_strerror(errno));
  }
  g_free(checkpoint);

  GPtrArray *argv = g_ptr_array_new();
  g_ptr_array_add(argv, (char *)qemu);
  if (cfg->qemu_cpu) {
    g_ptr_array_add(argv, "-cpu");
    g_ptr_array_add(argv, cfg->qemu_cpu);
  }
  g_ptr_array_add(argv, "-L");
  g_ptr_array_add(argv, (char *)root);
  g_ptr_array_add(argv, "-plugin");
  g_ptr_array_add(argv, plugin_opt->str);
  /* The guest's own address space, apart from QEMU's and the plugin's
   * memory (docs/RIG.md, "How the rig works inside QEMU"); QEMU places
   * every guest mapping in it by itself, not wherever the host's mmap puts
   * it next to the mappings of QEMU's threads, which come and go with host
   * timing (a guest allocator that trims unaligned mappings would make
   * more or fewer system calls from run to run: "Reproducible runs"). */
  g_ptr_array_add(argv, "-R");
  g_ptr_array_add(argv, RUNNER_GUEST_RESERVED_VA);
  /* QEMU's own guest-visible randomness from the run's seed: the 16
   * AT_RANDOM bytes the auxiliary vector points to (glibc's stack guard
   * and pointer guard), the pointer authentication keys linux-user gives
   * each process, and the RNDR register. The plugin seeds getrandom and
   * the random devices (plugin_entropy.c); docs/RIG.md, "Reproducible
   * runs". */
  char qemu_seed[24];
  g_snprintf(qemu_seed, sizeof qemu_seed, "%" PRIu64, o->seed_text ? o->seed : cfg->seed);
  g_ptr_array_add(argv, "-seed");
  g_ptr_array_add(argv, qemu_seed);
  for (char **a = o->program; *a; a++) {
    g_ptr_array_add(argv, *a);
  }
  g_ptr_array_add(argv, NULL);

  GString *tail = g_string_new(NULL);
  bool timed_out = false;
  int stopped_by = 0;
  int wstatus = runner_run_qemu((char *const *)argv->pdata, rec->env, &ov.seal, control, summary,
                                o->timeout_ms, &timed_out, &stopped_by, tail);
  if (timed_out) {
    /* The processes the program forked are QEMUs of the run too: a
     * timeout stops them all, as a harness's kill of the run would. */
    runner_cleaner_kill_run(tmp);
  }
  const bool quiet = o->summary && strcmp(o->summary, "stale") == 0;
  const struct runner_run_end end = {stopped_by, timed_out ? o->timeout_ms : 0, o->exec_of != NULL,
                                     died_of, rec->rerun_of};
  if (wstatus == -1) {
    status = RUNNER_EXIT_QEMU;
  } else if ((status = runner_outcome_refused(summary, qemu)) == 0) {
    status = runner_outcome(summary, o->report, o->sarif, wstatus, tail, quiet, &end, ran);
  }

  g_string_free(tail, TRUE);
  g_ptr_array_free(argv, TRUE);
  g_string_free(plugin_opt, TRUE);
  g_free(summary);
  g_free(findings);
  g_free(control);
  runner_scratch_overlay_free(&ov);
  return status;
}

/* The folder of this executable, where the build puts jitflush-emu-merge
 * and the jitflush-emu-binfmt link. */
static char *own_sibling(const char *name)
{
  char *self = g_file_read_link("/proc/self/exe", NULL);
  char *dir = self ? g_path_get_dirname(self) : g_strdup(".");
  char *path = g_build_filename(dir, name, NULL);
  g_free(dir);
  g_free(self);
  return path;
}

/* jitflush-emu --merge ARGS: the merge is its own program (report_merge.c), so
 * that the runner, started once per test, loads no JSON library. */
static int exec_merge(int argc, char **argv)
{
  char *merge = own_sibling("jitflush-emu-merge");
  char **args = g_new0(char *, (size_t)argc + 1);
  args[0] = merge;
  for (int i = 2; i < argc; i++) {
    args[i - 1] = argv[i];
  }
  execv(merge, args);
  int e = errno;
  g_free(args);
  int status = runner_fail(RUNNER_EXIT_INTERNAL, "cannot run %s: %s", merge, g_strerror(e));
  g_free(merge);
  return status;
}

/* The run, given the options and the config: the checks, then QEMU. With a
 * suite store the plugin writes its report and SARIF log into the entry
 * at BASE (or the user's files are copied there), and *RAN says whether
 * the guest ran. */
static int checked_run(struct runner_options *o, const struct rig_config *cfg, const char *base,
                       const struct runner_rerun *rerun, bool *ran, int *died_of)
{
  char *sysroot = NULL, *qemu = NULL, *plugin = NULL, *tmp = NULL;
  char *store_report = NULL, *store_sarif = NULL, *own_report = NULL;
  const char *user_report = o->report, *user_sarif = o->sarif;
  const char *report_problem = o->report ? runner_check_output(o->report) : NULL;
  const char *sarif_problem = o->sarif ? runner_check_output(o->sarif) : NULL;
  int status = 0;
  GError *err = NULL;
  if ((status = runner_scratch_sysroot(o, &sysroot)) != 0 ||
      (status = runner_check_program(o, sysroot)) != 0) {
    /* printed */
  } else if (report_problem) {
    status = runner_fail(RUNNER_EXIT_REPORT, "cannot write the report %s: %s", o->report,
                         report_problem);
  } else if (sarif_problem) {
    status = runner_fail(RUNNER_EXIT_REPORT, "cannot write the SARIF log %s: %s", o->sarif,
                         sarif_problem);
  } else if ((qemu = runner_check_find_qemu(o, &status)) &&
             (plugin = runner_check_find_plugin(&status))) {
    tmp = runner_scratch_make(&err);
    if (!tmp) {
      status =
          runner_fail(RUNNER_EXIT_INTERNAL, "cannot create a temporary folder: %s", err->message);
      g_error_free(err);
    } else {
      o->report_only_findings = base && !user_report && !user_sarif;
      if (base && !o->report) {
        o->report = store_report = g_strconcat(base, RUNNER_STORE_REPORT, NULL);
      }
      if (base && !o->sarif) {
        o->sarif = store_sarif = g_strconcat(base, RUNNER_STORE_SARIF, NULL);
      }
      /* A rerun reads its own report back for its check: one in the
       * scratch folder when none is asked for, or the one asked for is no
       * regular file (a device: it gets a copy). */
      struct stat st;
      bool special = o->report && stat(o->report, &st) == 0 && !S_ISREG(st.st_mode);
      if (rerun && (!o->report || special)) {
        o->report = own_report = g_build_filename(tmp, "rerun.json", NULL);
      }
      struct runner_record rec = {.env = rerun && runner_rerun_env(rerun) ? runner_rerun_env(rerun)
                                                                          : environ,
                                  .rerun_of = rerun,
                                  .own_report = own_report};
      runner_record_plan(o, &rec);
      runner_record_env(o->report, &rec);
      /* Started before QEMU: it removes the folder, and ends every
       * process of the run, should the runner be killed (runner_cleaner.c). */
      struct runner_cleaner cleaner;
      char *env = rec.write_env ? runner_reproduce_env_path(o->report) : NULL;
      runner_cleaner_start(tmp, o->report, env, &cleaner);
      g_free(env);
      status = run(o, cfg, sysroot, qemu, plugin, tmp, &rec, ran, died_of);
      if (own_report && user_report) {
        runner_output_copy(own_report, user_report);
      }
      runner_scratch_remove(tmp);
      runner_cleaner_finish(&cleaner);
      runner_record_drop_lone_env(o->report, &rec);
      g_free(rec.rerun);
      g_free(rec.unrecorded);
      if (base && user_report) {
        runner_store_copy_in(user_report, base, RUNNER_STORE_REPORT);
      }
      if (base && user_sarif) {
        runner_store_copy_in(user_sarif, base, RUNNER_STORE_SARIF);
      }
      o->report = user_report;
      o->sarif = user_sarif;
    }
  }
  g_free(store_report);
  g_free(store_sarif);
  g_free(own_report);
  g_free(tmp);
  g_free(plugin);
  g_free(qemu);
  g_free(sysroot);
  return status;
}

int main(int argc, char **argv)
{
  if (argc >= 2 && strcmp(argv[1], "--merge") == 0) {
    return exec_merge(argc, argv);
  }
  if (argc >= 2 && g_str_has_prefix(argv[1], "--binfmt-")) {
    char *interp = own_sibling(RUNNER_BINFMT_ARGV0);
    int status = runner_binfmt_command(argc, argv, interp);
    g_free(interp);
    return status;
  }
  char *self = g_path_get_basename(argv[0]);
  char **args = strcmp(self, RUNNER_BINFMT_ARGV0) == 0 ? runner_binfmt_argv(&argc, argv) : NULL;
  g_free(self);

  struct runner_options o = {0};
  /* --reproduce REPORT: the recorded run's command line, parsed as it
   * was given, in its folder (runner_rerun.c). */
  struct runner_rerun *rerun = NULL;
  int status = 0;
  if (!args && runner_rerun_requested(argc, argv)) {
    if ((status = runner_rerun_prepare(argc, argv, &rerun)) != 0) {
      return status;
    }
    o.recorded_options = true;
    argv = runner_rerun_argv(rerun, &argc);
  }
  status = runner_args_parse(argc, args ? args : argv, &o);
  if (status != 0) {
    g_free(args);
    runner_rerun_free(rerun);
    return status < 0 ? 0 : status;
  }

  GError *err = NULL;
  /* A config NAME stands for its file among the configs (runner_locate.c);
   * from here on o.config is a file. */
  char *config_file = runner_locate_config(o.config, &err);
  struct rig_config *cfg = NULL;
  if (config_file) {
    o.config = config_file;
    cfg = rig_config_load(o.config, &err);
  }
  if (!cfg) {
    /* The message names the file; a variable is named too, since nothing
     * on the command line shows where the path came from. */
    const char *from = runner_args_origin(&o, offsetof(struct runner_options, config));
    status = from[0] != 'J' ? runner_fail(RUNNER_EXIT_USAGE, "%s", err->message)
                            : runner_fail(RUNNER_EXIT_USAGE, "%s: %s", from, err->message);
    g_error_free(err);
    g_free(config_file);
    g_free(args);
    runner_rerun_free(rerun);
    return status;
  }

  char *base = NULL;
  int die_of = 0; /* with --exec-of: the signal the program died of */
  if (o.store && !(base = runner_store_reserve(o.store, &err))) {
    status =
        runner_fail(RUNNER_EXIT_REPORT, "cannot use the suite store %s (from %s): %s", o.store,
                    runner_args_origin(&o, offsetof(struct runner_options, store)), err->message);
    g_error_free(err);
  } else {
    bool ran = false;
    status = checked_run(&o, cfg, base, rerun, &ran, &die_of);
    if (base) {
      status = runner_store_finish(&o, cfg, base, status, ran);
    }
  }
  g_free(base);
  rig_config_free(cfg);
  g_free(config_file);
  g_free(args);
  runner_rerun_free(rerun);
  if (die_of) {
    /* No core file: QEMU made none either (runner_exec.c). */
    struct rlimit no_core = {0, 0};
    setrlimit(RLIMIT_CORE, &no_core);
    signal(die_of, SIG_DFL);
    sigset_t only;
    sigemptyset(&only);
    sigaddset(&only, die_of);
    sigprocmask(SIG_UNBLOCK, &only, NULL);
    raise(die_of);
  }
  return status;
}
