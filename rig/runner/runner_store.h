/* The suite store: one folder every rig process of a test suite adds its
 * entry to, merged by jitflush-emu --merge (runner_store.c, merge.c). */
#ifndef JITFLUSH_EMU_RUNNER_STORE_H
#define JITFLUSH_EMU_RUNNER_STORE_H

#include <stdbool.h>
#include <stdint.h>

#include <glib.h>

/* Suffixes of an entry's files: the plugin's JSON report and SARIF log,
 * and the runner's record, written last, that completes the entry. */
#define EMU_STORE_REPORT ".json"
#define EMU_STORE_SARIF ".sarif"
#define EMU_STORE_RECORD ".run"

/* Creates DIR when it is missing and reserves a new entry in it: returns
 * its path without suffix (DIR/run-PID-XXXXXX, a file that marks the entry
 * as not finished), or NULL with *ERROR saying why. */
char *emu_store_reserve(const char *dir, GError **error);

/* What the record says about one process of the suite. */
struct emu_store_record {
  const char *test;      /* $JITFLUSH_EMU_TEST_NAME, or NULL */
  char *const *argv;     /* the program and its arguments, NULL-terminated */
  const char *reproduce; /* the command line that reruns it, or NULL */
  int status;            /* the runner's exit status */
  bool ran;              /* the guest ran (the summary line was printed) */
  bool report, sarif;    /* BASE.json / BASE.sarif were written */
  /* The run as its report names it, for the merge of an entry without one
   * (a clean process writes none: runner.c, report-when=findings). */
  const char *config; /* absolute path */
  const char *soc;
  uint64_t seed;
  const char *policy;
};

/* Writes BASE.run (atomically: a merge never reads half a record) and
 * removes the marker BASE; false with *ERROR saying why. */
bool emu_store_complete(const char *base, const struct emu_store_record *rec, GError **error);

#endif /* JITFLUSH_EMU_RUNNER_STORE_H */
