/*
 * Merging the reports of forked processes. Each process the
 * program forked checked its own fetches under its copy of the model and,
 * at its exit, wrote process-PID.json and process-PID.findings next to the
 * summary (plugin_fork.c): the plugin of the process QEMU started cannot
 * gather them itself, since a child may end after it. The runner reads
 * them once QEMU has ended, so the run has one report, one SARIF log, one
 * stderr and one status. A process still running when the program's first process ended,
 * or one killed before its exit callbacks, has written nothing and is not
 * in the report (docs/RIG.md, "Processes").
 */
#include "runner_fork.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include <json-glib/json-glib.h>

#include "rig_json.h"
#include "rig_sarif_log.h"

/* A forked process's file, parsed, and its pid. */
struct forked {
  gint64 pid, parent;
  bool executed; /* a program a process of the run executed (plugin_fork.c) */
  JsonParser *parser;
  JsonObject *o;
  char *blocks;
};

static gint by_pid(gconstpointer a, gconstpointer b)
{
  const struct forked *x = *(struct forked *const *)a, *y = *(struct forked *const *)b;
  return x->pid < y->pid ? -1 : x->pid > y->pid;
}

static void forked_free(gpointer p)
{
  struct forked *f = p;
  g_clear_object(&f->parser);
  g_free(f->blocks);
  g_free(f);
}

static struct forked *read_forked(const char *scratch, const char *name)
{
  char *path = g_build_filename(scratch, name, NULL);
  struct forked *f = g_new0(struct forked, 1);
  f->parser = json_parser_new();
  GError *err = NULL;
  if (!json_parser_load_from_file(f->parser, path, &err) || !json_parser_get_root(f->parser) ||
      !JSON_NODE_HOLDS_OBJECT(json_parser_get_root(f->parser))) {
    fprintf(stderr, "jitflush-emu: a forked process's report %s cannot be read: %s\n", path,
            err ? err->message : "not a JSON object");
    g_clear_error(&err);
    g_free(path);
    forked_free(f);
    return NULL;
  }
  f->o = json_node_get_object(json_parser_get_root(f->parser));
  f->pid = json_object_get_int_member(f->o, "pid");
  f->parent = json_object_get_int_member(f->o, "parent");
  f->executed = json_object_has_member(f->o, "executed"); /* written only when true */
  path[strlen(path) - strlen(".json")] = '\0';
  char *text = g_strconcat(path, ".findings", NULL);
  g_file_get_contents(text, &f->blocks, NULL, NULL);
  g_free(text);
  g_free(path);
  return f;
}

/* The forked processes' files in SCRATCH, by pid. */
static GPtrArray *read_all(const char *scratch)
{
  GPtrArray *all = g_ptr_array_new_with_free_func(forked_free);
  GDir *dir = g_dir_open(scratch, 0, NULL);
  const char *name;
  while (dir && (name = g_dir_read_name(dir))) {
    if (g_str_has_prefix(name, RIG_PROCESS_FILE_PREFIX) && g_str_has_suffix(name, ".json")) {
      struct forked *f = read_forked(scratch, name);
      if (f) {
        g_ptr_array_add(all, f);
      }
    }
  }
  if (dir) {
    g_dir_close(dir);
  }
  g_ptr_array_sort(all, by_pid);
  return all;
}

/* The pid of the process QEMU started: the parent of a forked process
 * that is not itself one of them. */
static gint64 first_process(const GPtrArray *all)
{
  for (guint i = 0; i < all->len; i++) {
    const struct forked *f = g_ptr_array_index(all, i);
    bool forked_parent = false;
    for (guint j = 0; j < all->len; j++) {
      forked_parent |= ((const struct forked *)g_ptr_array_index(all, j))->pid == f->parent;
    }
    if (!forked_parent) {
      return f->parent;
    }
  }
  return 0;
}

