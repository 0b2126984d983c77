/*
 * The processes the program forked (runner_fork.c): their findings and
 * counts merged into the run's.
 */
#ifndef JITFLUSH_EMU_RUNNER_FORK_H
#define JITFLUSH_EMU_RUNNER_FORK_H

#include <glib.h>

#include "rig_contract.h"

/* Reads what each forked process wrote in SCRATCH (plugin_fork.c): adds
 * its counts to SUM, appends its finding blocks to BLOCKS, when REPORT is
 * not NULL adds its findings and counts to that JSON report, where every
 * finding then names its process ("process": pid), and when SARIF is not
 * NULL adds its results to that SARIF log (properties.process). Returns
 * the number of forked processes found; a file it cannot read is named on
 * stderr. */
unsigned runner_merge_forked(const char *scratch, const char *report, const char *sarif,
                             struct rig_summary *sum, GString *blocks);

#endif /* JITFLUSH_EMU_RUNNER_FORK_H */
