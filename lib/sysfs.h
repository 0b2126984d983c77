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
  unsigned l1i_line; /* coherency_line_size of the level-1 Instruction or
                        Unified cache; 0 when absent or malformed */
  unsigned l1d_line; /* same for Data or Unified */
  bool has_midr;
  uint64_t midr; /* regs/identification/midr_el1 */
};

void jf_sysfs_read_cpu(unsigned cpu, struct jf_sysfs_cpu *out);
/* Only the L1 lines, or only the MIDR, of jf_sysfs_read_cpu. */
void jf_sysfs_read_l1(unsigned cpu, struct jf_sysfs_cpu *out);
bool jf_sysfs_read_midr(unsigned cpu, uint64_t *midr);

/*
 * The CPUs the kernel groups with online CPU CPU: its cpufreq policy
 * (cpuN/cpufreq/related_cpus, every CPU of the policy, offline ones
 * included) intersected with its topology cluster
 * (cpuN/topology/cluster_cpus_list, Linux >= 5.16, else
 * core_siblings_list). Either alone when the other is absent; false, and
 * OUT empty, when neither can be read or what is read does not list CPU
 * itself (then it is not a fact about CPU).
 */
bool jf_sysfs_read_domain(unsigned cpu, struct jf_cpuset *out);

/* Parses an unsigned decimal or 0x-hex number that fills the text (one
 * trailing newline allowed). Exposed for the fuzzers and tests. */
bool jf_parse_u64(const char *text, unsigned len, uint64_t *out);

#endif
