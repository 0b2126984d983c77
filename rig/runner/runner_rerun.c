/*
 * jitflush-emu --reproduce REPORT (runner_rerun.h, docs/FINDINGS.md
 * "Reruns"): the run REPORT records, run again as it was, and checked.
 *
 * The options are the report's "reproduce" command (every default written
 * out, so none comes from today's environment or defaults), the working
 * folder its "recorded" object names, and the environment REPORT.env keeps
 * (runner_reproduce.c). A rerun that cannot restore one of them says so
 * before it starts.
 *
 * Why the check: a rerun that quietly finds nothing reads as a clean run.
 * A Python guest rerun without its PYTHONPATH failed to import, found
 * nothing, and ended with stale_fetches=0, as if the bug were gone. So a
 * rerun compares its findings with the run's, root cause by root cause
 * (rig_merge_key, the merge's own notion of one root cause), and ends with
 * its own status and no summary line when they differ.
 */
#define _GNU_SOURCE
#include "runner_rerun.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <glib.h>
#include <json-glib/json-glib.h>

#include "rig_release.h"
#include "rig_merge_key.h"
#include "runner_exit_statuses.h"
#include "runner_args.h"
#include "runner_fail.h"
#include "runner_reproduce.h"

struct runner_rerun {
  char *report;          /* the recorded run's report, absolute */
  JsonParser *parser;    /* holds it */
  char **recorded;       /* its reproduce command, split into words */
  GPtrArray *added;      /* the options the rerun adds ("--opt", "value") */
  GPtrArray *argv;       /* the command line to parse, NULL-terminated,
                            pointing into RECORDED and ADDED */
  char **env;            /* the recorded environment, or NULL */
  GPtrArray *unrestored; /* phrases: what cannot be restored */
  char *unrestored_text; /* joined with "; ", or NULL */
};

/* The options a rerun may add: where its own outputs go and where QEMU is.
 * The rest is the recorded run's. */
static const char *const added_options[] = {"--report", "--sarif", "--sarif-root", "--summary",
                                            "--qemu"};

bool runner_rerun_requested(int argc, char **argv)
{
  for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++) {
    if (strcmp(argv[i], "--reproduce") == 0 || g_str_has_prefix(argv[i], "--reproduce=")) {
      return true;
    }
  }
  return false;
}

void runner_rerun_free(struct runner_rerun *r)
{
  if (!r) {
    return;
  }
  g_clear_object(&r->parser);
  RIG_RELEASE(g_strfreev, char *, r->recorded, r->env);
  /* The argv points into ADDED: it goes first. */
  RIG_RELEASE(g_ptr_array_unref, GPtrArray, r->argv, r->added, r->unrestored);
  RIG_RELEASE(g_free, void, r->unrestored_text, r->report, r);
}

/* The value of option NAME at ARGV[*I] ("NAME=V" or "NAME V"), or NULL
 * when ARGV[*I] is not NAME. *MISSING when it is but has no value. */
static const char *option_value(int argc, char **argv, int *i, const char *name, bool *missing)
{
  size_t len = strlen(name);
  const char *arg = argv[*i];
  if (strncmp(arg, name, len) != 0 || (arg[len] != '\0' && arg[len] != '=')) {
    return NULL;
  }
  const char *value = arg[len] == '='                                        ? arg + len + 1
                      : *i + 1 < argc && strncmp(argv[*i + 1], "--", 2) != 0 ? argv[++*i]
                                                                             : "";
  *missing = !*value;
  return value;
}

/* A path the rerun's command line gives, made absolute before the rerun
 * moves to the recorded folder; --qemu's bare name stays a name for the
 * PATH search unless it is a file here (runner_checks.c, runner_check_find_qemu). */
static char *added_value(const char *name, const char *value)
{
  bool path =
      strcmp(name, "--summary") != 0 && (strcmp(name, "--qemu") != 0 || strchr(value, '/') ||
                                         g_file_test(value, G_FILE_TEST_IS_REGULAR));
  return path ? runner_args_absolute(value) : g_strdup(value);
}

/* Reads the rerun's own command line: REPORT and the options it adds
 * (as "--opt", "value" pairs into ADDED). */
