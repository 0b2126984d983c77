/* jitflush-emu --reproduce REPORT: the run a report records, run again and
 * checked against it (runner_rerun.c). */
#ifndef JITFLUSH_EMU_RUNNER_RERUN_H
#define JITFLUSH_EMU_RUNNER_RERUN_H

#include <stdbool.h>

#include "rig_contract.h"

struct runner_rerun;

/* Whether ARGV asks for a rerun: --reproduce before any "--". */
bool runner_rerun_requested(int argc, char **argv);

/*
 * Reads the rerun's command line ARGV (--reproduce REPORT and the options
 * a rerun may add) and the report, restores the recorded working folder
 * (the paths ARGV gives are made absolute first) and reads the recorded
 * environment. Prints one line for each input it cannot restore. Returns
 * 0 and *RERUN, or an exit status after printing why (2: bad command line,
 * a report that cannot be read or records no run).
 */
int runner_rerun_prepare(int argc, char **argv, struct runner_rerun **rerun);

/* The recorded run's command line with the rerun's own options, for
 * runner_args_parse (runner_options.recorded_options); owned by RERUN. */
char **runner_rerun_argv(const struct runner_rerun *rerun, int *argc);

/* The environment to give the program: the recorded one, or NULL when it
 * cannot be restored (the runner's own then). Owned by RERUN. */
char *const *runner_rerun_env(const struct runner_rerun *rerun);

/* The recorded run's report, absolute. */
const char *runner_rerun_report(const struct runner_rerun *rerun);

/* What the rerun cannot restore, as one phrase ("the environment (...)"),
 * or NULL when it restores everything the run recorded. */
const char *runner_rerun_unrestored(const struct runner_rerun *rerun);

/*
 * After the rerun, whose JSON report is REPORT and whose counts are SUM:
 * compares its findings with the recorded run's, by root cause
 * (rig_merge_key) and stale fetches. The same: prints one line saying so
 * (none when QUIET and both are clean) and returns 0. Different: prints
 * what differs, each input it could not restore and the counts, then one
 * line, and returns RUNNER_EXIT_RERUN; the caller prints no summary line.
 */
int runner_rerun_check(const struct runner_rerun *rerun, const char *report,
                       const struct rig_summary *sum, bool quiet);

void runner_rerun_free(struct runner_rerun *rerun);

#endif /* JITFLUSH_EMU_RUNNER_RERUN_H */
