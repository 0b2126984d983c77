#include "flush_impls.h"

#include <string.h>

const struct sc_impl sc_impls[] = {
#define SC_IMPL(name, function, safe) {name, function},
#include "flush_impls.def"
#undef SC_IMPL
};
const unsigned sc_nimpls = sizeof sc_impls / sizeof sc_impls[0];

const struct sc_impl *sc_impl_option(const char *program, const char *name,
                                     void (*usage)(FILE *out))
{
  for (unsigned i = 0; i < sc_nimpls; i++)
    if (strcmp(sc_impls[i].name, name) == 0)
      return &sc_impls[i];
  fprintf(stderr, "%s: --impl: unknown routine '%s'\n", program, name);
  usage(stderr);
  return NULL;
}

void sc_print_impl_usage(FILE *out)
{
  fprintf(out, "  --impl=NAME         flush routine (default %s):", sc_impls[0].name);
  for (unsigned i = 0; i < sc_nimpls; i++)
    fprintf(out, " %s", sc_impls[i].name);
  fputc('\n', out);
}
