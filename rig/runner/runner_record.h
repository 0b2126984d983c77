/* What a run records for its rerun (runner_record.c). */
#ifndef JITFLUSH_EMU_RUNNER_RECORD_H
#define JITFLUSH_EMU_RUNNER_RECORD_H

#include <stdbool.h>

#include "runner_args.h"

struct runner_rerun;

/* What a run records for its rerun (runner_reproduce.c), and what the
 * rerun line cannot restore. */
struct runner_record {
  char *rerun;                         /* "jitflush-emu --reproduce REPORT", or NULL: the
                                          reproducing command is the rerun line */
  char *unrecorded;                    /* what the rerun line cannot restore, or NULL */
  char *const *env;                    /* the program's environment */
  bool write_env;                      /* REPORT.env, written before the run */
  const struct runner_rerun *rerun_of; /* --reproduce: the run it repeats */
  const char *own_report;              /* the report a rerun writes for its
                                          check when none is asked for */
};

/* Plans the record of the run of O into R. A report in a regular file (or
 * none yet) records the run and keeps the environment beside it, unless
 * --no-record-env; a rerun's own report for its check records nothing,
 * its rerun line is the recorded run's. */
void runner_record_plan(const struct runner_options *o, struct runner_record *r);
/* Keeps the program's environment beside REPORT, as REC plans, before the
 * run; when it cannot, the report says why and the run goes on. */
void runner_record_env(const char *report, struct runner_record *rec);
/* After the run: the environment's file goes when no report came next to
 * it. */
void runner_record_drop_lone_env(const char *report, const struct runner_record *rec);

#endif /* JITFLUSH_EMU_RUNNER_RECORD_H */
