/* Loading a library at its first use (lazy_lib.h). */
#include "lazy_lib.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static void fail(const struct lazy_lib *lib, const char *reason)
{
  fprintf(stderr, "jitflush: cannot load %s, which the rig needs %s: %s\n", lib->soname,
          lib->purpose, reason);
  fflush(stderr);
  /* _exit: the process is QEMU or the runner in the middle of its exit
   * path; running the exit handlers again would only come back here. */
  _exit(127);
}

void lazy_load(struct lazy_lib *lib)
{
  if (!g_once_init_enter(&lib->loaded)) {
    return;
  }
  /* RTLD_LOCAL: the library's symbols stay out of the global scope, so
   * that they never take the place of the wrappers' (the runner's) or of
   * another plugin's. RTLD_LAZY: json-glib brings GIO, whose thousands of
   * functions the rig never calls; each function the list names is checked
   * below, the library's own calls bind as they are made. */
  void *handle = dlopen(lib->soname, RTLD_LAZY | RTLD_LOCAL);
  if (!handle) {
    fail(lib, dlerror());
  }
  for (size_t i = 0; lib->names[i]; i++) {
    dlerror();
    void *sym = dlsym(handle, lib->names[i]);
    if (!sym) {
      const char *why = dlerror();
      fail(lib, why ? why : lib->names[i]);
    }
    /* dlsym returns functions as data pointers (POSIX requires them to
     * convert); memcpy keeps ISO C's function and object pointers apart. */
    memcpy(&lib->fns[i], &sym, sizeof sym);
  }
  g_once_init_leave(&lib->loaded, 1);
}
