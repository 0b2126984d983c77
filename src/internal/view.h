/*
 * What jitflush knows about the machine: one record per possible CPU (the
 * public struct jitflush_cpu_info), filled in two steps. The probe records
 * raw facts (online, observed, ctr_el0, midr, sysfs lines); the policy then
 * chooses each CPU's lines and the global safe values. Splitting them lets
 * the policy be tested on synthetic topologies with no seam at all.
 */
#ifndef JITFLUSH_INTERNAL_VIEW_H
#define JITFLUSH_INTERNAL_VIEW_H

#include <stdbool.h>

#include "jitflush.h"
#include "cpuset.h"

struct jf_global {
  unsigned iline;
  unsigned dline;
  bool idc;
  bool dic;
  enum jitflush_source iline_source;
  enum jitflush_source dline_source;
  bool complete;
  bool heterogeneous;
  bool per_call_guard;
  bool use_dc_civac;
  int status;
};

struct jf_view {
  bool possible_known;     /* the kernel told us which CPUs are possible */
  bool probe_ran;          /* the helper thread ran */
  unsigned ncpus_possible; /* may exceed JF_MAX_CPUS only in theory */
  unsigned ncpus;          /* records in cpus[], ascending by cpu number */
  struct jitflush_cpu_info cpus[JF_MAX_CPUS];
  struct jf_global global;
};

/* Raw facts: fills every record except the chosen lines. Returns
 * JITFLUSH_ERR_PROBE when the helper thread could not run, else 0. */
int jf_probe(struct jf_view *view);

/* Chooses each CPU's lines and the global values from the raw facts. */
void jf_policy_apply(struct jf_view *view);

/* Copies a view into the public struct (truncating at JITFLUSH_MAX_CPUS). */
void jf_view_export(const struct jf_view *view, struct jitflush_info *out);

#endif
