/*
 * The verdict: what the per-CPU facts mean for someone who flushes JIT code
 * on this machine. Pure: computed from struct jitflush_info alone, so the
 * tests can hand it synthetic machines.
 */
#ifndef JITFLUSH_INFO_VERDICT_H
#define JITFLUSH_INFO_VERDICT_H

#include <stdbool.h>

#include "jitflush.h"

enum info_kind {
  INFO_HOMOGENEOUS,   /* every possible CPU seen, all report the same geometry */
  INFO_HETEROGENEOUS, /* every CPU seen, and the cores differ (visibly, or
                        behind a kernel that sanitises CTR_EL0) */
  INFO_INCOMPLETE,    /* some possible CPUs could not be seen */
  INFO_PLATFORM,      /* the platform flushes by itself (x86, macOS, Windows) */
};

enum info_safety { INFO_SAFE, INFO_UNSAFE, INFO_UNKNOWN };

/* One well-known way of choosing the stride, judged for this machine. */
struct info_strategy {
  const char *key;  /* stable JSON name */
  const char *name; /* the strategy and who does it (info_strategies.def) */
  enum info_safety safety;
  char why[512];
};

enum {
#define INFO_STRATEGY(id, key, cls, what, who) INFO_STRATEGY_##id,
#include "info_strategies.def"
#undef INFO_STRATEGY
  INFO_NSTRATEGIES
};

struct info_verdict {
  enum info_kind kind;
  bool stride_safe;          /* false: exit status 1 */
  bool lines_differ;         /* the cores' known lines or IDC/DIC disagree */
  bool kernel_sanitises_ctr; /* identical CTR_EL0 reads hiding different cores */
  char sanitise_why[512];    /* the evidence, either way */
  char unseen[256];          /* cpulist of CPUs not observed, "" if none */
  char unseen_offline[256];  /* ... of which offline */
  char unseen_online[256];   /* ... of which online (cpuset, pin refused) */
  char inferred[256];        /* cpulist of CPUs whose lines were inferred from
                                the kernel's cluster facts, "" if none */
  char inferred_why[512];    /* which CPUs, which lines, from which CPU */
  bool possible_unknown;     /* the kernel's list of possible CPUs could not
                                be read: the CPUs listed are only those this
                                process may use, others may exist */
  bool unlisted_incomplete;  /* more possible CPUs than struct jitflush_info
                                holds (truncated) and the view is not
                                complete: the unseen ones may be unlisted */
  char problem[160];         /* why the stride is not safe, "" when it is */
  struct info_strategy strategies[INFO_NSTRATEGIES];
};

void info_verdict_compute(const struct jitflush_info *info, struct info_verdict *out);

const char *info_kind_name(enum info_kind kind);
const char *info_safety_name(enum info_safety safety);

#endif
