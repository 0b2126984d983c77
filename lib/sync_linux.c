/*
 * jitflush_sync_cores on Linux (any architecture): membarrier(2).
 *
 * After the maintenance, a thread on another core may still hold the old
 * instructions in its pipeline; only a context synchronisation event on that
 * core discards them (Arm ARM B2.4.4, "Concurrent modification and
 * execution of instructions"). MEMBARRIER_CMD_PRIVATE_EXPEDITED_SYNC_CORE
 * (Linux >= 4.16) makes the kernel IPI every core running one of our
 * threads and return to user space there through a context-synchronising
 * exception return (Documentation/scheduler/membarrier.rst). It needs a
 * one-time registration per process.
 */
#define _GNU_SOURCE 1 /* O_CLOEXEC, syscall(), getauxval under -std=c11 */
#if defined(__linux__)
#include <errno.h>
#include <stdatomic.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "jitflush.h"

/* From <linux/membarrier.h>; spelled out so old kernel headers build. */
enum {
  CMD_QUERY = 0,
  CMD_GLOBAL = 1 << 0, /* MEMBARRIER_CMD_SHARED before Linux 4.16 */
  CMD_PRIVATE_EXPEDITED_SYNC_CORE = 1 << 5,
  CMD_REGISTER_PRIVATE_EXPEDITED_SYNC_CORE = 1 << 6,
};

enum { MODE_UNKNOWN, MODE_SYNC_CORE, MODE_GLOBAL, MODE_NONE };
static _Atomic int mode = MODE_UNKNOWN;

static long membarrier(int cmd)
{
  return syscall(SYS_membarrier, cmd, 0, 0);
}

/* Decides once which command this kernel offers. Racing callers may both
 * register: registration is idempotent in the kernel. */
static int choose_mode(void)
{
  long supported = membarrier(CMD_QUERY);
  if (supported < 0) {
    return MODE_NONE; /* ENOSYS: Linux < 4.3, or seccomp */
  }
  if ((supported & CMD_PRIVATE_EXPEDITED_SYNC_CORE) &&
      membarrier(CMD_REGISTER_PRIVATE_EXPEDITED_SYNC_CORE) == 0) {
    return MODE_SYNC_CORE;
  }
  if (supported & CMD_GLOBAL) {
    return MODE_GLOBAL;
  }
  return MODE_NONE;
}

int jitflush_sync_cores(void)
{
  int m = atomic_load_explicit(&mode, memory_order_acquire);
  if (m == MODE_UNKNOWN) {
    m = choose_mode();
    atomic_store_explicit(&mode, m, memory_order_release);
  }
  switch (m) {
  case MODE_SYNC_CORE:
    return membarrier(CMD_PRIVATE_EXPEDITED_SYNC_CORE) == 0 ? JITFLUSH_OK : JITFLUSH_ERR_SYNC;
  case MODE_GLOBAL:
    /* Every CPU in the system passes a scheduler barrier, and a thread
     * that returns to user space does so through an exception return:
     * slower (it waits for an RCU grace period), but it synchronises. */
    return membarrier(CMD_GLOBAL) == 0 ? JITFLUSH_SYNC_GLOBAL : JITFLUSH_ERR_SYNC;
  default:
    return JITFLUSH_ERR_UNSUPPORTED;
  }
}
#endif
