/*
 * The rig's JSON documents (the plugin's report, the findings, SARIF) are
 * built as json-glib trees, the data model, and written by one writer.
 */
#ifndef JITFLUSH_EMU_JSON_H
#define JITFLUSH_EMU_JSON_H

#include <stdbool.h>
#include <stdint.h>

#include <glib.h>
#include <json-glib/json-glib.h>

#ifdef __cplusplus
extern "C" {
#endif

/* OBJECT as indented JSON text with a final newline; takes ownership of
 * OBJECT. */
GString *rig_json_write_object(JsonObject *object);

/* An address or register value: "0x..." (JSON numbers lose precision past
 * 2^53 in most readers). */
JsonNode *rig_json_hex(uint64_t value);
void rig_json_set_hex(JsonObject *object, const char *key, uint64_t value);

/* KEY: VALUE when HAVE, else null (the report's optional numbers). */
void rig_json_set_int_or_null(JsonObject *object, const char *key, bool have, gint64 value);

#ifdef __cplusplus
}
#endif

#endif /* JITFLUSH_EMU_JSON_H */
