/*
 * The plugin's option string on QEMU's command line (-plugin
 * PLUGIN,config=...,seed=...,summary=...): the run's options passed on, the
 * files in the scratch folder the plugin writes, and the command that
 * follows an exec of an AArch64 program (follow=). The keys are
 * rig_contract.h's RIG_OPT_*, which says what each carries; the options
 * they pass on: docs/RIG.md#the-runner-jitflush-emu.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdlib.h>

#include <glib.h>

#include "rig_contract.h"
#include "runner_plugin_option.h"
#include "runner_reproduce.h"
#include "runner_scratch.h"
#include "rig_sysfs_overlay.h"

/* QEMU's plugin option is a QemuOpts list: a ',' inside a value is written
 * ",," (docs/devel/tcg-plugins.rst, util/qemu-option.c). */
static void append_plugin_escaped(GString *s, const char *text)
{
  for (const char *p = text; *p; p++) {
    if (*p == ',') {
      g_string_append_c(s, ',');
    }
    g_string_append_c(s, *p);
  }
}

static void append_plugin_arg(GString *s, const char *key, const char *value)
{
  g_string_append_printf(s, ",%s=", key);
  append_plugin_escaped(s, value);
}

/* append_plugin_arg for a VALUE made for it, which it frees. */
static void append_plugin_arg_owned(GString *s, const char *key, char *value)
{
  append_plugin_arg(s, key, value);
  g_free(value);
}

/* The command that runs a program the guest executes on the rig, with this
 * run's options (follow=, plugin_exec.c): this runner, every option that
 * decides what the rig is and does, written out, and --exec-of with the
 * folder where its findings join this run's (the first run's, through every
 * exec that follows). --report, --sarif, --store, --summary and --timeout
 * stay this run's: it reports for the program and its children. */
static char *follow_command(const struct runner_options *o, const struct rig_config *cfg,
                            const char *qemu, const char *scratch)
{
  GPtrArray *a = g_ptr_array_new_with_free_func(g_free);
  char *self = g_file_read_link("/proc/self/exe", NULL);
  g_ptr_array_add(a, self ? self : g_strdup("jitflush-emu"));
  g_ptr_array_add(a, g_strdup("--config"));
  g_ptr_array_add(a, runner_args_absolute(o->config));
  g_ptr_array_add(a, g_strdup("--seed"));
  g_ptr_array_add(a, g_strdup_printf("%" PRIu64, o->seed_text ? o->seed : cfg->seed));
  const char *pairs[][2] = {{"--policy", o->policy},
                            {"--schedule", o->schedule},
                            {"--quantum", o->quantum_text},
                            {"--check", o->check},
                            {"--exec-map-sync", o->exec_map_sync},
                            {"--instrument", o->instrument}};
  for (size_t i = 0; i < G_N_ELEMENTS(pairs); i++) {
    if (pairs[i][1]) {
      g_ptr_array_add(a, g_strdup(pairs[i][0]));
      g_ptr_array_add(a, g_strdup(pairs[i][1]));
    }
  }
  const char *paths[][2] = {{"--sysroot", o->sysroot}, {"--sysfs-root", o->sysfs_root}};
  for (size_t i = 0; i < G_N_ELEMENTS(paths); i++) {
    if (paths[i][1]) {
      g_ptr_array_add(a, g_strdup(paths[i][0]));
      g_ptr_array_add(a, runner_args_absolute(paths[i][1]));
    }
  }
  g_ptr_array_add(a, g_strdup("--qemu"));
  g_ptr_array_add(a, g_strdup(qemu));
  g_ptr_array_add(a, g_strdup("--exec-of"));
  /* With the '/': the cleaner finds the runs it starts by their command
   * line naming "SCRATCH/" (runner_cleaner.c). */
  g_ptr_array_add(a, o->exec_of ? g_strdup(o->exec_of) : g_strconcat(scratch, "/", NULL));
  g_ptr_array_add(a, NULL);
  char *joined = g_strjoinv(RIG_FOLLOW_SEPARATOR, (char **)a->pdata);
  g_ptr_array_unref(a);
  return joined;
}

