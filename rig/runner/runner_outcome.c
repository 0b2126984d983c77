/*
 * After QEMU ended: what the run says and its exit status
 * (docs/RIG.md#exit-statuses, #the-summary-line, #findings-on-stderr). The
 * plugin's finding blocks, those of the processes the program forked
 * (runner_fork.c), the summary line and the program's status; or, when
 * there is no usable summary, one line saying why and the status of that
 * failure.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

#include <glib.h>

#include "rig_contract.h"
#include "runner_exit_statuses.h"
#include "runner_fail.h"
#include "runner_fork.h"
#include "runner_outcome.h"
#include "runner_output.h"
#include "runner_qemu.h"
#include "runner_rerun.h"
#include "runner_scratch.h"

static int exit_status_of(int wstatus)
{
  if (WIFEXITED(wstatus)) {
    return WEXITSTATUS(wstatus);
  }
  if (WIFSIGNALED(wstatus)) {
    return 128 + WTERMSIG(wstatus);
  }
  return RUNNER_EXIT_INTERNAL;
}

static void describe_end(int wstatus, char *how, size_t size)
{
  if (WIFSIGNALED(wstatus)) {
    g_snprintf(how, size, "was killed by signal %d", WTERMSIG(wstatus));
  } else {
    g_snprintf(how, size, "exited with status %d", exit_status_of(wstatus));
  }
}

/* The last non-empty lines of QEMU's stderr (at most MAX), joined into
 * one line. Before the guest's first instruction everything there is
 * QEMU's own (and the plugin's). */
static char *last_lines(const GString *tail, guint max)
{
  char **lines = g_strsplit(tail->str, "\n", -1);
  GPtrArray *kept = g_ptr_array_new();
  for (char **l = lines; *l; l++) {
    if (*g_strstrip(*l)) {
      g_ptr_array_add(kept, *l);
    }
  }
  guint first = kept->len > max ? kept->len - max : 0;
  GString *msg = g_string_new(NULL);
  for (guint i = first; i < kept->len; i++) {
    g_string_append_printf(msg, "%s%s", i > first ? "; " : "", (char *)kept->pdata[i]);
  }
  g_ptr_array_free(kept, TRUE);
  g_strfreev(lines);
  return g_string_free(msg, FALSE);
}

/* The finding blocks the plugin wrote next to SUMMARY, on stderr. */
static void print_findings(const char *summary)
{
  char *dir = g_path_get_dirname(summary);
  char *findings = g_build_filename(dir, "findings", NULL);
  char *blocks = NULL;
  if (g_file_get_contents(findings, &blocks, NULL, NULL)) {
    fputs(blocks, stderr);
  }
  g_free(blocks);
  g_free(findings);
  g_free(dir);
}

/* Status 8 when the guest executed an AArch64 program: QEMU user mode
 * hands execve to the host kernel, which fails with ENOEXEC or (with
 * binfmt_misc) runs it in a QEMU without the rig; either way what ran next
 * was not checked, so no summary may pass for a checked run. 0 otherwise.
 * An interrupted run keeps its 128+N. */
static int exec_outcome(const char *summary, int stopped_by)
{
  char *note = runner_scratch_exec_note(summary);
  char *text = NULL;
  bool executed = !stopped_by && g_file_get_contents(note, &text, NULL, NULL) && *text;
  g_free(note);
  if (!executed) {
    g_free(text);
    return 0;
  }
  g_strchomp(text);
  g_auto(GStrv) paths = g_strsplit(text, "\n", -1);
  g_free(text);
  GString *names = g_string_new(NULL);
  for (guint i = 0; paths[i]; i++) {
    guint first = 0;
    while (strcmp(paths[first], paths[i]) != 0) {
      first++;
    }
    if (first == i) { /* each program once, in the order executed */
      g_string_append_printf(names, "%s%s", names->len ? ", " : "", paths[i]);
    }
  }
  print_findings(summary);
  int status =
      runner_fail(RUNNER_EXIT_EXEC,
                  "the program executed %s, an AArch64 program that QEMU user mode cannot run "
                  "under the rig (it fails with \"Exec format error\", or binfmt_misc starts it "
                  "outside the rig): what it did was not checked",
                  names->str);
  g_string_free(names, TRUE);
  return status;
}

