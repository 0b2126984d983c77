/* C++ and Rust names demangled (report_demangle.h). */
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include <libiberty/demangle.h>

#include "report_demangle.h"

char *report_demangle(const char *name)
{
  /* Only "_Z" (Itanium C++, Rust legacy) and "_R" (Rust v0) names are
   * mangled; without DMGL_TYPES the demangler leaves a plain type name such
   * as "i" (int) alone, but the prefix check also keeps C names that merely
   * look like another language's manglings (Java, D) as they are. */
  if (!name || (strncmp(name, "_Z", 2) != 0 && strncmp(name, "_R", 2) != 0)) {
    return NULL;
  }
  /* DMGL_PARAMS: C++ parameter lists, so that overloads stay apart.
   * DMGL_ANSI: const and volatile qualifiers. No DMGL_VERBOSE: that would
   * keep Rust's hashes and disambiguators. The style is automatic, which
   * tells Rust legacy names from C++ ones by their hash suffix. */
  char *plain = cplus_demangle(name, DMGL_PARAMS | DMGL_ANSI);
  if (!plain) {
    return NULL;
  }
  char *out = g_strdup(plain);
  free(plain);
  return out;
}
