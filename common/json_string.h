/*
 * A C string as a JSON string (RFC 8259, section 7), written through a
 * caller's sink. The library itself writes no JSON: this is here because the
 * library is the one layer that both jitflush-info (cli) and the rig
 * (rig) build on, and both compile common/json_string.c in, as a shared
 * libjitflush exports only the jitflush_* API. A sink, not a FILE or a
 * buffer, because one writes to a stream and the other to a GString.
 */
#ifndef JITFLUSH_INTERNAL_JSON_STRING_H
#define JITFLUSH_INTERNAL_JSON_STRING_H

#include <stddef.h>

/* Receives LEN bytes at BYTES (not NUL-terminated) for SINK. */
typedef void jf_json_put(void *sink, const char *bytes, size_t len);

/* Puts TEXT to SINK in double quotes, with '"' and '\\' escaped by a
 * backslash and the control characters below 0x20 as \u00XX (lower-case
 * hex). Every other byte is copied as it is: a caller whose text may not be
 * UTF-8 makes it valid first. */
void jf_json_string(const char *text, jf_json_put *put, void *sink);

#endif /* JITFLUSH_INTERNAL_JSON_STRING_H */
