/*
 * The findings as sanitizer-style blocks for stderr (report_findings_text.h), the
 * way a sanitizer prints a report: a headline, the frames, the advice.
 */
#include <inttypes.h>
#include <string.h>

#include "report_findings_explain.h"
#include "report_findings_names.h"
#include "report_findings_text.h"
#include "report_known_routines.h"
#include "ctr.h"

#define CALLERS_SHOWN 5 /* callers in a stderr block (the JSON has all) */
#define WRITERS_SHOWN 3 /* writers in a stderr block */

/* ---- text ------------------------------------------------------------------ */

/* "0xPC function+0x48 file:line (module+0xoffset)", as sanitizers print a
 * frame: the module and offset name the code even with no symbol. */
static void append_frame(GString *out, uint64_t pc, const struct report_frame_names *fr)
{
  g_string_append_printf(out, "0x%" PRIx64 " %s", pc, fr->symbol ? fr->symbol : "(no symbol)");
  if (fr->location) {
    g_string_append_printf(out, " %s", fr->location);
  }
  if (fr->module) {
    const char *base = strrchr(fr->module, '/');
    g_string_append_printf(out, " (%s+0x%" PRIx64 ")", base ? base + 1 : fr->module, fr->offset);
  }
}

static void text_frame(GString *out, const char *label, uint64_t pc,
                       const struct report_frame_names *fr, const char *tail)
{
  g_string_append_printf(out, "    %-7s ", label);
  append_frame(out, pc, fr);
  g_string_append_printf(out, "%s\n", tail ? tail : "");
}

static void text_flush(GString *out, const struct report_findings *f, const struct finding *fd)
{
  if (!fd->key.flush_pc) {
    g_string_append(out, "    flush   none reached these words\n");
    return;
  }
  text_frame(out, "flush", fd->key.flush_pc, report_findings_frame_of(f, fd->key.flush_pc), NULL);
  const struct report_frame_names *fr = report_findings_frame_of(f, fd->key.flush_pc);
  const struct report_known_routine *known = fr->routine;
  if (known) {
    const char *source;
    char *by = report_findings_compiler(fr, &source);
    g_string_append_printf(out, "            is %s (%s), built by ", known->name, known->symbol);
    if (by) {
      g_string_append_printf(out, "%s (its %s)\n", by, source);
    } else {
      g_string_append(out, "an unknown compiler (no DW_AT_producer, no .comment)\n");
    }
    g_free(by);
  }
  struct report_module_origin origin;
  if (report_findings_flush_origin(f, fd, &origin)) {
    if (origin.kind != REPORT_MODULE_PROJECT) {
      char *module = report_findings_describe_module(&origin, fr);
      /* Only line sizes are its builders' to fix: a missing isb after a
       * flush is its caller's, whoever built the routine. */
      const bool lines = fd->key.kind == MODEL_STALE_NOT_INVALIDATED_IN_GEOMETRY ||
                         fd->key.kind == MODEL_STALE_NOT_CLEANED;
      g_string_append_printf(out, "            in %s, not built in this project%s\n", module,
                             lines ? ": the fix is for its builders" : "");
      g_free(module);
    }
    report_module_origin_clear(&origin);
  }
  if (fd->key.stride) {
    g_string_append_printf(out, "            loop stride %u bytes", fd->key.stride);
    const struct ctr_site *src = report_findings_stride_source(f, fd);
    if (src) {
      struct jf_ctr d = jf_ctr_decode(src->key.value);
      g_string_append(out, ": ");
      report_findings_append_ctr_read(out, f, src);
      g_string_append(out, " at ");
      append_frame(out, src->key.pc, report_findings_frame_of(f, src->key.pc));
      g_string_append_printf(out, ", %s %u bytes, used on cpu %u (%s, %u)",
                             report_findings_d_side(fd->key.kind) ? "DminLine" : "IminLine",
                             report_findings_d_side(fd->key.kind) ? d.dline : d.iline,
                             fd->fetch_cpu, report_findings_core_of_cpu(f, fd->fetch_cpu),
                             fd->line);
    }
    g_string_append_c(out, '\n');
  }
  for (guint i = 0; i < fd->callers->len && i < CALLERS_SHOWN; i++) {
    const struct caller *c = &g_array_index(fd->callers, struct caller, i);
    if (!c->at) {
      continue;
    }
    char *tail =
        fd->callers->len > 1 ? g_strdup_printf(" [%" PRIu64 " stale fetches]", c->count) : NULL;
    text_frame(out, "called", report_findings_call_site_of(c->at),
               report_findings_frame_of(f, report_findings_call_site_of(c->at)), tail);
    g_free(tail);
  }
  if (fd->callers->len > CALLERS_SHOWN) {
    g_string_append_printf(out, "            and %u more callers (in the JSON report)\n",
                           fd->callers->len - CALLERS_SHOWN);
  }
}

