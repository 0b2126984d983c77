/* jitflush_sync_cores where the OS offers no process-wide core
 * synchronisation that jitflush can rely on (macOS, the BSDs, bare metal). */
#if !defined(__linux__) && !defined(_WIN32)
#include "jitflush.h"

int jitflush_sync_cores(void)
{
  return JITFLUSH_ERR_UNSUPPORTED;
}
#endif
