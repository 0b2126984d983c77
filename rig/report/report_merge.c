/*
 * jitflush-emu --merge: one report for a whole test suite (docs/RIG.md,
 * "One report per suite").
 *
 *   jitflush-emu --merge [--report FILE.json] [--sarif FILE.sarif] DIR...
 *
 * Every rig process of a suite run with --store DIR (JITFLUSH_EMU_STORE)
 * leaves one entry in DIR (runner_store.c): its record, its JSON report
 * and its SARIF log. This program reads the entries of every DIR given
 * (the stores of several CI jobs, a matrix of SoCs and seeds, merge the
 * same way), counts the findings of one root cause (rig_merge_key.c) together
 * whichever process found them, lists the processes that hit each, and
 * writes one JSON report and one SARIF log.
 *
 * Exit status: 0 no finding, 86 at least one, 2 usage, 4 an output file
 * cannot be written, 5 a store entry cannot be read. It prints one line
 * per finding and a last line with the totals on stdout.
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>
#include <json-glib/json-glib.h>

#include "rig_merge_key.h"
#include "rig_sarif_log.h"

enum {
  MERGE_EXIT_USAGE = 2,
  MERGE_EXIT_OUTPUT = 4,
  MERGE_EXIT_STORE = 5,
  MERGE_EXIT_FINDINGS = 86, /* as the runner's stale status */
};

/* The hits of one root cause, summed over every process. */
struct merged {
  JsonObject *first;   /* the finding as its first process reported it */
  JsonNode *sarif;     /* that process's SARIF result for it, or NULL */
  gint64 count, words; /* summed */
  JsonArray *hits;     /* {"run", "test", "command", "count"} per process */
  guint order;         /* first seen: ties keep it */
};

struct merge {
  JsonArray *runs;        /* one object per completed entry */
  GPtrArray *incomplete;  /* entries without a record: killed processes */
  GHashTable *by_key;     /* root-cause key -> struct merged */
  GPtrArray *found;       /* the struct merged, in first-seen order */
  JsonObject *sarif_tool; /* the first SARIF log's "tool" */
  gint64 stale, omitted;
  guint runs_stale;
};

static int fail(int status, const char *fmt, ...) G_GNUC_PRINTF(2, 3);
static int fail(int status, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  fputs("jitflush-emu --merge: ", stderr);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  return status;
}

static const char usage_text[] =
    "usage: jitflush-emu --merge [--report FILE.json] [--sarif FILE.sarif] DIR...\n";

static void merged_free(gpointer p)
{
  struct merged *m = p;
  json_object_unref(m->first);
  if (m->sarif) {
    json_node_unref(m->sarif);
  }
  json_array_unref(m->hits);
  g_free(m);
}

static JsonNode *load_json(const char *path, GError **error)
{
  JsonParser *parser = json_parser_new();
  JsonNode *root = NULL;
  if (json_parser_load_from_file(parser, path, error)) {
    root = json_parser_steal_root(parser);
    if (!root || !JSON_NODE_HOLDS_OBJECT(root)) {
      g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_INVAL, "%s: not a JSON object", path);
      if (root) {
        json_node_unref(root);
      }
      root = NULL;
    }
  } else {
    g_prefix_error(error, "%s: ", path);
  }
  g_object_unref(parser);
  return root;
}

/* The program and its arguments as one line for a POSIX shell, words
 * quoted only when they need it. */
static char *command_line(JsonObject *record)
{
  JsonArray *argv = json_object_get_array_member(record, "argv");
  GString *cmd = g_string_new(NULL);
  for (guint i = 0; argv && i < json_array_get_length(argv); i++) {
    const char *word = json_array_get_string_element(argv, i);
    bool plain = word && *word;
    for (const char *p = word; plain && *p; p++) {
      plain = g_ascii_isalnum(*p) || strchr("_./:=@%+,-", *p);
    }
    char *q = plain ? g_strdup(word) : g_shell_quote(word ? word : "");
    g_string_append_printf(cmd, "%s%s", i ? " " : "", q);
    g_free(q);
  }
  return g_string_free(cmd, FALSE);
}

