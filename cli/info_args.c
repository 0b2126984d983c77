/* jitflush-info's command line, GNU style (--opt=value): the options of
 * info_cli.def, their parsing and the --help text. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "info_args.h"

/* info_cli.def's options. */
static const struct option_row {
  const char *name;
  const char *alias; /* or NULL */
  char short_name;   /* or 0 */
  const char *arg;   /* "=WHEN", "[=SECONDS]" or NULL */
  const char *help;
} options[INFO_OPTION_COUNT] = {
#define INFO_OPTION(id, name, alias, short_name, arg, help) {name, alias, short_name, arg, help},
#define INFO_EXIT(name, status, help)
#include "info_cli.def"
#undef INFO_OPTION
#undef INFO_EXIT
};

/* TEXT's lines, the first after HEAD padded to COLUMN, the others indented
 * to COLUMN; a HEAD too wide for that is followed by one space. */
static void print_entry(FILE *out, const char *head, const char *text, int column)
{
  int width = (int)strlen(head);
  fprintf(out, "%s%*s", head, width + 2 <= column ? column - width : 1, "");
  for (const char *p = text; *p; p++) {
    fputc(*p, out);
    if (*p == '\n') {
      fprintf(out, "%*s", column, "");
    }
  }
  fputc('\n', out);
}

void info_print_usage(FILE *out)
{
  fputs("Usage: jitflush-info", out);
  for (int k = 0; k < INFO_OPTION_COUNT; k++) {
    if (k != INFO_OPT_help && k != INFO_OPT_version) {
      fprintf(out, " [%s%s]", options[k].name, options[k].arg ? options[k].arg : "");
    }
  }
  fprintf(out, "\n       jitflush-info %s | %s\n", options[INFO_OPT_help].name,
          options[INFO_OPT_version].name);
  fputs("\n"
        "Shows what jitflush knows about every possible CPU of this machine: MIDR and\n"
        "core name, CTR_EL0 and its line sizes, IDC/DIC, the sysfs L1 line sizes, and\n"
        "where each number came from; then the system-wide safe values and a verdict\n"
        "(homogeneous, heterogeneous with the flush strategies that are unsafe here, or\n"
        "incomplete with the CPUs that could not be seen).\n"
        "\n",
        out);
  for (int k = 0; k < INFO_OPTION_COUNT; k++) {
    char head[64];
    if (options[k].short_name) {
      snprintf(head, sizeof head, "  -%c, %s%s", options[k].short_name, options[k].name,
               options[k].arg ? options[k].arg : "");
    } else {
      snprintf(head, sizeof head, "  %s%s", options[k].name, options[k].arg ? options[k].arg : "");
    }
    print_entry(out, head, options[k].help, 23);
  }
  fputs("\n"
        "Source tags in the table: c = read on that CPU (CTR_EL0, MIDR_EL1),\n"
        "s = sysfs, t = jitflush's MIDR table, f = the conservative floor, - = not known.\n"
        "\n"
        "Exit status:\n",
        out);
#define INFO_OPTION(id, name, alias, short_name, arg, help)
#define INFO_EXIT(name, status, help) print_entry(out, "  " #status, help, 7);
#include "info_cli.def"
#undef INFO_OPTION
#undef INFO_EXIT
}

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
  if (value <= 0 || value > INFO_SELFTEST_MAX_SECONDS) {
    return false;
  }
  *out = value;
  return true;
}

bool info_parse_args(int argc, char *const argv[], struct info_args *out, char *error,
                     size_t error_size)
{
  memset(out, 0, sizeof *out);
  out->action = INFO_ACTION_REPORT;
  out->color = INFO_COLOR_AUTO;
  out->selftest_seconds = INFO_SELFTEST_DEFAULT_SECONDS;
  if (error_size > 0) {
    error[0] = '\0';
  }

  for (int i = 1; i < argc; i++) {
    const char *arg = argv[i];
    /* The row ARG names: LONG or ALIAS, with "=VALUE" when the row takes
     * one; or SHORT alone. VALUE is what follows the '='. */
    const char *value = NULL;
    int k = 0;
    for (; k < INFO_OPTION_COUNT; k++) {
      const struct option_row *r = &options[k];
      if (r->short_name && arg[0] == '-' && arg[1] == r->short_name && !arg[2]) {
        break;
      }
      const char *names[] = {r->name, r->alias};
      bool found = false;
      for (int n = 0; n < 2 && !found && names[n]; n++) {
        size_t len = strlen(names[n]);
        if (strncmp(arg, names[n], len) != 0) {
          continue;
        }
        if (arg[len] == '\0' && (!r->arg || r->arg[0] == '[')) {
          found = true;
        } else if (arg[len] == '=' && r->arg) {
          found = true;
          value = arg + len + 1;
        }
      }
      if (found) {
        break;
      }
    }
    switch ((enum info_option_id)k) {
    case INFO_OPT_help:
      out->action = INFO_ACTION_HELP;
      break;
    case INFO_OPT_version:
      /* --help wins over --version when both are given, as in GNU tools. */
      if (out->action != INFO_ACTION_HELP) {
        out->action = INFO_ACTION_VERSION;
      }
      break;
    case INFO_OPT_json:
      out->json = true;
      break;
    case INFO_OPT_selftest:
      if (value && !parse_seconds(value, &out->selftest_seconds)) {
        set_error(error, error_size,
                  "invalid value in '%s': SECONDS must be a number above 0 and at most 3600", arg);
        return false;
      }
      out->selftest = true;
      break;
    case INFO_OPT_color:
      if (strcmp(value, "auto") == 0) {
        out->color = INFO_COLOR_AUTO;
      } else if (strcmp(value, "always") == 0) {
        out->color = INFO_COLOR_ALWAYS;
      } else if (strcmp(value, "never") == 0) {
        out->color = INFO_COLOR_NEVER;
      } else {
        set_error(error, error_size, "invalid value in '%s': expected auto, always or never", arg);
        return false;
      }
      break;
    case INFO_OPTION_COUNT:
      if (arg[0] == '-' && arg[1] != '\0') {
        set_error(error, error_size, "unknown option '%s'", arg);
      } else {
        set_error(error, error_size, "unexpected argument '%s'", arg);
      }
      return false;
    }
  }
  return true;
}
