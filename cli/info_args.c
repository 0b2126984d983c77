/* jitflush-info's command line: long options only, GNU style (--opt=value). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "info_args.h"

const char jfi_usage_text[] =
    "Usage: jitflush-info [--json] [--selftest[=SECONDS]] [--color=auto|always|never]\n"
    "       jitflush-info --help | --version\n"
    "\n"
    "Shows what jitflush knows about every possible CPU of this machine: MIDR and\n"
    "core name, CTR_EL0 and its line sizes, IDC/DIC, the sysfs L1 line sizes, and\n"
    "where each number came from; then the system-wide safe values and a verdict\n"
    "(homogeneous, heterogeneous with the flush strategies that are unsafe here, or\n"
    "incomplete with the CPUs that could not be seen).\n"
    "\n"
    "  --json               print one JSON document instead of the table\n"
    "  --selftest[=SECONDS] write, flush, run and verify JIT functions on every CPU\n"
    "                       this process may use, pinned to each in turn, then free\n"
    "                       to migrate (default 2 seconds; writes no files)\n"
    "  --color=WHEN         colour the table: auto (a terminal, unless NO_COLOR is\n"
    "                       set), always or never\n"
    "  --help               this text\n"
    "  --version            the jitflush version\n"
    "\n"
    "Source tags in the table: c = read on that CPU (CTR_EL0, MIDR_EL1),\n"
    "s = sysfs, t = jitflush's MIDR table, f = the conservative floor, - = not known.\n"
    "\n"
    "Exit status: 0 success; 1 the flush stride could not be established safely\n"
    "(the probe failed), the selftest saw a wrong result or the report could not\n"
    "be written; 2 usage error.\n";

static void set_error(char *error, size_t size, const char *fmt, const char *arg)
{
  if (size > 0) {
    snprintf(error, size, fmt, arg);
  }
}

/* A duration such as "5" or "0.5". strtod alone would also take "inf",
 * "nan", hex floats and leading blanks; none of them is a duration anyone
 * means, so only digits and one dot are let through. */
static bool parse_seconds(const char *text, double *out)
{
  size_t digits = 0, dots = 0;
  for (const char *p = text; *p; p++) {
    if (*p >= '0' && *p <= '9') {
      digits++;
    } else if (*p == '.') {
      dots++;
    } else {
      return false;
    }
  }
  if (digits == 0 || dots > 1) {
    return false;
  }
  errno = 0;
  char *end;
  double value = strtod(text, &end);
  if (errno != 0 || *end != '\0' || !isfinite(value)) {
    return false;
  }
  if (value <= 0 || value > JFI_SELFTEST_MAX_SECONDS) {
    return false;
  }
  *out = value;
  return true;
}

bool jfi_parse_args(int argc, char *const argv[], struct jfi_args *out, char *error,
                    size_t error_size)
{
  memset(out, 0, sizeof *out);
  out->action = JFI_ACTION_REPORT;
  out->color = JFI_COLOR_AUTO;
  out->selftest_seconds = JFI_SELFTEST_DEFAULT_SECONDS;
  if (error_size > 0) {
    error[0] = '\0';
  }

  for (int i = 1; i < argc; i++) {
    const char *arg = argv[i];
    if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
      out->action = JFI_ACTION_HELP;
    } else if (strcmp(arg, "--version") == 0 || strcmp(arg, "-V") == 0) {
      /* --help wins over --version when both are given, as in GNU tools. */
      if (out->action != JFI_ACTION_HELP) {
        out->action = JFI_ACTION_VERSION;
      }
    } else if (strcmp(arg, "--json") == 0) {
      out->json = true;
    } else if (strcmp(arg, "--selftest") == 0) {
      out->selftest = true;
    } else if (strncmp(arg, "--selftest=", 11) == 0) {
      if (!parse_seconds(arg + 11, &out->selftest_seconds)) {
        set_error(error, error_size,
                  "invalid value in '%s': SECONDS must be a number above 0 and at most 3600", arg);
        return false;
      }
      out->selftest = true;
    } else if (strncmp(arg, "--color=", 8) == 0 || strncmp(arg, "--colour=", 9) == 0) {
      const char *when = strchr(arg, '=') + 1;
      if (strcmp(when, "auto") == 0) {
        out->color = JFI_COLOR_AUTO;
      } else if (strcmp(when, "always") == 0) {
        out->color = JFI_COLOR_ALWAYS;
      } else if (strcmp(when, "never") == 0) {
        out->color = JFI_COLOR_NEVER;
      } else {
        set_error(error, error_size, "invalid value in '%s': expected auto, always or never", arg);
        return false;
      }
    } else if (arg[0] == '-' && arg[1] != '\0') {
      set_error(error, error_size, "unknown option '%s'", arg);
      return false;
    } else {
      set_error(error, error_size, "unexpected argument '%s'", arg);
      return false;
    }
  }
  return true;
}