static int read_command_line(int argc, char **argv, char **report, GPtrArray *added)
{
  for (int i = 1; i < argc; i++) {
    bool missing = false;
    const char *value = option_value(argc, argv, &i, "--reproduce", &missing);
    if (value) {
      if (missing) {
        return runner_args_usage_error("--reproduce needs a value: the JSON report of the run");
      }
      if (*report) {
        return runner_args_usage_error("--reproduce given twice");
      }
      *report = runner_args_absolute(value);
      continue;
    }
    const char *arg = argv[i];
    if (strcmp(arg, "--no-record-env") == 0 || strcmp(arg, "-h") == 0 ||
        strcmp(arg, "--help") == 0) {
      g_ptr_array_add(added, g_strdup(arg));
      continue;
    }
    if (strcmp(arg, "--") == 0) {
      return runner_args_usage_error("--reproduce runs the recorded program: give no '--' and no "
                                     "program");
    }
    bool known = false;
    for (size_t k = 0; k < G_N_ELEMENTS(added_options) && !known; k++) {
      value = option_value(argc, argv, &i, added_options[k], &missing);
      if (value && missing) {
        return runner_args_usage_error("%s needs a value", added_options[k]);
      }
      if (value) {
        known = true;
        g_ptr_array_add(added, g_strdup(added_options[k]));
        g_ptr_array_add(added, added_value(added_options[k], value));
      }
    }
    if (!known) {
      return runner_args_usage_error(
          "--reproduce: '%s' is not for a rerun to change: it runs with the recorded run's "
          "options, and may add only --report, --sarif, --sarif-root, --summary, --qemu and "
          "--no-record-env",
          arg);
    }
  }
  return 0;
}

/* The report's root object, or a usage error. */
static int load_report(struct runner_rerun *r, JsonObject **run)
{
  GError *err = NULL;
  r->parser = json_parser_new();
  if (!json_parser_load_from_file(r->parser, r->report, &err)) {
    int status = runner_fail(RUNNER_EXIT_USAGE, "--reproduce: cannot read the report %s: %s",
                             r->report, err->message);
    g_error_free(err);
    return status;
  }
  JsonNode *root = json_parser_get_root(r->parser);
  const char *command = NULL;
  if (root && JSON_NODE_HOLDS_OBJECT(root)) {
    *run = json_node_get_object(root);
    command = json_object_get_string_member_with_default(*run, "reproduce", NULL);
  }
  if (!command) {
    return runner_fail(RUNNER_EXIT_USAGE,
                       "--reproduce: %s records no run (no \"reproduce\" command: give the "
                       "--report FILE of one jitflush-emu run)",
                       r->report);
  }
  if (!g_shell_parse_argv(command, NULL, &r->recorded, &err)) {
    int status = runner_fail(RUNNER_EXIT_USAGE,
                             "--reproduce: %s: its \"reproduce\" command cannot be read: %s",
                             r->report, err->message);
    g_error_free(err);
    return status;
  }
  return 0;
}

/* The command line to parse: this runner, the recorded options, the
 * added ones, then the recorded "-- PROGRAM ARGS...". */
static int build_argv(struct runner_rerun *r, const char *self)
{
  char **w = r->recorded;
  guint dash = 0;
  while (w[dash] && strcmp(w[dash], "--") != 0) {
    dash++;
  }
  if (strcmp(w[0], "jitflush-emu") != 0 || !w[dash] || !w[dash + 1]) {
    return runner_fail(RUNNER_EXIT_USAGE,
                       "--reproduce: %s: its \"reproduce\" command is not a jitflush-emu command "
                       "line with '-- PROGRAM'",
                       r->report);
  }
  r->argv = g_ptr_array_new();
  g_ptr_array_add(r->argv, (char *)self);
  for (guint i = 1; i < dash; i++) {
    g_ptr_array_add(r->argv, w[i]);
  }
  for (guint i = 0; i < r->added->len; i++) {
    g_ptr_array_add(r->argv, r->added->pdata[i]);
  }
  for (guint i = dash; w[i]; i++) {
    g_ptr_array_add(r->argv, w[i]);
  }
  g_ptr_array_add(r->argv, NULL);
  return 0;
}

/* The working folder and the environment the report records, restored
 * where they can be; each one that cannot is added to R->unrestored. */
