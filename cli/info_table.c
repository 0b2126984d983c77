/*
 * The human-readable report: one row per possible CPU, each number tagged
 * with its source, then the global safe values and the verdict. Column
 * widths follow the content, so long core names never break the layout.
 */
#include <inttypes.h>
#include <string.h>

#include "info_facts.h"
#include "info_output.h"

/* ANSI SGR sequences (ECMA-48 8.3.117). */
struct palette {
  const char *bold, *dim, *red, *green, *yellow, *reset;
};

static struct palette palette_for(bool color)
{
  struct palette p = {"", "", "", "", "", ""};
  if (color) {
    p.bold = "\033[1m";
    p.dim = "\033[2m";
    p.red = "\033[31m";
    p.green = "\033[32m";
    p.yellow = "\033[33m";
    p.reset = "\033[0m";
  }
  return p;
}

enum {
  COL_CPU,
  COL_STATE,
  COL_MIDR,
  COL_DECODED,
  COL_CORE,
  COL_CTR,
  COL_ILINE,
  COL_DLINE,
  COL_IDC,
  COL_DIC,
  COL_L1IP,
  COL_SYSFS_I,
  COL_SYSFS_D,
  NCOLS
};

static const char *const headers[NCOLS] = {
    "CPU",    "STATE", "MIDR", "IMPL PART rVpR", "CORE",    "CTR_EL0", "I-LINE",
    "D-LINE", "IDC",   "DIC",  "L1IP",           "SYSFS-I", "SYSFS-D",
};

enum { CELL = 48 };
typedef char row_cells[NCOLS][CELL];

static void fill_row(const struct jitflush_cpu_info *c, row_cells cells)
{
  snprintf(cells[COL_CPU], CELL, "%d", c->cpu);
  snprintf(cells[COL_STATE], CELL, "%s", c->online ? "online" : "offline");
  if (info_midr_known(c)) {
    snprintf(cells[COL_MIDR], CELL, "0x%08" PRIx64 " %s", c->midr, info_source_tag(c->midr_source));
    unsigned imp = jitflush_midr_implementer(c->midr);
    const char *imp_name = info_implementer_name(imp);
    char imp_text[16];
    if (imp_name) {
      snprintf(imp_text, sizeof imp_text, "%s", imp_name);
    } else {
      snprintf(imp_text, sizeof imp_text, "0x%02x", imp);
    }
    /* rNpM is how Arm names a variant and revision in its errata notices. */
    snprintf(cells[COL_DECODED], CELL, "%s 0x%03x r%up%u", imp_text, jitflush_midr_part(c->midr),
             jitflush_midr_variant(c->midr), jitflush_midr_revision(c->midr));
    const char *name = info_core_name(c);
    snprintf(cells[COL_CORE], CELL, "%s", name ? name : "unknown");
  } else {
    snprintf(cells[COL_MIDR], CELL, "- -");
    snprintf(cells[COL_DECODED], CELL, "-");
    snprintf(cells[COL_CORE], CELL, "unknown");
  }
  if (info_ctr_known(c)) {
    snprintf(cells[COL_CTR], CELL, "0x%08" PRIx64 " c", c->ctr_el0);
  } else {
    snprintf(cells[COL_CTR], CELL, "- -");
  }
  if (info_line_known(c->iline_source)) {
    snprintf(cells[COL_ILINE], CELL, "%u %s", c->iline, info_source_tag(c->iline_source));
  } else {
    snprintf(cells[COL_ILINE], CELL, "- %s", info_source_tag(c->iline_source));
  }
  if (info_line_known(c->dline_source)) {
    snprintf(cells[COL_DLINE], CELL, "%u %s", c->dline, info_source_tag(c->dline_source));
  } else {
    snprintf(cells[COL_DLINE], CELL, "- %s", info_source_tag(c->dline_source));
  }
  if (info_idc_dic_known(c)) {
    snprintf(cells[COL_IDC], CELL, "%d %s", c->idc, info_source_tag(c->idc_dic_source));
    snprintf(cells[COL_DIC], CELL, "%d %s", c->dic, info_source_tag(c->idc_dic_source));
  } else {
    snprintf(cells[COL_IDC], CELL, "- -");
    snprintf(cells[COL_DIC], CELL, "- -");
  }
  snprintf(cells[COL_L1IP], CELL, "%s", c->observed ? info_l1ip_name(c->l1ip) : "-");
  if (c->sysfs_l1i_line) {
    snprintf(cells[COL_SYSFS_I], CELL, "%u s", c->sysfs_l1i_line);
  } else {
    snprintf(cells[COL_SYSFS_I], CELL, "- -");
  }
  if (c->sysfs_l1d_line) {
    snprintf(cells[COL_SYSFS_D], CELL, "%u s", c->sysfs_l1d_line);
  } else {
    snprintf(cells[COL_SYSFS_D], CELL, "- -");
  }
}

