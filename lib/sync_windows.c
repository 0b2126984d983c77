/* jitflush_sync_cores on Windows: FlushProcessWriteBuffers interrupts every
 * processor running a thread of this process (an IPI), which is the
 * documented process-wide serialisation (Win32 docs; .NET's runtime uses it
 * for the same purpose). */
#if defined(_WIN32)
#include <windows.h>

#include "jitflush.h"

int jitflush_sync_cores(void)
{
  FlushProcessWriteBuffers();
  return JITFLUSH_OK;
}
#endif