static void restore_inputs(struct runner_rerun *r, JsonObject *run)
{
  JsonNode *node = json_object_get_member(run, "recorded");
  if (!node || !JSON_NODE_HOLDS_OBJECT(node)) {
    g_ptr_array_add(r->unrestored, g_strdup("the working folder and the environment (the report "
                                            "does not record them)"));
    return;
  }
  JsonObject *recorded = json_node_get_object(node);
  const char *cwd = json_object_get_string_member_with_default(recorded, "cwd", NULL);
  if (!cwd) {
    g_ptr_array_add(r->unrestored, g_strdup("the working folder (the report does not record it)"));
  } else if (chdir(cwd) != 0) {
    g_ptr_array_add(r->unrestored,
                    g_strdup_printf("the working folder %s (%s)", cwd, g_strerror(errno)));
  }
  /* The host name cannot be restored without privileges (a UTS
   * namespace); a guest that reads it (BEAM names its node after it) may
   * run otherwise, so a rerun on another host says so. */
  const char *host = json_object_get_string_member_with_default(recorded, "host", NULL);
  struct utsname uts;
  if (host && *host && uname(&uts) == 0 && strcmp(host, uts.nodename) != 0) {
    g_ptr_array_add(r->unrestored,
                    g_strdup_printf("the host name %s (this host is %s)", host, uts.nodename));
  }
  JsonNode *env = json_object_get_member(recorded, "environment");
  const char *why = json_object_get_string_member_with_default(recorded, "unrecorded", NULL);
  if (!env || json_node_get_node_type(env) != JSON_NODE_VALUE || !json_node_get_boolean(env)) {
    g_ptr_array_add(r->unrestored,
                    g_strdup(why ? why : "the environment (the report does not record it)"));
    return;
  }
  char *path = runner_reproduce_env_path(r->report);
  GError *err = NULL;
  r->env = runner_reproduce_env_read(path, &err);
  if (!r->env) {
    g_ptr_array_add(r->unrestored, g_strdup_printf("the environment (%s)", err->message));
    g_error_free(err);
  }
  g_free(path);
}

int runner_rerun_prepare(int argc, char **argv, struct runner_rerun **rerun)
{
  struct runner_rerun *r = g_new0(struct runner_rerun, 1);
  r->unrestored = g_ptr_array_new_with_free_func(g_free);
  r->added = g_ptr_array_new_with_free_func(g_free);
  JsonObject *run = NULL;
  int status = read_command_line(argc, argv, &r->report, r->added);
  if (status == 0 && !r->report) {
    status = runner_args_usage_error("--reproduce needs a value: the JSON report of the run");
  }
  if (status == 0) {
    status = load_report(r, &run);
  }
  if (status == 0) {
    status = build_argv(r, argv[0]);
  }
  if (status != 0) {
    runner_rerun_free(r);
    return status;
  }
  restore_inputs(r, run);
  for (guint i = 0; i < r->unrestored->len; i++) {
    fprintf(stderr,
            "jitflush-emu: --reproduce: cannot restore %s: the rerun uses the current one, and "
            "its findings may differ\n",
            (const char *)r->unrestored->pdata[i]);
  }
  if (r->unrestored->len) {
    g_ptr_array_add(r->unrestored, NULL);
    r->unrestored_text = g_strjoinv("; ", (char **)r->unrestored->pdata);
    g_ptr_array_set_size(r->unrestored, r->unrestored->len - 1);
  }
  *rerun = r;
  return 0;
}

char **runner_rerun_argv(const struct runner_rerun *r, int *argc)
{
  *argc = (int)r->argv->len - 1;
  return (char **)r->argv->pdata;
}

char *const *runner_rerun_env(const struct runner_rerun *r)
{
  return r->env;
}

const char *runner_rerun_report(const struct runner_rerun *r)
{
  return r->report;
}

const char *runner_rerun_unrestored(const struct runner_rerun *r)
{
  return r->unrestored_text;
}

/* ---- the check ---------------------------------------------------------------- */

/* One root cause of the run or the rerun: its stale fetches in each (the
 * findings of one cause in several processes summed), and a finding of it
 * to describe it by. */
struct cause {
  JsonObject *finding;
  gint64 in_run, in_rerun;
  bool seen_in_run, seen_in_rerun;
  guint order; /* the run's findings first, then the rerun's new ones */
};

/* A frame of FINDING's MEMBER (or of its flush's caller), by symbol or
 * address; NULL when there is none. */
static const char *frame_name(JsonObject *parent, const char *member)
{
  JsonNode *node = parent ? json_object_get_member(parent, member) : NULL;
  if (!node || !JSON_NODE_HOLDS_OBJECT(node)) {
    return NULL;
  }
  JsonObject *frame = json_node_get_object(node);
  const char *symbol = json_object_get_string_member_with_default(frame, "symbol", NULL);
  return symbol ? symbol : json_object_get_string_member_with_default(frame, "pc", "?");
}