/* Appends the elements of FROM[MEMBER] to TO[MEMBER], each naming PID. */
static void append_named(JsonObject *to, JsonObject *from, const char *member, gint64 pid)
{
  if (!json_object_has_member(to, member)) {
    json_object_set_array_member(to, member, json_array_new());
  }
  JsonArray *dst = json_object_get_array_member(to, member);
  if (!from) {
    for (guint i = 0; i < json_array_get_length(dst); i++) {
      JsonObject *e = json_array_get_object_element(dst, i);
      if (e && !json_object_has_member(e, "process")) {
        json_object_set_int_member(e, "process", pid);
      }
    }
    return;
  }
  JsonArray *src =
      json_object_has_member(from, member) ? json_object_get_array_member(from, member) : NULL;
  guint base = json_array_get_length(dst);
  for (guint i = 0; src && i < json_array_get_length(src); i++) {
    JsonObject *e = json_array_get_object_element(src, i);
    if (!e) {
      continue;
    }
    json_object_set_int_member(e, "process", pid);
    /* A finding's same_cause_as numbers its process's findings: in the
     * merged array they follow the BASE ones before them. */
    JsonNode *same = json_object_get_member(e, "same_cause_as");
    if (same && JSON_NODE_HOLDS_VALUE(same)) {
      json_object_set_int_member(e, "same_cause_as", json_node_get_int(same) + base);
    }
    json_array_add_object_element(dst, json_object_ref(e));
  }
}

static void add_counters(JsonObject *to, JsonObject *from)
{
  for (size_t c = 0; c < RIG_NCOUNTERS; c++) {
    const char *name = rig_counters[c].name;
    gint64 a = json_object_has_member(to, name) ? json_object_get_int_member(to, name) : 0;
    gint64 b = json_object_has_member(from, name) ? json_object_get_int_member(from, name) : 0;
    json_object_set_int_member(to, name,
                               rig_counters[c].source == RIG_SOURCE_MODEL ? MAX(a, b) : a + b);
  }
}

static JsonObject *process_entry(gint64 pid, gint64 parent, JsonObject *counts)
{
  JsonObject *p = json_object_new();
  json_object_set_int_member(p, "pid", pid);
  if (parent) {
    json_object_set_int_member(p, "parent", parent);
  }
  json_object_set_int_member(p, "stale_fetches",
                             json_object_get_int_member_with_default(counts, "stale_fetches", 0));
  return p;
}

/* The JSON object in PATH, or NULL after saying on stderr why the forked
 * processes' findings cannot join it. NULL without a word when PATH is not
 * a regular file: what the plugin wrote to a device (--report /dev/null)
 * cannot be read back, and was not meant to be. */
static JsonObject *load_object(const char *path)
{
  struct stat st;
  if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
    return NULL;
  }
  JsonParser *parser = json_parser_new();
  GError *err = NULL;
  JsonObject *o = NULL;
  if (json_parser_load_from_file(parser, path, &err) && json_parser_get_root(parser) &&
      JSON_NODE_HOLDS_OBJECT(json_parser_get_root(parser))) {
    o = json_object_ref(json_node_get_object(json_parser_get_root(parser)));
  } else {
    fprintf(stderr, "jitflush-emu: the forked processes' findings cannot join %s: %s\n", path,
            err ? err->message : "not a JSON object");
  }
  g_clear_error(&err);
  g_object_unref(parser);
  return o;
}

/* Writes O to PATH in place, like the plugin writes it (a symlink stays a
 * symlink). O is dropped: rig_json_write_object takes it. */
static void store_object(const char *path, JsonObject *o)
{
  GString *text = rig_json_write_object(o);
  FILE *out = fopen(path, "w");
  if (!out || fwrite(text->str, 1, text->len, out) != text->len || fclose(out) != 0) {
    fprintf(stderr, "jitflush-emu: cannot write %s: %s\n", path, g_strerror(errno));
  }
  g_string_free(text, TRUE);
}

/* Rewrites REPORT with every forked process's findings and counts. */
static void merge_report(const char *report, const GPtrArray *all)
{
  JsonObject *r = load_object(report);
  if (!r) {
    return;
  }
  gint64 first = first_process(all);
  JsonArray *processes = json_array_new();
  json_array_add_object_element(processes, process_entry(first, 0, r));
  static const char *const lists[] = {"findings", "stale", "ctr_read_sites"};
  for (size_t k = 0; k < G_N_ELEMENTS(lists); k++) {
    append_named(r, NULL, lists[k], first);
  }
  for (guint i = 0; i < all->len; i++) {
    const struct forked *f = g_ptr_array_index(all, i);
    for (size_t k = 0; k < G_N_ELEMENTS(lists); k++) {
      append_named(r, f->o, lists[k], f->pid);
    }
    json_array_add_object_element(processes, process_entry(f->pid, f->parent, f->o));
    add_counters(r, f->o);
    json_object_set_int_member(
        r, "findings_omitted_stale",
        json_object_get_int_member_with_default(r, "findings_omitted_stale", 0) +
            json_object_get_int_member_with_default(f->o, "findings_omitted_stale", 0));
  }
  json_object_set_array_member(r, "processes", processes);
  store_object(report, r);
}

