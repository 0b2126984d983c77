/*
 * The findings' names (findings_names.h): every code address a finding
 * mentions, named once after the run by the symboliser the caller passes,
 * so that the three writers only look names up.
 */
#include "findings_names.h"
#include "findings_internal.h"
#include "known_routines.h"

/* ---- names ----------------------------------------------------------------- */

/* The call instruction before a return address (A64 instructions are 4
 * bytes), which is what a caller frame should name. */
uint64_t emu_findings_call_site_of(uint64_t lr)
{
  return lr >= 4 ? lr - 4 : 0;
}

static void resolve_pc(struct emu_findings *f, uint64_t pc, emu_symbolize_fn fn, void *ctx)
{
  if (!pc || g_hash_table_contains(f->frames, GSIZE_TO_POINTER(pc))) {
    return;
  }
  struct emu_frame_names *fr = g_new0(struct emu_frame_names, 1);
  if (fn) {
    fn(pc, fr, ctx);
  }
  g_hash_table_insert(f->frames, GSIZE_TO_POINTER(pc), fr);
}

void emu_findings_resolve(struct emu_findings *f, emu_symbolize_fn fn, void *ctx)
{
  emu_findings_settle(f);
  for (guint i = 0; i < f->findings->len; i++) {
    const struct finding *fd = g_ptr_array_index(f->findings, i);
    resolve_pc(f, fd->writer_pc, fn, ctx);
    for (guint w = 0; w < fd->writers->len; w++) {
      resolve_pc(f, g_array_index(fd->writers, struct writer, w).pc, fn, ctx);
    }
    resolve_pc(f, fd->key.flush_pc, fn, ctx);
    /* A flush routine is named by its code too: a stripped libgcc copy has
     * no symbol, and a named one says nothing of its flaw. */
    struct emu_frame_names *flush =
        g_hash_table_lookup(f->frames, GSIZE_TO_POINTER(fd->key.flush_pc));
    if (flush && flush->module && !flush->routine) {
      flush->routine = emu_known_routine_in_file(flush->module, flush->offset);
    }
    for (guint c = 0; c < fd->callers->len; c++) {
      resolve_pc(f, emu_findings_call_site_of(g_array_index(fd->callers, struct caller, c).lr), fn,
                 ctx);
    }
  }
  for (guint i = 0; i < f->ctr_sites->len; i++) {
    const struct ctr_site *s = g_ptr_array_index(f->ctr_sites, i);
    resolve_pc(f, s->key.pc, fn, ctx);
  }
  for (guint i = 0; i < f->kernel_notes->len; i++) {
    const struct kernel_note *n = g_ptr_array_index(f->kernel_notes, i);
    resolve_pc(f, n->pc, fn, ctx);
    resolve_pc(f, emu_findings_call_site_of(n->lr), fn, ctx);
  }
  resolve_pc(f, f->end_block, fn, ctx);
}

const struct emu_frame_names *emu_findings_frame_of(const struct emu_findings *f, uint64_t pc)
{
  static const struct emu_frame_names none = {0};
  const struct emu_frame_names *fr = g_hash_table_lookup(f->frames, GSIZE_TO_POINTER(pc));
  return fr ? fr : &none;
}
