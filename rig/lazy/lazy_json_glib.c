/*
 * json-glib, loaded when the rig first builds or reads a JSON document
 * (lazy_lib.h): the plugin's report, SARIF log and a forked process's
 * record; the runner's merge of those records. A run that asks for no
 * report loads none of it. The documents are still built as json-glib
 * trees and written by the one writer, rig_json.c.
 *
 * The list is every json-glib function the plugin and the runner call;
 * ctest -R emu.LazyLibraries fails when one is called that the list lacks
 * (the plugin would then not load at all).
 */
#include <json-glib/json-glib.h>

#include "lazy_lib.h"

#define JSON_GLIB_FUNCTIONS(FN, VOID_FN)                                                           \
  VOID_FN(json_array_add_element, (JsonArray * a, JsonNode * n), (a, n))                           \
  VOID_FN(json_array_add_object_element, (JsonArray * a, JsonObject * o), (a, o))                  \
  VOID_FN(json_array_add_string_element, (JsonArray * a, const gchar *s), (a, s))                  \
  FN(JsonNode *, json_array_get_element, (JsonArray * a, guint i), (a, i))                         \
  FN(guint, json_array_get_length, (JsonArray * a), (a))                                           \
  FN(JsonObject *, json_array_get_object_element, (JsonArray * a, guint i), (a, i))                \
  FN(JsonArray *, json_array_new, (void), ())                                                      \
  FN(JsonNode *, json_node_copy, (JsonNode * n), (n))                                              \
  FN(JsonArray *, json_node_get_array, (JsonNode * n), (n))                                        \
  FN(gboolean, json_node_get_boolean, (JsonNode * n), (n))                                         \
  FN(gdouble, json_node_get_double, (JsonNode * n), (n))                                           \
  FN(gint64, json_node_get_int, (JsonNode * n), (n))                                               \
  FN(JsonNodeType, json_node_get_node_type, (JsonNode * n), (n))                                   \
  FN(JsonObject *, json_node_get_object, (JsonNode * n), (n))                                      \
  FN(const gchar *, json_node_get_string, (JsonNode * n), (n))                                     \
  FN(GType, json_node_get_value_type, (JsonNode * n), (n))                                         \
  FN(JsonNode *, json_node_new, (JsonNodeType t), (t))                                             \
  VOID_FN(json_node_set_string, (JsonNode * n, const gchar *v), (n, v))                            \
  VOID_FN(json_node_take_object, (JsonNode * n, JsonObject * o), (n, o))                           \
  VOID_FN(json_node_unref, (JsonNode * n), (n))                                                    \
  FN(JsonArray *, json_object_get_array_member, (JsonObject * o, const gchar *m), (o, m))          \
  FN(gint64, json_object_get_int_member, (JsonObject * o, const gchar *m), (o, m))                 \
  FN(gint64, json_object_get_int_member_with_default, (JsonObject * o, const char *m, gint64 d),   \
     (o, m, d))                                                                                    \
  FN(JsonNode *, json_object_get_member, (JsonObject * o, const gchar *m), (o, m))                 \
  FN(GList *, json_object_get_members, (JsonObject * o), (o))                                      \
  FN(JsonObject *, json_object_get_object_member, (JsonObject * o, const gchar *m), (o, m))        \
  FN(const gchar *, json_object_get_string_member_with_default,                                    \
     (JsonObject * o, const gchar *m, const gchar *d), (o, m, d))                                  \
  FN(gboolean, json_object_has_member, (JsonObject * o, const gchar *m), (o, m))                   \
  FN(JsonObject *, json_object_new, (void), ())                                                    \
  FN(JsonObject *, json_object_ref, (JsonObject * o), (o))                                         \
  VOID_FN(json_object_set_array_member, (JsonObject * o, const gchar *m, JsonArray *v), (o, m, v)) \
  VOID_FN(json_object_set_boolean_member, (JsonObject * o, const gchar *m, gboolean v), (o, m, v)) \
  VOID_FN(json_object_set_int_member, (JsonObject * o, const gchar *m, gint64 v), (o, m, v))       \
  VOID_FN(json_object_set_member, (JsonObject * o, const gchar *m, JsonNode *v), (o, m, v))        \
  VOID_FN(json_object_set_null_member, (JsonObject * o, const gchar *m), (o, m))                   \
  VOID_FN(json_object_set_object_member, (JsonObject * o, const gchar *m, JsonObject *v),          \
          (o, m, v))                                                                               \
  VOID_FN(json_object_set_string_member, (JsonObject * o, const gchar *m, const gchar *v),         \
          (o, m, v))                                                                               \
  VOID_FN(json_object_unref, (JsonObject * o), (o))                                                \
  FN(JsonNode *, json_parser_get_root, (JsonParser * p), (p))                                      \
  FN(gboolean, json_parser_load_from_file, (JsonParser * p, const gchar *f, GError **e),           \
     (p, f, e))                                                                                    \
  FN(JsonParser *, json_parser_new, (void), ())                                                    \
  /* A parser is a GObject; GObject comes with json-glib. */                                       \
  VOID_FN(g_object_unref, (gpointer o), (o))

LAZY_LIBRARY("libjson-glib-1.0.so.0",
             "to write or read the rig's JSON documents (report, SARIF, a process's record)",
             JSON_GLIB_FUNCTIONS)