/* "KIND (flush F, called from C)" or "KIND (written by W)". */
static char *describe(JsonObject *finding)
{
  GString *d = g_string_new(json_object_get_string_member_with_default(finding, "kind", "?"));
  const char *flush = frame_name(finding, "flush");
  if (flush) {
    JsonObject *f = json_node_get_object(json_object_get_member(finding, "flush"));
    const char *caller = frame_name(f, "caller");
    g_string_append_printf(d, " (flush %s%s%s)", flush, caller ? ", called from " : "",
                           caller ? caller : "");
  } else if (frame_name(finding, "writer")) {
    g_string_append_printf(d, " (written by %s)", frame_name(finding, "writer"));
  }
  return g_string_free(d, FALSE);
}

/* Adds the findings of REPORT to CAUSES; RERUN says whose they are. */
static void add_causes(GHashTable *causes, JsonObject *report, bool rerun)
{
  JsonNode *node = json_object_get_member(report, "findings");
  JsonArray *findings =
      node && json_node_get_node_type(node) == JSON_NODE_ARRAY ? json_node_get_array(node) : NULL;
  for (guint i = 0; findings && i < json_array_get_length(findings); i++) {
    JsonObject *f = json_array_get_object_element(findings, i);
    char *key = rig_merge_key(f);
    struct cause *c = g_hash_table_lookup(causes, key);
    if (!c) {
      c = g_new0(struct cause, 1);
      c->finding = f;
      c->order = g_hash_table_size(causes);
      g_hash_table_insert(causes, key, c);
    } else {
      g_free(key);
    }
    gint64 count = json_object_get_int_member_with_default(f, "count", 0);
    if (rerun) {
      c->in_rerun += count;
      c->seen_in_rerun = true;
    } else {
      c->in_run += count;
      c->seen_in_run = true;
    }
  }
}

/* Whether REPORT's schedule gives the same counts again; why not in *WHY. */
static bool reproducible(JsonObject *report, const char **why)
{
  JsonNode *node = json_object_get_member(report, "schedule");
  if (!node || !JSON_NODE_HOLDS_OBJECT(node)) {
    return true;
  }
  JsonObject *schedule = json_node_get_object(node);
  JsonNode *flag = json_object_get_member(schedule, "reproducible");
  if (!flag || json_node_get_node_type(flag) != JSON_NODE_VALUE || json_node_get_boolean(flag)) {
    return true;
  }
  *why = json_object_get_string_member_with_default(schedule, "given_up", NULL);
  if (!*why) {
    *why = strcmp(json_object_get_string_member_with_default(schedule, "mode", ""), "parallel") == 0
               ? "--schedule parallel"
               : "its schedule is not reproducible";
  }
  return false;
}

static gint by_order(gconstpointer a, gconstpointer b)
{
  const struct cause *x = *(struct cause *const *)a, *y = *(struct cause *const *)b;
  return x->order < y->order ? -1 : x->order > y->order;
}

/* The differences between the run and the rerun, one line each, into
 * OUT; returns how many, and counts each sort. */
static unsigned differences(GPtrArray *list, bool counts, GString *out, unsigned sorts[3])
{
  unsigned n = 0;
  for (guint i = 0; i < list->len; i++) {
    const struct cause *c = list->pdata[i];
    const char *label = NULL;
    unsigned sort = 0;
    if (!c->seen_in_rerun) {
      label = "missing";
    } else if (!c->seen_in_run) {
      label = "new    ";
      sort = 1;
    } else if (counts && c->in_run != c->in_rerun) {
      label = "count  ";
      sort = 2;
    }
    if (!label) {
      continue;
    }
    char *what = describe(c->finding);
    g_string_append_printf(out, "    %s %s: ", label, what);
    if (c->seen_in_run) {
      g_string_append_printf(out, "%" G_GINT64_FORMAT " stale fetches in the run, ", c->in_run);
    } else {
      g_string_append(out, "none in the run, ");
    }
    if (c->seen_in_rerun) {
      g_string_append_printf(out, "%" G_GINT64_FORMAT " in the rerun\n", c->in_rerun);
    } else {
      g_string_append(out, "none in the rerun\n");
    }
    g_free(what);
    sorts[sort]++;
    n++;
  }
  return n;
}

/* The program's exit status in REPORT ("exit_status"), or -1 when it did
 * not exit by itself there (a timeout, a signal) or the report predates it. */
static gint64 exit_status_of(JsonObject *report)
{
  JsonNode *node = json_object_get_member(report, "exit_status");
  if (!node || json_node_get_node_type(node) != JSON_NODE_VALUE ||
      json_node_get_value_type(node) != G_TYPE_INT64) {
    return -1;
  }
  return json_node_get_int(node);
}

