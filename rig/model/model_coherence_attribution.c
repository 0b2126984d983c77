/*
 * Report attribution in the coherence model: which clean or invalidate
 * site last reached each word, and with which loop stride, so that a stale
 * word names the loop that stepped over it (the Exynos 8890 bug: a
 * 128-byte stride on a 64-byte-line core) rather than nothing. A verdict's
 * kind reads only whether any site reached the word since its last store
 * (model_fetch, kernel-sync-assumed). What the report makes of it:
 * docs/FINDINGS.md#stride-and-line-on-every-soc.
 */
#include <limits.h>
#include <string.h>

#include "model_coherence_internal.h"
#include "ctr.h"

unsigned model_site_stride(const struct model *m, uint32_t site)
{
  return site < m->site_stride->len ? g_array_index(m->site_stride, unsigned, site) : 0;
}

/*
 * Loop recognition. A step is the distance from the thread's previous
 * operation of the same kind when that came from the same site, in the same
 * loop execution (no barrier instruction in between, model_loops_end),
 * and lies less than a page below; two equal steps in a row make it that
 * execution's stride and the site's latest. A gap between two calls of a
 * flush routine is never a step: each call ends with its dsb. Every
 * operation claims the words up to its next step (with the execution's
 * stride, or while it is not confirmed yet, the site's latest), and the
 * step that confirms a stride claims the two before it, so the words a loop
 * stepped over name that loop and its stride. Returns the stride the
 * operation's own marks carry (0: none known, see claim_lines).
 *
 * The claim ahead leaves out the words of the LINE-byte block around VA:
 * the operation marks those itself, with the same site, time, stride and
 * cluster, once this returns (mark_clean_issued, mark_inval_issued), and
 * nothing reads them in between. With a stride of one line that is the
 * whole claim: on the Racket row 41 million of the model's 73 million
 * record changes were these claims, each followed by the same mark.
 */
unsigned model_follow_loop(struct model *m, uint32_t site, uint64_t va, struct model_loop *loop,
                           bool inval, uint64_t seq, unsigned cluster, unsigned line)
{
  uint64_t step = 0;
  if (site != MODEL_NO_SITE && site == loop->site && va > loop->addr &&
      va - loop->addr <= MAX_STRIDE) {
    step = va - loop->addr;
  }
  if (step != loop->stride) {
    loop->stride = 0; /* another site, or a step out of the loop's pattern */
  }
  struct site_mark s = {site, seq, inval, 0, cluster};
  if (step && step == loop->step) {
    bool confirms = loop->stride != step;
    if (m->site_stride->len <= site) {
      g_array_set_size(m->site_stride, site + 1);
    }
    g_array_index(m->site_stride, unsigned, site) = (unsigned)step;
    loop->stride = (unsigned)step;
    s.stride = loop->stride;
    if (confirms) {
      /* Once: later steps claimed their words ahead as they went. */
      struct site_claim before = {.mark = s};
      for_each_word(m, va - 2 * step, va, mark_site, &before);
    }
  }
  s.stride = loop->stride ? loop->stride : model_site_stride(m, site);
  if (s.stride) {
    struct site_claim ahead = {.mark = s};
    uint64_t marked_end = (va & ~((uint64_t)line - 1)) + line;
    for_each_word(m, marked_end, va + s.stride, mark_site, &ahead);
  }
  loop->site = site;
  loop->addr = va;
  loop->step = step;
  return s.stride;
}

/*
 * An operation whose loop shows no stride (a call that issued one or two,
 * as a 12-byte flush does, of a routine never seen looping): it claims the
 * words of the largest line the program read from CTR_EL0 around its
 * address (any core's line when it read none: a hard-coded step), each
 * word with the smallest of those lines whose block around the address
 * holds it as its stride. A routine aligns its start down to the line it
 * steps by, and that line came from a CTR_EL0 read, so a word it missed
 * in a smaller geometry lies in the block of the line it used: on
 * the Exynos 8890 the word 0x40 past a 128-byte-aligned ic ivau was
 * meant by a 128-byte line (an Exynos M1's IminLine), and in a 64-byte one
 * on a 32-byte core's clean. Descending, so the smaller blocks, which are
 * inside the larger ones, keep the smaller line.
 */
void model_claim_lines(const struct model *m, uint64_t va, struct site_mark *s)
{
  uint32_t read = s->inval ? m->ilines_read : m->dlines_read;
  unsigned done = UINT_MAX;
  for (;;) {
    unsigned line = 0;
    for (unsigned k = 0; k < 32; k++) {
      unsigned l = 4u << k;
      if ((read >> k & 1) && l < done && l > line) {
        line = l;
      }
    }
    for (unsigned c = 0; !read && c < m->nclusters; c++) {
      unsigned l = s->inval ? m->geo[c].iline : m->geo[c].dline;
      if (l < done && l > line) {
        line = l;
      }
    }
    if (!line) {
      return;
    }
    s->stride = line;
    struct site_claim claim = {.mark = *s};
    for_each_word_in_line(m, va, line, mark_site, &claim);
    done = line;
  }
}

void model_ctr_read(struct model *m, uint64_t value)
{
  struct jf_ctr d = jf_ctr_decode(value);
  m->shared++; /* claim_lines: the lines read */
  m->ilines_read |= UINT32_C(1) << (jf_log2_line(d.iline) - 2);
  m->dlines_read |= UINT32_C(1) << (jf_log2_line(d.dline) - 2);
}

void model_loops_end(struct model_thread *t)
{
  memset(&t->clean_loop, 0, sizeof(t->clean_loop));
  memset(&t->inval_loop, 0, sizeof(t->inval_loop));
}

/* The site whose maintenance should have made W coherent for KIND (the
 * clean or invalidate loop that reached W after its last store), and the
 * stride that loop had when it did. */
uint32_t model_blamed_site(const struct model_rec *w, enum model_stale_kind kind, unsigned *stride)
{
  bool clean_after = w->clean_site_seq > w->store_seq;
  bool inval_after = w->inval_site_seq > w->store_seq;
  bool inval;
  switch (kind) {
  case MODEL_STALE_NOT_CLEANED:
  case MODEL_STALE_CLEAN_NOT_COMPLETED:
  case MODEL_STALE_CLEAN_NOT_ORDERED:
    inval = false;
    break;
  case MODEL_STALE_NOT_SYNCHRONISED:
    inval = inval_after;
    break;
  default:
    inval = true;
    break;
  }
  if (inval) {
    *stride = inval_after ? w->inval_stride : 0;
    return inval_after ? w->inval_site : MODEL_NO_SITE;
  }
  *stride = clean_after ? w->clean_stride : 0;
  return clean_after ? w->clean_site : MODEL_NO_SITE;
}
