/*
 * The parts of /sys/devices/system/cpu jitflush reads. Every file may be
 * absent (old kernels, offline CPUs, sandboxes) or malformed; each reader
 * says whether it found a usable value instead of guessing.
 */
#ifndef JITFLUSH_INTERNAL_SYSFS_H
#define JITFLUSH_INTERNAL_SYSFS_H

#include <stdbool.h>
#include <stdint.h>

#include "cpuset.h"

/* Reads /sys/devices/system/cpu/NAME ("possible", "present", "online"). */
bool jf_sysfs_read_cpulist(const char *name, struct jf_cpuset *out);

struct jf_sysfs_cpu {
  unsigned l1i_line;   /* coherency_line_size of the level-1 Instruction or
                          Unified cache; 0 when absent or malformed */
  unsigned l1d_line;   /* same for Data or Unified */
  bool has_midr;
  uint64_t midr;       /* regs/identification/midr_el1 */
};

void jf_sysfs_read_cpu(unsigned cpu, struct jf_sysfs_cpu *out);

/* Parses an unsigned decimal or 0x-hex number that fills the text (one
 * trailing newline allowed). Exposed for the fuzzers and tests. */
bool jf_parse_u64(const char *text, unsigned len, uint64_t *out);

#endif