static void text_writers(GString *out, const struct report_findings *f, const struct finding *fd)
{
  if (!fd->writers || fd->writers->len <= 1) {
    text_frame(out, "writer", fd->writer_pc, report_findings_frame_of(f, fd->writer_pc), NULL);
    return;
  }
  for (guint i = 0; i < fd->writers->len && i < WRITERS_SHOWN; i++) {
    const struct writer *w = &g_array_index(fd->writers, struct writer, i);
    char *tail = g_strdup_printf(" [%u words]", w->words);
    text_frame(out, "writer", w->pc, report_findings_frame_of(f, w->pc), tail);
    g_free(tail);
  }
  if (fd->writers->len > WRITERS_SHOWN) {
    g_string_append_printf(out, "            and %u more writers (in the JSON report)\n",
                           fd->writers->len - WRITERS_SHOWN);
  }
}

static void text_crash(GString *out, const struct report_findings *f)
{
  if (!report_findings_died(f)) {
    return;
  }
  g_string_append(out, "==jitflush-emu== CRASH: the program died of a signal (it never called "
                       "exit_group)");
  if (f->end_thread >= 0) {
    g_string_append_printf(out, " in thread %d", f->end_thread);
  }
  if (f->end_block) {
    g_string_append(out, ", in the block at ");
    append_frame(out, f->end_block, report_findings_frame_of(f, f->end_block));
  }
  g_string_append_c(out, '\n');
  const struct last_stale *l = report_findings_crash_stale(f);
  if (!l) {
    g_string_append(out, "    that thread fetched no stale word; the findings above are in other "
                         "threads\n");
    return;
  }
  unsigned n = report_findings_number(f, &l->key);
  g_string_append_printf(out, "    its last stale fetch, 0x%" PRIx64 ", was of ", l->va);
  if (n) {
    g_string_append_printf(out, "finding #%u", n);
  } else {
    g_string_append(out, "a root cause not kept");
  }
  g_string_append_printf(out,
                         " (%s), %" PRIu64 " stale fetches before the end: the stale code it ran "
                         "is the likely cause\n",
                         model_stale_kind_name(l->key.kind), f->stale_total - l->seq);
}

/* docs/FINDINGS.md, "Code the kernel published": not a finding. */
static void text_kernel_notes(GString *out, const struct report_findings *f)
{
  for (guint i = 0; i < f->kernel_notes->len; i++) {
    const struct kernel_note *n = g_ptr_array_index(f->kernel_notes, i);
    g_string_append_printf(out,
                           "==jitflush-emu== NOTE: %" PRIu64 " words of code on %" PRIu64
                           " page%s were published only by the kernel (Linux %s) at %s\n",
                           n->words, n->pages, n->pages == 1 ? "" : "s",
                           rig_kernel_linux_names[f->cfg->kernel_linux], n->call);
    text_frame(out, "call", n->pc, report_findings_frame_of(f, n->pc), NULL);
    if (n->lr) {
      uint64_t site = report_findings_call_site_of(n->lr);
      text_frame(out, "caller", site, report_findings_frame_of(f, site), NULL);
    }
    g_string_append_printf(out, "    %s\n", REPORT_KERNEL_NOTE_TEXT);
  }
}

