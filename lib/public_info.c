/* The public struct jitflush_info made from the internal view, and the
 * names of its sources. */
#include <string.h>

#include "view.h"

void jf_public_info(const struct jf_view *view, struct jitflush_info *out)
{
  const struct jf_global *g = &view->global;
#define JF_COPY(field) out->field = g->field;
  JF_GLOBAL_EXPORTED(JF_COPY)
#undef JF_COPY
  out->ncpus_possible = view->ncpus_possible;
  out->truncated = view->ncpus > JITFLUSH_MAX_CPUS;
  out->ncpus = out->truncated ? JITFLUSH_MAX_CPUS : view->ncpus;
  memcpy(out->cpus, view->cpus, out->ncpus * sizeof out->cpus[0]);
}

const char *jitflush_source_name(enum jitflush_source source)
{
  /* In the enum's order (include/jitflush.h). */
  static const char *const names[] = {"none",  "ctr_el0",  "sysfs",  "midr_table",
                                      "floor", "platform", "cluster"};
  _Static_assert(sizeof names / sizeof names[0] == JITFLUSH_SRC_CLUSTER + 1, "one name per source");
  return (unsigned)source < sizeof names / sizeof names[0] ? names[source] : "none";
}
