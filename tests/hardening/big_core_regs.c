/*
 * A register seam for running the REAL production scheduler seam
 * (lib/os_linux.c) on a host that is not AArch64: whichever host CPU the
 * thread is on, it reports the registers of a big Exynos M1 core
 * (CTR_EL0 0x84448005: 128-byte I-lines; MIDR 0x531f0011). The sysfs
 * fixture of the seccomp tests describes every CPU as a Cortex-A53 with
 * 64-byte lines, so a result of 64 proves the unobserved CPUs were counted
 * and a result of 128 proves they were not.
 */
#include "regs.h"

uint64_t jf_regs_read_ctr(void)
{
  return UINT64_C(0x84448005);
}

bool jf_regs_read_midr(uint64_t *out)
{
  *out = UINT64_C(0x531f0011);
  return true;
}
