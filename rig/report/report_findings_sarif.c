/*
 * The findings as a SARIF 2.1.0 log (report_findings_sarif.h): one result per
 * finding, placed at the code a JIT author changes.
 */
#include <inttypes.h>
#include <string.h>

#include "rig_json.h"
#include "report_findings_explain.h"
#include "report_findings_names.h"
#include "report_findings_sarif.h"
#include "report_known_routines.h"

/* ---- SARIF 2.1.0 ----------------------------------------------------------- */

/* The rules, one per kind, in enum order from MODEL_STALE_NOT_CLEANED. */
static const char *const rule_help[MODEL_STALE_KIND_COUNT] = {
    [MODEL_STALE_NOT_CLEANED] = "New code was fetched before dc cvau cleaned it "
                                "to the Point of Unification.",
    [MODEL_STALE_CLEAN_NOT_COMPLETED] = "A clean was issued but no dsb "
                                        "completed it.",
    [MODEL_STALE_CLEAN_NOT_ORDERED] = "Another thread's code was cleaned "
                                      "with nothing ordering the clean after "
                                      "the load that saw it.",
    [MODEL_STALE_INVALIDATED_BEFORE_CLEAN] = "ic ivau was issued before a dsb "
                                             "completed the clean.",
    [MODEL_STALE_INVALIDATE_NOT_COMPLETED] = "An invalidate was issued but no "
                                             "dsb completed it.",
    [MODEL_STALE_NOT_INVALIDATED_IN_GEOMETRY] =
        "The fetching core's I-cache line holding the code was never "
        "invalidated (a stride larger than its line).",
    [MODEL_STALE_NONEXEC_ALIAS] = "The invalidate went through a "
                                  "non-executable alias of VIPT-cached code.",
    [MODEL_STALE_OTHER_EXEC_VIEW] = "The invalidate went through another "
                                    "executable view of VIPT-cached code.",
    [MODEL_STALE_NOT_SYNCHRONISED] = "The fetching thread's pipeline was not "
                                     "synchronised after the maintenance.",
    [MODEL_STALE_KERNEL_SYNC_ASSUMED] = "The code was made coherent only by the Linux "
                                        "kernel's sync of a page first mapped executable, "
                                        "which macOS, Windows and the BSDs do not do.",
};

#define SARIF_ROOT_ID "SRCROOT"

/* An artifactLocation for PATH: relative to the SARIF root (uriBaseId
 * SRCROOT) when under it, else an absolute file:// URI, else as given. */
static JsonObject *sarif_artifact(const struct report_findings *f, const char *path)
{
  JsonObject *artifact = json_object_new();
  size_t n = f->sarif_root ? strlen(f->sarif_root) : 0;
  if (n && strncmp(path, f->sarif_root, n) == 0 && path[n] == '/') {
    json_object_set_string_member(artifact, "uri", path + n + 1);
    json_object_set_string_member(artifact, "uriBaseId", SARIF_ROOT_ID);
  } else if (g_path_is_absolute(path)) {
    char *uri = g_filename_to_uri(path, NULL, NULL);
    json_object_set_string_member(artifact, "uri", uri ? uri : path);
    g_free(uri);
  } else {
    json_object_set_string_member(artifact, "uri", path);
  }
  return artifact;
}

/* "file:line" -> a physicalLocation with a line region; NULL without one. */
static JsonObject *sarif_source(const struct report_findings *f,
                                const struct report_frame_names *fr)
{
  const char *colon = fr->location ? strrchr(fr->location, ':') : NULL;
  if (!colon || !colon[1]) {
    return NULL;
  }
  char *file = g_strndup(fr->location, (gsize)(colon - fr->location));
  JsonObject *region = json_object_new();
  json_object_set_int_member(region, "startLine", g_ascii_strtoll(colon + 1, NULL, 10));
  JsonObject *physical = json_object_new();
  json_object_set_object_member(physical, "artifactLocation", sarif_artifact(f, file));
  json_object_set_object_member(physical, "region", region);
  g_free(file);
  return physical;
}

/* The mapped object and the instruction's offset in it (SARIF 3.30.12
 * byteOffset): where a frame has no source line, the binary still does. */
static JsonObject *sarif_binary(const struct report_findings *f,
                                const struct report_frame_names *fr)
{
  if (!fr->module) {
    return NULL;
  }
  JsonObject *region = json_object_new();
  json_object_set_int_member(region, "byteOffset", (gint64)fr->offset);
  json_object_set_int_member(region, "byteLength", 4);
  JsonObject *physical = json_object_new();
  json_object_set_object_member(physical, "artifactLocation", sarif_artifact(f, fr->module));
  json_object_set_object_member(physical, "region", region);
  return physical;
}

