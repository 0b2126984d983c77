/* The runner's failure messages (runner_fail.h). */
#include <stdarg.h>
#include <stdio.h>

#include "runner_fail.h"

/* The runner's one way to say what went wrong: "jitflush-emu: PROBLEM" on
 * one line of stderr, and the status it exits with. */
int runner_vfail(int status, const char *fmt, va_list ap)
{
  fputs("jitflush-emu: ", stderr);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  return status;
}

int runner_fail(int status, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  runner_vfail(status, fmt, ap);
  va_end(ap);
  return status;
}