static void print_cells(FILE *out, const char *const *cells, const int *width, const char *on,
                        const char *off)
{
  fputs(on, out);
  for (int col = 0; col < NCOLS; col++) {
    /* Numbers right-aligned would split the value from its tag; keep
     * everything left-aligned except the CPU number. */
    if (col == COL_CPU) {
      fprintf(out, "%*s", width[col], cells[col]);
    } else {
      fprintf(out, "  %-*s", col == NCOLS - 1 ? 0 : width[col], cells[col]);
    }
  }
  fputs(off, out);
  fputc('\n', out);
}

static void print_rows(FILE *out, const struct jitflush_info *info, const struct palette *p)
{
  int width[NCOLS];
  for (int col = 0; col < NCOLS; col++) {
    width[col] = (int)strlen(headers[col]);
  }
  row_cells cells;
  for (unsigned i = 0; i < info->ncpus; i++) {
    fill_row(&info->cpus[i], cells);
    for (int col = 0; col < NCOLS; col++) {
      if ((int)strlen(cells[col]) > width[col]) {
        width[col] = (int)strlen(cells[col]);
      }
    }
  }
  print_cells(out, headers, width, p->bold, p->reset);
  for (unsigned i = 0; i < info->ncpus; i++) {
    fill_row(&info->cpus[i], cells);
    const char *ptrs[NCOLS];
    for (int col = 0; col < NCOLS; col++) {
      ptrs[col] = cells[col];
    }
    bool dim = !info->cpus[i].observed;
    print_cells(out, ptrs, width, dim ? p->dim : "", dim ? p->reset : "");
  }
}

static const char *yes_no(bool b)
{
  return b ? "yes" : "no";
}

static void print_global(FILE *out, const struct jitflush_info *info, const struct palette *p)
{
  fprintf(out, "\n%sSafe for every possible CPU%s (what jitflush_clear_cache uses):\n", p->bold,
          p->reset);
  fprintf(out, "  I-line %u bytes (%s)  D-line %u bytes (%s)  IDC %s  DIC %s\n", info->iline,
          jitflush_source_name(info->iline_source), info->dline,
          jitflush_source_name(info->dline_source), yes_no(info->idc), yes_no(info->dic));
  fprintf(out,
          "  complete %s  heterogeneous %s  per-call CTR_EL0 guard %s  dc civac (A53 errata) %s\n",
          yes_no(info->complete), yes_no(info->heterogeneous), yes_no(info->per_call_guard),
          yes_no(info->use_dc_civac));
  fprintf(out, "  method: %s\n", info->method ? info->method : "unknown");
  if (info->truncated) {
    fprintf(out, "  note: %u possible CPUs, only the first %u are listed (the stride covers all)\n",
            info->ncpus_possible, info->ncpus);
  }
}

