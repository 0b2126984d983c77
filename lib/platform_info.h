/* The info struct for platforms that need no probe. */
#ifndef JITFLUSH_INTERNAL_PLATFORM_INFO_H
#define JITFLUSH_INTERNAL_PLATFORM_INFO_H

#include "jitflush.h"

/* Fills OUT for a platform whose flush does not depend on per-core line
 * sizes: no CPU records, lines 0 (not used), complete, source PLATFORM. */
void jf_platform_info(struct jitflush_info *out, const char *platform, const char *method,
                      bool coherent);

#endif
