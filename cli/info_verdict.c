/*
 * The verdict. Each common flush strategy (info_strategies.def) is judged
 * against the facts the library gathered. Who uses which strategy, and the
 * file and version each was read in, is the sources table of
 * docs/BACKGROUND.md#sources:
 *
 * - first-core caching (libgcc and compiler-rt __clear_cache): CTR_EL0 read
 *   once and kept in a static, so the first caller's core sets the stride;
 * - per-call reads (V8, Valgrind, the clear-cache crate): CTR_EL0 read on
 *   every call, wrong when the thread migrates in mid-flush;
 * - a fixed 64-byte stride of ic ivau with no dc cvau (Wasmtime 41 to 48):
 *   wrong on any core with smaller lines, and on any core without IDC, which
 *   needs the clean to the Point of Unification that it leaves out (Arm ARM
 *   B2.4.4, "Concurrent modification and execution of instructions").
 *
 * Both read-based strategies are unsafe exactly when two cores the process
 * may run on disagree: on a larger line (the stride skips lines of the
 * smaller core) or on IDC/DIC (one core's "no clean needed" is applied on a
 * core that needs it). A kernel that traps EL0 CTR_EL0 reads and returns the
 * system-wide value (arm64 cpu_errata.c, "Mismatched cache type") makes them
 * safe again, at one kernel entry per read.
 */
#include <stdio.h>
#include <string.h>

#include "info_facts.h"
#include "info_verdict.h"

const char *info_kind_name(enum info_kind kind)
{
  static const char *const names[] = {"homogeneous", "heterogeneous", "incomplete", "platform"};
  _Static_assert(sizeof names / sizeof names[0] == INFO_PLATFORM + 1, "one name per kind");
  return (unsigned)kind < sizeof names / sizeof names[0] ? names[kind] : "?";
}

const char *info_safety_name(enum info_safety safety)
{
  static const char *const names[] = {"safe", "unsafe", "unknown"};
  _Static_assert(sizeof names / sizeof names[0] == INFO_UNKNOWN + 1, "one name per safety");
  return (unsigned)safety < sizeof names / sizeof names[0] ? names[safety] : "?";
}

/* "CPU 4 (Exynos M1)" or "CPU 4". */
static const char *cpu_label(const struct jitflush_cpu_info *cpu, char *buf, size_t size)
{
  const char *name = info_core_name(cpu);
  if (name) {
    snprintf(buf, size, "CPU %d (%s)", cpu->cpu, name);
  } else {
    snprintf(buf, size, "CPU %d", cpu->cpu);
  }
  return buf;
}

/* "CPU 4 (Exynos M1, I-line 128)" or "CPU 4 (I-line 128)". */
static const char *cpu_line_label(const struct jitflush_cpu_info *cpu, char which, unsigned line,
                                  char *buf, size_t size)
{
  const char *name = info_core_name(cpu);
  if (name) {
    snprintf(buf, size, "CPU %d (%s, %c-line %u)", cpu->cpu, name, which, line);
  } else {
    snprintf(buf, size, "CPU %d (%c-line %u)", cpu->cpu, which, line);
  }
  return buf;
}

/* The extremes among the CPUs whose numbers are known. */
struct extremes {
  const struct jitflush_cpu_info *max_i, *min_i, *max_d, *min_d;
  const struct jitflush_cpu_info *idc_yes, *idc_no, *dic_yes, *dic_no;
  unsigned nknown_lines;   /* CPUs with both lines known */
  unsigned nknown_idc_dic; /* CPUs with IDC/DIC known */
  unsigned nobserved;
};

static void find_extremes(const struct jitflush_info *info, struct extremes *x)
{
  memset(x, 0, sizeof *x);
  for (unsigned i = 0; i < info->ncpus; i++) {
    const struct jitflush_cpu_info *c = &info->cpus[i];
    if (info_line_known(c->iline_source)) {
      if (!x->max_i || c->iline > x->max_i->iline) {
        x->max_i = c;
      }
      if (!x->min_i || c->iline < x->min_i->iline) {
        x->min_i = c;
      }
    }
    if (info_line_known(c->dline_source)) {
      if (!x->max_d || c->dline > x->max_d->dline) {
        x->max_d = c;
      }
      if (!x->min_d || c->dline < x->min_d->dline) {
        x->min_d = c;
      }
    }
    if (info_line_known(c->iline_source) && info_line_known(c->dline_source)) {
      x->nknown_lines++;
    }
    if (c->observed) {
      x->nobserved++;
    }
    if (info_idc_dic_known(c)) {
      x->nknown_idc_dic++;
      if (c->idc && !x->idc_yes) {
        x->idc_yes = c;
      }
      if (!c->idc && !x->idc_no) {
        x->idc_no = c;
      }
      if (c->dic && !x->dic_yes) {
        x->dic_yes = c;
      }
      if (!c->dic && !x->dic_no) {
        x->dic_no = c;
      }
    }
  }
}

