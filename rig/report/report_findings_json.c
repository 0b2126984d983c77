/*
 * The findings as members of the JSON report (report_findings_json.h,
 * docs/FINDINGS.md "The findings array").
 */
#include "rig_json.h"
#include "report_findings_explain.h"
#include "report_findings_json.h"
#include "report_findings_names.h"
#include "report_known_routines.h"

/* ---- JSON ------------------------------------------------------------------ */

static JsonObject *json_frame(const struct report_findings *f, uint64_t pc)
{
  const struct report_frame_names *fr = report_findings_frame_of(f, pc);
  JsonObject *o = json_object_new();
  rig_json_set_hex(o, "pc", pc);
  json_object_set_string_member(o, "symbol", fr->symbol);
  json_object_set_string_member(o, "location", fr->location);
  json_object_set_string_member(o, "module", fr->module);
  if (fr->module) {
    rig_json_set_hex(o, "offset", fr->offset);
  } else {
    json_object_set_null_member(o, "offset");
  }
  json_object_set_string_member(o, "raw_symbol", fr->raw_symbol);
  return o;
}

/* KEY: the frame of PC, or null for no PC. */
static void set_frame_or_null(JsonObject *o, const char *key, const struct report_findings *f,
                              uint64_t pc)
{
  if (pc) {
    json_object_set_object_member(o, key, json_frame(f, pc));
  } else {
    json_object_set_null_member(o, key);
  }
}

/* One object for each element of ITEMS (pointers), in order. */
static JsonArray *json_each(const struct report_findings *f, const GPtrArray *items,
                            JsonObject *(*one)(const struct report_findings *, const void *))
{
  JsonArray *out = json_array_new();
  for (guint i = 0; i < items->len; i++) {
    json_array_add_object_element(out, one(f, g_ptr_array_index(items, i)));
  }
  return out;
}

/* docs/FINDINGS.md, "Code the kernel published". */
static JsonObject *json_kernel_note(const struct report_findings *f, const void *item)
{
  const struct kernel_note *n = item;
  JsonObject *o = json_object_new();
  json_object_set_string_member(o, "call", n->call);
  json_object_set_object_member(o, "site", json_frame(f, n->pc));
  set_frame_or_null(o, "caller", f, report_findings_call_site_of(n->lr));
  json_object_set_int_member(o, "pages", (gint64)n->pages);
  json_object_set_int_member(o, "words", (gint64)n->words);
  json_object_set_string_member(o, "note", REPORT_KERNEL_NOTE_TEXT);
  json_object_set_string_member(o, "kernel", rig_kernel_linux_names[f->cfg->kernel_linux]);
  return o;
}

static JsonObject *json_ctr_site(const struct report_findings *f, const void *item)
{
  const struct ctr_site *s = item;
  JsonObject *o = json_frame(f, s->key.pc);
  json_object_set_int_member(o, "cpu", s->key.cpu);
  rig_json_set_hex(o, "value", s->key.value);
  json_object_set_int_member(o, "count", (gint64)s->count);
  return o;
}

