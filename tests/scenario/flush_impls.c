#include "flush_impls.h"

#include <string.h>

const struct sc_impl sc_impls[] = {
#define SC_IMPL(name, function, safe) {name, function},
#include "flush_impls.def"
#undef SC_IMPL
};
const unsigned sc_nimpls = sizeof sc_impls / sizeof sc_impls[0];

const struct sc_impl *sc_find_impl(const char *name)
{
  for (unsigned i = 0; i < sc_nimpls; i++)
    if (strcmp(sc_impls[i].name, name) == 0)
      return &sc_impls[i];
  return NULL;
}
