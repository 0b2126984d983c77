/*
 * The policy: from the raw facts, each CPU's lines and the global safe
 * values. Every rule is the conservative one; the comment says why.
 */
#include <string.h>

#include "ctr.h"
#include "midr_table.h"
#include "view.h"

/* A candidate line for one CPU and where it came from. */
static void offer(unsigned line, enum jitflush_source source, unsigned *best,
                  enum jitflush_source *best_source)
{
  if (line != 0 && (*best == 0 || line < *best)) {
    *best = line;
    *best_source = source;
  }
}

static void choose_cpu_lines(struct jitflush_cpu_info *rec)
{
  if (rec->observed) {
    /* CTR_EL0 read on the core wins outright: the Arm ARM defines
     * IminLine/DminLine as the smallest line of all caches the PE controls
     * (D19.2.34), which is exactly the stride maintenance needs, while
     * sysfs reports CCSIDR geometry of one cache level. */
    struct jf_ctr ctr = jf_ctr_decode(rec->ctr_el0);
    rec->iline = ctr.iline;
    rec->dline = ctr.dline;
    rec->iline_source = rec->dline_source = JITFLUSH_SRC_CTR_EL0;
    rec->idc = ctr.idc;
    rec->dic = ctr.dic;
    rec->idc_dic_source = JITFLUSH_SRC_CTR_EL0;
    rec->l1ip = ctr.l1ip;
    return;
  }
  /* Not observed: the smallest of what sysfs and the MIDR table say. Both
   * describe the core's caches honestly but neither is its CTR_EL0, so a
   * flush also takes the per-call guard (see jf_policy_apply). */
  rec->iline = rec->dline = 0;
  rec->iline_source = rec->dline_source = JITFLUSH_SRC_NONE;
  offer(rec->sysfs_l1i_line, JITFLUSH_SRC_SYSFS, &rec->iline, &rec->iline_source);
  offer(rec->sysfs_l1d_line, JITFLUSH_SRC_SYSFS, &rec->dline, &rec->dline_source);
  const struct jf_core *core =
      rec->midr_source != JITFLUSH_SRC_NONE ? jf_midr_lookup(rec->midr) : NULL;
  if (core) {
    offer(core->iline, JITFLUSH_SRC_MIDR_TABLE, &rec->iline, &rec->iline_source);
    offer(core->dline, JITFLUSH_SRC_MIDR_TABLE, &rec->dline, &rec->dline_source);
  }
  /* Nothing at all: the architectural minimum (JITFLUSH_FLOOR_LINE). */
  if (rec->iline == 0) {
    rec->iline = JITFLUSH_FLOOR_LINE;
    rec->iline_source = JITFLUSH_SRC_FLOOR;
  }
  if (rec->dline == 0) {
    rec->dline = JITFLUSH_FLOOR_LINE;
    rec->dline_source = JITFLUSH_SRC_FLOOR;
  }
  /* IDC and DIC are claims that maintenance may be skipped; nothing but
   * the core's own CTR_EL0 can make them, so an unobserved core has
   * neither (A76 and N1 parts differ on them at the same MIDR). */
  rec->idc = rec->dic = false;
  rec->idc_dic_source = JITFLUSH_SRC_NONE;
  rec->l1ip = 0;
}

void jf_view_set_domain(struct jf_view *view, unsigned index, const struct jf_cpuset *group)
{
  if (index >= JF_MAX_CPUS) {
    return;
  }
  for (unsigned d = 0; d < view->ndomains; d++) {
    if (memcmp(&view->domains[d], group, sizeof *group) == 0) {
      view->domain_of[index] = (unsigned char)(d + 1);
      return;
    }
  }
  if (view->ndomains == JF_MAX_DOMAINS) {
    view->domains_overflow = true;
    return;
  }
  view->domains[view->ndomains] = *group;
  view->domain_of[index] = (unsigned char)(++view->ndomains);
}

/*
 * An offline CPU nobody could observe, with no sysfs or table facts of its
 * own (Linux removes an offline CPU's cache/ and regs/ folders), takes the
 * lines of the observed CPUs the kernel groups it with: those whose cpufreq
 * policy and topology cluster list it (jf_sysfs_read_domain), provided they
 * are all one core type (the same CTR_EL0, and the same MIDR where known).
 * On the Galaxy S7 with CPUs 6-7 out, CPU 4's related_cpus is "4 5 6 7" and
 * its core_siblings_list "4-7": 6 and 7 are Exynos M1s like 4 and 5.
 *
 * This is a guess, and the kernel's groupings can mislead (a DynamIQ
 * cluster and its cpufreq policy may span core types). A wrong guess is
 * harmless because of what a flush does while any line is inferred
 * (online_check: platform_aarch64_linux.c re-reads the online list after
 * its maintenance) and because a CPU that boots later starts with an
 * invalidated I-cache: docs/BACKGROUND.md#offline-cpus. IDC and DIC are
 * never inferred.
 */