static void print_strategies(FILE *out, const struct info_verdict *v, const struct palette *p)
{
  for (int i = 0; i < INFO_NSTRATEGIES; i++) {
    const struct info_strategy *s = &v->strategies[i];
    const char *color = s->safety == INFO_UNSAFE ? p->red
                        : s->safety == INFO_SAFE ? p->green
                                                 : p->yellow;
    fprintf(out, "  %s%-7s%s %s\n          %s\n", color, info_safety_name(s->safety), p->reset,
            s->name, s->why);
  }
}

static void print_verdict(FILE *out, const struct jitflush_info *info, const struct info_verdict *v,
                          const struct palette *p)
{
  const char *color = v->kind == INFO_HOMOGENEOUS || v->kind == INFO_PLATFORM ? p->green
                      : v->kind == INFO_HETEROGENEOUS                         ? p->red
                                                                              : p->yellow;
  fprintf(out, "\n%sVerdict: %s%s%s\n", p->bold, color, info_kind_name(v->kind), p->reset);
  if (v->kind == INFO_INCOMPLETE) {
    if (v->unseen_offline[0]) {
      fprintf(out, "  not seen: CPUs %s (offline)\n", v->unseen_offline);
    }
    if (v->unseen_online[0]) {
      fprintf(
          out,
          "  not seen: CPUs %s (online, but outside this process's CPU set or pinning refused)\n",
          v->unseen_online);
    }
    if (info->ncpus == 0) {
      fprintf(out, "  not seen: the kernel listed no CPUs at all\n");
    }
    if (v->unlisted_incomplete) {
      fprintf(out, "  not seen: some of the %u possible CPUs beyond the %u listed here\n",
              info->ncpus_possible, info->ncpus);
    }
    if (v->possible_unknown) {
      fprintf(out,
              "  the kernel's list of possible CPUs could not be read (sysfs possible/present\n"
              "  missing or malformed): only the CPUs this process may run on are listed\n");
    }
    if (v->inferred[0]) {
      fprintf(out, "  inferred from the kernel's cluster facts: %s\n", v->inferred_why);
      fprintf(out,
              "  lines used: I-line %u (%s), D-line %u (%s); each flush then checks the online\n"
              "  CPUs and re-probes if one it never saw came online\n",
              info->iline, jitflush_source_name(info->iline_source), info->dline,
              jitflush_source_name(info->dline_source));
    } else {
      fprintf(out, "  floor used for what was not seen: I-line %u (%s), D-line %u (%s)%s\n",
              info->iline, jitflush_source_name(info->iline_source), info->dline,
              jitflush_source_name(info->dline_source),
              info->per_call_guard ? ", and each flush also honours the current core's CTR_EL0"
                                   : "");
    }
    if (v->lines_differ) {
      fprintf(out, "  the CPUs that were seen are heterogeneous\n");
    }
  }
  if (v->kind != INFO_PLATFORM) {
    fprintf(out, "  kernel sanitises CTR_EL0: %s\n", v->sanitise_why);
    fprintf(out, "  common flush strategies on this machine:\n");
    print_strategies(out, v, p);
  } else {
    fprintf(out, "  no per-core cache geometry to get wrong here; flush method: %s\n",
            info->method ? info->method : "unknown");
  }
  if (!v->stride_safe) {
    fprintf(out, "%s  stride NOT established safely: %s%s\n", p->red, v->problem, p->reset);
  }
}

void info_print_table(FILE *out, const struct jitflush_info *info,
                      const struct info_verdict *verdict, bool color)
{
  struct palette p = palette_for(color);
  fprintf(out, "%sjitflush-info %s%s  platform %s", p.bold, JITFLUSH_VERSION_STRING, p.reset,
          info->platform ? info->platform : "unknown");
  if (verdict->kind == INFO_PLATFORM) {
    fputc('\n', out);
    print_verdict(out, info, verdict, &p);
    return;
  }
  fprintf(out, ", %u possible CPU%s\n", info->ncpus_possible, info->ncpus_possible == 1 ? "" : "s");
  fputc('\n', out);
  print_rows(out, info, &p);
  fprintf(out,
          "%ssources: c = read on that CPU (CTR_EL0, MIDR_EL1)  s = sysfs  t = MIDR table  "
          "f = floor  i = inferred from the kernel's cluster facts  - = not known%s\n",
          p.dim, p.reset);
  print_global(out, info, &p);
  print_verdict(out, info, verdict, &p);
}

