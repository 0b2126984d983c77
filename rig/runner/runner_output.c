/*
 * The run's output files (--report, --sarif) when the plugin did not write
 * them in place: a rerun's own report copied to the one asked for, and the
 * reports of the plugin's checkpoint (plugin_checkpoint.c) for a QEMU
 * killed before its exit callbacks (docs/RIG.md#the-json-report).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib.h>

#include "rig_contract.h"
#include "runner_output.h"
#include "runner_scratch.h"

/* Writes the file FROM into TO: a regular file (or none) is replaced
 * whole, anything else (a symlink's target, a device) written in place, as
 * the plugin writes its reports (plugin_findings.c). */
void runner_output_copy(const char *from, const char *to)
{
  char *text = NULL;
  gsize len = 0;
  if (!to || !g_file_get_contents(from, &text, &len, NULL)) {
    return;
  }
  struct stat st;
  bool special = lstat(to, &st) == 0 && !S_ISREG(st.st_mode);
  GError *err = NULL;
  if (!special) {
    g_file_set_contents(to, text, (gssize)len, &err);
  } else {
    int fd = open(to, O_WRONLY | O_TRUNC | O_CLOEXEC);
    bool ok = fd >= 0;
    for (gsize done = 0; ok && done < len;) {
      ssize_t n = write(fd, text + done, len - done);
      ok = n > 0 || (n < 0 && errno == EINTR);
      done += n > 0 ? (gsize)n : 0;
    }
    if (fd >= 0) {
      close(fd);
    }
    if (!ok) {
      g_set_error_literal(&err, G_FILE_ERROR, g_file_error_from_errno(errno), g_strerror(errno));
    }
  }
  if (err) {
    fprintf(stderr, "jitflush-emu: cannot write %s: %s\n", to, err->message);
    g_error_free(err);
  }
  g_free(text);
}

/*
 * QEMU ended without the plugin's exit callbacks (killed with SIGKILL, by a
 * harness's timeout or the OOM killer; or by --timeout when the plugin did
 * not answer): the summary the plugin kept in its checkpoint folder while
 * the guest ran (plugin_checkpoint.c), with the findings' text, the report
 * and the SARIF log of that moment, which go where the run's would have
 * gone. Returns the checkpoint's summary file, or NULL when there is none.
 */
char *runner_output_adopt_checkpoint(const char *scratch, const char *report, const char *sarif)
{
  char *dir = g_build_filename(scratch, RUNNER_SCRATCH_CHECKPOINT, NULL);
  char *summary = g_build_filename(dir, RIG_CHECKPOINT_SUMMARY, NULL);
  if (!g_file_test(summary, G_FILE_TEST_IS_REGULAR)) {
    g_clear_pointer(&summary, g_free);
  } else {
    char *from = g_build_filename(dir, RIG_CHECKPOINT_REPORT, NULL);
    runner_output_copy(from, report);
    g_free(from);
    from = g_build_filename(dir, RIG_CHECKPOINT_SARIF, NULL);
    runner_output_copy(from, sarif);
    g_free(from);
  }
  g_free(dir);
  return summary;
}