/* The plugin refused to run (RIG_SUMMARY_REFUSED): its reason, with
 * QEMU's version, and RUNNER_EXIT_QEMU_API; 0 when it did not refuse. */
int runner_outcome_refused(const char *summary, const char *qemu)
{
  char *text = NULL;
  if (!g_file_get_contents(summary, &text, NULL, NULL) ||
      !g_str_has_prefix(text, RIG_SUMMARY_REFUSED)) {
    g_free(text);
    return 0;
  }
  char *version = runner_qemu_version(qemu);
  int status = runner_fail(RUNNER_EXIT_QEMU_API,
                           "%s cannot run the rig: %s; nothing of the program ran (docs/RIG.md, "
                           "\"Which QEMU\")",
                           version, g_strstrip(text + strlen(RIG_SUMMARY_REFUSED)));
  g_free(version);
  g_free(text);
  return status;
}

/* The lines naming each thread's last block, which the plugin wrote when
 * the timeout asked for its reports, on stderr. */
static void print_threads(const char *scratch)
{
  char *path = g_build_filename(scratch, RUNNER_SCRATCH_THREADS, NULL);
  char *text = NULL;
  if (g_file_get_contents(path, &text, NULL, NULL) && *text) {
    g_strchomp(text);
    g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
    for (char **l = lines; *l; l++) {
      fprintf(stderr, "==jitflush-emu== at the timeout, %s\n", *l);
    }
  } else {
    fputs("==jitflush-emu== at the timeout, no thread's last block is known (the plugin did not "
          "answer)\n",
          stderr);
  }
  g_free(text);
  g_free(path);
}

/* After QEMU ended: the summary line and the program's status, or why
 * there is neither. An interrupted run (SIGINT, SIGTERM, SIGHUP to the
 * runner) ends with 128+N, after the findings gathered so far; a run whose
 * QEMU was killed (SIGKILL) with the guest's 128+N after those the plugin
 * had kept; a run stopped by --timeout with RUNNER_EXIT_TIMEOUT. */
