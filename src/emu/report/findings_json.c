/*
 * The findings as members of the JSON report (findings_json.h,
 * docs/FINDINGS.md "The findings array").
 */
#include "emu_json.h"
#include "findings_explain.h"
#include "findings_json.h"
#include "findings_names.h"
#include "known_routines.h"

/* ---- JSON ------------------------------------------------------------------ */

static JsonObject *json_frame(const struct emu_findings *f, uint64_t pc)
{
  const struct emu_frame_names *fr = emu_findings_frame_of(f, pc);
  JsonObject *o = json_object_new();
  emu_json_set_hex(o, "pc", pc);
  json_object_set_string_member(o, "symbol", fr->symbol);
  json_object_set_string_member(o, "location", fr->location);
  json_object_set_string_member(o, "module", fr->module);
  if (fr->module) {
    emu_json_set_hex(o, "offset", fr->offset);
  } else {
    json_object_set_null_member(o, "offset");
  }
  json_object_set_string_member(o, "raw_symbol", fr->raw_symbol);
  return o;
}

/* docs/FINDINGS.md, "Code the kernel published". */
static JsonArray *json_kernel_notes(const struct emu_findings *f)
{
  JsonArray *notes = json_array_new();
  for (guint i = 0; i < f->kernel_notes->len; i++) {
    const struct kernel_note *n = g_ptr_array_index(f->kernel_notes, i);
    JsonObject *o = json_object_new();
    json_object_set_string_member(o, "call", n->call);
    json_object_set_object_member(o, "site", json_frame(f, n->pc));
    if (n->lr) {
      json_object_set_object_member(o, "caller", json_frame(f, emu_findings_call_site_of(n->lr)));
    } else {
      json_object_set_null_member(o, "caller");
    }
    json_object_set_int_member(o, "pages", (gint64)n->pages);
    json_object_set_int_member(o, "words", (gint64)n->words);
    json_object_set_string_member(o, "note", EMU_KERNEL_NOTE_TEXT);
    json_array_add_object_element(notes, o);
  }
  return notes;
}

static JsonObject *json_ctr_site(const struct emu_findings *f, const struct ctr_site *s)
{
  JsonObject *o = json_frame(f, s->key.pc);
  json_object_set_int_member(o, "cpu", s->key.cpu);
  emu_json_set_hex(o, "value", s->key.value);
  json_object_set_int_member(o, "count", (gint64)s->count);
  return o;
}

static void json_flush(JsonObject *o, const struct emu_findings *f, const struct finding *fd)
{
  if (!fd->key.flush_pc) {
    json_object_set_null_member(o, "flush");
    return;
  }
  JsonObject *flush = json_frame(f, fd->key.flush_pc);
  const struct emu_known_routine *known = emu_findings_frame_of(f, fd->key.flush_pc)->routine;
  if (known) {
    JsonObject *r = json_object_new();
    json_object_set_string_member(r, "name", known->name);
    json_object_set_string_member(r, "function", known->symbol);
    json_object_set_string_member(r, "build", known->build);
    json_object_set_string_member(r, "flaw", known->flaw);
    json_object_set_string_member(r, "advice", known->advice);
    json_object_set_object_member(flush, "routine", r);
  } else {
    json_object_set_null_member(flush, "routine");
  }
  const struct caller *top =
      fd->callers->len ? &g_array_index(fd->callers, struct caller, 0) : NULL;
  if (top && top->at) {
    json_object_set_object_member(flush, "caller",
                                  json_frame(f, emu_findings_call_site_of(top->at)));
  } else {
    json_object_set_null_member(flush, "caller");
  }
  JsonArray *callers = json_array_new();
  for (guint i = 0; i < fd->callers->len; i++) {
    const struct caller *c = &g_array_index(fd->callers, struct caller, i);
    if (!c->at) {
      continue;
    }
    JsonObject *one = json_frame(f, emu_findings_call_site_of(c->at));
    json_object_set_int_member(one, "count", (gint64)c->count);
    json_array_add_object_element(callers, one);
  }
  json_object_set_array_member(flush, "callers", callers);
  json_object_set_object_member(o, "flush", flush);
}

