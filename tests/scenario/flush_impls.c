#include "flush_impls.h"

#include <string.h>

const struct sc_impl sc_impls[] = {
    {"jitflush", sc_flush_jitflush},
    {"libgcc", sc_flush_libgcc},
    {"cached-first", sc_flush_cached_first},
    {"per-call", sc_flush_per_call},
    {"running-min", sc_flush_running_min},
    {"fixed-4", sc_flush_fixed_4},
    {"fixed-64-no-dc", sc_flush_fixed_64_no_dc},
};
const unsigned sc_nimpls = sizeof sc_impls / sizeof sc_impls[0];

const struct sc_impl *sc_find_impl(const char *name)
{
  for (unsigned i = 0; i < sc_nimpls; i++)
    if (strcmp(sc_impls[i].name, name) == 0)
      return &sc_impls[i];
  return NULL;
}
