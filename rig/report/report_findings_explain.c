/*
 * What a finding says (report_findings_explain.h): the one sentence of advice the
 * three writers show, and the CTR_EL0 read a too-long stride came from.
 */
#include <inttypes.h>
#include <string.h>

#include "report_findings_explain.h"
#include "report_findings_names.h"
#include "ctr.h"
#include "report_known_routines.h"

/* ---- what a finding says ----------------------------------------------------- */

/* Whether FD is a loop that stepped over lines: its stride exceeds the
 * line it missed. */
static bool stepped_over(const struct finding *fd)
{
  return (fd->key.kind == MODEL_STALE_NOT_INVALIDATED_IN_GEOMETRY ||
          fd->key.kind == MODEL_STALE_NOT_CLEANED) &&
         fd->key.stride > fd->line;
}

static uint64_t distance(uint64_t a, uint64_t b)
{
  return a > b ? a - b : b - a;
}

/* The CTR_EL0 read that the stride of FD's loop came from: a read whose
 * IminLine (DminLine for a clean loop) is the stride, preferably on a
 * cluster other than the fetching CPU's, where the value differs, and then
 * the one nearest the flush instruction: a routine that latches the line
 * size reads it itself (libgcc's __aarch64_sync_cache_range), while other
 * code may read the same value for its own use (HotSpot's VM_Version).
 * NULL when no read explains it (a hard-coded stride). */
const struct ctr_site *report_findings_stride_source(const struct report_findings *f,
                                                     const struct finding *fd)
{
  if (!stepped_over(fd)) {
    return NULL;
  }
  const struct ctr_site *best = NULL;
  bool best_elsewhere = false;
  unsigned fetch_cluster = (unsigned)f->cfg->cpus[fd->fetch_cpu].cluster;
  for (guint i = 0; i < f->ctr_sites->len; i++) {
    const struct ctr_site *s = g_ptr_array_index(f->ctr_sites, i);
    struct jf_ctr d = jf_ctr_decode(s->key.value);
    if ((report_findings_d_side(fd->key.kind) ? d.dline : d.iline) != fd->key.stride) {
      continue;
    }
    bool elsewhere = (unsigned)f->cfg->cpus[s->key.cpu].cluster != fetch_cluster;
    if (!best || (elsewhere && !best_elsewhere) ||
        (elsewhere == best_elsewhere &&
         distance(s->key.pc, fd->key.flush_pc) < distance(best->key.pc, fd->key.flush_pc))) {
      best = s;
      best_elsewhere = elsewhere;
    }
  }
  return best;
}

/*
 * One latched CTR_EL0 can break both loops of a routine: its DminLine
 * steps the clean over a smaller D line and its IminLine the invalidate
 * over a smaller I line, and which step a word lacks first depends on
 * where the flush ran (on tri-cluster.conf a call on the 32-byte core
 * misses the clean, one on a 64-byte core the invalidate in the 32-byte
 * core's geometry). Both findings then name the same read in their
 * stride_source: one root cause, reported with both loops and counted
 * once. Returns the number (from 1, in the reports' order) of the first
 * finding of the other loop with the same source that comes before FD, 0
 * when FD stands for a root cause of its own.
 */
unsigned report_findings_same_cause(const struct report_findings *f, const struct finding *fd)
{
  const struct ctr_site *src = report_findings_stride_source(f, fd);
  if (!src) {
    return 0;
  }
  GPtrArray *list = report_findings_sorted(f);
  unsigned n = 0;
  for (guint i = 0; i < list->len && !n; i++) {
    const struct finding *o = g_ptr_array_index(list, i);
    if (o == fd) {
      break;
    }
    if (report_findings_d_side(o->key.kind) != report_findings_d_side(fd->key.kind) &&
        report_findings_stride_source(f, o) == src && !report_findings_same_cause(f, o)) {
      n = i + 1;
    }
  }
  g_ptr_array_unref(list);
  return n;
}

unsigned report_findings_root_causes(const struct report_findings *f)
{
  unsigned n = 0;
  for (guint i = 0; i < f->findings->len; i++) {
    n += report_findings_same_cause(f, g_ptr_array_index(f->findings, i)) == 0;
  }
  return n;
}

static const char *times(uint64_t n)
{
  return n == 1 ? "once" : n == 2 ? "twice" : NULL;
}

/* "CTR_EL0 read once on cpu 7 (Exynos M1)" */
void report_findings_append_ctr_read(GString *out, const struct report_findings *f,
                                     const struct ctr_site *s)
{
  g_string_append(out, "CTR_EL0 read ");
  if (times(s->count)) {
    g_string_append(out, times(s->count));
  } else {
    g_string_append_printf(out, "%" PRIu64 " times", s->count);
  }
  g_string_append_printf(out, " on cpu %u (%s)", s->key.cpu,
                         report_findings_core_of_cpu(f, s->key.cpu));
}

/* ---- the binary: who built it, whose it is, what protects its users --------- */

