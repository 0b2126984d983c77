/*
 * A fixed 64-byte stride of ic ivau with no dc cvau at all, then barriers
 * and, where the kernel has it, membarrier(PRIVATE_EXPEDITED_SYNC_CORE) so
 * that every core of the process passes a context synchronisation event.
 * This is the flush of Wasmtime 41 to 48 (crates/jit-icache-coherence,
 * aarch64_flush_icache then pipeline_flush_mt; the file and tags are
 * docs/BACKGROUND.md#src-wasmtime-41-48), except for the dsb ish before the
 * loop, which Wasmtime's lacks and which cannot make up for the missing
 * clean. Two gaps: without the clean the new code may never reach the Point
 * of Unification on a core without CTR_EL0.IDC, and a core with 32-byte
 * I-lines sees only every second line invalidated.
 */
#define _GNU_SOURCE
#include "flush_impls.h"

#include <linux/membarrier.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "arm64_cache_ops.h"

enum { STRIDE = 64 };

static bool sync_core_registered;
static pthread_once_t register_once = PTHREAD_ONCE_INIT;

static void register_sync_core(void)
{
  sync_core_registered =
      syscall(SYS_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED_SYNC_CORE, 0, 0) == 0;
}

void sc_flush_fixed_64_no_dc(void *begin, void *end)
{
  pthread_once(&register_once, register_sync_core);
  const uintptr_t stop = (uintptr_t)end;
  sc_dsb_ish();
  for (uintptr_t a = (uintptr_t)begin & ~(uintptr_t)(STRIDE - 1); a < stop; a += STRIDE)
    sc_ic_ivau(a);
  sc_dsb_ish();
  sc_isb();
  /* Best effort, as Wasmtime 41-48 fall back when the command is missing: the
   * missing clean is what this model is about, not the cross-core sync. */
  if (sync_core_registered)
    syscall(SYS_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED_SYNC_CORE, 0, 0);
}