static bool i_differs(const struct extremes *x)
{
  return x->max_i && x->max_i->iline > x->min_i->iline;
}
static bool d_differs(const struct extremes *x)
{
  return x->max_d && x->max_d->dline > x->min_d->dline;
}

/* Two observed CPUs with the same CTR_EL0 although the MIDR table (or sysfs)
 * says their cores have different lines: the kernel answers EL0 reads with
 * the sanitised system value. */
static bool detect_sanitising(const struct jitflush_info *info, char *why, size_t size)
{
  const struct jitflush_cpu_info *first = NULL;
  unsigned nobserved = 0;
  for (unsigned i = 0; i < info->ncpus; i++) {
    const struct jitflush_cpu_info *c = &info->cpus[i];
    if (!c->observed) {
      continue;
    }
    nobserved++;
    if (!first) {
      first = c;
    } else if (c->ctr_el0 != first->ctr_el0) {
      snprintf(why, size,
               "no: CPU %d reports CTR_EL0 0x%llx and CPU %d 0x%llx, so EL0 reads are not "
               "sanitised",
               first->cpu, (unsigned long long)first->ctr_el0, c->cpu,
               (unsigned long long)c->ctr_el0);
      return false;
    }
  }
  if (nobserved < 2) {
    snprintf(why, size, "cannot tell: CTR_EL0 was read on fewer than two CPUs");
    return false;
  }
  char la[64], lb[64];
  /* Evidence 1: the MIDR table. */
  const struct jitflush_cpu_info *a = NULL;
  unsigned ai = 0, ad = 0;
  for (unsigned i = 0; i < info->ncpus; i++) {
    const struct jitflush_cpu_info *c = &info->cpus[i];
    unsigned ti, td;
    if (!c->observed || !info_midr_known(c) || !info_midr_table_lines(c->midr, &ti, &td)) {
      continue;
    }
    if (!a) {
      a = c, ai = ti, ad = td;
    } else if (ti != ai || td != ad) {
      snprintf(why, size,
               "yes: every CPU reads CTR_EL0 as 0x%llx, but by jitflush's MIDR table "
               "%s has I %u / D %u byte lines and %s I %u / D %u",
               (unsigned long long)first->ctr_el0, cpu_label(a, la, sizeof la), ai, ad,
               cpu_label(c, lb, sizeof lb), ti, td);
      return true;
    }
  }
  /* Evidence 2: sysfs (CCSIDR, which the kernel does not sanitise). */
  const struct jitflush_cpu_info *s = NULL;
  for (unsigned i = 0; i < info->ncpus; i++) {
    const struct jitflush_cpu_info *c = &info->cpus[i];
    if (!c->observed || !c->sysfs_l1i_line || !c->sysfs_l1d_line) {
      continue;
    }
    if (!s) {
      s = c;
    } else if (c->sysfs_l1i_line != s->sysfs_l1i_line || c->sysfs_l1d_line != s->sysfs_l1d_line) {
      snprintf(why, size,
               "likely: every CPU reads CTR_EL0 as 0x%llx, but sysfs shows L1 lines "
               "I %u / D %u on %s and I %u / D %u on %s",
               (unsigned long long)first->ctr_el0, s->sysfs_l1i_line, s->sysfs_l1d_line,
               cpu_label(s, la, sizeof la), c->sysfs_l1i_line, c->sysfs_l1d_line,
               cpu_label(c, lb, sizeof lb));
      return true;
    }
  }
  snprintf(why, size,
           "no sign: every CPU reads CTR_EL0 as 0x%llx and nothing says the cores differ",
           (unsigned long long)first->ctr_el0);
  return false;
}

