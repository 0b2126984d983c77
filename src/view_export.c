/* Copying the internal view into the caller's struct jitflush_info. */
#include <string.h>

#include "internal/view.h"

void jf_view_export(const struct jf_view *view, struct jitflush_info *out)
{
  const struct jf_global *g = &view->global;
  out->iline = g->iline;
  out->dline = g->dline;
  out->idc = g->idc;
  out->dic = g->dic;
  out->iline_source = g->iline_source;
  out->dline_source = g->dline_source;
  out->complete = g->complete;
  out->heterogeneous = g->heterogeneous;
  out->per_call_guard = g->per_call_guard;
  out->online_check = g->online_check;
  out->use_dc_civac = g->use_dc_civac;
  out->status = g->status;
  out->ncpus_possible = view->ncpus_possible;
  out->truncated = view->ncpus > JITFLUSH_MAX_CPUS;
  out->ncpus = out->truncated ? JITFLUSH_MAX_CPUS : view->ncpus;
  memcpy(out->cpus, view->cpus, out->ncpus * sizeof out->cpus[0]);
}

const char *jitflush_source_name(enum jitflush_source source)
{
  switch (source) {
  case JITFLUSH_SRC_CTR_EL0:
    return "ctr_el0";
  case JITFLUSH_SRC_SYSFS:
    return "sysfs";
  case JITFLUSH_SRC_MIDR_TABLE:
    return "midr_table";
  case JITFLUSH_SRC_FLOOR:
    return "floor";
  case JITFLUSH_SRC_PLATFORM:
    return "platform";
  case JITFLUSH_SRC_CLUSTER:
    return "cluster";
  case JITFLUSH_SRC_NONE:
    break;
  }
  return "none";
}