/* A line into OUT when the program ended otherwise in the rerun than in
 * the run (a rerun that fails early finds nothing and exits otherwise). */
static bool exit_differs(JsonObject *run, JsonObject *rerun, GString *out)
{
  gint64 was = exit_status_of(run), is = exit_status_of(rerun);
  if (was < 0 || was == is) {
    return false;
  }
  g_string_append_printf(
      out, "    exit    the program exited with status %" G_GINT64_FORMAT " in the run, ", was);
  if (is < 0) {
    g_string_append(out, "and did not exit by itself in the rerun\n");
  } else {
    g_string_append_printf(out, "with status %" G_GINT64_FORMAT " in the rerun\n", is);
  }
  return true;
}

int runner_rerun_check(const struct runner_rerun *r, const char *report,
                       const struct rig_summary *sum, bool quiet)
{
  JsonParser *parser = json_parser_new();
  GError *err = NULL;
  JsonNode *root = NULL;
  if (!json_parser_load_from_file(parser, report, &err) || !(root = json_parser_get_root(parser)) ||
      !JSON_NODE_HOLDS_OBJECT(root)) {
    int status =
        runner_fail(RUNNER_EXIT_INTERNAL, "--reproduce: cannot read the rerun's report %s: %s",
                    report, err ? err->message : "not a JSON object");
    g_clear_error(&err);
    g_object_unref(parser);
    return status;
  }
  JsonObject *run = json_node_get_object(json_parser_get_root(r->parser));
  JsonObject *rerun = json_node_get_object(root);
  GHashTable *causes = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
  add_causes(causes, run, false);
  add_causes(causes, rerun, true);
  GPtrArray *list = g_ptr_array_new();
  GList *values = g_hash_table_get_values(causes);
  for (GList *v = values; v; v = v->next) {
    g_ptr_array_add(list, v->data);
  }
  g_list_free(values);
  g_ptr_array_sort(list, by_order);
  unsigned in_run = 0, in_rerun = 0;
  for (guint i = 0; i < list->len; i++) {
    const struct cause *c = list->pdata[i];
    in_run += c->seen_in_run;
    in_rerun += c->seen_in_rerun;
  }
  /* Counts are compared only where a seed gives the same run again. */
  const char *why = NULL;
  bool counts = reproducible(run, &why) && reproducible(rerun, &why);
  GString *lines = g_string_new(NULL);
  unsigned sorts[3] = {0, 0, 0};
  unsigned n = differences(list, counts, lines, sorts);
  bool exited_otherwise = exit_differs(run, rerun, lines);
  n += exited_otherwise;
  const char *unrestored = r->unrestored_text;
  int status = 0;
  if (n == 0 && !(quiet && in_run == 0)) {
    GString *same = g_string_new(NULL);
    if (in_run == 0) {
      g_string_append(same, "no finding, as in the run");
    } else {
      g_string_append_printf(same, "the same %u finding%s", in_run, in_run == 1 ? "" : "s");
      g_string_append_printf(
          same, counts ? " with the same stale fetches" : " (stale fetches not compared: %s)", why);
    }
    if (unrestored) {
      g_string_append_printf(same, "; not restored: %s", unrestored);
    }
    fprintf(stderr, "==jitflush-emu== RERUN of %s: %s\n", r->report, same->str);
    g_string_free(same, TRUE);
  } else if (n > 0) {
    fprintf(stderr,
            "==jitflush-emu== RERUN DIFFERS from the run recorded in %s: %u finding%s there, "
            "%u in this rerun\n%s",
            r->report, in_run, in_run == 1 ? "" : "s", in_rerun, lines->str);
    if (unrestored) {
      fprintf(stderr, "    not restored: %s\n", unrestored);
    }
    if (!counts) {
      fprintf(stderr, "    stale fetches not compared: %s\n", why);
    }
    GString *line = g_string_new(NULL);
    rig_summary_format(line, sum, RIG_SHOWN_STDERR);
    fprintf(stderr, "    rerun's counts: %s\n", line->str);
    g_string_free(line, TRUE);
    status = runner_fail(RUNNER_EXIT_RERUN,
                         "the rerun did not reproduce the run recorded in %s: %u finding%s "
                         "missing, %u new, %u with other stale fetches%s",
                         r->report, sorts[0], sorts[0] == 1 ? "" : "s", sorts[1], sorts[2],
                         exited_otherwise ? ", the program's exit status differs" : "");
  }
  g_string_free(lines, TRUE);
  g_ptr_array_unref(list);
  g_hash_table_destroy(causes);
  g_object_unref(parser);
  return status;
}