GString *runner_plugin_option(const struct runner_options *o, const struct rig_config *cfg,
                              const char *plugin, const char *root, const char *summary,
                              const char *findings, const char *control, const char *scratch,
                              const char *qemu, const struct runner_record *rec)
{
  GString *opt = g_string_new(NULL);
  append_plugin_escaped(opt, plugin);
  append_plugin_arg_owned(opt, RIG_OPT_CONFIG, runner_args_absolute(o->config));
  append_plugin_arg_owned(opt, RIG_OPT_SEED,
                          g_strdup_printf("%" PRIu64, o->seed_text ? o->seed : cfg->seed));
  if (o->report) {
    append_plugin_arg_owned(opt, RIG_OPT_REPORT, runner_args_absolute(o->report));
  }
  /* The options passed on as the user gave them (checked already). */
  const char *texts[][2] = {{RIG_OPT_CHECK, o->check},
                            {RIG_OPT_POLICY, o->policy},
                            {RIG_OPT_EXEC_MAP_SYNC, o->exec_map_sync},
                            {RIG_OPT_INSTRUMENT, o->instrument},
                            {RIG_OPT_SCHEDULE, o->schedule}};
  for (size_t i = 0; i < G_N_ELEMENTS(texts); i++) {
    if (texts[i][1]) {
      append_plugin_arg(opt, texts[i][0], texts[i][1]);
    }
  }
  if (o->quantum_text) {
    append_plugin_arg_owned(opt, RIG_OPT_QUANTUM, g_strdup_printf("%" PRIu64, o->quantum));
  }
  if (o->sarif) {
    append_plugin_arg_owned(opt, RIG_OPT_SARIF, runner_args_absolute(o->sarif));
  }
  if (o->report_only_findings) {
    append_plugin_arg(opt, RIG_OPT_REPORT_WHEN, "findings");
  }
  if (o->sarif_root) {
    /* The real path: DWARF names the files the compiler was given, which a
     * symlinked checkout would not match textually. */
    char *root_abs = realpath(o->sarif_root, NULL);
    append_plugin_arg(opt, RIG_OPT_SARIF_ROOT, root_abs ? root_abs : o->sarif_root);
    free(root_abs);
  }
  /* Hotplug events rewrite the generated tree (the run's own then, not a
   * shared one); a --sysfs-root dump is the user's and stays as it is. */
  if (!o->sysfs_root && cfg->sysfs != RIG_SYSFS_NONE && cfg->nevents > 0) {
    append_plugin_arg_owned(opt, RIG_OPT_OVERLAY, g_build_filename(root, RIG_SYSFS_CPU_DIR, NULL));
  }
  append_plugin_arg_owned(opt, RIG_OPT_REPRODUCE, runner_reproduce_command(o, cfg));
  if (rec->rerun) {
    append_plugin_arg(opt, RIG_OPT_RERUN, rec->rerun);
  }
  if (rec->unrecorded) {
    append_plugin_arg(opt, RIG_OPT_UNRECORDED, rec->unrecorded);
  }
  append_plugin_arg_owned(opt, RIG_OPT_CWD, g_get_current_dir());
  append_plugin_arg(opt, RIG_OPT_CONTROL, control);
  append_plugin_arg(opt, RIG_OPT_FINDINGS, findings);
  append_plugin_arg_owned(opt, RIG_OPT_EXEC, runner_scratch_exec_note(summary));
  append_plugin_arg_owned(opt, RIG_OPT_CHECKPOINT,
                          g_build_filename(scratch, RUNNER_SCRATCH_CHECKPOINT, NULL));
  append_plugin_arg_owned(opt, RIG_OPT_THREADS,
                          g_build_filename(scratch, RUNNER_SCRATCH_THREADS, NULL));
  if (!o->no_follow_exec) {
    append_plugin_arg_owned(opt, RIG_OPT_FOLLOW, follow_command(o, cfg, qemu, scratch));
  }
  if (o->exec_of) {
    append_plugin_arg(opt, RIG_OPT_EXEC_OF, o->exec_of);
  }
  append_plugin_arg(opt, RIG_OPT_SUMMARY, summary);
  return opt;
}
