/*
 * The process-wide flush geometry and the once-only probe that fixes it.
 * The geometry is one 64-bit word so that a flush reads it with a single
 * acquire load: async-signal-safe and lock-free.
 */
#ifndef JITFLUSH_INTERNAL_STATE_H
#define JITFLUSH_INTERNAL_STATE_H

#include <stdbool.h>
#include <stdint.h>

#include "view.h"

struct jf_geometry {
  unsigned iline; /* bytes, power of two */
  unsigned dline;
  bool idc;
  bool dic;
  bool dc_civac;       /* use dc civac instead of dc cvau */
  bool per_call_guard; /* also min() with this core's CTR_EL0 each call */
  bool online_check;   /* after the maintenance, look for CPUs that came
                          online since the probe (jf_state_online_changed) */
};

/*
 * The published geometry as one word (0 until the probe has finished), so
 * that the flush's fast path is one acquire load and a few shifts, with no
 * call and no struct (ci/bench/run.sh counts those instructions per flush):
 *   [4:0] log2 I-line  [12:8] log2 D-line
 *   [16] IDC  [17] DIC  [18] dc civac  (the order of flush_aarch64.S's flags)
 *   [19] per-call guard  [20] online check  [61] sync only: fast, IDC and DIC (one tbnz)
 *   [62] fast: ready and no guard (one tbz tests it)
 *   [63] ready
 */
#define JF_GW_ILOG2_SHIFT 0
#define JF_GW_DLOG2_SHIFT 8
#define JF_GW_FLAGS_SHIFT 16
#define JF_GW_GUARD (UINT64_C(1) << 19)
#define JF_GW_ONLINE_CHECK (UINT64_C(1) << 20)
#define JF_GW_SYNC_ONLY (UINT64_C(1) << 61)
#define JF_GW_FAST (UINT64_C(1) << 62)
#define JF_GW_READY (UINT64_C(1) << 63)
#ifndef __cplusplus /* C11 atomics; the C++ tests use the functions below */
#include <stdatomic.h>
extern _Atomic uint64_t jf_geometry_word __attribute__((visibility("hidden")));
#endif

/* The geometry every flush may use before the probe has finished: the
 * architectural floor, no fast paths. Always correct. */
struct jf_geometry jf_geometry_floor(void);

/* The geometry a published word (READY set) describes. */
struct jf_geometry jf_geometry_unpack(uint64_t word);

/* Geometry for a view's global values. */
struct jf_geometry jf_geometry_from_view(const struct jf_view *view);

/* Runs the probe once per process (thread-safe, exactly once); a caller
 * that loses the race waits for the winner. Returns the probe's status. */
int jf_state_init(void);

/* The geometry to flush with now. Starts the probe if nobody has; never
 * waits for a probe another thread is running (it returns the floor then),
 * so a flush never blocks. */
struct jf_geometry jf_state_geometry(void);

/* Whether the online CPU list now names a CPU that was neither online nor
 * observed when the published view was probed. Async-signal-safe (it
 * reads /sys/devices/system/cpu/online: open, read, close). */
enum jf_online_change { JF_ONLINE_SAME, JF_ONLINE_NEW_CPU, JF_ONLINE_UNKNOWN };
enum jf_online_change jf_state_online_changed(void);

/* Probes again and publishes the new geometry, unless another thread is
 * already doing so (then returns false at once: the caller must use the
 * floor). Not async-signal-safe (it creates the probe's helper thread). */
bool jf_state_reprobe(void);

/* The view, once the probe has finished; NULL before. */
const struct jf_view *jf_state_view(void);

/* Forgets everything, as in a fresh process. For tests only: a child of
 * fork() needs no reset, it takes an orphaned probe over by itself (see the
 * comment at the top of state.c). Not thread-safe. */
void jf_state_reset(void);

#endif
