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

/* The fields of struct jf_global that struct jitflush_info shows under the
 * same names (jf_public_info copies them). */
// clang-format off
#define JF_GLOBAL_EXPORTED(X) \
  X(iline) \
  X(dline) \
  X(idc) \
  X(dic) \
  X(iline_source) \
  X(dline_source) \
  X(complete) \
  X(heterogeneous) \
  X(per_call_guard) \
  X(online_check) \
  X(use_dc_civac) \
  X(status)
// clang-format on

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
  bool online_check; /* some CPU's lines are JITFLUSH_SRC_CLUSTER */
  bool use_dc_civac;
  int status;
};

/* Distinct kernel groupings (jf_sysfs_read_domain) the probe recorded. */
#define JF_MAX_DOMAINS 64

struct jf_view {
  bool possible_known;     /* the kernel told us which CPUs are possible */
  bool probe_ran;          /* the helper thread ran */
  unsigned ncpus_possible; /* may exceed JF_MAX_CPUS only in theory */
  unsigned ncpus;          /* records in cpus[], ascending by cpu number */
  struct jitflush_cpu_info cpus[JF_MAX_CPUS];
  /* Raw grouping facts, read only when some possible CPU is offline and
   * unobserved: domain_of[i] is 1 + the index in domains[] of the grouping
   * the kernel gives for record i (an observed CPU), 0 when none. When more
   * than JF_MAX_DOMAINS distinct groupings appear, domains_overflow is set
   * and nothing is inferred (a missing grouping could hide a core of
   * another type). */
  unsigned ndomains;
  bool domains_overflow;
  struct jf_cpuset domains[JF_MAX_DOMAINS];
  unsigned char domain_of[JF_MAX_CPUS];
  struct jf_global global;
};

/* Raw facts: fills every record except the chosen lines. Returns
 * JITFLUSH_ERR_PROBE when the helper thread could not run, else 0. */
int jf_probe(struct jf_view *view);

/* Records GROUP as the grouping of record INDEX (see domain_of). */
void jf_view_set_domain(struct jf_view *view, unsigned index, const struct jf_cpuset *group);

/* Chooses each CPU's lines and the global values from the raw facts. */
void jf_policy_apply(struct jf_view *view);

/* Copies a view into the public struct (truncating at JITFLUSH_MAX_CPUS). */
void jf_public_info(const struct jf_view *view, struct jitflush_info *out);

#endif