/* The SARIF results of a log's first run, or NULL; the first log's tool
 * becomes the merged log's. */
static JsonArray *sarif_results(JsonObject *log, struct merge *mg)
{
  JsonObject *run;
  JsonArray *results = rig_sarif_results(log, &run);
  if (run && !mg->sarif_tool && json_object_has_member(run, "tool")) {
    mg->sarif_tool = json_object_ref(json_object_get_object_member(run, "tool"));
  }
  return results;
}

/* Adds the findings of one process's REPORT (run number RUN) to the
 * merge; SARIF holds its log's results, one per finding in the same order
 * (docs/FINDINGS.md#sarif), or is NULL. */
static guint add_findings(struct merge *mg, JsonObject *report, JsonArray *sarif, guint run,
                          JsonObject *run_obj)
{
  JsonArray *findings = json_object_has_member(report, "findings")
                            ? json_object_get_array_member(report, "findings")
                            : NULL;
  guint n = findings ? json_array_get_length(findings) : 0;
  for (guint i = 0; i < n; i++) {
    JsonObject *f = json_array_get_object_element(findings, i);
    char *key = rig_merge_key(f);
    struct merged *m = g_hash_table_lookup(mg->by_key, key);
    if (!m) {
      m = g_new0(struct merged, 1);
      m->first = json_object_ref(f);
      m->hits = json_array_new();
      m->order = mg->found->len;
      if (sarif && i < json_array_get_length(sarif)) {
        m->sarif = json_node_copy(json_array_get_element(sarif, i));
      }
      g_hash_table_insert(mg->by_key, key, m);
      g_ptr_array_add(mg->found, m);
    } else {
      g_free(key);
    }
    gint64 count = json_object_get_int_member_with_default(f, "count", 0);
    m->count += count;
    m->words += json_object_get_int_member_with_default(f, "words", 0);
    JsonObject *hit = json_object_new();
    json_object_set_int_member(hit, "run", run);
    json_object_set_member(hit, "test", json_node_copy(json_object_get_member(run_obj, "test")));
    json_object_set_string_member(hit, "command",
                                  json_object_get_string_member(run_obj, "command"));
    json_object_set_member(hit, "config",
                           json_node_copy(json_object_get_member(run_obj, "config")));
    json_object_set_member(hit, "seed", json_node_copy(json_object_get_member(run_obj, "seed")));
    json_object_set_int_member(hit, "count", count);
    json_array_add_object_element(m->hits, hit);
  }
  return n;
}

/* Copies member NAME of FROM (or null) into TO. */
static void copy_member(JsonObject *to, JsonObject *from, const char *name)
{
  JsonNode *n = from ? json_object_get_member(from, name) : NULL;
  json_object_set_member(to, name, n ? json_node_copy(n) : json_node_new(JSON_NODE_NULL));
}

/* One entry: DIR/ID.run and what it names. */
static bool add_entry(struct merge *mg, const char *dir, const char *id, GError **error)
{
  char *record_path = g_strdup_printf("%s/%s.run", dir, id);
  JsonNode *record_node = load_json(record_path, error);
  g_free(record_path);
  if (!record_node) {
    return false;
  }
  JsonObject *record = json_node_get_object(record_node);
  JsonObject *run = json_object_new();
  json_object_set_string_member(run, "store", dir);
  json_object_set_string_member(run, "id", id);
  copy_member(run, record, "test");
  char *cmd = command_line(record);
  json_object_set_string_member(run, "command", cmd);
  g_free(cmd);
  copy_member(run, record, "cwd");
  copy_member(run, record, "reproduce");
  copy_member(run, record, "status");
  copy_member(run, record, "ran");

  JsonNode *report_node = NULL, *sarif_node = NULL;
  const char *report_name = json_object_get_string_member_with_default(record, "report", NULL);
  const char *sarif_name = json_object_get_string_member_with_default(record, "sarif", NULL);
  bool ok = true;
  if (report_name) {
    char *path = g_build_filename(dir, report_name, NULL);
    ok = (report_node = load_json(path, error)) != NULL;
    g_free(path);
  }
  if (ok && sarif_name) {
    char *path = g_build_filename(dir, sarif_name, NULL);
    ok = (sarif_node = load_json(path, error)) != NULL;
    g_free(path);
  }
  JsonObject *report = report_node ? json_node_get_object(report_node) : NULL;
  for (const char *const *m = (const char *const[]){"config", "soc", "seed", "policy", NULL}; *m;
       m++) {
    copy_member(run, report ? report : record, *m);
  }
  gint64 stale = report ? json_object_get_int_member_with_default(report, "stale_fetches", 0) : 0;
  json_object_set_int_member(run, "stale_fetches", stale);
  if (ok) {
    guint index = json_array_get_length(mg->runs);
    JsonArray *results = sarif_node ? sarif_results(json_node_get_object(sarif_node), mg) : NULL;
    guint n = report ? add_findings(mg, report, results, index, run) : 0;
    json_object_set_int_member(run, "findings", n);
    mg->stale += stale;
    mg->omitted +=
        report ? json_object_get_int_member_with_default(report, "findings_omitted_stale", 0) : 0;
    mg->runs_stale += stale > 0;
    json_array_add_object_element(mg->runs, run);
  } else {
    json_object_unref(run);
  }
  if (report_node) {
    json_node_unref(report_node);
  }
  if (sarif_node) {
    json_node_unref(sarif_node);
  }
  json_node_unref(record_node);
  return ok;
}

