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

enum { DEMANGLE_FUNCTIONS(JF_LAZY_INDEX, JF_LAZY_INDEX_VOID) DEMANGLE_COUNT };

static const char *const demangle_names[] = {DEMANGLE_FUNCTIONS(JF_LAZY_NAME, JF_LAZY_NAME_VOID)
                                                 NULL};

static jf_lazy_fn demangle_fns[DEMANGLE_COUNT];

static struct jf_lazy_lib libstdcxx = {
    .soname = "libstdc++.so.6",
    .purpose = "to demangle a C++ function's name in a finding",
    .names = demangle_names,
    .fns = demangle_fns,
};

#define DEMANGLE_WRAP(ret, name, params, args) JF_LAZY_WRAP(libstdcxx, ret, name, params, args)
#define DEMANGLE_WRAP_VOID(name, params, args) JF_LAZY_WRAP_VOID(libstdcxx, name, params, args)
DEMANGLE_FUNCTIONS(DEMANGLE_WRAP, DEMANGLE_WRAP_VOID)
