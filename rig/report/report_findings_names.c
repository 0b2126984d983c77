/*
 * The findings' names (report_findings_names.h): every code address a finding
 * mentions, named once after the run by the symboliser the caller passes,
 * so that the three writers only look names up.
 */
#include <string.h>

#include "report_findings_names.h"
#include "report_findings_internal.h"
#include "report_known_routines.h"

/* ---- names ----------------------------------------------------------------- */

/* The call instruction before a return address (A64 instructions are 4
 * bytes), which is what a caller frame should name. */
uint64_t report_findings_call_site_of(uint64_t lr)
{
  return lr >= 4 ? lr - 4 : 0;
}

static void resolve_pc(struct report_findings *f, uint64_t pc, report_symbolize_fn fn, void *ctx)
{
  if (!pc || g_hash_table_contains(f->frames, GSIZE_TO_POINTER(pc))) {
    return;
  }
  struct report_frame_names *fr = g_new0(struct report_frame_names, 1);
  if (fn) {
    fn(pc, fr, ctx);
  }
  g_hash_table_insert(f->frames, GSIZE_TO_POINTER(pc), fr);
}

/* The function part of a frame's raw symbol ("f+0x48" -> "f"), NULL
 * without one. */
static char *function_of(const struct report_frame_names *fr)
{
  if (!fr->raw_symbol) {
    return NULL;
  }
  const char *plus = strrchr(fr->raw_symbol, '+');
  return g_strndup(fr->raw_symbol, plus ? (gsize)(plus - fr->raw_symbol) : strlen(fr->raw_symbol));
}

/*
 * Whether the call before LR lies in the flush routine at FLUSH_PC itself:
 * the routine made a call (to a helper that reads the cache geometry, say)
 * before its loops, so x30 holds a return address inside it, and the
 * routine's own caller is in the frame record its prologue pushed
 * (AAPCS64, "The frame pointer": x29 points at {previous x29, x30}).
 * Told by the symbols; without a symbol for both, nothing is assumed.
 */
static bool call_inside_routine(const struct report_findings *f, uint64_t flush_pc, uint64_t lr)
{
  char *routine = function_of(report_findings_frame_of(f, flush_pc));
  char *call = function_of(report_findings_frame_of(f, report_findings_call_site_of(lr)));
  bool inside = routine && call && strcmp(routine, call) == 0;
  g_free(routine);
  g_free(call);
  return inside;
}

/* FD's callers named by the return address that leads to the routine's
 * caller (struct caller, AT), those that name the same call merged. */
static void name_callers(struct report_findings *f, struct finding *fd, report_symbolize_fn fn,
                         void *ctx)
{
  GArray *merged = g_array_new(false, false, sizeof(struct caller));
  for (guint i = 0; i < fd->callers->len; i++) {
    struct caller c = g_array_index(fd->callers, struct caller, i);
    c.at = c.lr;
    if (c.unwound) {
      /* The unwind tables said where the return address was at the flush
       * instruction: no symbol needed. */
      c.at = c.unwound;
      resolve_pc(f, report_findings_call_site_of(c.at), fn, ctx);
    } else if (c.frame_lr && fd->key.flush_pc && call_inside_routine(f, fd->key.flush_pc, c.lr)) {
      c.at = c.frame_lr;
      resolve_pc(f, report_findings_call_site_of(c.at), fn, ctx);
    }
    guint j = 0;
    while (j < merged->len && g_array_index(merged, struct caller, j).at != c.at) {
      j++;
    }
    if (j < merged->len) {
      g_array_index(merged, struct caller, j).count += c.count;
    } else {
      g_array_append_val(merged, c);
    }
  }
  g_array_unref(fd->callers);
  fd->callers = merged;
  fd->last_caller = 0;
  report_findings_sort_callers(fd);
}

/*
 * Where no maintenance reached the words, the store that wrote them stands
 * in for the flush routine; a JIT emits one piece of code with several
 * stores (a loop's and the ret's), and a function that publishes code
 * without a flush is one root cause whichever of its stores wrote each
 * word: such findings of one kind whose stores lie in one named function
 * are joined, their stores listed in `writers`.
 */
static void join_by_writer_function(struct report_findings *f)
{
  for (guint i = 0; i < f->findings->len; i++) {
    struct finding *into = g_ptr_array_index(f->findings, i);
    char *fn =
        into->key.flush_pc ? NULL : function_of(report_findings_frame_of(f, into->writer_pc));
    for (guint j = i + 1; fn && j < f->findings->len;) {
      struct finding *fd = g_ptr_array_index(f->findings, j);
      char *other = fd->key.flush_pc || fd->key.kind != into->key.kind
                        ? NULL
                        : function_of(report_findings_frame_of(f, fd->writer_pc));
      bool same = other && strcmp(fn, other) == 0;
      g_free(other);
      if (same) {
        report_findings_join(f, into, fd);
      } else {
        j++;
      }
    }
    g_free(fn);
  }
}

void report_findings_resolve(struct report_findings *f, report_symbolize_fn fn, void *ctx)
{
  report_findings_settle(f);
  for (guint i = 0; i < f->findings->len; i++) {
    const struct finding *fd = g_ptr_array_index(f->findings, i);
    resolve_pc(f, fd->writer_pc, fn, ctx);
    for (guint w = 0; w < fd->writers->len; w++) {
      resolve_pc(f, g_array_index(fd->writers, struct writer, w).pc, fn, ctx);
    }
    resolve_pc(f, fd->key.flush_pc, fn, ctx);
    /* A flush routine is named by its code too: a stripped libgcc copy has
     * no symbol, and a named one says nothing of its flaw. */
    struct report_frame_names *flush =
        g_hash_table_lookup(f->frames, GSIZE_TO_POINTER(fd->key.flush_pc));
    if (flush && flush->module && !flush->routine) {
      flush->routine = report_known_routine_in_file(flush->module, flush->offset);
    }
    for (guint c = 0; c < fd->callers->len; c++) {
      resolve_pc(f, report_findings_call_site_of(g_array_index(fd->callers, struct caller, c).lr),
                 fn, ctx);
    }
  }
  for (guint i = 0; i < f->ctr_sites->len; i++) {
    const struct ctr_site *s = g_ptr_array_index(f->ctr_sites, i);
    resolve_pc(f, s->key.pc, fn, ctx);
  }
  for (guint i = 0; i < f->kernel_notes->len; i++) {
    const struct kernel_note *n = g_ptr_array_index(f->kernel_notes, i);
    resolve_pc(f, n->pc, fn, ctx);
    resolve_pc(f, report_findings_call_site_of(n->lr), fn, ctx);
  }
  resolve_pc(f, f->end_block, fn, ctx);
  for (guint i = 0; i < f->findings->len; i++) {
    name_callers(f, g_ptr_array_index(f->findings, i), fn, ctx);
  }
  join_by_writer_function(f);
}

const struct report_frame_names *report_findings_frame_of(const struct report_findings *f,
                                                          uint64_t pc)
{
  static const struct report_frame_names none = {0};
  const struct report_frame_names *fr = g_hash_table_lookup(f->frames, GSIZE_TO_POINTER(pc));
  return fr ? fr : &none;
}