int runner_outcome(const char *summary, const char *report, const char *sarif, int wstatus,
                   const GString *tail, bool quiet, const struct runner_run_end *end, bool *ran)
{
  const int stopped_by = end->stopped_by;
  const bool timed_out = end->timeout_ms > 0;
  int exec_status = exec_outcome(summary, stopped_by || timed_out);
  if (exec_status) {
    return exec_status;
  }
  char *scratch = g_path_get_dirname(summary);
  char *text = NULL;
  struct rig_summary sum;
  GError *problem = NULL;
  bool have = g_file_get_contents(summary, &text, NULL, NULL);
  /* Without its exit callbacks the plugin wrote no summary, but it kept
   * one while the guest ran. */
  char *kept =
      !have && WIFSIGNALED(wstatus) ? runner_output_adopt_checkpoint(scratch, report, sarif) : NULL;
  if (kept) {
    have = g_file_get_contents(kept, &text, NULL, NULL);
  }
  if (!have) {
    g_set_error_literal(&problem, G_FILE_ERROR, G_FILE_ERROR_NOENT, "the file is missing");
  } else {
    have = rig_summary_parse(text, &sum, &problem);
  }
  g_free(text);
  char how[48];
  describe_end(wstatus, how, sizeof how);
  int status = 0;
  if (!have && stopped_by) {
    status = runner_fail(128 + stopped_by,
                         "interrupted by %s: QEMU %s before the plugin wrote its findings (%s)",
                         strsignal(stopped_by), how, problem->message);
  } else if (!have && timed_out) {
    status =
        runner_fail(RUNNER_EXIT_TIMEOUT,
                    "timed out after %.3g s: QEMU %s before the plugin wrote its findings (%s)",
                    end->timeout_ms / 1000.0, how, problem->message);
  } else if (!have) {
    /* Mostly a plugin QEMU could not load or install (then QEMU's last
     * line says why); but the guest may have run, so the line is quoted
     * as what it is, not as QEMU's words. */
    char *said = last_lines(tail, 1);
    status =
        runner_fail(RUNNER_EXIT_INTERNAL, "the plugin wrote no usable summary (%s; QEMU %s)%s%s",
                    problem->message, how, *said ? "; stderr ended with: " : "", said);
    g_free(said);
  } else if (sum.counter[RIG_COUNTER_insns] == 0 && !kept) {
    /* QEMU calls the plugin's exit callback even when it gives up before
     * the guest's first instruction; all-zero counters then mean nothing.
     * (A checkpoint is written only once the guest started.) */
    char *said = last_lines(tail, 3);
    status =
        runner_fail(RUNNER_EXIT_NOT_STARTED, "QEMU %s before the program's first instruction%s%s",
                    how, *said ? ": " : " (QEMU printed nothing)", said);
    g_free(said);
  }
  if (problem) {
    g_error_free(problem);
  }
  if (!have || status) {
    g_free(kept);
    g_free(scratch);
    return status;
  }
  if (end->followed) {
    /* The exec'd program's findings are in the first run's folder, which
     * prints them (plugin_fork.c); its own status is what its parent
     * (the process that called exec) waits for. */
    *ran = true;
    *end->died_of = WIFSIGNALED(wstatus) ? WTERMSIG(wstatus) : 0;
    g_free(kept);
    g_free(scratch);
    return exit_status_of(wstatus);
  }
  /* The plugin's finding blocks (next to the summary), those of the
   * processes the program forked, then the summary of them all. Under
   * --summary stale a clean process's blocks (only the kernel's notes can
   * be there) stay in its JSON report, so that its stderr is the
   * program's. */
  if (!quiet || sum.counter[RIG_COUNTER_stale_fetches] > 0 || stopped_by) {
    print_findings(kept ? kept : summary);
  }
  GString *forked_blocks = g_string_new(NULL);
  runner_merge_forked(scratch, report, sarif, &sum, forked_blocks);
  fputs(forked_blocks->str, stderr);
  g_string_free(forked_blocks, TRUE);
  *ran = true;
  const bool stopped = stopped_by || timed_out;
  /* A rerun that ended by itself is checked; one that differs ends here,
   * with its own status and no summary line that could read as clean. */
  if (end->rerun && !stopped && !kept) {
    int differs = runner_rerun_check(end->rerun, report, &sum, quiet);
    if (differs) {
      g_free(scratch);
      return differs;
    }
  }
  /* --summary stale: a clean run adds nothing to the program's stderr, so
   * a test that compares its stderr passes as without the rig. */
  if (quiet && sum.counter[RIG_COUNTER_stale_fetches] == 0 && !stopped && !kept) {
    g_free(scratch);
    return exit_status_of(wstatus);
  }
  if (timed_out) {
    print_threads(scratch);
  }
  g_free(scratch);
  if (WIFSIGNALED(wstatus) && !stopped) {
    /* QEMU ends itself with the signal the guest died of (linux-user's
     * dump_core_and_abort); the plugin cannot know which, so it is said
     * here, next to the CRASH block that names the thread and finding. */
    fprintf(stderr, "==jitflush-emu== the program died of signal %d (%s)\n", WTERMSIG(wstatus),
            strsignal(WTERMSIG(wstatus)));
  }
  if (kept && !stopped) {
    fprintf(stderr,
            "==jitflush-emu== QEMU was killed before its exit callbacks: the findings and counts "
            "are those the plugin had kept while the program ran\n");
  }
  g_free(kept);
  GString *line = g_string_new("jitflush-emu: ");
  rig_summary_format(line, &sum, RIG_SHOWN_STDERR);
  fprintf(stderr, "%s\n", line->str);
  g_string_free(line, TRUE);
  if (stopped_by) {
    fprintf(stderr,
            "jitflush-emu: interrupted by %s: the findings above are those gathered so far\n",
            strsignal(stopped_by));
    return 128 + stopped_by;
  }
  if (timed_out) {
    fprintf(stderr,
            "jitflush-emu: timed out after %.3g s (--timeout): the program was stopped; the "
            "findings above are those gathered so far\n",
            end->timeout_ms / 1000.0);
    return RUNNER_EXIT_TIMEOUT;
  }
  if (WIFSIGNALED(wstatus) && kept) {
    return exit_status_of(wstatus);
  }
  return sum.counter[RIG_COUNTER_stale_fetches] > 0 ? RUNNER_EXIT_STALE : exit_status_of(wstatus);
}