static void json_flush(JsonObject *o, const struct report_findings *f, const struct finding *fd)
{
  if (!fd->key.flush_pc) {
    json_object_set_null_member(o, "flush");
    return;
  }
  JsonObject *flush = json_frame(f, fd->key.flush_pc);
  const struct report_known_routine *known = report_findings_frame_of(f, fd->key.flush_pc)->routine;
  struct report_module_origin origin;
  bool have_origin = report_findings_flush_origin(f, fd, &origin);
  if (known) {
    const char *source;
    char *by = report_findings_compiler(report_findings_frame_of(f, fd->key.flush_pc), &source);
    char *advice_for = have_origin && origin.kind != REPORT_MODULE_PROJECT
                           ? g_strdup_printf("the builders of %s", origin.file)
                           : g_strdup("you");
    const char *members[][2] = {
        {"name", known->name},       {"function", known->symbol},         {"compiler", by},
        {"compiler_source", source}, {"fingerprint", known->fingerprint}, {"flaw", known->flaw},
        {"advice", known->advice},   {"advice_for", advice_for}};
    JsonObject *r = json_object_new();
    for (size_t i = 0; i < G_N_ELEMENTS(members); i++) {
      json_object_set_string_member(r, members[i][0], members[i][1]);
    }
    json_object_set_object_member(flush, "routine", r);
    g_free(by);
    g_free(advice_for);
  } else {
    json_object_set_null_member(flush, "routine");
  }
  if (have_origin) {
    const struct report_frame_names *fr = report_findings_frame_of(f, fd->key.flush_pc);
    JsonObject *o = json_object_new();
    json_object_set_string_member(o, "kind", report_module_kind_name(origin.kind));
    json_object_set_string_member(o, "file", origin.file);
    json_object_set_string_member(o, "soname", fr->soname);
    json_object_set_string_member(o, "package", origin.package);
    json_object_set_object_member(flush, "origin", o);
    report_module_origin_clear(&origin);
  } else {
    json_object_set_null_member(flush, "origin");
  }
  const struct caller *top =
      fd->callers->len ? &g_array_index(fd->callers, struct caller, 0) : NULL;
  set_frame_or_null(flush, "caller", f, top ? report_findings_call_site_of(top->at) : 0);
  JsonArray *callers = json_array_new();
  for (guint i = 0; i < fd->callers->len; i++) {
    const struct caller *c = &g_array_index(fd->callers, struct caller, i);
    if (!c->at) {
      continue;
    }
    JsonObject *one = json_frame(f, report_findings_call_site_of(c->at));
    json_object_set_int_member(one, "count", (gint64)c->count);
    json_array_add_object_element(callers, one);
  }
  json_object_set_array_member(flush, "callers", callers);
  json_object_set_object_member(o, "flush", flush);
}

static JsonObject *json_finding(const struct report_findings *f, const struct finding *fd)
{
  JsonObject *o = json_object_new();
  json_object_set_string_member(o, "kind", model_stale_kind_name(fd->key.kind));
  json_object_set_int_member(o, "count", (gint64)fd->count);
  json_object_set_int_member(o, "words", g_hash_table_size(fd->words));
  json_object_set_int_member(o, "fetch_cpu", fd->fetch_cpu);
  json_object_set_string_member(o, "fetch_core", report_findings_core_of_cpu(f, fd->fetch_cpu));
  if (fd->writer_pc) {
    json_object_set_string_member(o, "writer_core",
                                  report_findings_core_of_cluster(f, fd->writer_cluster));
  } else {
    json_object_set_null_member(o, "writer_core");
  }
  json_object_set_int_member(o, "line", fd->line);
  json_object_set_string_member(o, "line_cache", report_findings_d_side(fd->key.kind) ? "D" : "I");
  json_object_set_string_member(o, "line_core", report_findings_line_core(f, fd));
  rig_json_set_int_or_null(o, "stride", fd->key.stride != 0, fd->key.stride);
  const struct ctr_site *src = report_findings_stride_source(f, fd);
  if (src) {
    json_object_set_object_member(o, "stride_source", json_ctr_site(f, src));
  } else {
    json_object_set_null_member(o, "stride_source");
  }
  unsigned same = report_findings_same_cause(f, fd);
  rig_json_set_int_or_null(o, "same_cause_as", same != 0, same);
  set_frame_or_null(o, "writer", f, fd->writer_pc);
  JsonArray *writers = json_array_new();
  for (guint i = 0; fd->writers && i < fd->writers->len; i++) {
    const struct writer *w = &g_array_index(fd->writers, struct writer, i);
    JsonObject *one = json_frame(f, w->pc);
    json_object_set_int_member(one, "words", w->words);
    json_array_add_object_element(writers, one);
  }
  json_object_set_array_member(o, "writers", writers);
  json_flush(o, f, fd);
  JsonArray *examples = json_array_new();
  for (unsigned i = 0; i < fd->nexamples; i++) {
    json_array_add_element(examples, rig_json_hex(fd->examples[i]));
  }
  json_object_set_array_member(o, "examples", examples);
  json_object_set_string_member(o, "protection", report_findings_protection(f, fd));
  char *msg = report_findings_explain(f, fd);
  json_object_set_string_member(o, "message", msg);
  g_free(msg);
  return o;
}

