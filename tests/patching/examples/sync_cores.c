/*
 * docs/LIBRARY.md example: code that another thread will run. The flush makes the
 * new instructions visible to instruction fetch; jitflush_sync_cores()
 * makes every other thread pass a context synchronisation event, so one
 * that already ran (or prefetched) the old code fetches the new code.
 * Publish the entry point only after both. AArch64 Linux.
 */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS under -std=c11 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/mman.h>

#include "jitflush.h"

typedef int (*jit_fn)(void);
static _Atomic(jit_fn) published;

static void *worker(void *arg)
{
  (void)arg;
  jit_fn fn;
  while (!(fn = atomic_load_explicit(&published, memory_order_acquire)))
    ; /* spin: no isb, no system call of its own */
  return (void *)(intptr_t)fn();
}

int main(void)
{
  uint32_t *buf =
      mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (buf == MAP_FAILED)
    return 1;
  pthread_t thread;
  if (pthread_create(&thread, NULL, worker, NULL) != 0)
    return 1;

  buf[0] = 0xd2800540; /* mov x0, #42 */
  buf[1] = 0xd65f03c0; /* ret */
  jitflush_clear_cache(buf, buf + 2);
  if (jitflush_sync_cores() < 0)
    return 1; /* no membarrier: stop or signal the other threads yourself */
  atomic_store_explicit(&published, (jit_fn)(uintptr_t)buf, memory_order_release);

  void *result;
  pthread_join(thread, &result);
  return (intptr_t)result == 42 ? 0 : 1;
}
