/*
 * The policy: from the raw facts, each CPU's lines and the global safe
 * values. Every rule is the conservative one; the comment says why.
 */
#include <string.h>

#include "internal/ctr.h"
#include "internal/midr_table.h"
#include "internal/view.h"

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
  const struct jf_core *core = rec->midr_source != JITFLUSH_SRC_NONE ? jf_midr_lookup(rec->midr) : NULL;
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

void jf_policy_apply(struct jf_view *view)
{
  struct jf_global *g = &view->global;
  memset(g, 0, sizeof *g);
  /* IDC/DIC: the AND over all cores, the kernel's rule for the system-wide
   * CTR_EL0 (ftr_ctr, FTR_LOWER_SAFE, arch/arm64/kernel/cpufeature.c). */
  g->idc = g->dic = view->ncpus > 0;
  g->complete = view->possible_known && view->probe_ran && view->ncpus > 0;

  const struct jitflush_cpu_info *first_known = NULL;
  for (unsigned i = 0; i < view->ncpus; i++) {
    struct jitflush_cpu_info *rec = &view->cpus[i];
    choose_cpu_lines(rec);
    take_min(rec->iline, rec->iline_source, &g->iline, &g->iline_source);
    take_min(rec->dline, rec->dline_source, &g->dline, &g->dline_source);
    g->idc = g->idc && rec->idc;
    g->dic = g->dic && rec->dic;
    g->complete = g->complete && rec->observed;
    if (rec->midr_source != JITFLUSH_SRC_NONE && jf_midr_needs_dc_civac(rec->midr))
      g->use_dc_civac = true;
    /* Heterogeneous: two cores that both told us their lines (no floor)
     * disagree, or two observed cores disagree on IDC/DIC. */
    if (rec->iline_source == JITFLUSH_SRC_FLOOR || rec->dline_source == JITFLUSH_SRC_FLOOR)
      continue;
    if (!first_known) {
      first_known = rec;
      continue;
    }
    if (rec->iline != first_known->iline || rec->dline != first_known->dline)
      g->heterogeneous = true;
    if (rec->observed && first_known->observed &&
        (rec->idc != first_known->idc || rec->dic != first_known->dic))
      g->heterogeneous = true;
  }
  if (view->ncpus == 0) {
    g->iline = g->dline = JITFLUSH_FLOOR_LINE;
    g->iline_source = g->dline_source = JITFLUSH_SRC_FLOOR;
  }
  /* The per-call guard, min(global, this core's CTR_EL0), is worth its cost
   * (a kernel entry per flush where Linux traps CTR_EL0 reads) only when
   * some line came from sysfs or the MIDR table: those are good estimates
   * but not the core's own word. At the floor nothing can be smaller, and a
   * complete view has every core's own word already. */
  g->per_call_guard = !g->complete && (g->iline > JITFLUSH_FLOOR_LINE || g->dline > JITFLUSH_FLOOR_LINE);
  g->status = g->complete ? JITFLUSH_OK : JITFLUSH_INCOMPLETE;
}
