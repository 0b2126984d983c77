/* JSON string literals (RFC 8259 section 7). */
#include "emu_json.h"

void emu_json_string(GString *out, const char *s)
{
  if (!s) {
    g_string_append(out, "null");
    return;
  }
  g_string_append_c(out, '"');
  for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
    if (*p == '"' || *p == '\\') {
      g_string_append_c(out, '\\');
      g_string_append_c(out, (char)*p);
    } else if (*p < 0x20) {
      g_string_append_printf(out, "\\u%04x", *p);
    } else {
      g_string_append_c(out, (char)*p);
    }
  }
  g_string_append_c(out, '"');
}
