/*
 * AArch64 Linux and Android: the public API over the per-core probe
 * (lib/state.c), flushing with the line that is safe on every core
 * (lib/flush_aarch64.S); jitflush_sync_cores is lib/sync_linux.c. How the
 * line is chosen: docs/BACKGROUND.md#how-jitflush-chooses-the-stride.
 */
#include "platform.h"
#if JF_PLATFORM_AARCH64_LINUX
#include <stdatomic.h>
#include <stdint.h>

#include "jitflush.h"
#include "ctr.h"
#include "range.h"
#include "regs.h"
#include "state.h"
#include "sysfs.h"

enum { FLAG_IDC = 1, FLAG_DIC = 2, FLAG_CIVAC = 4 };

void jf_flush_lines_aarch64(uintptr_t d_first, uintptr_t d_last, uintptr_t i_first,
                            uintptr_t i_last, uintptr_t dline, uintptr_t iline, unsigned flags);
void jf_flush_sync_aarch64(void);

int jitflush_init(void)
{
  return jf_state_init();
}

/* flush_views before the probe has published, or with the per-call guard:
 * out of line, so the common path below stays short. */
static void flush_with(struct jf_geometry g, uintptr_t d_first, uintptr_t i_first, uintptr_t span)
{
  unsigned dline = g.dline, iline = g.iline;
  if (g.per_call_guard) {
    /* Some core's lines are estimates (sysfs, MIDR table): also honour
     * the core we run on now. One mrs per call, a kernel trap on Linux
     * >= 4.9 with mismatched cores (docs/BACKGROUND.md#where-the-stride-comes-from,
     * "Per-call guard"). */
    struct jf_ctr here = jf_ctr_decode(jf_regs_read_ctr());
    if (here.iline < iline) {
      iline = here.iline;
    }
    if (here.dline < dline) {
      dline = here.dline;
    }
  }
  unsigned flags = (g.idc ? FLAG_IDC : 0) | (g.dic ? FLAG_DIC : 0) | (g.dc_civac ? FLAG_CIVAC : 0);
  jf_flush_lines_aarch64(d_first, d_first + span, i_first, i_first + span, dline, iline, flags);
}

/* Re-probes at most this many times in one flush before settling for the
 * floor (CPUs coming online one after another faster than a probe runs). */
enum { MAX_REPROBES_PER_FLUSH = 2 };

__attribute__((noinline)) static void flush_views_slow(uintptr_t d_first, uintptr_t i_first,
                                                       uintptr_t span)
{
  struct jf_geometry g = jf_state_geometry(); /* probes first if nobody has */
  uint64_t w = atomic_load_explicit(&jf_geometry_word, memory_order_acquire);
  if (w & JF_GW_READY) {
    g = jf_geometry_unpack(w); /* the very word the checks below compare with */
  }
  for (unsigned round = 0;; round++) {
    flush_with(g, d_first, i_first, span);
    if (!g.online_check) {
      return;
    }
    /* Some offline CPU's lines are inferred from its cluster (policy.c).
     * The online list is read only now, after the maintenance completed:
     * a CPU not online yet boots later with its I-cache invalidated, and
     * one that came online before may hold the old code, so the
     * maintenance is repeated with its lines
     * (docs/BACKGROUND.md#offline-cpus, rules 2 and 3). */
    enum jf_online_change change = jf_state_online_changed();
    /* A re-probe published since this flush loaded its geometry: the CPU
     * list just compared may be the new view's, which says nothing about
     * maintenance done in the old geometry. Repeat it in the new one. */
    uint64_t now = atomic_load_explicit(&jf_geometry_word, memory_order_acquire);
    if (now != w && round < MAX_REPROBES_PER_FLUSH) {
      w = now;
      g = jf_geometry_unpack(w);
      continue;
    }
    if (change == JF_ONLINE_SAME && now == w) {
      return;
    }
    if (change == JF_ONLINE_NEW_CPU && round < MAX_REPROBES_PER_FLUSH && jf_state_reprobe()) {
      w = atomic_load_explicit(&jf_geometry_word, memory_order_acquire);
      g = jf_geometry_unpack(w);
    } else {
      g = jf_geometry_floor(); /* correct on any core, checks nothing */
    }
  }
}

/* Cleans [d_first, d_first + span] and invalidates [i_first, i_first + span]
 * with the process-wide geometry. The common case, a published geometry
 * without the per-call guard, is one acquire load and a few shifts of the
 * geometry word (lib/state.h): that is what ci/bench/run.sh measures as
 * jitflush's fixed cost per flush, and what keeps it at or below libgcc's. */
static inline void flush_views(uintptr_t d_first, uintptr_t i_first, uintptr_t span)
{
  const uint64_t w = atomic_load_explicit(&jf_geometry_word, memory_order_acquire);
  if (!(w & JF_GW_FAST)) {
    flush_views_slow(d_first, i_first, span);
    return;
  }
  if (w & JF_GW_SYNC_ONLY) {
    jf_flush_sync_aarch64();
    return;
  }
  jf_flush_lines_aarch64(d_first, d_first + span, i_first, i_first + span,
                         (uintptr_t)1 << ((w >> JF_GW_DLOG2_SHIFT) & 0x1f),
                         (uintptr_t)1 << ((w >> JF_GW_ILOG2_SHIFT) & 0x1f),
                         (unsigned)(w >> JF_GW_FLAGS_SHIFT) & (FLAG_IDC | FLAG_DIC | FLAG_CIVAC));
}

void jitflush_clear_cache(void *begin, void *end)
{
  uintptr_t last;
  if (!jf_range_last(begin, end, &last)) {
    return;
  }
  flush_views((uintptr_t)begin, (uintptr_t)begin, last - (uintptr_t)begin);
}

void jitflush_clear_cache_dual(const void *rw, const void *rx, size_t len)
{
  if (len == 0) {
    return;
  }
  /* Each view is aligned to the line on its own, so views whose offsets
   * within a line differ still cover every line of both. */
  flush_views((uintptr_t)rw, (uintptr_t)rx, len - 1);
}

int jitflush_get_info(struct jitflush_info *out)
{
  if (!out) {
    return JITFLUSH_ERR_ARG;
  }
  int status = jf_state_init();
  jf_public_info(jf_state_view(), out);
  /* The probe reads no sysfs line for a CPU whose CTR_EL0 it read (the
   * policy has no use for it); the report shows it anyway. */
  for (unsigned i = 0; i < out->ncpus; i++) {
    if (!out->cpus[i].observed) {
      continue;
    }
    struct jf_sysfs_cpu sys;
    jf_sysfs_read_l1((unsigned)out->cpus[i].cpu, &sys);
    out->cpus[i].sysfs_l1i_line = sys.l1i_line;
    out->cpus[i].sysfs_l1d_line = sys.l1d_line;
  }
  out->platform = "aarch64-linux";
  out->method = out->use_dc_civac
                    ? "dc civac / dsb ish / ic ivau / dsb ish / isb, all-cores minimum line"
                    : "dc cvau / dsb ish / ic ivau / dsb ish / isb, all-cores minimum line";
  return status;
}
#endif
