/* jitflush_clear_cache_all_threads, the common case in one call: publish
 * new code to every thread, on every platform. */
#include "jitflush.h"

int jitflush_clear_cache_all_threads(void *begin, void *end)
{
  jitflush_clear_cache(begin, end);
  return jitflush_sync_cores();
}