static JsonObject *json_mapping(const struct report_findings *f, const void *item)
{
  (void)f;
  const struct mapping *m = item;
  JsonObject *o = json_object_new();
  json_object_set_string_member(o, "path", m->path);
  rig_json_set_hex(o, "start", m->start);
  rig_json_set_hex(o, "end", m->end);
  rig_json_set_hex(o, "load_base", m->load_base);
  json_object_set_string_member(o, "build_id", m->build_id);
  return o;
}

/* The report's "crash": null unless the guest died of a signal after stale
 * fetches. */
static JsonNode *json_crash(const struct report_findings *f)
{
  if (!report_findings_died(f)) {
    return json_node_new(JSON_NODE_NULL);
  }
  JsonObject *crash = json_object_new();
  rig_json_set_int_or_null(crash, "thread", f->end_thread >= 0, f->end_thread);
  set_frame_or_null(crash, "block", f, f->end_block);
  const struct last_stale *l = report_findings_crash_stale(f);
  if (l) {
    JsonObject *o = json_object_new();
    unsigned n = report_findings_number(f, &l->key);
    rig_json_set_int_or_null(o, "finding", n != 0, n);
    json_object_set_string_member(o, "kind", model_stale_kind_name(l->key.kind));
    rig_json_set_hex(o, "addr", l->va);
    json_object_set_int_member(o, "stale_fetches_after", (gint64)(f->stale_total - l->seq));
    json_object_set_object_member(crash, "last_stale", o);
  } else {
    json_object_set_null_member(crash, "last_stale");
  }
  JsonNode *node = json_node_new(JSON_NODE_OBJECT);
  json_node_take_object(node, crash);
  return node;
}

void report_findings_json(const struct report_findings *f, JsonObject *report)
{
  JsonArray *stale = json_array_new();
  for (guint i = 0; i < f->stale_kept->len; i++) {
    const struct stale_entry *e = &g_array_index(f->stale_kept, struct stale_entry, i);
    JsonObject *o = json_object_new();
    rig_json_set_hex(o, "addr", e->addr);
    json_object_set_int_member(o, "cpu", e->cpu);
    json_object_set_int_member(o, "thread", e->thread);
    json_object_set_string_member(o, "reason", model_stale_kind_reason(e->kind));
    json_object_set_string_member(o, "kind", model_stale_kind_name(e->kind));
    json_array_add_object_element(stale, o);
  }
  json_object_set_array_member(report, "stale", stale);

  json_object_set_array_member(report, "findings", report_findings_each(f, json_finding));
  json_object_set_int_member(report, "findings_omitted_stale", (gint64)f->omitted_stale);

  json_object_set_array_member(report, "ctr_read_sites", json_each(f, f->ctr_sites, json_ctr_site));
  json_object_set_array_member(report, "mappings", json_each(f, f->mappings, json_mapping));
  json_object_set_array_member(report, "kernel_sync_notes",
                               json_each(f, f->kernel_notes, json_kernel_note));
  json_object_set_member(report, "crash", json_crash(f));
  if (f->benign_total) {
    JsonObject *o = json_object_new();
    json_object_set_int_member(o, "fetches", (gint64)f->benign_total);
    rig_json_set_hex(o, "first", f->benign_first);
    json_object_set_string_member(o, "note", REPORT_BENIGN_NOTE_TEXT);
    json_object_set_object_member(report, "benign_stale_note", o);
  } else {
    json_object_set_null_member(report, "benign_stale_note");
  }
}