/* How many lines of the small core a stride of BIG skips: BIG/SMALL - 1 of
 * every BIG/SMALL. */
static void skip_text(unsigned big, unsigned small, char *buf, size_t size)
{
  unsigned ratio = small ? big / small : 0;
  if (ratio == 2) {
    snprintf(buf, size, "every other %u-byte line", small);
  } else {
    snprintf(buf, size, "%u of every %u %u-byte lines", ratio - 1, ratio, small);
  }
}

/* The facts that break a CTR_EL0-reading strategy, as text; false when the
 * known cores all agree. */
static bool read_strategy_breaks(const struct extremes *x, bool per_call, char *why, size_t size)
{
  char la[80], lb[80], skip[64];
  if (i_differs(x) || d_differs(x)) {
    bool i = i_differs(x);
    const struct jitflush_cpu_info *big = i ? x->max_i : x->max_d;
    const struct jitflush_cpu_info *small = i ? x->min_i : x->min_d;
    unsigned bl = i ? big->iline : big->dline, sl = i ? small->iline : small->dline;
    skip_text(bl, sl, skip, sizeof skip);
    char which = i ? 'I' : 'D';
    cpu_line_label(big, which, bl, la, sizeof la);
    cpu_line_label(small, which, sl, lb, sizeof lb);
    int n;
    if (per_call) {
      n = snprintf(why, size,
                   "a thread that reads CTR_EL0 on %s and migrates to %s in mid-flush "
                   "keeps the %u-byte stride there and skips %s",
                   la, lb, bl, skip);
    } else {
      n = snprintf(why, size,
                   "a first call on %s caches a %u-byte stride; every later flush on %s "
                   "skips %s",
                   la, bl, lb, skip);
    }
    (void)n; /* a longer explanation is cut at the buffer; the verdict stands */
    return true;
  }
  if ((x->idc_yes && x->idc_no) || (x->dic_yes && x->dic_no)) {
    bool idc = x->idc_yes && x->idc_no;
    const struct jitflush_cpu_info *yes = idc ? x->idc_yes : x->dic_yes;
    const struct jitflush_cpu_info *no = idc ? x->idc_no : x->dic_no;
    snprintf(why, size, "%s %s reports %s=1, so it skips the %s that %s (%s=0) needs",
             per_call ? "a thread that migrates in mid-flush from" : "a first call on",
             cpu_label(yes, la, sizeof la), idc ? "IDC" : "DIC",
             idc ? "D-cache clean to PoU" : "I-cache invalidate to PoU",
             cpu_label(no, lb, sizeof lb), idc ? "IDC" : "DIC");
    return true;
  }
  return false;
}

static void judge_read_strategy(const struct jitflush_info *info, const struct extremes *x,
                                const struct info_verdict *v, bool per_call,
                                struct info_strategy *s)
{
  char facts[512];
  bool breaks = read_strategy_breaks(x, per_call, facts, sizeof facts);
  if (v->kernel_sanitises_ctr) {
    s->safety = INFO_SAFE;
    snprintf(s->why, sizeof s->why,
             "safe on this kernel only: it traps EL0 reads of CTR_EL0 and "
             "returns the system-wide value (one kernel entry per read); on a kernel without that "
             "trap the cores' own lines differ (see the sanitising note)");
  } else if (breaks) {
    s->safety = INFO_UNSAFE;
    snprintf(s->why, sizeof s->why, "%s", facts);
  } else if (x->nknown_lines < info->ncpus || x->nobserved < info->ncpus) {
    s->safety = INFO_UNKNOWN;
    snprintf(s->why, sizeof s->why, "the CPUs seen agree, but CPUs %.200s could not be read",
             v->unseen);
  } else {
    s->safety = INFO_SAFE;
    snprintf(s->why, sizeof s->why, "every core reports the same lines and IDC/DIC");
  }
}