static bool bit_set(const uint64_t *bits, int cpu)
{
  return cpu < INFO_SELFTEST_CPU_BITS && ((bits[cpu / 64] >> (cpu % 64)) & 1);
}

/* As a kernel cpulist: "0-7", "0,4-5". */
static void print_cpu_bits(FILE *out, const uint64_t *bits)
{
  bool first = true;
  for (int cpu = 0; cpu < INFO_SELFTEST_CPU_BITS; cpu++) {
    if (!bit_set(bits, cpu)) {
      continue;
    }
    int last = cpu;
    while (bit_set(bits, last + 1)) {
      last++;
    }
    fprintf(out, first ? "%d" : ",%d", cpu);
    if (last > cpu) {
      fprintf(out, "-%d", last);
    }
    first = false;
    cpu = last;
  }
  if (first) {
    fputs("unknown", out);
  }
}

void info_print_selftest(FILE *out, const struct info_selftest_result *st, bool color)
{
  struct palette p = palette_for(color);
  if (!st->ran && st->nphases == 0) {
    fprintf(out, "selftest: %scould not run%s: %s\n", p.red, p.reset, st->error);
    return;
  }
  fprintf(out, "\n%sSelftest%s (%.1f s requested, %.1f s taken):\n", p.bold, p.reset, st->seconds,
          st->elapsed);
  for (unsigned i = 0; i < st->nphases; i++) {
    const struct info_selftest_phase *ph = &st->phases[i];
    if (ph->cpu >= 0) {
      fprintf(out, "  pinned to CPU %-4d", ph->cpu);
    } else {
      fprintf(out, "  free to migrate   ");
    }
    if (ph->pin_refused) {
      fprintf(out, " %sskipped: the kernel refused to pin there (offline?)%s\n", p.yellow, p.reset);
      continue;
    }
    fprintf(out, " %lu written, %lu flushed, %lu verified", ph->written, ph->flushed, ph->verified);
    if (ph->wrong) {
      fprintf(out, ", %s%lu WRONG%s", p.red, ph->wrong, p.reset);
    }
    unsigned ncpus = 0;
    for (int cpu = 0; cpu < INFO_SELFTEST_CPU_BITS; cpu++) {
      ncpus += bit_set(ph->ran_on, cpu);
    }
    fputs(ncpus == 1 ? "; ran on CPU " : "; ran on CPUs ", out);
    print_cpu_bits(out, ph->ran_on);
    if (ph->ran_elsewhere) {
      fprintf(out, " %s(not where it was pinned)%s", p.yellow, p.reset);
    }
    fputc('\n', out);
  }
  if (st->phases_truncated) {
    fprintf(out, "  (more CPUs than the selftest has phases; the rest were not pinned to)\n");
  }
  fprintf(out, "  total: %lu written, %lu flushed, %lu verified, %lu wrong\n", st->written,
          st->flushed, st->verified, st->wrong);
  if (st->error[0]) {
    fprintf(out, "  %serror: %s%s\n", p.red, st->error, p.reset);
  }
  if (st->first_wrong[0]) {
    fprintf(out, "  %sfirst wrong result: %s%s\n", p.red, st->first_wrong, p.reset);
  }
  bool passed = st->ran && st->wrong == 0 && st->verified > 0;
  fprintf(out, "selftest: %s%s%s\n", passed ? p.green : p.red, passed ? "PASS" : "FAIL", p.reset);
}
