/* The one JSON writer (rig_json.h): RFC 8259 text from a json-glib tree,
 * indented by two spaces, "key": value, arrays of scalars on one line. */
#include "rig_json.h"

#include <inttypes.h>
#include <stdbool.h>

#include "json_string.h"

static void put_gstring(void *sink, const char *bytes, size_t len)
{
  g_string_append_len(sink, bytes, (gssize)len);
}

static void write_string(GString *out, const char *s)
{
  jf_json_string(s, put_gstring, out);
}

static void write_indent(GString *out, unsigned depth)
{
  g_string_append_c(out, '\n');
  for (unsigned i = 0; i < depth; i++) {
    g_string_append(out, "  ");
  }
}

static void write_node(GString *out, JsonNode *node, unsigned depth);

static bool is_container(JsonNode *node)
{
  JsonNodeType t = JSON_NODE_TYPE(node);
  return t == JSON_NODE_OBJECT || t == JSON_NODE_ARRAY;
}

static void write_array(GString *out, JsonArray *array, unsigned depth)
{
  guint n = json_array_get_length(array);
  bool flat = true;
  for (guint i = 0; i < n; i++) {
    flat = flat && !is_container(json_array_get_element(array, i));
  }
  g_string_append_c(out, '[');
  for (guint i = 0; i < n; i++) {
    if (flat) {
      g_string_append(out, i ? ", " : "");
    } else {
      g_string_append(out, i ? "," : "");
      write_indent(out, depth + 1);
    }
    write_node(out, json_array_get_element(array, i), depth + 1);
  }
  if (!flat && n) {
    write_indent(out, depth);
  }
  g_string_append_c(out, ']');
}

static void write_object(GString *out, JsonObject *object, unsigned depth)
{
  /* Members in the order they were set (json-glib keeps it). */
  GList *members = json_object_get_members(object);
  g_string_append_c(out, '{');
  for (GList *m = members; m; m = m->next) {
    g_string_append(out, m != members ? "," : "");
    write_indent(out, depth + 1);
    write_string(out, m->data);
    g_string_append(out, ": ");
    write_node(out, json_object_get_member(object, m->data), depth + 1);
  }
  if (members) {
    write_indent(out, depth);
  }
  g_string_append_c(out, '}');
  g_list_free(members);
}

static void write_node(GString *out, JsonNode *node, unsigned depth)
{
  switch (JSON_NODE_TYPE(node)) {
  case JSON_NODE_OBJECT:
    write_object(out, json_node_get_object(node), depth);
    return;
  case JSON_NODE_ARRAY:
    write_array(out, json_node_get_array(node), depth);
    return;
  case JSON_NODE_NULL:
    g_string_append(out, "null");
    return;
  case JSON_NODE_VALUE:
    break;
  }
  switch (json_node_get_value_type(node)) {
  case G_TYPE_BOOLEAN:
    g_string_append(out, json_node_get_boolean(node) ? "true" : "false");
    break;
  case G_TYPE_INT64:
    g_string_append_printf(out, "%" PRId64, (int64_t)json_node_get_int(node));
    break;
  case G_TYPE_STRING:
    write_string(out, json_node_get_string(node));
    break;
  default:
    /* The rig writes no floating-point values. */
    g_string_append_printf(out, "%.17g", json_node_get_double(node));
    break;
  }
}

GString *rig_json_write_object(JsonObject *object)
{
  GString *out = g_string_new(NULL);
  JsonNode *root = json_node_new(JSON_NODE_OBJECT);
  json_node_take_object(root, object);
  write_node(out, root, 0);
  g_string_append_c(out, '\n');
  json_node_unref(root);
  return out;
}

JsonNode *rig_json_hex(uint64_t value)
{
  char text[24];
  g_snprintf(text, sizeof text, "0x%" PRIx64, value);
  JsonNode *node = json_node_new(JSON_NODE_VALUE);
  json_node_set_string(node, text);
  return node;
}

void rig_json_set_hex(JsonObject *object, const char *key, uint64_t value)
{
  json_object_set_member(object, key, rig_json_hex(value));
}

void rig_json_set_int_or_null(JsonObject *object, const char *key, bool have, gint64 value)
{
  if (have) {
    json_object_set_int_member(object, key, value);
  } else {
    json_object_set_null_member(object, key);
  }
}
