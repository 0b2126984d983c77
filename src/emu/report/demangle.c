/* C++ names demangled (demangle.h). */
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "demangle.h"

/* The Itanium C++ ABI's demangler, exported by libstdc++ with C linkage
 * (<cxxabi.h> declares it for C++ only). STATUS is 0 on success. */
extern char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status);

char *emu_demangle(const char *name)
{
  /* Only "_Z" names are mangled; the demangler would also accept plain
   * type names such as "i" (int), which are C function names here. */
  if (!name || strncmp(name, "_Z", 2) != 0) {
    return NULL;
  }
  int status = -1;
  char *plain = __cxa_demangle(name, NULL, NULL, &status);
  if (status != 0 || !plain) {
    free(plain);
    return NULL;
  }
  char *out = g_strdup(plain);
  free(plain);
  return out;
}
