/*
 * Register seam: CTR_EL0 and MIDR_EL1 as this core reports them.
 * Production: lib/regs_aarch64.c. Tests link a fake that answers for the
 * CPU the fake scheduler pinned the thread to.
 */
#ifndef JITFLUSH_INTERNAL_REGS_H
#define JITFLUSH_INTERNAL_REGS_H

#include <stdbool.h>
#include <stdint.h>

/* Always readable at EL0 on Linux: the kernel either allows the read
 * (SCTLR_EL1.UCT) or traps and emulates it. */
uint64_t jf_regs_read_ctr(void);
/* MIDR_EL1 at EL0 traps and is emulated only when the kernel advertises
 * HWCAP_CPUID (Linux >= 4.11, Documentation/arch/arm64/cpu-feature-registers.rst).
 * Returns false when it cannot be read safely. */
bool jf_regs_read_midr(uint64_t *out);

#endif
