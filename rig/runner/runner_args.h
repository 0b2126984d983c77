/* The runner's command line (runner_args.c): its options, the help text,
 * the parsing and the environment variables that stand in for options. */
#ifndef JITFLUSH_EMU_RUNNER_ARGS_H
#define JITFLUSH_EMU_RUNNER_ARGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <glib.h>

#define EMU_DEFAULT_SYSROOT "/usr/aarch64-linux-gnu"
#define EMU_VALUED_OPTIONS 17

struct emu_options {
  const char *config;
  const char *report;
  const char *sysfs_root;
  const char *sysroot;
  const char *qemu;
  const char *seed_text;
  uint64_t seed;
  const char *check;    /* "on", "off" or NULL (the plugin's default: on) */
  const char *policy;   /* "adversarial", "random" or NULL (the config's) */
  const char *schedule; /* "turns", "parallel" or NULL (turns) */
  const char *quantum_text;
  uint64_t quantum;
  const char *sarif;
  const char *sarif_root;
  const char *store;         /* the suite store folder (runner_store.c) or NULL */
  bool report_only_findings; /* the report and SARIF log are the store
                                entry's alone: the plugin writes them only
                                when there are findings (report-when) */
  const char *summary;       /* "always", "stale" or NULL (always) */
  /* "linux", "none" or NULL (the config's). */
  const char *exec_map_sync;
  const char *timeout_text; /* --timeout SECONDS, or NULL (none) */
  unsigned timeout_ms;      /* from it; 0: no timeout */
  bool no_follow_exec;      /* --no-follow-exec: an exec of an AArch64
                               program ends the run with status 8 */
  bool no_record_env;       /* --no-record-env: no REPORT.env beside the
                               report (runner_reproduce.c) */
  bool recorded_options;    /* set before parsing a rerun's command line
                               (--reproduce): the environment stands in for
                               no option, every one is the recorded run's */
  const char *exec_of;      /* --exec-of DIR: this run follows an exec in
                               the run whose scratch folder is DIR */
  char **program;           /* NULL-terminated, from after "--" */
  /* Where each valued option came from: its own name ("--seed") or the
   * environment variable that stood in for it; NULL when neither. */
  const char *from[EMU_VALUED_OPTIONS];
};

/* Prints the usage, then "jitflush-emu: PROBLEM"; returns EMU_EXIT_USAGE. */
int emu_args_usage_error(const char *fmt, ...) G_GNUC_PRINTF(1, 2);
/* What the value at OFFSET came from, for messages: "--seed" or
 * "JITFLUSH_EMU_SEED". */
const char *emu_args_origin(const struct emu_options *o, size_t offset);
/* Returns 0 when the options are good, -1 after printing --help, or an
 * exit status after printing the problem. */
int emu_args_parse(int argc, char **argv, struct emu_options *o);
/* PATH made absolute against the current folder (freed with g_free). */
char *emu_args_absolute(const char *path);

#endif /* JITFLUSH_EMU_RUNNER_ARGS_H */
