/* The routine under test: jitflush flushes with the minimum line over every
 * core it probed at init, so no migration and no first core can shrink the
 * coverage. */
#include "flush_impls.h"

#include "jitflush.h"

void sc_flush_jitflush(void *begin, void *end)
{
  jitflush_clear_cache(begin, end);
}