static JsonObject *json_finding(const struct emu_findings *f, const struct finding *fd)
{
  JsonObject *o = json_object_new();
  json_object_set_string_member(o, "kind", jf_stale_kind_name(fd->key.kind));
  json_object_set_int_member(o, "count", (gint64)fd->count);
  json_object_set_int_member(o, "words", g_hash_table_size(fd->words));
  json_object_set_int_member(o, "fetch_cpu", fd->fetch_cpu);
  json_object_set_string_member(o, "fetch_core", emu_findings_core_of_cpu(f, fd->fetch_cpu));
  if (fd->writer_pc) {
    json_object_set_string_member(o, "writer_core",
                                  emu_findings_core_of_cluster(f, fd->writer_cluster));
  } else {
    json_object_set_null_member(o, "writer_core");
  }
  json_object_set_int_member(o, "line", fd->line);
  json_object_set_string_member(o, "line_cache", emu_findings_d_side(fd->key.kind) ? "D" : "I");
  json_object_set_string_member(o, "line_core", emu_findings_line_core(f, fd));
  if (fd->key.stride) {
    json_object_set_int_member(o, "stride", fd->key.stride);
  } else {
    json_object_set_null_member(o, "stride");
  }
  const struct ctr_site *src = emu_findings_stride_source(f, fd);
  if (src) {
    json_object_set_object_member(o, "stride_source", json_ctr_site(f, src));
  } else {
    json_object_set_null_member(o, "stride_source");
  }
  unsigned same = emu_findings_same_cause(f, fd);
  if (same) {
    json_object_set_int_member(o, "same_cause_as", same);
  } else {
    json_object_set_null_member(o, "same_cause_as");
  }
  if (fd->writer_pc) {
    json_object_set_object_member(o, "writer", json_frame(f, fd->writer_pc));
  } else {
    json_object_set_null_member(o, "writer");
  }
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
    json_array_add_element(examples, emu_json_hex(fd->examples[i]));
  }
  json_object_set_array_member(o, "examples", examples);
  char *msg = emu_findings_explain(f, fd);
  json_object_set_string_member(o, "message", msg);
  g_free(msg);
  return o;
}

static JsonArray *json_mappings(const struct emu_findings *f)
{
  JsonArray *maps = json_array_new();
  for (guint i = 0; i < f->mappings->len; i++) {
    const struct mapping *m = g_ptr_array_index(f->mappings, i);
    JsonObject *o = json_object_new();
    json_object_set_string_member(o, "path", m->path);
    emu_json_set_hex(o, "start", m->start);
    emu_json_set_hex(o, "end", m->end);
    emu_json_set_hex(o, "load_base", m->load_base);
    json_object_set_string_member(o, "build_id", m->build_id);
    json_array_add_object_element(maps, o);
  }
  return maps;
}

/* The report's "crash": null unless the guest died of a signal after stale
 * fetches. */
static JsonNode *json_crash(const struct emu_findings *f)
{
  if (!emu_findings_died(f)) {
    return json_node_new(JSON_NODE_NULL);
  }
  JsonObject *crash = json_object_new();
  if (f->end_thread >= 0) {
    json_object_set_int_member(crash, "thread", f->end_thread);
  } else {
    json_object_set_null_member(crash, "thread");
  }
  if (f->end_block) {
    json_object_set_object_member(crash, "block", json_frame(f, f->end_block));
  } else {
    json_object_set_null_member(crash, "block");
  }
  const struct last_stale *l = emu_findings_crash_stale(f);
  if (l) {
    JsonObject *o = json_object_new();
    unsigned n = emu_findings_number(f, &l->key);
    if (n) {
      json_object_set_int_member(o, "finding", n);
    } else {
      json_object_set_null_member(o, "finding");
    }
    json_object_set_string_member(o, "kind", jf_stale_kind_name(l->key.kind));
    emu_json_set_hex(o, "addr", l->va);
    json_object_set_int_member(o, "stale_fetches_after", (gint64)(f->stale_total - l->seq));
    json_object_set_object_member(crash, "last_stale", o);
  } else {
    json_object_set_null_member(crash, "last_stale");
  }
  JsonNode *node = json_node_new(JSON_NODE_OBJECT);
  json_node_take_object(node, crash);
  return node;
}

void emu_findings_json(const struct emu_findings *f, JsonObject *report)
{
  JsonArray *stale = json_array_new();
  for (guint i = 0; i < f->stale_kept->len; i++) {
    const struct stale_entry *e = &g_array_index(f->stale_kept, struct stale_entry, i);
    JsonObject *o = json_object_new();
    emu_json_set_hex(o, "addr", e->addr);
    json_object_set_int_member(o, "cpu", e->cpu);
    json_object_set_int_member(o, "thread", e->thread);
    json_object_set_string_member(o, "reason", jf_stale_kind_reason(e->kind));
    json_object_set_string_member(o, "kind", jf_stale_kind_name(e->kind));
    json_array_add_object_element(stale, o);
  }
  json_object_set_array_member(report, "stale", stale);

  json_object_set_array_member(report, "findings", emu_findings_each(f, json_finding));
  json_object_set_int_member(report, "findings_omitted_stale", (gint64)f->omitted_stale);

  JsonArray *sites = json_array_new();
  for (guint i = 0; i < f->ctr_sites->len; i++) {
    json_array_add_object_element(sites, json_ctr_site(f, g_ptr_array_index(f->ctr_sites, i)));
  }
  json_object_set_array_member(report, "ctr_read_sites", sites);

  json_object_set_array_member(report, "mappings", json_mappings(f));
  json_object_set_array_member(report, "kernel_sync_notes", json_kernel_notes(f));
  json_object_set_member(report, "crash", json_crash(f));
}
