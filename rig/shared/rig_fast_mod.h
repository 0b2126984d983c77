/*
 * X % D for a divisor known in advance, without a division instruction.
 *
 * The migration callback (plugin_sched.c) draws two remainders per
 * migration, every few hundred guest instructions, and its two 64-bit div
 * instructions were most of its cost in perf on a store-heavy guest. The
 * result is exactly X % D, for every 64-bit X and D >= 1, by the direct
 * remainder computation of Lemire, Kaser and Kurz ("Faster Remainder by
 * Direct Computation", Software: Practice and Experience, 2019, with a
 * 128-bit reciprocal for 64-bit operands): the drawn sequences, and so
 * every migration point of a seed, are the same as with %.
 *
 * Header only, no QEMU: tests/emu/shared/fast_mod_test.cc compares it with %.
 */
#ifndef JITFLUSH_EMU_FAST_MOD_H
#define JITFLUSH_EMU_FAST_MOD_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

__extension__ typedef unsigned __int128 rig_u128;

struct rig_fast_mod {
  rig_u128 reciprocal; /* ceil(2^128 / divisor), 0 for a divisor of 1 */
  uint64_t divisor;
};

/* D must be at least 1. One 128-bit division: call it when D changes. */
static inline struct rig_fast_mod rig_fast_mod_for(uint64_t d)
{
  /* (2^128 - 1) / d + 1 is ceil(2^128 / d) for every d that does not divide
   * 2^128 exactly, and one more than it otherwise, which the method allows;
   * for d = 1 it wraps to 0, and every remainder below comes out 0. */
  struct rig_fast_mod f = {~(rig_u128)0 / d + 1, d};
  return f;
}

static inline uint64_t rig_fast_remainder(uint64_t x, const struct rig_fast_mod *f)
{
  /* The fraction x / d, as a multiple of 2^-128 ... */
  rig_u128 fraction = f->reciprocal * x;
  /* ... times d is the remainder plus a fraction: (fraction * d) >> 128,
   * from fraction's two 64-bit halves. */
  rig_u128 low = ((rig_u128)(uint64_t)fraction * f->divisor) >> 64;
  rig_u128 high = (rig_u128)(uint64_t)(fraction >> 64) * f->divisor;
  return (uint64_t)((low + high) >> 64);
}

#ifdef __cplusplus
}
#endif

#endif /* JITFLUSH_EMU_FAST_MOD_H */