char *report_findings_compiler(const struct report_frame_names *fr, const char **source)
{
  *source = NULL;
  if (fr->producer) {
    /* "GNU C17 12.2.0 -mlittle-endian -mabi=lp64 -g -O2": the compiler
     * and its version; the options follow the first " -". */
    const char *opts = strstr(fr->producer, " -");
    *source = "DW_AT_producer";
    return g_strndup(fr->producer, opts ? (gsize)(opts - fr->producer) : strlen(fr->producer));
  }
  if (!fr->comment) {
    return NULL;
  }
  GString *out = g_string_new(NULL);
  gchar **lines = g_strsplit(fr->comment, "\n", -1);
  for (gchar **l = lines; *l; l++) {
    /* lld writes "Linker: LLD 14.0.6": a linker built nothing. */
    if (**l && !g_str_has_prefix(*l, "Linker:")) {
      g_string_append_printf(out, "%s%s", out->len ? ", " : "", *l);
    }
  }
  g_strfreev(lines);
  if (out->len) {
    *source = ".comment";
  }
  return g_string_free(out, out->len == 0);
}

bool report_findings_flush_origin(const struct report_findings *f, const struct finding *fd,
                                  struct report_module_origin *out)
{
  const struct report_frame_names *fr =
      fd->key.flush_pc ? report_findings_frame_of(f, fd->key.flush_pc) : NULL;
  if (!fr || !fr->module) {
    return false;
  }
  report_module_origin(fr->module, f->sarif_root, fr->package, out);
  return true;
}

/* The geometry kinds: a loop that stepped over lines. */
static bool about_lines(const struct finding *fd)
{
  return fd->key.kind == MODEL_STALE_NOT_INVALIDATED_IN_GEOMETRY ||
         fd->key.kind == MODEL_STALE_NOT_CLEANED;
}

const char *report_findings_protection(const struct report_findings *f, const struct finding *fd)
{
  const struct report_known_routine *known =
      fd->key.flush_pc ? report_findings_frame_of(f, fd->key.flush_pc)->routine : NULL;
  if (!about_lines(fd) || !stepped_over(fd) || (!known && !report_findings_stride_source(f, fd))) {
    return NULL;
  }
  return REPORT_PROTECTION_TEXT;
}

char *report_findings_describe_module(const struct report_module_origin *o,
                                      const struct report_frame_names *fr)
{
  GString *out = g_string_new(o->file);
  g_string_append(out, " (");
  if (o->package) {
    g_string_append_printf(out, "%s, ", o->package);
  }
  if (fr->soname && strcmp(fr->soname, o->file) != 0) {
    g_string_append_printf(out, "soname %s, ", fr->soname);
  }
  g_string_append_printf(out, "%s)", report_module_kind_phrase(o->kind));
  return g_string_free(out, false);
}

/* OUT, the sentence of FD's kind, followed by what the flush code is: a
 * well-known routine is named with who built it; its flaw (a latched line
 * size) and the fix for it only where the finding is about line sizes (a
 * missing isb after it is the caller's to add, whatever routine flushed);
 * and in a module the project did not build, whose it is, who can fix it
 * and what protects its users meanwhile. */
static char *explain_routine(const struct report_findings *f, const struct finding *fd,
                             const char *out)
{
  const struct report_frame_names *fr =
      fd->key.flush_pc ? report_findings_frame_of(f, fd->key.flush_pc) : NULL;
  const struct report_known_routine *known = fr ? fr->routine : NULL;
  struct report_module_origin origin;
  bool theirs = report_findings_flush_origin(f, fd, &origin);
  if (theirs && origin.kind == REPORT_MODULE_PROJECT) {
    report_module_origin_clear(&origin);
    theirs = false;
  }
  GString *s = g_string_new(out);
  if (known) {
    const char *source;
    char *by = report_findings_compiler(fr, &source);
    g_string_append_printf(s, " The flush routine is %s (%s, built by %s)", known->name,
                           known->symbol, by ? by : "an unknown compiler");
    g_free(by);
    if (!about_lines(fd)) {
      g_string_append_c(s, '.');
    } else if (!theirs) {
      g_string_append_printf(s, ": %s; %s.", known->flaw, known->advice);
    } else {
      g_string_append_printf(s, ": %s.", known->flaw);
    }
  }
  if (theirs && about_lines(fd)) {
    char *module = report_findings_describe_module(&origin, fr);
    g_string_append_printf(s,
                           " It is in %s, not built in this project: report this finding to "
                           "its builders.",
                           module);
    g_free(module);
    const char *protection = report_findings_protection(f, fd);
    if (protection) {
      g_string_append_printf(s, " Until they fix it, %s.", protection);
    }
    if (known) {
      g_string_append_printf(s, " For its builders: %s.", known->advice);
    }
  }
  if (theirs) {
    report_module_origin_clear(&origin);
  }
  return g_string_free(s, false);
}

