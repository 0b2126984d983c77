/* The suite store: one folder every rig process of a test suite adds its
 * entry to, merged by jitflush-emu --merge (runner_store.c, report_merge.c). */
#ifndef JITFLUSH_EMU_RUNNER_STORE_H
#define JITFLUSH_EMU_RUNNER_STORE_H

#include <stdbool.h>
#include <stdint.h>

#include <glib.h>

#include "rig_config.h"
#include "runner_args.h"

/* Suffixes of an entry's files: the plugin's JSON report and SARIF log,
 * and the runner's record, written last, that completes the entry. */
#define RUNNER_STORE_REPORT ".json"
#define RUNNER_STORE_SARIF ".sarif"
#define RUNNER_STORE_RECORD ".run"

/* Creates DIR when it is missing and reserves a new entry in it: returns
 * its path without suffix (DIR/run-PID-XXXXXX, a file that marks the entry
 * as not finished), or NULL with *ERROR saying why. */
char *runner_store_reserve(const char *dir, GError **error);

/* What the record says about one process of the suite. */
struct runner_store_record {
  const char *test;      /* $JITFLUSH_EMU_TEST_NAME, or NULL */
  char *const *argv;     /* the program and its arguments, NULL-terminated */
  const char *reproduce; /* the command line that reruns it, or NULL */
  int status;            /* the runner's exit status */
  bool ran;              /* the guest ran (the summary line was printed) */
  bool report, sarif;    /* BASE.json / BASE.sarif were written */
  /* The run as its report names it, for the merge of an entry without one
   * (a clean process writes none: runner_plugin_option.c, report-when=findings). */
  const char *config; /* absolute path */
  const char *soc;
  uint64_t seed;
  const char *policy;
};

/* Writes BASE.run (atomically: a merge never reads half a record) and
 * removes the marker BASE; false with *ERROR saying why. */
bool runner_store_complete(const char *base, const struct runner_store_record *rec, GError **error);

/* Copies the user's --report or --sarif file FROM to BASE + SUFFIX, when
 * it is a regular file; false otherwise. */
bool runner_store_copy_in(const char *from, const char *base, const char *suffix);
/* Completes the entry at BASE with the record of the run of O and CFG,
 * which ended with STATUS (RAN: the guest ran); returns STATUS, or status
 * 4 after printing why when a clean run's record cannot be written. */
int runner_store_finish(const struct runner_options *o, const struct rig_config *cfg,
                        const char *base, int status, bool ran);

#endif /* JITFLUSH_EMU_RUNNER_STORE_H */