static void judge_fixed_64_no_clean(const struct jitflush_info *info, const struct extremes *x,
                                    const struct info_verdict *v, struct info_strategy *s)
{
  char label[64];
  const struct jitflush_cpu_info *small = NULL;
  unsigned line = 0;
  char which = 'I';
  if (x->min_i && x->min_i->iline < 64) {
    small = x->min_i, line = x->min_i->iline;
  }
  if (x->min_d && x->min_d->dline < 64 && (!small || x->min_d->dline < line)) {
    small = x->min_d, line = x->min_d->dline, which = 'D';
  }
  if (small) {
    char skip[64];
    skip_text(64, line, skip, sizeof skip);
    s->safety = INFO_UNSAFE;
    snprintf(s->why, sizeof s->why, "%s has %u-byte %c lines; a 64-byte stride skips %s",
             cpu_label(small, label, sizeof label), line, which, skip);
  } else if (x->idc_no) {
    /* The stride is fine, but without IDC the new instructions may still
     * sit dirty in the D-cache when the I-cache refills from L2. */
    s->safety = INFO_UNSAFE;
    snprintf(s->why, sizeof s->why,
             "the 64-byte stride covers every line, but %s has IDC=0 and needs "
             "the dc cvau this strategy leaves out",
             cpu_label(x->idc_no, label, sizeof label));
  } else if (x->nknown_lines < info->ncpus || x->nknown_idc_dic < info->ncpus) {
    s->safety = INFO_UNKNOWN;
    snprintf(s->why, sizeof s->why,
             "no known line is below 64 bytes and no known core lacks IDC, but "
             "nothing is known about CPUs %.200s",
             v->unseen);
  } else if (!x->min_i || !x->min_d) {
    s->safety = INFO_UNKNOWN;
    snprintf(s->why, sizeof s->why, "no line size is known");
  } else {
    s->safety = INFO_SAFE;
    snprintf(s->why, sizeof s->why,
             "no core has lines below 64 bytes (smallest: I %u, D %u) and every "
             "core has IDC",
             x->min_i->iline, x->min_d->dline);
  }
}

static bool cpu_online_unseen(const struct jitflush_cpu_info *c)
{
  return !c->observed && c->online;
}
static bool cpu_offline_unseen(const struct jitflush_cpu_info *c)
{
  return !c->observed && !c->online;
}
static bool cpu_inferred(const struct jitflush_cpu_info *c)
{
  return c->iline_source == JITFLUSH_SRC_CLUSTER;
}

/* The CPU whose lines explain_inferred is listing the inferences of (the
 * predicate below needs it; the CLI is single-threaded). */
static int listing_inferred_from;
static bool cpu_inferred_from_listed(const struct jitflush_cpu_info *c)
{
  return cpu_inferred(c) && c->inferred_from == listing_inferred_from;
}

/* "CPUs 6-7: I-line 128, D-line 64, as CPU 4 (Exynos M1), ..." for each
 * CPU they were inferred from. */
static void explain_inferred(const struct jitflush_info *info, struct info_verdict *v)
{
  size_t used = 0;
  for (unsigned i = 0; i < info->ncpus; i++) {
    const struct jitflush_cpu_info *c = &info->cpus[i];
    bool first_of_source = cpu_inferred(c);
    for (unsigned j = 0; first_of_source && j < i; j++) {
      if (cpu_inferred(&info->cpus[j]) && info->cpus[j].inferred_from == c->inferred_from) {
        first_of_source = false;
      }
    }
    if (!first_of_source) {
      continue;
    }
    char cpus[128];
    listing_inferred_from = c->inferred_from;
    info_cpulist(info, cpu_inferred_from_listed, cpus, sizeof cpus);
    const struct jitflush_cpu_info *from = NULL;
    for (unsigned j = 0; j < info->ncpus; j++) {
      if (info->cpus[j].cpu == c->inferred_from) {
        from = &info->cpus[j];
      }
    }
    const char *name = from ? info_core_name(from) : NULL;
    int w = snprintf(v->inferred_why + used, sizeof v->inferred_why - used,
                     "%sCPUs %s: I-line %u, D-line %u, as CPU %d%s%s%s, which the kernel's cpufreq "
                     "policy and topology cluster group with them",
                     used ? "; " : "", cpus, c->iline, c->dline, c->inferred_from, name ? " (" : "",
                     name ? name : "", name ? ")" : "");
    if (w < 0 || (size_t)w >= sizeof v->inferred_why - used) {
      return;
    }
    used += (size_t)w;
  }
}

/* A cross-check of the library: the global values must cover every CPU it
 * knows about. A failure here is a bug, and the stride not safe. */
