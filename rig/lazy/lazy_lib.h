/*
 * Libraries the rig loads when it first needs them, not when it starts
 * (docs/BENCHMARKS.md, "Start-up"). A test suite starts one rig per test,
 * and most runs never write a JSON report, never name a guest frame and
 * never decode a system instruction with Capstone; yet linking json-glib
 * (with GIO, GObject, libmount, libselinux and libblkid behind it), libdw
 * and the others made
 * every QEMU start map and bind them all (QEMU opens the plugin with
 * RTLD_NOW: every symbol of every dependency is bound at load).
 *
 * A lazy unit (lazy_json_glib.c, lazy_libdw.c, lazy_capstone.c) defines
 * the library's functions the rig calls, with the library header's own
 * prototypes, so the code that calls them is unchanged and the compiler
 * checks every signature. The first call of any of them loads the library
 * and resolves the whole list at once; a library that cannot be loaded, or
 * lacks a function, ends the process with one line naming the library,
 * what the rig needed it for and the loader's reason.
 */
#ifndef JITFLUSH_EMU_LAZY_LIB_H
#define JITFLUSH_EMU_LAZY_LIB_H

#include <stddef.h>

#include <glib.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A function of the library, as resolved: called through a cast to its
 * own type (C allows a cast between function pointer types). */
typedef void (*lazy_fn)(void);

struct lazy_lib {
  const char *soname;       /* "libjson-glib-1.0.so.0" */
  const char *purpose;      /* "to write the JSON report and SARIF log" */
  const char *const *names; /* the functions, NULL-terminated */
  lazy_fn *fns;             /* one per name, filled at the first call */
  gsize loaded;             /* g_once_init_enter's guard */
};

/* Loads LIB and resolves its functions, once per process (a forked child
 * inherits what its parent loaded); later calls return at once. Exits
 * with status 127, as the dynamic loader does for a missing library, when
 * it cannot. */
void lazy_load(struct lazy_lib *lib);

/*
 * A lazy unit is its list and one LAZY_LIBRARY line: LIST(FN, VOID_FN)
 * names each function, FN(ret, name, (params), (args)) one returning RET,
 * VOID_FN(name, (params), (args)) one returning nothing. The line defines
 * the unit's table (one per unit: its own translation unit's statics) and
 * a wrapper per function that loads the library and calls it.
 */
#define LAZY_LIBRARY(soname, purpose, LIST)                                                        \
  enum { LIST(LAZY_INDEX, LAZY_INDEX_VOID) LAZY_COUNT };                                           \
  static const char *const lazy_names[] = {LIST(LAZY_NAME, LAZY_NAME_VOID) NULL};                  \
  static lazy_fn lazy_fns[LAZY_COUNT];                                                             \
  static struct lazy_lib lazy_this = {soname, purpose, lazy_names, lazy_fns, 0};                   \
  LIST(LAZY_WRAP, LAZY_WRAP_VOID)

#define LAZY_INDEX(ret, name, params, args) LAZY_AT_##name,
#define LAZY_INDEX_VOID(name, params, args) LAZY_AT_##name,
#define LAZY_NAME(ret, name, params, args) #name,
#define LAZY_NAME_VOID(name, params, args) #name,
#define LAZY_WRAP(ret, name, params, args)                                                         \
  ret name params                                                                                  \
  {                                                                                                \
    lazy_load(&lazy_this);                                                                         \
    return ((ret(*) params)lazy_this.fns[LAZY_AT_##name])args;                                     \
  }
#define LAZY_WRAP_VOID(name, params, args)                                                         \
  void name params                                                                                 \
  {                                                                                                \
    lazy_load(&lazy_this);                                                                         \
    ((void(*) params)lazy_this.fns[LAZY_AT_##name]) args;                                          \
  }

#ifdef __cplusplus
}
#endif

#endif /* JITFLUSH_EMU_LAZY_LIB_H */
