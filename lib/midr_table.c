/*
 * Known cores, by implementer and part. The lines are those the core's
 * CTR_EL0 reports (its smallest L1 lines), used only for CPUs the probe could
 * not run on. Sources: each core's Technical Reference Manual (TRM), the
 * kernel's part numbers (arch/arm64/include/asm/cputype.h) and the values
 * QEMU's CPU models report (target/arm/cpu64.c).
 */
#include <stddef.h>

#include "jitflush.h"
#include "midr_table.h"

#define CORE(implementer, part) (((uint32_t)(implementer) << 24) | ((uint32_t)(part) << 4))

static const struct jf_core known_cores[] = {
    /* Arm Ltd (0x41). Cortex-A TRMs, "L1 memory system": 64-byte lines. */
    {CORE(0x41, 0xd03), "Cortex-A53", 64, 64},  /* A53 TRM 6.1; QEMU ctr 0x84448004 */
    {CORE(0x41, 0xd04), "Cortex-A35", 64, 64},  /* A35 TRM 6.1 */
    {CORE(0x41, 0xd05), "Cortex-A55", 64, 64},  /* A55 TRM A6.1; QEMU ctr 0x84448004 */
    {CORE(0x41, 0xd07), "Cortex-A57", 64, 64},  /* A57 TRM 6.1; QEMU ctr 0x8444c004 */
    {CORE(0x41, 0xd08), "Cortex-A72", 64, 64},  /* A72 TRM 6.1; QEMU ctr 0x8444c004 */
    {CORE(0x41, 0xd09), "Cortex-A73", 64, 64},  /* A73 TRM 6.1 */
    {CORE(0x41, 0xd0a), "Cortex-A75", 64, 64},  /* A75 TRM A6.1 */
    {CORE(0x41, 0xd0b), "Cortex-A76", 64, 64},  /* A76 TRM A6.1; QEMU ctr 0x8444c004 */
    {CORE(0x41, 0xd0c), "Neoverse N1", 64, 64}, /* N1 TRM A6.1; with erratum 1542419 the
                                                   kernel reports IminLine = PAGE_SHIFT - 2,
                                                   one page (4 KiB with 4 KiB pages) */
    {CORE(0x41, 0xd0d), "Cortex-A77", 64, 64},  /* A77 TRM A6.1 */
    {CORE(0x41, 0xd40), "Neoverse V1", 64, 64}, /* V1 TRM A6.1; QEMU ctr 0xb444c004 */
    {CORE(0x41, 0xd41), "Cortex-A78", 64, 64},  /* A78 TRM A6.1 */
    {CORE(0x41, 0xd44), "Cortex-X1", 64, 64},   /* X1 TRM A6.1 */
    {CORE(0x41, 0xd46), "Cortex-A510", 64, 64}, /* A510 TRM A6.1 */
    {CORE(0x41, 0xd47), "Cortex-A710", 64, 64}, /* A710 TRM A6.1; QEMU ctr 0x49444c004 */
    {CORE(0x41, 0xd48), "Cortex-X2", 64, 64},   /* X2 TRM A6.1 */
    {CORE(0x41, 0xd49), "Neoverse N2", 64, 64}, /* N2 TRM A6.1; QEMU ctr 0x4b444c004 */
    /* NVIDIA (0x4e). Tegra186 TRM: Denver2 beside A57, 64-byte lines, IDC=1. */
    {CORE(0x4e, 0x003), "Denver2", 64, 64},
    /* Samsung (0x53). Exynos M1 (Mongoose), Exynos 8890: 128-byte I-lines
     * against the A53's 64: the SIGILL reports of 2016 (Mono, Dolphin,
     * PPSSPP) and the Linux 4.9 change "arm64: Work around systems with
     * mismatched cache line sizes". */
    {CORE(0x53, 0x001), "Exynos M1", 128, 64},
    /* Fujitsu (0x46). A64FX microarchitecture manual: 256-byte lines;
     * QEMU -cpu a64fx ctr 0x86668006. */
    {CORE(0x46, 0x001), "A64FX", 256, 256},
    /* Apple (0x61). M1 Icestorm (0x022) and Firestorm (0x023) under Linux
     * (Asahi): both report ctr 0x84448004, 64-byte lines. */
    {CORE(0x61, 0x022), "Apple M1 Icestorm", 64, 64},
    {CORE(0x61, 0x023), "Apple M1 Firestorm", 64, 64},
};

const struct jf_core *jf_midr_lookup(uint64_t midr)
{
  uint32_t key = (uint32_t)midr & JF_MIDR_CORE_MASK;
  for (size_t i = 0; i < sizeof known_cores / sizeof known_cores[0]; i++) {
    if (known_cores[i].midr == key) {
      return &known_cores[i];
    }
  }
  return NULL;
}

bool jf_midr_needs_dc_civac(uint64_t midr)
{
  if (((uint32_t)midr & JF_MIDR_CORE_MASK) != CORE(0x41, 0xd03)) {
    return false;
  }
  return jitflush_midr_variant(midr) == 0 && jitflush_midr_revision(midr) <= 2;
}

const char *jitflush_midr_name(uint64_t midr)
{
  const struct jf_core *core = jf_midr_lookup(midr);
  return core ? core->name : NULL;
}

bool jitflush_midr_lines(uint64_t midr, unsigned *iline, unsigned *dline)
{
  const struct jf_core *core = jf_midr_lookup(midr);
  if (!core || !iline || !dline) {
    return false;
  }
  *iline = core->iline;
  *dline = core->dline;
  return true;
}
