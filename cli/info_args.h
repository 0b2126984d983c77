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

enum jfi_color { JFI_COLOR_AUTO, JFI_COLOR_ALWAYS, JFI_COLOR_NEVER };

enum jfi_action { JFI_ACTION_REPORT, JFI_ACTION_HELP, JFI_ACTION_VERSION };

/* JFI_OPT_json and the rest: a row of info_cli.def. */
enum jfi_option_id {
#define JFI_OPTION(id, name, alias, short_name, arg, help) JFI_OPT_##id,
#define JFI_EXIT(name, status, help)
#include "info_cli.def"
#undef JFI_OPTION
#undef JFI_EXIT
  JFI_OPTION_COUNT
};

/* The exit statuses, JFI_EXIT_OK (0) and the rest (info_cli.def). */
enum {
#define JFI_OPTION(id, name, alias, short_name, arg, help)
#define JFI_EXIT(name, status, help) JFI_EXIT_##name = status,
#include "info_cli.def"
#undef JFI_OPTION
#undef JFI_EXIT
};

struct jfi_args {
  enum jfi_action action;
  bool json;
  bool selftest;
  double selftest_seconds; /* meaningful when selftest */
  enum jfi_color color;
};

/* Default length of --selftest without =SECONDS: long enough for thousands
 * of functions natively and a few hundred under the emulated rig. */
#define JFI_SELFTEST_DEFAULT_SECONDS 2.0
/* An upper bound so that a typo ("--selftest=36000") is caught as one. */
#define JFI_SELFTEST_MAX_SECONDS 3600.0

/*
 * Parses argv[1..argc). Returns true on success. On a usage error returns
 * false and writes one line (no trailing newline) naming the bad argument
 * into error[0..error_size).
 */
bool jfi_parse_args(int argc, char *const argv[], struct jfi_args *out, char *error,
                    size_t error_size);

/* Writes the --help text to OUT. */
void jfi_print_usage(FILE *out);

#endif
