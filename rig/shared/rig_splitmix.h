/*
 * The rig's seeded random numbers: splitmix64, small, good enough, and the
 * same on every host, so that a seed gives the same migrations and turns
 * everywhere (plugin_sched.c, plugin_turns.c).
 */
#ifndef JITFLUSH_EMU_SPLITMIX_H
#define JITFLUSH_EMU_SPLITMIX_H

#include <stdint.h>

static inline uint64_t rig_splitmix_next(uint64_t *state)
{
  uint64_t z = (*state += UINT64_C(0x9e3779b97f4a7c15));
  z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
  z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
  return z ^ (z >> 31);
}

#endif /* JITFLUSH_EMU_SPLITMIX_H */