/* The one sentence that says what went wrong and what to do about it. */
char *report_findings_explain(const struct report_findings *f, const struct finding *fd)
{
  const char *core = report_findings_core_of_cpu(f, fd->fetch_cpu);
  const char *writer_core = report_findings_core_of_cluster(f, fd->writer_cluster);
  const struct ctr_site *src = report_findings_stride_source(f, fd);
  GString *from = g_string_new(NULL);
  if (src) {
    g_string_append(from, "it came from ");
    report_findings_append_ctr_read(from, f, src);
    g_string_append(from, " (stride_source)");
  } else {
    g_string_append(from, "it was probably read from CTR_EL0 on a core with larger lines "
                          "(see ctr_read_sites)");
  }
  char *out;
  switch ((enum model_stale_kind)fd->key.kind) {
  case MODEL_STALE_NOT_CLEANED:
    if (stepped_over(fd) && fd->line_of_cleaner) {
      /* A clean reaches only what lies in both the issuer's and the
       * writer's line: the cleaning core's smaller line was stepped over. */
      out = g_strdup_printf("The clean loop steps %u bytes but the cleaning %s's D-cache lines "
                            "are %u bytes, so its dc cvau never reached these words written on "
                            "a %s: %s; step by the smallest DminLine of every core.",
                            fd->key.stride, report_findings_core_of_cluster(f, fd->cleaner_cluster),
                            fd->line, writer_core, from->str);
    } else if (stepped_over(fd)) {
      out = g_strdup_printf("The clean loop steps %u bytes but the writing %s's D-cache lines "
                            "are %u bytes, so dc cvau never reached these words: %s; step by "
                            "the smallest DminLine of every core.",
                            fd->key.stride, writer_core, fd->line, from->str);
    } else {
      out = g_strdup("These words were written and then fetched without a dc cvau reaching "
                     "them: clean every D-cache line of the new code to the Point of "
                     "Unification first.");
    }
    break;
  case MODEL_STALE_CLEAN_NOT_COMPLETED:
    out = g_strdup("dc cvau was issued but no dsb completed it before the invalidate and the "
                   "fetch: put dsb ish after the clean loop.");
    break;
  case MODEL_STALE_CLEAN_NOT_ORDERED:
    out = g_strdup("Another thread wrote this code; this thread cleaned it after reading the "
                   "flag that published it, with nothing ordering the dc after that load "
                   "(a dmb ld, a dmb st or a load-acquire does not): put dmb ish (or dsb ish) "
                   "between the load and the clean loop, or clean in the thread that wrote "
                   "the code.");
    break;
  case MODEL_STALE_INVALIDATED_BEFORE_CLEAN:
    out = g_strdup("ic ivau was issued before a dsb completed the clean, so the I-cache may "
                   "refill from the stale copy: put dsb ish between the clean and the "
                   "invalidate loops.");
    break;
  case MODEL_STALE_INVALIDATE_NOT_COMPLETED:
    out = g_strdup("ic ivau was issued but no dsb completed it before the fetch: put dsb ish "
                   "after the invalidate loop.");
    break;
  case MODEL_STALE_NOT_INVALIDATED_IN_GEOMETRY:
    if (stepped_over(fd)) {
      out = g_strdup_printf("The invalidate loop steps %u bytes but this %s's I-cache lines are "
                            "%u bytes, so every line between two steps was never invalidated "
                            "on it: %s; step by the smallest IminLine of every core.",
                            fd->key.stride, core, fd->line, from->str);
    } else if (fd->key.flush_pc) {
      out = g_strdup_printf("This routine's ic ivau reached the code around these words but not "
                            "their %u-byte I-cache lines on this %s: the range it was given "
                            "ends short of the new code, or its start was not aligned down to "
                            "the line.",
                            fd->line, core);
    } else {
      out = g_strdup_printf("No ic ivau covered these words in this %s's %u-byte I-cache lines "
                            "after they were written: invalidate every line of the new code.",
                            core, fd->line);
    }
    break;
  case MODEL_STALE_NONEXEC_ALIAS:
    out = g_strdup_printf("The invalidate went through the writable, non-executable view of "
                          "double-mapped code, and this %s's VIPT I-cache is indexed by the "
                          "executable address: invalidate through the executable view.",
                          core);
    break;
  case MODEL_STALE_OTHER_EXEC_VIEW:
    out = g_strdup_printf("The invalidate went through another executable view of these "
                          "double-mapped pages, and this %s's VIPT I-cache is indexed by the "
                          "address the code is fetched from: invalidate through every "
                          "executable view the code runs from.",
                          core);
    break;
  case MODEL_STALE_NOT_SYNCHRONISED:
    out = g_strdup("The maintenance completed, but the fetching thread did not synchronise its "
                   "pipeline (isb, a system call, or membarrier SYNC_CORE from the writer) "
                   "before running the new code.");
    break;
  case MODEL_STALE_KERNEL_SYNC_ASSUMED:
    out = g_strdup("Only the Linux kernel made this code coherent, when mprotect or mmap first "
                   "mapped its pages executable (arm64 __sync_icache_dcache); macOS, Windows and "
                   "the BSDs do not, and Linux does not for a page mapped executable before: "
                   "clean and invalidate the new code yourself (dc cvau, dsb ish, ic ivau, "
                   "dsb ish, isb) to be portable.");
    break;
  default:
    out = g_strdup("unknown");
    break;
  }
  g_string_free(from, true);
  char *more = explain_routine(f, fd, out);
  g_free(out);
  return more;
}
