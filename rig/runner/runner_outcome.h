/* After QEMU ended: what the run says and its exit status
 * (runner_outcome.c). */
#ifndef JITFLUSH_EMU_RUNNER_OUTCOME_H
#define JITFLUSH_EMU_RUNNER_OUTCOME_H

#include <stdbool.h>

#include <glib.h>

struct runner_rerun;

/* How a run ended besides QEMU's wait status. */
struct runner_run_end {
  int stopped_by;                   /* the signal that interrupted the runner, or 0 */
  unsigned timeout_ms;              /* --timeout, when it expired; else 0 */
  bool followed;                    /* --exec-of: the run that executed the program
                                       reports its findings and counts */
  int *died_of;                     /* set, when followed, to the signal the program
                                       died of: the runner then dies of it too (main),
                                       as the program would have, for whoever waits */
  const struct runner_rerun *rerun; /* --reproduce: the findings are checked
                                    against the recorded run's */
};

/* The plugin refused to run (RIG_SUMMARY_REFUSED in SUMMARY): prints its
 * reason with QEMU's version and returns RUNNER_EXIT_QEMU_API; 0 when it did
 * not refuse. */
int runner_outcome_refused(const char *summary, const char *qemu);
/*
 * The findings, the summary line and the exit status of the run whose
 * plugin wrote SUMMARY, REPORT and SARIF, given QEMU's wait status
 * WSTATUS, the tail of its stderr TAIL, --summary stale (QUIET) and how
 * the run ended (END). *RAN: the guest ran (a summary was printed, or the
 * followed program reported).
 */
int runner_outcome(const char *summary, const char *report, const char *sarif, int wstatus,
                   const GString *tail, bool quiet, const struct runner_run_end *end, bool *ran);

#endif /* JITFLUSH_EMU_RUNNER_OUTCOME_H */
