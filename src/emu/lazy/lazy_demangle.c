/*
 * libstdc++'s demangler, loaded when the rig first demangles a C++ name
 * (lazy_lib.h, demangle.h): only a finding in C++ code needs it, and
 * libstdc++ is the largest of the plugin's libraries to bind at load.
 */
#include <stddef.h>

#include "lazy_lib.h"

/* As demangle.c declares it (<cxxabi.h> is C++ only). */
extern char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status);

#define DEMANGLE_FUNCTIONS(FN, VOID_FN)                                                            \
  FN(char *, __cxa_demangle, (const char *m, char *buf, size_t *len, int *status),                 \
     (m, buf, len, status))

JF_LAZY_LIBRARY("libstdc++.so.6", "to demangle a C++ function's name in a finding",
                DEMANGLE_FUNCTIONS)