/* Names the process PID (forked by PARENT, 0 for the first) in each of
 * RESULTS, as the report's "process" does: in "properties", and in the
 * message of a forked process's result, which code scanning shows. */
static void name_process(JsonArray *results, gint64 pid, gint64 parent)
{
  for (guint i = 0; results && i < json_array_get_length(results); i++) {
    JsonObject *r = json_array_get_object_element(results, i);
    if (!r) {
      continue;
    }
    if (!json_object_has_member(r, "properties")) {
      json_object_set_object_member(r, "properties", json_object_new());
    }
    JsonObject *props = json_object_get_object_member(r, "properties");
    json_object_set_int_member(props, "process", pid);
    if (!parent || !json_object_has_member(r, "message")) {
      continue;
    }
    json_object_set_int_member(props, "parent", parent);
    JsonObject *msg = json_object_get_object_member(r, "message");
    char *text =
        g_strdup_printf("%s (in process %" G_GINT64_FORMAT ", forked by %" G_GINT64_FORMAT ")",
                        json_object_get_string_member_with_default(msg, "text", ""), pid, parent);
    json_object_set_string_member(msg, "text", text);
    g_free(text);
  }
}

/* Adds every forked process's SARIF results (process-PID.sarif in
 * SCRATCH) to the run of the SARIF log at SARIF, after the first
 * process's, in the order of the report's findings. Each log has the same
 * tool and rules (one per kind, report_findings_sarif.c), so a result's ruleIndex
 * holds in the merged log. */
static void merge_sarif(const char *sarif, const char *scratch, const GPtrArray *all)
{
  JsonObject *log = load_object(sarif);
  JsonArray *results = log ? rig_sarif_results(log, NULL) : NULL;
  if (!results) {
    if (log) {
      json_object_unref(log);
    }
    return;
  }
  name_process(results, first_process(all), 0);
  for (guint i = 0; i < all->len; i++) {
    const struct forked *f = g_ptr_array_index(all, i);
    char *name = g_strdup_printf(RIG_PROCESS_FILE_PREFIX "%" G_GINT64_FORMAT ".sarif", f->pid);
    char *path = g_build_filename(scratch, name, NULL);
    JsonObject *child = g_file_test(path, G_FILE_TEST_EXISTS) ? load_object(path) : NULL;
    JsonArray *found = child ? rig_sarif_results(child, NULL) : NULL;
    name_process(found, f->pid, f->parent);
    for (guint k = 0; found && k < json_array_get_length(found); k++) {
      json_array_add_element(results, json_node_copy(json_array_get_element(found, k)));
    }
    if (child) {
      json_object_unref(child);
    }
    g_free(path);
    g_free(name);
  }
  store_object(sarif, log);
}

unsigned runner_merge_forked(const char *scratch, const char *report, const char *sarif,
                             struct rig_summary *sum, GString *blocks)
{
  GPtrArray *all = read_all(scratch);
  for (guint i = 0; i < all->len; i++) {
    const struct forked *f = g_ptr_array_index(all, i);
    for (size_t c = 0; c < RIG_NCOUNTERS; c++) {
      if (rig_counters[c].shown <= RIG_SHOWN_SUMMARY) {
        sum->counter[c] +=
            (uint64_t)json_object_get_int_member_with_default(f->o, rig_counters[c].name, 0);
      }
    }
    JsonArray *findings = json_object_has_member(f->o, "findings")
                              ? json_object_get_array_member(f->o, "findings")
                              : NULL;
    /* Root causes: a finding of the same cause as another is not counted
     * again (docs/FINDINGS.md, same_cause_as). */
    for (guint k = 0; findings && k < json_array_get_length(findings); k++) {
      JsonObject *fd = json_array_get_object_element(findings, k);
      JsonNode *same = fd ? json_object_get_member(fd, "same_cause_as") : NULL;
      sum->findings += !(same && JSON_NODE_HOLDS_VALUE(same));
    }
    if (f->blocks && *f->blocks) {
      g_string_append_printf(
          blocks, "jitflush-emu: in process %" G_GINT64_FORMAT " (%s by %" G_GINT64_FORMAT "):\n%s",
          f->pid, f->executed ? "executed" : "forked", f->parent, f->blocks);
    }
  }
  unsigned n = all->len;
  if (n && report) {
    merge_report(report, all);
  }
  if (n && sarif) {
    merge_sarif(sarif, scratch, all);
  }
  g_ptr_array_unref(all);
  return n;
}
