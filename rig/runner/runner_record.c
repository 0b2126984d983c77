/*
 * What this run records for its rerun: the rerun line its findings print,
 * what that line cannot restore, and the program's environment kept beside
 * the report (runner_reproduce.c writes and reads the files;
 * docs/FINDINGS.md#reruns).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib.h>

#include "runner_record.h"
#include "runner_reproduce.h"
#include "runner_rerun.h"

void runner_record_plan(const struct runner_options *o, struct runner_record *r)
{
  struct stat st;
  bool file = o->report && (stat(o->report, &st) != 0 || S_ISREG(st.st_mode));
  bool own = r->own_report && o->report == r->own_report;
  if (own) {
    r->rerun = runner_reproduce_rerun_line(runner_rerun_report(r->rerun_of));
    r->unrecorded = g_strdup(runner_rerun_unrestored(r->rerun_of));
  } else if (file) {
    r->rerun = runner_reproduce_rerun_line(o->report);
    r->write_env = !o->no_record_env;
    r->unrecorded = o->no_record_env
                        ? g_strdup("the environment (the run was recorded with --no-record-env)")
                        : NULL;
  } else if (o->report) {
    r->unrecorded = g_strdup_printf("the environment and the working folder (the report %s is not "
                                    "a regular file, so nothing is recorded beside it)",
                                    o->report);
  } else {
    r->unrecorded = g_strdup("the environment and the working folder (nothing records them "
                             "without --report FILE; jitflush-emu --reproduce FILE restores "
                             "them)");
  }
}

/* Keeps the program's environment beside the report REC plans it for
 * (runner_reproduce.c), before the run, so that its report says the truth
 * about it; when it cannot, the report says why and the run goes on. */
void runner_record_env(const char *report, struct runner_record *rec)
{
  GError *err = NULL;
  if (rec->write_env && !runner_reproduce_env_write(report, rec->env, &err)) {
    fprintf(stderr, "jitflush-emu: warning: cannot record the environment beside %s: %s\n", report,
            err->message);
    rec->write_env = false;
    g_free(rec->unrecorded);
    rec->unrecorded = g_strdup_printf("the environment (%s)", err->message);
    g_error_free(err);
  }
}

/* After the run: the environment's file goes when no report came next to
 * it (a clean process of a suite store, a guest that never started). */
void runner_record_drop_lone_env(const char *report, const struct runner_record *rec)
{
  if (rec->write_env && !g_file_test(report, G_FILE_TEST_IS_REGULAR)) {
    char *env = runner_reproduce_env_path(report);
    unlink(env);
    g_free(env);
  }
}
