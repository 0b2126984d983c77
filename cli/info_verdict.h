/*
 * The verdict: what the per-CPU facts mean for someone who flushes JIT code
 * on this machine. Pure: computed from struct jitflush_info alone, so the
 * tests can hand it synthetic machines.
 */
#ifndef JITFLUSH_INFO_VERDICT_H
#define JITFLUSH_INFO_VERDICT_H

#include <stdbool.h>

#include "jitflush.h"

enum jfi_kind {
  JFI_HOMOGENEOUS,   /* every possible CPU seen, all report the same geometry */
  JFI_HETEROGENEOUS, /* every CPU seen, and the cores differ (visibly, or
                        behind a kernel that sanitises CTR_EL0) */
  JFI_INCOMPLETE,    /* some possible CPUs could not be seen */
  JFI_PLATFORM,      /* the platform flushes by itself (x86, macOS, Windows) */
};

enum jfi_safety { JFI_SAFE, JFI_UNSAFE, JFI_UNKNOWN };

/* One well-known way of choosing the stride, judged for this machine. */
struct jfi_strategy {
  const char *key;  /* stable JSON name */
  const char *name; /* the strategy and who does it (info_strategies.def) */
  enum jfi_safety safety;
  char why[512];
};

enum {
#define JFI_STRATEGY(id, key, cls, what, who) JFI_STRATEGY_##id,
#include "info_strategies.def"
#undef JFI_STRATEGY
  JFI_NSTRATEGIES
};

struct jfi_verdict {
  enum jfi_kind kind;
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
  struct jfi_strategy strategies[JFI_NSTRATEGIES];
};

void jfi_verdict_compute(const struct jitflush_info *info, struct jfi_verdict *out);

const char *jfi_kind_name(enum jfi_kind kind);
const char *jfi_safety_name(enum jfi_safety safety);

#endif
