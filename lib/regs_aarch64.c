/* The production register seam: EL0 reads of CTR_EL0 and MIDR_EL1. */
#define _GNU_SOURCE 1 /* O_CLOEXEC, syscall(), getauxval under -std=c11 */
#include "platform.h"
#if JF_PLATFORM_AARCH64_LINUX
#include <sys/auxv.h>

#include "regs.h"

#ifndef HWCAP_CPUID
#define HWCAP_CPUID (1 << 11) /* arch/arm64/include/uapi/asm/hwcap.h */
#endif

uint64_t jf_regs_read_ctr(void)
{
  uint64_t ctr;
  __asm__ volatile("mrs %0, ctr_el0" : "=r"(ctr));
  return ctr;
}

bool jf_regs_read_midr(uint64_t *out)
{
  /* Without HWCAP_CPUID the kernel does not emulate EL0 MIDR_EL1 reads and
   * the mrs raises SIGILL. */
  if (!(getauxval(AT_HWCAP) & HWCAP_CPUID)) {
    return false;
  }
  uint64_t midr;
  __asm__ volatile("mrs %0, midr_el1" : "=r"(midr));
  *out = midr;
  return true;
}
#endif