static void check_global_covers(const struct jitflush_info *info, struct info_verdict *v)
{
  for (unsigned i = 0; i < info->ncpus; i++) {
    const struct jitflush_cpu_info *c = &info->cpus[i];
    if ((c->iline && info->iline > c->iline) || (c->dline && info->dline > c->dline)) {
      snprintf(v->problem, sizeof v->problem,
               "the global lines (I %u, D %u) exceed CPU %d's "
               "(I %u, D %u)",
               info->iline, info->dline, c->cpu, c->iline, c->dline);
      return;
    }
    if ((info->idc && !c->idc) || (info->dic && !c->dic)) {
      snprintf(v->problem, sizeof v->problem,
               "the global IDC/DIC (%d/%d) claim more than CPU %d's "
               "(%d/%d)",
               info->idc, info->dic, c->cpu, c->idc, c->dic);
      return;
    }
  }
}

/* Keys and names from info_strategies.def: "what (who)", or "what" alone
 * for a strategy no project is named for. */
static void info_strategy_names(struct info_strategy *s)
{
#define INFO_STRATEGY(id, k, cls, what, who)                                                       \
  s[INFO_STRATEGY_##id].key = #k;                                                                  \
  s[INFO_STRATEGY_##id].name = sizeof(who) > 1 ? what " (" who ")" : what;
#include "info_strategies.def"
#undef INFO_STRATEGY
}

void info_verdict_compute(const struct jitflush_info *info, struct info_verdict *v)
{
  memset(v, 0, sizeof *v);
  struct extremes x;
  find_extremes(info, &x);
  info_cpulist(info, info_cpu_not_observed, v->unseen, sizeof v->unseen);
  info_cpulist(info, cpu_offline_unseen, v->unseen_offline, sizeof v->unseen_offline);
  info_cpulist(info, cpu_online_unseen, v->unseen_online, sizeof v->unseen_online);
  info_cpulist(info, cpu_inferred, v->inferred, sizeof v->inferred);
  explain_inferred(info, v);

  if (info->status < 0) {
    snprintf(v->problem, sizeof v->problem,
             "the probe could not run (status %d); flushes fall "
             "back to the %u-byte floor",
             info->status, (unsigned)JITFLUSH_FLOOR_LINE);
  } else {
    check_global_covers(info, v);
  }
  v->stride_safe = v->problem[0] == '\0';

  v->lines_differ =
      i_differs(&x) || d_differs(&x) || (x.idc_yes && x.idc_no) || (x.dic_yes && x.dic_no);
  v->kernel_sanitises_ctr = detect_sanitising(info, v->sanitise_why, sizeof v->sanitise_why);

  struct info_strategy *s = v->strategies;
  info_strategy_names(s);

  bool platform = info->ncpus == 0 && info->iline_source == JITFLUSH_SRC_PLATFORM;
  if (platform) {
    v->kind = INFO_PLATFORM;
    for (int i = 0; i < INFO_NSTRATEGIES; i++) {
      s[i].safety = INFO_SAFE;
      snprintf(s[i].why, sizeof s[i].why, "not applicable: %s",
               info->method ? info->method : "the OS flushes");
    }
    snprintf(v->sanitise_why, sizeof v->sanitise_why, "not applicable on %s",
             info->platform ? info->platform : "this platform");
    return;
  }
  judge_read_strategy(info, &x, v, false, &s[INFO_STRATEGY_FIRST_CORE]);
  judge_read_strategy(info, &x, v, true, &s[INFO_STRATEGY_PER_CALL]);
  judge_fixed_64_no_clean(info, &x, v, &s[INFO_STRATEGY_FIXED_64]);

  if (!info->complete || info->ncpus == 0) {
    v->kind = INFO_INCOMPLETE;
    /* Every listed CPU was read and still not complete: the library could
     * not learn which CPUs exist (probe.c falls back to the affinity mask). */
    v->unlisted_incomplete = info->truncated;
    v->possible_unknown =
        !info->truncated && info->ncpus > 0 && v->unseen[0] == '\0' && info->status >= 0;
  } else if (v->lines_differ || v->kernel_sanitises_ctr || info->heterogeneous) {
    v->kind = INFO_HETEROGENEOUS;
  } else {
    v->kind = INFO_HOMOGENEOUS;
  }
}
