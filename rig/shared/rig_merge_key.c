/*
 * Which findings of different processes, or of a run and its rerun, are
 * one root cause.
 *
 * Within a process, report_findings.c groups stale fetches by kind, flush site
 * (the maintenance instruction and the caller of its routine), and the
 * line size missed; without a flush, by the store that wrote the words
 * (docs/FINDINGS.md, "How stale fetches are grouped"). Across processes
 * the addresses mean nothing: the same libpcre2-8.a linked into
 * pcre2_jit_test and into pcre2test puts sljit_generate_code at two
 * addresses, and a shared object moves with the load address. Its symbol,
 * function+0xoffset, stays the same in both, so the key uses the symbol of
 * each frame and falls back to the address only when there is none (code
 * without symbols, where two programs then stay apart).
 *
 * This is the only place the merge (report/report_merge.c) and a rerun's check
 * (runner/runner_rerun.c) decide sameness, so that if the findings gain a
 * fingerprint of their own, this function alone reads it.
 */
#include <glib.h>

#include "rig_merge_key.h"

/* A frame's stable name: its symbol, else "pc:ADDRESS"; "-" for null. */
static void append_frame(GString *key, JsonObject *parent, const char *member)
{
  JsonNode *node = parent ? json_object_get_member(parent, member) : NULL;
  if (!node || !JSON_NODE_HOLDS_OBJECT(node)) {
    g_string_append(key, "|-");
    return;
  }
  JsonObject *frame = json_node_get_object(node);
  const char *symbol = json_object_get_string_member_with_default(frame, "symbol", NULL);
  const char *pc = json_object_get_string_member_with_default(frame, "pc", "?");
  if (symbol) {
    g_string_append_printf(key, "|%s", symbol);
  } else {
    g_string_append_printf(key, "|pc:%s", pc);
  }
}

char *rig_merge_key(JsonObject *finding)
{
  GString *key = g_string_new(json_object_get_string_member_with_default(finding, "kind", "?"));
  g_string_append_printf(key, "|line=%" G_GINT64_FORMAT,
                         json_object_get_int_member_with_default(finding, "line", 0));
  JsonNode *flush = json_object_get_member(finding, "flush");
  if (flush && JSON_NODE_HOLDS_OBJECT(flush)) {
    g_string_append(key, "|flush");
    append_frame(key, finding, "flush");
    append_frame(key, json_node_get_object(flush), "caller");
  } else {
    g_string_append(key, "|writer");
    append_frame(key, finding, "writer");
  }
  return g_string_free(key, FALSE);
}
