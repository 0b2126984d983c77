/* The runner's one way to say what went wrong (runner_fail.c): every file
 * of the runner prints its failures through these, so that each is one
 * "jitflush-emu: PROBLEM" line and the status of runner_exit_statuses.h. */
#ifndef JITFLUSH_EMU_RUNNER_FAIL_H
#define JITFLUSH_EMU_RUNNER_FAIL_H

#include <stdarg.h>

#include <glib.h>

int runner_vfail(int status, const char *fmt, va_list ap);
/* Prints "jitflush-emu: " and FMT's text on one line; returns STATUS. */
int runner_fail(int status, const char *fmt, ...) G_GNUC_PRINTF(2, 3);

#endif /* JITFLUSH_EMU_RUNNER_FAIL_H */
