/*
 * Writes jitflush-emu's manual page: a hand-written template
 * (docs/jitflush-emu.1.in) whose @OPTIONS@, @SUITES@, @ENVIRONMENT@ and
 * @EXIT_STATUS@ lines become the rows of runner_options.def and
 * runner_exit_statuses.def, the tables --help is expanded from
 * (runner_args.c). The page then lists exactly the options, variables and
 * statuses the runner has; the build runs this for every build of the rig.
 *
 *   jitflush-emu-man TEMPLATE OUTPUT
 *
 * Exit status: 0 written, 1 a file cannot be read or written, or the
 * template lacks a placeholder, 2 usage.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <glib.h>

#include "runner_paths.h" /* the default config's name, in --config's text */
#include "runner_args.h"

enum man_kind { MAN_VALUE, MAN_FLAG, MAN_HIDDEN, MAN_HELP, MAN_MODE, MAN_SUITE, MAN_ENV };

static const struct man_row {
  enum man_kind kind;
  const char *name;
  char short_name;
  const char *arg;
  const char *env;
  const char *help;
} rows[] = {
#define RUNNER_OPTION(kind, id, name, short_name, arg, env, help)                                  \
  {MAN_##kind, name, short_name, arg, env, help},
#include "runner_options.def"
#undef RUNNER_OPTION
};

static const struct man_exit {
  const char *label; /* "86", or the label of a RUNNER_EXIT_OTHER row */
  const char *help;
} exits[] = {
#define RUNNER_EXIT(name, status, help) {#status, help},
#define RUNNER_EXIT_OTHER(label, doc_label, help) {label, help},
#include "runner_exit_statuses.def"
#undef RUNNER_EXIT
#undef RUNNER_EXIT_OTHER
};

/* TEXT as roff text: the --help line breaks become spaces (roff fills),
 * '-' and '\' are escaped, and a line never starts with a control
 * character. */
static void append_text(GString *s, const char *text)
{
  g_string_append(s, text[0] == '.' || text[0] == '\'' ? "\\&" : "");
  for (const char *p = text; *p; p++) {
    if (*p == '\n') {
      g_string_append_c(s, ' ');
    } else if (*p == '-') {
      g_string_append(s, "\\-");
    } else if (*p == '\\') {
      g_string_append(s, "\\e");
    } else {
      g_string_append_c(s, *p);
    }
  }
}

/* ".TP" with the option (bold) and its argument (italic) as the tag. */
static void append_option(GString *s, const struct man_row *r)
{
  g_string_append(s, ".TP\n\\fB");
  if (r->short_name) {
    g_string_append_printf(s, "\\-%c\\fR, \\fB", r->short_name);
  }
  append_text(s, r->name);
  g_string_append(s, "\\fR");
  if (r->arg) {
    g_string_append(s, " \\fI");
    append_text(s, r->arg);
    g_string_append(s, "\\fR");
  }
  g_string_append_c(s, '\n');
  append_text(s, r->help);
  g_string_append(s, ".\n");
}

static char *options_of(bool suites)
{
  GString *s = g_string_new(NULL);
  for (size_t k = 0; k < G_N_ELEMENTS(rows); k++) {
    enum man_kind kind = rows[k].kind;
    /* --help's rows: every option but the suites' commands and the
     * variables, which have sections of their own. */
    bool listed = suites ? kind == MAN_SUITE : kind != MAN_SUITE && kind != MAN_ENV;
    if (listed) {
      append_option(s, &rows[k]);
    }
  }
  return g_string_free(s, FALSE);
}

static char *environment(void)
{
  GString *s = g_string_new(NULL);
  for (size_t k = 0; k < G_N_ELEMENTS(rows); k++) {
    const struct man_row *r = &rows[k];
    if (!r->env) {
      continue;
    }
    g_string_append_printf(s, ".TP\n.B %s\n", r->env);
    if (r->kind == MAN_ENV) {
      append_text(s, r->help);
      g_string_append(s, ".\n");
    } else if (r->kind == MAN_FLAG) {
      g_string_append(s, "1 gives \\fB");
      append_text(s, r->name);
      g_string_append(s, "\\fR when the command line does not.\n");
    } else {
      g_string_append(s, "Stands for \\fB");
      append_text(s, r->name);
      g_string_append(s, "\\fR when the command line does not give it.\n");
    }
  }
  return g_string_free(s, FALSE);
}

static char *exit_statuses(void)
{
  GString *s = g_string_new(NULL);
  for (size_t k = 0; k < G_N_ELEMENTS(exits); k++) {
    bool number = g_ascii_isdigit(exits[k].label[0]) && !strchr(exits[k].label, '+');
    g_string_append_printf(s, ".TP\n.%s ", number ? "B" : "I");
    append_text(s, exits[k].label);
    g_string_append_c(s, '\n');
    append_text(s, exits[k].help);
    g_string_append(s, ".\n");
  }
  return g_string_free(s, FALSE);
}

int main(int argc, char **argv)
{
  if (argc != 3) {
    fprintf(stderr, "usage: jitflush-emu-man TEMPLATE OUTPUT\n");
    return 2;
  }
  char *template = NULL;
  GError *err = NULL;
  if (!g_file_get_contents(argv[1], &template, NULL, &err)) {
    fprintf(stderr, "jitflush-emu-man: %s\n", err->message);
    return 1;
  }
  struct {
    const char *line;
    char *text;
  } parts[] = {{"@OPTIONS@\n", options_of(false)},
               {"@SUITES@\n", options_of(true)},
               {"@ENVIRONMENT@\n", environment()},
               {"@EXIT_STATUS@\n", exit_statuses()}};
  GString *page = g_string_new(template);
  int status = 0;
  for (size_t i = 0; i < G_N_ELEMENTS(parts); i++) {
    if (g_string_replace(page, parts[i].line, parts[i].text, 1) != 1) {
      fprintf(stderr, "jitflush-emu-man: %s has no line %.*s\n", argv[1],
              (int)strlen(parts[i].line) - 1, parts[i].line);
      status = 1;
    }
    g_free(parts[i].text);
  }
  if (status == 0 && !g_file_set_contents(argv[2], page->str, (gssize)page->len, &err)) {
    fprintf(stderr, "jitflush-emu-man: %s\n", err->message);
    status = 1;
  }
  g_string_free(page, TRUE);
  g_free(template);
  return status;
}
