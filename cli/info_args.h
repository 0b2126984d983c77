/*
 * jitflush-info's command line: its options and exit statuses are the rows
 * of info_cli.def. Parsing is a pure function of argv so that
 * the tests can feed it argument lists without running the program.
 */
#ifndef JITFLUSH_INFO_ARGS_H
#define JITFLUSH_INFO_ARGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

enum info_color { INFO_COLOR_AUTO, INFO_COLOR_ALWAYS, INFO_COLOR_NEVER };

enum info_action { INFO_ACTION_REPORT, INFO_ACTION_HELP, INFO_ACTION_VERSION };

/* INFO_OPT_json and the rest: a row of info_cli.def. */
enum info_option_id {
#define INFO_OPTION(id, name, alias, short_name, arg, help) INFO_OPT_##id,
#define INFO_EXIT(name, status, help)
#include "info_cli.def"
#undef INFO_OPTION
#undef INFO_EXIT
  INFO_OPTION_COUNT
};

/* The exit statuses, INFO_EXIT_OK (0) and the rest (info_cli.def). */
enum {
#define INFO_OPTION(id, name, alias, short_name, arg, help)
#define INFO_EXIT(name, status, help) INFO_EXIT_##name = status,
#include "info_cli.def"
#undef INFO_OPTION
#undef INFO_EXIT
};

struct info_args {
  enum info_action action;
  bool json;
  bool selftest;
  double selftest_seconds; /* meaningful when selftest */
  enum info_color color;
};

/* Default length of --selftest without =SECONDS: long enough for thousands
 * of functions natively and a few hundred under the emulated rig. */
#define INFO_SELFTEST_DEFAULT_SECONDS 2.0
/* An upper bound so that a typo ("--selftest=36000") is caught as one. */
#define INFO_SELFTEST_MAX_SECONDS 3600.0

/*
 * Parses argv[1..argc). Returns true on success. On a usage error returns
 * false and writes one line (no trailing newline) naming the bad argument
 * into error[0..error_size).
 */
bool info_parse_args(int argc, char *const argv[], struct info_args *out, char *error,
                     size_t error_size);

/* Writes the --help text to OUT. */
void info_print_usage(FILE *out);

#endif
