/* A C string as a JSON string (common/json_string.h). */
#include <string.h>

#include "json_string.h"

void jf_json_string(const char *text, jf_json_put *put, void *sink)
{
  static const char hex[] = "0123456789abcdef";
  put(sink, "\"", 1);
  const char *plain = text; /* the start of the bytes not put yet */
  for (const char *p = text; *p; p++) {
    unsigned char c = (unsigned char)*p;
    if (c != '"' && c != '\\' && c >= 0x20) {
      continue;
    }
    put(sink, plain, (size_t)(p - plain));
    plain = p + 1;
    if (c < 0x20) {
      const char escape[] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 0xf]};
      put(sink, escape, sizeof escape);
    } else {
      const char escape[] = {'\\', (char)c};
      put(sink, escape, sizeof escape);
    }
  }
  put(sink, plain, strlen(plain));
  put(sink, "\"", 1);
}
