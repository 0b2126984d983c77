/*
 * The AArch64 instructions the scenario programs issue one at a time, so a
 * sequence written in C is exactly the sequence the rig's coherence model
 * sees (no helper call in between that could add or drop a barrier).
 *
 * CTR_EL0 fields per Arm ARM D19.2: IminLine [3:0], DminLine [19:16],
 * IDC [28], DIC [29]; line bytes = 4 << field. DC and IC take the whole
 * 64-bit virtual address in an X register.
 */
#ifndef JITFLUSH_SCENARIO_ARM64_CACHE_OPS_H
#define JITFLUSH_SCENARIO_ARM64_CACHE_OPS_H

#if !defined(__aarch64__)
#error "the scenario programs emit and run AArch64 code; build them in the aarch64 (cross) build"
#endif

#include <stdbool.h>
#include <stdint.h>

static inline uint64_t sc_read_ctr_el0(void)
{
  uint64_t ctr;
  /* volatile: each read is an event the rig counts (ctr_reads) and, on a
   * sanitising kernel, a trap; the compiler must not merge or hoist it. */
  __asm__ volatile("mrs %0, ctr_el0" : "=r"(ctr));
  return ctr;
}

static inline unsigned sc_ctr_iline(uint64_t ctr)
{
  return 4u << (ctr & 0xf);
}
static inline unsigned sc_ctr_dline(uint64_t ctr)
{
  return 4u << ((ctr >> 16) & 0xf);
}
static inline bool sc_ctr_idc(uint64_t ctr)
{
  return (ctr >> 28) & 1;
}
static inline bool sc_ctr_dic(uint64_t ctr)
{
  return (ctr >> 29) & 1;
}

static inline void sc_dc_cvau(uintptr_t addr)
{
  __asm__ volatile("dc cvau, %0" : : "r"(addr) : "memory");
}
static inline void sc_dc_civac(uintptr_t addr)
{
  __asm__ volatile("dc civac, %0" : : "r"(addr) : "memory");
}
static inline void sc_ic_ivau(uintptr_t addr)
{
  __asm__ volatile("ic ivau, %0" : : "r"(addr) : "memory");
}
static inline void sc_dsb_ish(void)
{
  __asm__ volatile("dsb ish" : : : "memory");
}
static inline void sc_isb(void)
{
  __asm__ volatile("isb" : : : "memory");
}

/* The sequence of the Arm ARM (B2.4.4) with the line sizes a modelled
 * routine chose: every DLINE-byte line of [BEGIN, END) cleaned to the point
 * of unification (dc civac when CLEAN_INVALIDATE, as V8 cleans), dsb ish,
 * every ILINE-byte line invalidated, dsb ish, isb. Always inlined, so the
 * rig sees the loops inside the routine that models the JIT. */
static inline __attribute__((always_inline)) void sc_flush_by_lines(uintptr_t begin, uintptr_t end,
                                                                    uintptr_t dline,
                                                                    uintptr_t iline,
                                                                    bool clean_invalidate)
{
  for (uintptr_t a = begin & ~(dline - 1); a < end; a += dline) {
    if (clean_invalidate)
      sc_dc_civac(a);
    else
      sc_dc_cvau(a);
  }
  sc_dsb_ish();
  for (uintptr_t a = begin & ~(iline - 1); a < end; a += iline)
    sc_ic_ivau(a);
  sc_dsb_ish();
  sc_isb();
}

#endif