static int compare_ids(gconstpointer a, gconstpointer b)
{
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every entry of DIR, in name order (so the output does not depend on the
 * file system's). A marker without a record is a process that never
 * finished. */
static bool add_store(struct merge *mg, const char *dir, GError **error)
{
  GDir *d = g_dir_open(dir, 0, error);
  if (!d) {
    g_prefix_error(error, "store %s: ", dir);
    return false;
  }
  GPtrArray *names = g_ptr_array_new_with_free_func(g_free);
  const char *name;
  while ((name = g_dir_read_name(d))) {
    if (g_str_has_prefix(name, "run-")) {
      g_ptr_array_add(names, g_strdup(name));
    }
  }
  g_dir_close(d);
  g_ptr_array_sort(names, compare_ids);
  bool ok = true;
  for (guint i = 0; i < names->len && ok; i++) {
    const char *n = names->pdata[i];
    if (g_str_has_suffix(n, ".run")) {
      char *id = g_strndup(n, strlen(n) - strlen(".run"));
      ok = add_entry(mg, dir, id, error);
      g_free(id);
    } else if (!strchr(n, '.')) {
      char *record = g_strdup_printf("%s/%s.run", dir, n);
      if (!g_file_test(record, G_FILE_TEST_EXISTS)) {
        g_ptr_array_add(mg->incomplete, g_strdup_printf("%s/%s", dir, n));
      }
      g_free(record);
    }
  }
  g_ptr_array_free(names, TRUE);
  return ok;
}

static int by_count(gconstpointer a, gconstpointer b)
{
  const struct merged *x = *(struct merged *const *)a, *y = *(struct merged *const *)b;
  if (x->count != y->count) {
    return x->count > y->count ? -1 : 1;
  }
  return x->order < y->order ? -1 : x->order > y->order;
}

/* The merged finding: the first process's object with the counts summed,
 * and which processes hit it. */
static JsonObject *merged_finding(const struct merged *m)
{
  JsonObject *f = json_object_new();
  GList *members = json_object_get_members(m->first);
  for (GList *l = members; l; l = l->next) {
    json_object_set_member(f, l->data, json_node_copy(json_object_get_member(m->first, l->data)));
  }
  g_list_free(members);
  json_object_set_int_member(f, "count", m->count);
  json_object_set_int_member(f, "words", m->words);
  json_object_set_int_member(f, "runs", json_array_get_length(m->hits));
  json_object_set_array_member(f, "hits", json_array_ref(m->hits));
  return f;
}

static JsonNode *suite_report(struct merge *mg, char **dirs)
{
  JsonObject *top = json_object_new();
  json_object_set_string_member(top, "format", "jitflush-emu-suite");
  json_object_set_int_member(top, "version", 1);
  JsonArray *stores = json_array_new();
  for (char **d = dirs; *d; d++) {
    json_array_add_string_element(stores, *d);
  }
  json_object_set_array_member(top, "stores", stores);
  json_object_set_int_member(top, "processes", json_array_get_length(mg->runs));
  json_object_set_int_member(top, "processes_stale", mg->runs_stale);
  json_object_set_int_member(top, "stale_fetches", mg->stale);
  json_object_set_int_member(top, "findings_omitted_stale", mg->omitted);
  JsonArray *findings = json_array_new();
  for (guint i = 0; i < mg->found->len; i++) {
    json_array_add_object_element(findings, merged_finding(mg->found->pdata[i]));
  }
  json_object_set_array_member(top, "findings", findings);
  json_object_set_array_member(top, "runs", json_array_ref(mg->runs));
  JsonArray *incomplete = json_array_new();
  for (guint i = 0; i < mg->incomplete->len; i++) {
    json_array_add_string_element(incomplete, mg->incomplete->pdata[i]);
  }
  json_object_set_array_member(top, "incomplete", incomplete);
  JsonNode *root = json_node_new(JSON_NODE_OBJECT);
  json_node_take_object(root, top);
  return root;
}

/* The SARIF log: one run, the rig's tool and rules, one result per
 * merged finding (the first process's, counts summed, the processes
 * named in its message and properties). */
static JsonNode *suite_sarif(struct merge *mg)
{
  JsonArray *results = json_array_new();
  for (guint i = 0; i < mg->found->len; i++) {
    const struct merged *m = mg->found->pdata[i];
    if (!m->sarif) {
      continue;
    }
    JsonNode *node = json_node_copy(m->sarif);
    JsonObject *r = json_node_get_object(node);
    guint runs = json_array_get_length(m->hits);
    JsonObject *hit = json_array_get_object_element(m->hits, 0);
    if (json_object_has_member(r, "message")) {
      JsonObject *msg = json_object_get_object_member(r, "message");
      char *text =
          g_strdup_printf("%s (%u process%s of the suite; first: %s)",
                          json_object_get_string_member_with_default(msg, "text", ""), runs,
                          runs == 1 ? "" : "es", json_object_get_string_member(hit, "command"));
      json_object_set_string_member(msg, "text", text);
      g_free(text);
    }
    if (!json_object_has_member(r, "properties")) {
      json_object_set_object_member(r, "properties", json_object_new());
    }
    JsonObject *props = json_object_get_object_member(r, "properties");
    json_object_set_int_member(props, "count", m->count);
    json_object_set_int_member(props, "words", m->words);
    json_object_set_int_member(props, "processes", runs);
    JsonArray *commands = json_array_new();
    for (guint h = 0; h < runs; h++) {
      json_array_add_string_element(
          commands,
          json_object_get_string_member(json_array_get_object_element(m->hits, h), "command"));
    }
    json_object_set_array_member(props, "commands", commands);
    json_array_add_element(results, node);
  }
  JsonObject *run = json_object_new();
  if (mg->sarif_tool) {
    json_object_set_object_member(run, "tool", json_object_ref(mg->sarif_tool));
  } else {
    JsonObject *driver = json_object_new(), *tool = json_object_new();
    json_object_set_string_member(driver, "name", "jitflush-emu");
    json_object_set_object_member(tool, "driver", driver);
    json_object_set_object_member(run, "tool", tool);
  }
  json_object_set_array_member(run, "results", results);
  JsonArray *runs = json_array_new();
  json_array_add_object_element(runs, run);
  JsonObject *log = json_object_new();
  json_object_set_string_member(log, "$schema",
                                "https://docs.oasis-open.org/sarif/sarif/v2.1.0/"
                                "errata01/os/schemas/sarif-schema-2.1.0.json");
  json_object_set_string_member(log, "version", "2.1.0");
  json_object_set_array_member(log, "runs", runs);
  JsonNode *root = json_node_new(JSON_NODE_OBJECT);
  json_node_take_object(root, log);
  return root;
}

static bool write_json(const char *path, JsonNode *root, GError **error)
{
  JsonGenerator *gen = json_generator_new();
  json_generator_set_pretty(gen, TRUE);
  json_generator_set_root(gen, root);
  gsize len = 0;
  char *text = json_generator_to_data(gen, &len);
  bool ok = g_file_set_contents(path, text, (gssize)len, error);
  g_free(text);
  g_object_unref(gen);
  json_node_unref(root);
  return ok;
}

/* One line per finding, then the totals. */
static void print_summary(struct merge *mg, guint stores)
{
  for (guint i = 0; i < mg->found->len; i++) {
    const struct merged *m = mg->found->pdata[i];
    JsonObject *hit = json_array_get_object_element(m->hits, 0);
    printf("FINDING #%u %s: %" G_GINT64_FORMAT " stale fetches in %u process%s, first: %s\n", i + 1,
           json_object_get_string_member_with_default(m->first, "kind", "?"), m->count,
           json_array_get_length(m->hits), json_array_get_length(m->hits) == 1 ? "" : "es",
           json_object_get_string_member(hit, "command"));
  }
  printf("jitflush-emu --merge: processes=%u stores=%u processes_stale=%u "
         "stale_fetches=%" G_GINT64_FORMAT " findings=%u incomplete=%u\n",
         json_array_get_length(mg->runs), stores, mg->runs_stale, mg->stale, mg->found->len,
         mg->incomplete->len);
}

int main(int argc, char **argv)
{
  const char *report = NULL, *sarif = NULL;
  GPtrArray *dirs = g_ptr_array_new();
  int status = 0;
  for (int i = 1; i < argc && !status; i++) {
    const char **slot = strcmp(argv[i], "--report") == 0  ? &report
                        : strcmp(argv[i], "--sarif") == 0 ? &sarif
                                                          : NULL;
    if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
      fputs(usage_text, stdout);
      g_ptr_array_free(dirs, TRUE);
      return 0;
    } else if (slot && (i + 1 >= argc || !*argv[i + 1])) {
      status = fail(MERGE_EXIT_USAGE, "%s needs a value", argv[i]);
    } else if (slot && *slot) {
      status = fail(MERGE_EXIT_USAGE, "%s given twice", argv[i]);
    } else if (slot) {
      *slot = argv[++i];
    } else if (argv[i][0] == '-') {
      status = fail(MERGE_EXIT_USAGE, "unknown option '%s'", argv[i]);
    } else {
      g_ptr_array_add(dirs, argv[i]);
    }
  }
  if (!status && dirs->len == 0) {
    status = fail(MERGE_EXIT_USAGE, "give at least one store folder");
  }
  if (status) {
    fputs(usage_text, stderr);
    g_ptr_array_free(dirs, TRUE);
    return status;
  }
  g_ptr_array_add(dirs, NULL);

  struct merge mg = {
      .runs = json_array_new(),
      .incomplete = g_ptr_array_new_with_free_func(g_free),
      .by_key = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, merged_free),
      .found = g_ptr_array_new(),
  };
  GError *err = NULL;
  for (guint i = 0; dirs->pdata[i] && !status; i++) {
    if (!add_store(&mg, dirs->pdata[i], &err)) {
      status = fail(MERGE_EXIT_STORE, "%s", err->message);
    }
  }
  if (!status) {
    g_ptr_array_sort(mg.found, by_count);
    if (report && !write_json(report, suite_report(&mg, (char **)dirs->pdata), &err)) {
      status = fail(MERGE_EXIT_OUTPUT, "cannot write the report: %s", err->message);
    } else if (sarif && !write_json(sarif, suite_sarif(&mg), &err)) {
      status = fail(MERGE_EXIT_OUTPUT, "cannot write the SARIF log: %s", err->message);
    } else {
      print_summary(&mg, dirs->len - 1);
    }
    if (!status && mg.found->len > 0) {
      status = MERGE_EXIT_FINDINGS;
    }
  }
  if (err) {
    g_error_free(err);
  }
  g_ptr_array_free(mg.found, TRUE);
  g_hash_table_destroy(mg.by_key);
  g_ptr_array_free(mg.incomplete, TRUE);
  json_array_unref(mg.runs);
  if (mg.sarif_tool) {
    json_object_unref(mg.sarif_tool);
  }
  g_ptr_array_free(dirs, TRUE);
  return status;
}