/* The frames a result can be placed at, best first: the flush routine's
 * caller (the code a JIT author changes; the routine is often a library's),
 * the routine, or with no maintenance the store. */
static size_t sarif_frames(const struct report_findings *f, const struct finding *fd,
                           const struct report_frame_names *out[2])
{
  size_t n = 0;
  if (fd->key.flush_pc) {
    const struct caller *top =
        fd->callers->len ? &g_array_index(fd->callers, struct caller, 0) : NULL;
    if (top && top->at) {
      out[n++] = report_findings_frame_of(f, report_findings_call_site_of(top->at));
    }
    out[n++] = report_findings_frame_of(f, fd->key.flush_pc);
  } else {
    out[n++] = report_findings_frame_of(f, fd->writer_pc);
  }
  return n;
}

static JsonObject *sarif_location(const struct report_findings *f, const struct finding *fd)
{
  const struct report_frame_names *frames[2];
  size_t n = sarif_frames(f, fd, frames);
  JsonObject *physical = NULL;
  for (size_t i = 0; i < n && !physical; i++) {
    physical = sarif_source(f, frames[i]);
  }
  for (size_t i = 0; i < n && !physical; i++) {
    physical = sarif_binary(f, frames[i]);
  }
  const char *name = NULL;
  for (size_t i = 0; i < n && !name; i++) {
    name = frames[i]->symbol;
  }
  JsonObject *loc = json_object_new();
  if (physical) {
    json_object_set_object_member(loc, "physicalLocation", physical);
  }
  if (name || !physical) {
    JsonObject *logical = json_object_new();
    json_object_set_string_member(logical, "fullyQualifiedName", name ? name : "(no symbol)");
    JsonArray *logicals = json_array_new();
    json_array_add_object_element(logicals, logical);
    json_object_set_array_member(loc, "logicalLocations", logicals);
  }
  return loc;
}

/* What names PC's code across runs: the object's file name and the raw
 * symbol, else the offset in the object; generated code has no stable
 * name. Never the address, which ASLR and the seed move. */
static void append_identity(GString *out, const struct report_findings *f, uint64_t pc)
{
  const struct report_frame_names *fr = report_findings_frame_of(f, pc);
  const char *base = fr->module ? strrchr(fr->module, '/') : NULL;
  base = base ? base + 1 : fr->module;
  if (fr->raw_symbol || fr->symbol) {
    g_string_append_printf(out, "%s:%s", base ? base : "",
                           fr->raw_symbol ? fr->raw_symbol : fr->symbol);
  } else if (base) {
    g_string_append_printf(out, "%s+0x%" PRIx64, base, fr->offset);
  } else {
    g_string_append(out, "generated-code");
  }
}

/* SARIF 3.27.17 partialFingerprints: the root cause (kind, stride, the
 * flush routine or without one the store), hashed. */
static char *fingerprint(const struct report_findings *f, const struct finding *fd)
{
  GString *key = g_string_new(model_stale_kind_name(fd->key.kind));
  g_string_append_printf(key, "|%u|", fd->key.stride);
  append_identity(key, f, fd->key.flush_pc ? fd->key.flush_pc : fd->writer_pc);
  char *hex = g_compute_checksum_for_string(G_CHECKSUM_SHA256, key->str, (gssize)key->len);
  g_string_free(key, true);
  hex[32] = '\0';
  return hex;
}

static JsonArray *sarif_rules(void)
{
  JsonArray *rules = json_array_new();
  for (int k = MODEL_STALE_NOT_CLEANED; k < MODEL_STALE_KIND_COUNT; k++) {
    JsonObject *rule = json_object_new();
    json_object_set_string_member(rule, "id", model_stale_kind_name(k));
    JsonObject *text = json_object_new();
    json_object_set_string_member(text, "text", rule_help[k]);
    json_object_set_object_member(rule, "shortDescription", text);
    JsonObject *config = json_object_new();
    json_object_set_string_member(config, "level", "error");
    json_object_set_object_member(rule, "defaultConfiguration", config);
    json_array_add_object_element(rules, rule);
  }
  return rules;
}

#define SARIF_FINGERPRINT "jitflushRootCause/v1"

