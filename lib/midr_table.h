/* Known AArch64 cores by MIDR_EL1 (Arm ARM D19.2.100), with their L1 lines. */
#ifndef JITFLUSH_INTERNAL_MIDR_TABLE_H
#define JITFLUSH_INTERNAL_MIDR_TABLE_H

#include <stdbool.h>
#include <stdint.h>

/* Implementer [31:24] and PartNum [15:4]: what names a core. Variant [23:20]
 * and Revision [3:0] name its stepping; Architecture [19:16] is 0xf on all. */
#define JF_MIDR_CORE_MASK 0xff00fff0u

struct jf_core {
  uint32_t midr; /* implementer and part, masked with JF_MIDR_CORE_MASK */
  const char *name;
  unsigned iline; /* L1 I line the core's CTR_EL0 reports, bytes */
  unsigned dline; /* L1 D line */
};

/* The row for MIDR's implementer and part, or NULL. */
const struct jf_core *jf_midr_lookup(uint64_t midr);

/* Cortex-A53 r0p0-r0p2: errata 819472, 826319, 827319, 824069 make dc cvau
 * unreliable; Linux (arch/arm64/kernel/cpu_errata.c,
 * ARM64_WORKAROUND_CLEAN_CACHE) upgrades it to dc civac. */
bool jf_midr_needs_dc_civac(uint64_t midr);

#endif