/* docs/FINDINGS.md, "Rewrites with the same bytes": not a finding. */
static void text_benign_note(GString *out, const struct report_findings *f)
{
  if (f->benign_total) {
    g_string_append_printf(out,
                           "==jitflush-emu== NOTE: %" PRIu64 " stale fetches (first 0x%" PRIx64
                           ") of code rewritten with the same bytes\n    %s\n",
                           f->benign_total, f->benign_first, REPORT_BENIGN_NOTE_TEXT);
  }
}

GString *report_findings_text(const struct report_findings *f)
{
  GString *out = g_string_new(NULL);
  if (f->findings->len == 0) {
    text_kernel_notes(out, f);
    text_benign_note(out, f);
    return out;
  }
  GPtrArray *list = report_findings_sorted(f);
  for (guint i = 0; i < list->len; i++) {
    const struct finding *fd = g_ptr_array_index(list, i);
    g_string_append_printf(out,
                           "==jitflush-emu== STALE FETCH #%u %s: %" PRIu64
                           " stale fetches of %u words (first 0x%" PRIx64 ") on cpu %u (%s",
                           i + 1, model_stale_kind_name(fd->key.kind), fd->count,
                           g_hash_table_size(fd->words), fd->examples[0], fd->fetch_cpu,
                           report_findings_core_of_cpu(f, fd->fetch_cpu));
    if (report_findings_d_side(fd->key.kind) && fd->line_of_cleaner) {
      g_string_append_printf(out, "), written on a %s, cleaned on a %s (%u-byte D-cache lines)\n",
                             report_findings_core_of_cluster(f, fd->writer_cluster),
                             report_findings_core_of_cluster(f, fd->cleaner_cluster), fd->line);
    } else if (report_findings_d_side(fd->key.kind)) {
      g_string_append_printf(out, "), written on a %s (%u-byte D-cache lines)\n",
                             report_findings_core_of_cluster(f, fd->writer_cluster), fd->line);
    } else {
      g_string_append_printf(out, ", %u-byte I-cache lines)\n", fd->line);
    }
    text_flush(out, f, fd);
    unsigned same = report_findings_same_cause(f, fd);
    if (same) {
      g_string_append_printf(out,
                             "    cause   the same CTR_EL0 read as #%u: one root cause, both "
                             "loops, counted once\n",
                             same);
    }
    text_writers(out, f, fd);
    const char *rerun = f->rerun ? f->rerun : f->reproduce;
    if (rerun) {
      g_string_append_printf(out, "    rerun   %s\n", rerun);
    }
    if (rerun && f->unrecorded) {
      g_string_append_printf(out, "            not restored by it: %s\n", f->unrecorded);
    }
    char *msg = report_findings_explain(f, fd);
    g_string_append_printf(out, "    %s\n", msg);
    g_free(msg);
  }
  text_crash(out, f);
  text_kernel_notes(out, f);
  text_benign_note(out, f);
  if (f->omitted_stale) {
    g_string_append_printf(out,
                           "==jitflush-emu== %" PRIu64 " more stale fetches of root causes beyond "
                           "the first %d, which are the only ones kept\n",
                           f->omitted_stale, REPORT_FINDINGS_KEEP);
  }
  if (f->cfg->kernel_linux == RIG_KERNEL_LINUX_ANON_SKIP) {
    /* Not today's kernel: the verdicts are that kernel's (docs/RIG.md). */
    g_string_append_printf(out, "==jitflush-emu== kernel: Linux %s, %s\n",
                           rig_kernel_linux_names[f->cfg->kernel_linux], REPORT_ANON_SKIP_TEXT);
  }
  unsigned causes = report_findings_root_causes(f);
  g_string_append_printf(out, "SUMMARY: jitflush-emu: %u finding%s, %" PRIu64 " stale fetches\n",
                         causes, causes == 1 ? "" : "s", f->stale_total);
  g_ptr_array_unref(list);
  return out;
}
