/*
 * jitflush-info: what jitflush sees on this machine, and whether the usual
 * ways of flushing JIT code are safe here. Built on the public API only
 * (plus the MIDR table's line sizes, see info_facts.c). Its options and
 * exit statuses are the rows of info_cli.def.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "jitflush.h"
#include "info_args.h"
#include "info_output.h"
#include "info_selftest.h"
#include "info_verdict.h"

/* Whether everything printed reached stdout. fflush alone misses an error
 * on a write that stdio made earlier, when its buffer filled up: the
 * stream's error flag keeps that one. A report cut short (a full disk,
 * /dev/full, a closed pipe) must not exit 0. */
static bool output_written(void)
{
  return fflush(stdout) == 0 && !ferror(stdout);
}

/* https://no-color.org: a set, non-empty NO_COLOR turns colour off. */
static bool want_color(enum info_color mode)
{
  if (mode != INFO_COLOR_AUTO) {
    return mode == INFO_COLOR_ALWAYS;
  }
  const char *no_color = getenv("NO_COLOR");
  if (no_color && no_color[0]) {
    return false;
  }
  return isatty(STDOUT_FILENO);
}

int main(int argc, char **argv)
{
  struct info_args args;
  char error[256];
  if (!info_parse_args(argc, argv, &args, error, sizeof error)) {
    fprintf(stderr, "jitflush-info: %s (see --help)\n", error);
    return INFO_EXIT_USAGE;
  }
  if (args.action == INFO_ACTION_HELP || args.action == INFO_ACTION_VERSION) {
    if (args.action == INFO_ACTION_HELP) {
      info_print_usage(stdout);
    } else {
      printf("jitflush-info %s\n", JITFLUSH_VERSION_STRING);
    }
    if (!output_written()) {
      perror("jitflush-info: writing to stdout");
      return INFO_EXIT_UNSAFE;
    }
    return INFO_EXIT_OK;
  }

  /* ~30 KiB: keep it off the stack of small-stack environments. */
  static struct jitflush_info info;
  static struct info_verdict verdict;
  static struct info_selftest_result selftest;
  int status = jitflush_get_info(&info);
  if (status == JITFLUSH_ERR_ARG) {
    fprintf(stderr, "jitflush-info: jitflush_get_info refused its argument\n");
    return INFO_EXIT_UNSAFE;
  }
  info_verdict_compute(&info, &verdict);

  bool selftest_ok = true;
  if (args.selftest) {
    selftest_ok = info_selftest_run(args.selftest_seconds, &selftest);
  }

  bool color = want_color(args.color);
  if (args.json) {
    info_print_json(stdout, &info, &verdict, args.selftest ? &selftest : NULL);
  } else {
    info_print_table(stdout, &info, &verdict, color);
    if (args.selftest) {
      info_print_selftest(stdout, &selftest, color);
    }
  }
  if (!output_written()) {
    perror("jitflush-info: writing the report");
    return INFO_EXIT_UNSAFE;
  }
  if (!verdict.stride_safe) {
    fprintf(stderr, "jitflush-info: %s\n", verdict.problem);
    return INFO_EXIT_UNSAFE;
  }
  if (!selftest_ok) {
    fprintf(stderr, "jitflush-info: selftest failed: %s\n",
            selftest.error[0]         ? selftest.error
            : selftest.first_wrong[0] ? selftest.first_wrong
                                      : "no function was verified");
    return INFO_EXIT_UNSAFE;
  }
  return INFO_EXIT_OK;
}