static JsonObject *sarif_result(const struct report_findings *f, const struct finding *fd)
{
  JsonObject *r = json_object_new();
  json_object_set_string_member(r, "ruleId", model_stale_kind_name(fd->key.kind));
  json_object_set_int_member(r, "ruleIndex", fd->key.kind - MODEL_STALE_NOT_CLEANED);
  json_object_set_string_member(r, "level", "error");
  JsonObject *text = json_object_new();
  char *msg = report_findings_explain(f, fd);
  json_object_set_string_member(text, "text", msg);
  g_free(msg);
  json_object_set_object_member(r, "message", text);
  JsonArray *locations = json_array_new();
  json_array_add_object_element(locations, sarif_location(f, fd));
  json_object_set_array_member(r, "locations", locations);
  JsonObject *prints = json_object_new();
  char *print = fingerprint(f, fd);
  json_object_set_string_member(prints, SARIF_FINGERPRINT, print);
  g_free(print);
  json_object_set_object_member(r, "partialFingerprints", prints);
  JsonObject *props = json_object_new();
  json_object_set_int_member(props, "count", (gint64)fd->count);
  json_object_set_int_member(props, "words", g_hash_table_size(fd->words));
  json_object_set_int_member(props, "line", fd->line);
  json_object_set_int_member(props, "stride", fd->key.stride);
  const struct report_known_routine *known =
      fd->key.flush_pc ? report_findings_frame_of(f, fd->key.flush_pc)->routine : NULL;
  if (known) {
    const char *source;
    char *by = report_findings_compiler(report_findings_frame_of(f, fd->key.flush_pc), &source);
    json_object_set_string_member(props, "flushRoutine", known->name);
    json_object_set_string_member(props, "flushRoutineBuild", by ? by : "unknown compiler");
    json_object_set_string_member(props, "flushRoutineFingerprint", known->fingerprint);
    g_free(by);
  }
  struct report_module_origin origin;
  if (report_findings_flush_origin(f, fd, &origin)) {
    json_object_set_string_member(props, "flushModuleOrigin", report_module_kind_name(origin.kind));
    report_module_origin_clear(&origin);
  }
  unsigned same = report_findings_same_cause(f, fd);
  if (same) {
    /* The number of the result (from 1) of the same root cause. */
    json_object_set_int_member(props, "sameCauseAs", same);
  }
  json_object_set_object_member(r, "properties", props);
  return r;
}

GString *report_findings_sarif(const struct report_findings *f)
{
  JsonObject *driver = json_object_new();
  json_object_set_string_member(driver, "name", "jitflush-emu");
  json_object_set_array_member(driver, "rules", sarif_rules());
  JsonObject *tool = json_object_new();
  json_object_set_object_member(tool, "driver", driver);
  JsonObject *run = json_object_new();
  json_object_set_object_member(run, "tool", tool);
  if (f->sarif_root) {
    /* SARIF 3.14.14: what SRCROOT stands for; code scanning resolves it
     * against the checkout. */
    char *uri = g_filename_to_uri(f->sarif_root, NULL, NULL);
    char *dir = g_str_has_suffix(uri ? uri : "/", "/") ? g_strdup(uri ? uri : f->sarif_root)
                                                       : g_strconcat(uri, "/", NULL);
    JsonObject *root = json_object_new();
    json_object_set_string_member(root, "uri", dir);
    JsonObject *bases = json_object_new();
    json_object_set_object_member(bases, SARIF_ROOT_ID, root);
    json_object_set_object_member(run, "originalUriBaseIds", bases);
    g_free(dir);
    g_free(uri);
  }
  if (f->reproduce) {
    /* SARIF 2.1.0 section 3.20.2, invocation.commandLine. */
    JsonObject *invocation = json_object_new();
    json_object_set_string_member(invocation, "commandLine", f->reproduce);
    json_object_set_boolean_member(invocation, "executionSuccessful", true);
    JsonArray *invocations = json_array_new();
    json_array_add_object_element(invocations, invocation);
    json_object_set_array_member(run, "invocations", invocations);
  }
  json_object_set_array_member(run, "results", report_findings_each(f, sarif_result));
  JsonArray *runs = json_array_new();
  json_array_add_object_element(runs, run);
  JsonObject *log = json_object_new();
  json_object_set_string_member(log, "version", "2.1.0");
  json_object_set_string_member(log, "$schema",
                                "https://docs.oasis-open.org/sarif/sarif/v2.1.0/"
                                "errata01/os/schemas/sarif-schema-2.1.0.json");
  json_object_set_array_member(log, "runs", runs);
  return rig_json_write_object(log);
}