static void infer_offline(struct jf_view *view, struct jitflush_cpu_info *rec)
{
  if (rec->observed || rec->online || view->domains_overflow ||
      rec->iline_source != JITFLUSH_SRC_FLOOR || rec->dline_source != JITFLUSH_SRC_FLOOR) {
    return;
  }
  const struct jitflush_cpu_info *model = NULL;
  for (unsigned i = 0; i < view->ncpus && i < JF_MAX_CPUS; i++) {
    const struct jitflush_cpu_info *c = &view->cpus[i];
    unsigned d = view->domain_of[i];
    if (!c->observed || d == 0 || d > view->ndomains ||
        !jf_cpuset_has(&view->domains[d - 1], (unsigned)rec->cpu)) {
      continue;
    }
    if (!model) {
      model = c;
      continue;
    }
    /* Two core types claim this CPU: nothing can be said of it. */
    if (c->ctr_el0 != model->ctr_el0 ||
        (c->midr_source != JITFLUSH_SRC_NONE && model->midr_source != JITFLUSH_SRC_NONE &&
         c->midr != model->midr)) {
      return;
    }
  }
  if (!model) {
    return;
  }
  rec->iline = model->iline;
  rec->dline = model->dline;
  rec->iline_source = rec->dline_source = JITFLUSH_SRC_CLUSTER;
  rec->inferred_from = model->cpu;
}

/* On a tie, name the strongest source: the value is what it is, and a CTR
 * read says more than a table. */
static void take_min(unsigned line, enum jitflush_source source, unsigned *global,
                     enum jitflush_source *global_source)
{
  if (*global == 0 || line < *global || (line == *global && source < *global_source)) {
    *global = line;
    *global_source = source;
  }
}

static bool is_estimate(enum jitflush_source source)
{
  return source == JITFLUSH_SRC_SYSFS || source == JITFLUSH_SRC_MIDR_TABLE;
}

void jf_policy_apply(struct jf_view *view)
{
  struct jf_global *g = &view->global;
  memset(g, 0, sizeof *g);
  /* IDC/DIC: the AND over all cores, the kernel's rule for the system-wide
   * CTR_EL0 (ftr_ctr, FTR_LOWER_SAFE, arch/arm64/kernel/cpufeature.c). */
  g->idc = g->dic = view->ncpus > 0;
  g->complete = view->possible_known && view->probe_ran && view->ncpus > 0;

  for (unsigned i = 0; i < view->ncpus; i++) {
    view->cpus[i].inferred_from = -1;
    choose_cpu_lines(&view->cpus[i]);
  }
  for (unsigned i = 0; i < view->ncpus; i++) {
    infer_offline(view, &view->cpus[i]);
  }

  bool estimated = false;
  const struct jitflush_cpu_info *first_known = NULL;
  for (unsigned i = 0; i < view->ncpus; i++) {
    struct jitflush_cpu_info *rec = &view->cpus[i];
    take_min(rec->iline, rec->iline_source, &g->iline, &g->iline_source);
    take_min(rec->dline, rec->dline_source, &g->dline, &g->dline_source);
    g->idc = g->idc && rec->idc;
    g->dic = g->dic && rec->dic;
    g->complete = g->complete && rec->observed;
    g->online_check = g->online_check || rec->iline_source == JITFLUSH_SRC_CLUSTER;
    estimated = estimated || is_estimate(rec->iline_source) || is_estimate(rec->dline_source);
    if (rec->midr_source != JITFLUSH_SRC_NONE && jf_midr_needs_dc_civac(rec->midr)) {
      g->use_dc_civac = true;
    }
    /* Heterogeneous: two cores that both told us their lines (no floor,
     * no inference) disagree, or two observed cores disagree on IDC/DIC. */
    if (rec->iline_source == JITFLUSH_SRC_FLOOR || rec->dline_source == JITFLUSH_SRC_FLOOR ||
        rec->iline_source == JITFLUSH_SRC_CLUSTER) {
      continue;
    }
    if (!first_known) {
      first_known = rec;
      continue;
    }
    if (rec->iline != first_known->iline || rec->dline != first_known->dline) {
      g->heterogeneous = true;
    }
    if (rec->observed && first_known->observed &&
        (rec->idc != first_known->idc || rec->dic != first_known->dic)) {
      g->heterogeneous = true;
    }
  }
  if (view->ncpus == 0) {
    g->iline = g->dline = JITFLUSH_FLOOR_LINE;
    g->iline_source = g->dline_source = JITFLUSH_SRC_FLOOR;
  }
  bool above_floor = g->iline > JITFLUSH_FLOOR_LINE || g->dline > JITFLUSH_FLOOR_LINE;
  /* The per-call guard, min(global, this core's CTR_EL0), is worth its cost
   * (a kernel entry per flush where Linux traps CTR_EL0 reads) only when
   * some line came from sysfs or the MIDR table, or the CPUs themselves are
   * not all known: those are good estimates but not the core's own word. At
   * the floor nothing can be smaller; a complete view has every core's own
   * word already; an inferred line is covered by the online check instead
   * (its CPU is offline, so no flush runs there). */
  g->per_call_guard =
      !g->complete && above_floor && (estimated || !view->possible_known || !view->probe_ran);
  /* At the floor an online check buys nothing: no CPU can need less. */
  g->online_check = g->online_check && above_floor;
  g->status = g->complete ? JITFLUSH_OK : JITFLUSH_INCOMPLETE;
}
