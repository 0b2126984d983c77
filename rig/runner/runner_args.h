/* The runner's command line (runner_args.c): its options (one row each in
 * runner_options.def), the help text, the parsing and the environment
 * variables that stand in for options. */
#ifndef JITFLUSH_EMU_RUNNER_ARGS_H
#define JITFLUSH_EMU_RUNNER_ARGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <glib.h>

#define RUNNER_DEFAULT_SYSROOT "/usr/aarch64-linux-gnu"

/* RUNNER_OPT_config and the rest: a row of runner_options.def. */
enum runner_option_id {
#define RUNNER_OPTION(kind, id, name, short_name, arg, env, help) RUNNER_OPT_##id,
#include "runner_options.def"
#undef RUNNER_OPTION
  RUNNER_OPTION_COUNT
};

/* The fields of the options of runner_options.def. */
#define RUNNER_OPTION_FIELD_VALUE(id) const char *id;
#define RUNNER_OPTION_FIELD_HIDDEN(id) const char *id;
#define RUNNER_OPTION_FIELD_FLAG(id) bool id;
#define RUNNER_OPTION_FIELD_HELP(id)
#define RUNNER_OPTION_FIELD_MODE(id)
#define RUNNER_OPTION_FIELD_SUITE(id)
#define RUNNER_OPTION_FIELD_ENV(id)

struct runner_options {
  /* One field per option of runner_options.def, by its ID: the value as
   * given (VALUE, HIDDEN; NULL when not given), or whether it was given
   * (FLAG). check is "on", "off", "full" or NULL (the plugin's default:
   * on); policy "adversarial", "random" or NULL (the config's); schedule
   * "turns", "parallel" or NULL (turns); summary "always", "stale" or NULL
   * (always); exec_map_sync "linux", "none" or NULL (the config's);
   * instrument "observing", "every-block" or NULL (observing); store
   * the suite store folder (runner_store.c) or NULL; exec_of the scratch
   * folder of the run whose program executed this one. */
#define RUNNER_OPTION(kind, id, name, short_name, arg, env, help) RUNNER_OPTION_FIELD_##kind(id)
#include "runner_options.def"
#undef RUNNER_OPTION
  uint64_t seed;             /* from seed_text */
  uint64_t quantum;          /* from quantum_text */
  unsigned timeout_ms;       /* from timeout_text; 0: no timeout */
  bool report_only_findings; /* the report and SARIF log are the store
                                entry's alone: the plugin writes them only
                                when there are findings (report-when) */
  bool recorded_options;     /* set before parsing a rerun's command line
                                (--reproduce): the environment stands in for
                                no option, every one is the recorded run's */
  char **program;            /* NULL-terminated, from after "--" */
  /* Where each option came from: its own name ("--seed") or the
   * environment variable that stood in for it; NULL when neither. */
  const char *from[RUNNER_OPTION_COUNT];
};

/* Prints the usage, then "jitflush-emu: PROBLEM"; returns RUNNER_EXIT_USAGE. */
int runner_args_usage_error(const char *fmt, ...) G_GNUC_PRINTF(1, 2);
/* What the value at OFFSET came from, for messages: "--seed" or
 * "JITFLUSH_EMU_SEED". */
const char *runner_args_origin(const struct runner_options *o, size_t offset);
/* Returns 0 when the options are good, -1 after printing --help, or an
 * exit status after printing the problem. */
int runner_args_parse(int argc, char **argv, struct runner_options *o);
/* PATH made absolute against the current folder (freed with g_free). */
char *runner_args_absolute(const char *path);

#endif /* JITFLUSH_EMU_RUNNER_ARGS_H */
