/* jitflush-emu --reproduce REPORT: the run a report records, run again and
 * checked against it (runner_rerun.c). */
#ifndef JITFLUSH_EMU_RUNNER_RERUN_H
#define JITFLUSH_EMU_RUNNER_RERUN_H

#include <stdbool.h>

#include "rig_contract.h"

struct emu_rerun;

/* Whether ARGV asks for a rerun: --reproduce before any "--". */
bool emu_rerun_requested(int argc, char **argv);

/*
 * Reads the rerun's command line ARGV (--reproduce REPORT and the options
 * a rerun may add) and the report, restores the recorded working folder
 * (the paths ARGV gives are made absolute first) and reads the recorded
 * environment. Prints one line for each input it cannot restore. Returns
 * 0 and *RERUN, or an exit status after printing why (2: bad command line,
 * a report that cannot be read or records no run).
 */
int emu_rerun_prepare(int argc, char **argv, struct emu_rerun **rerun);

/* The recorded run's command line with the rerun's own options, for
 * emu_args_parse (emu_options.recorded_options); owned by RERUN. */
char **emu_rerun_argv(const struct emu_rerun *rerun, int *argc);

/* The environment to give the program: the recorded one, or NULL when it
 * cannot be restored (the runner's own then). Owned by RERUN. */
char *const *emu_rerun_env(const struct emu_rerun *rerun);

/* The recorded run's report, absolute. */
const char *emu_rerun_report(const struct emu_rerun *rerun);

/* What the rerun cannot restore, as one phrase ("the environment (...)"),
 * or NULL when it restores everything the run recorded. */
const char *emu_rerun_unrestored(const struct emu_rerun *rerun);

/*
 * After the rerun, whose JSON report is REPORT and whose counts are SUM:
 * compares its findings with the recorded run's, by root cause
 * (emu_merge_key) and stale fetches. The same: prints one line saying so
 * (none when QUIET and both are clean) and returns 0. Different: prints
 * what differs, each input it could not restore and the counts, then one
 * line, and returns EMU_EXIT_RERUN; the caller prints no summary line.
 */
int emu_rerun_check(const struct emu_rerun *rerun, const char *report, const struct jf_summary *sum,
                    bool quiet);

void emu_rerun_free(struct emu_rerun *rerun);

#endif /* JITFLUSH_EMU_RUNNER_RERUN_H */
