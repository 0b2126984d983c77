/* Which per-CPU numbers are facts, and how to name them. */
#include <stdio.h>
#include <string.h>

#include "info_facts.h"
/* The CLI needs the table's line sizes, which the public API does not
 * expose (only jitflush_midr_name), to tell whether a kernel hides a
 * mismatch by sanitising CTR_EL0. */

bool info_midr_known(const struct jitflush_cpu_info *cpu)
{
  return cpu->midr_source != JITFLUSH_SRC_NONE;
}

bool info_ctr_known(const struct jitflush_cpu_info *cpu)
{
  return cpu->observed;
}

bool info_line_known(enum jitflush_source source)
{
  return source == JITFLUSH_SRC_CTR_EL0 || source == JITFLUSH_SRC_SYSFS ||
         source == JITFLUSH_SRC_MIDR_TABLE || source == JITFLUSH_SRC_CLUSTER;
}

bool info_idc_dic_known(const struct jitflush_cpu_info *cpu)
{
  return cpu->idc_dic_source != JITFLUSH_SRC_NONE;
}

const char *info_core_name(const struct jitflush_cpu_info *cpu)
{
  return info_midr_known(cpu) ? jitflush_midr_name(cpu->midr) : NULL;
}

enum jitflush_source info_lines_source(const struct jitflush_cpu_info *cpu)
{
  return cpu->iline_source > cpu->dline_source ? cpu->iline_source : cpu->dline_source;
}

const char *info_source_tag(enum jitflush_source source)
{
  /* One letter per source, in the enum's order (include/jitflush.h). */
  static const char *const tags[] = {"-", "c", "s", "t", "f", "p", "i"};
  _Static_assert(sizeof tags / sizeof tags[0] == JITFLUSH_SRC_CLUSTER + 1, "one tag per source");
  return (unsigned)source < sizeof tags / sizeof tags[0] ? tags[source] : "-";
}

const char *info_implementer_name(unsigned implementer)
{
  switch (implementer) {
  case 0x41:
    return "Arm";
  case 0x42:
    return "Broadcom";
  case 0x43:
    return "Cavium";
  case 0x46:
    return "Fujitsu";
  case 0x48:
    return "HiSilicon";
  case 0x4e:
    return "NVIDIA";
  case 0x50:
    return "APM";
  case 0x51:
    return "Qualcomm";
  case 0x53:
    return "Samsung";
  case 0x61:
    return "Apple";
  case 0x6d:
    return "Microsoft";
  case 0xc0:
    return "Ampere";
  default:
    return NULL;
  }
}

bool info_midr_table_lines(uint64_t midr, unsigned *iline, unsigned *dline)
{
  return jitflush_midr_lines(midr, iline, dline);
}

const char *info_l1ip_name(unsigned l1ip)
{
  /* Arm ARM D19.2.34: 0b00 VPIPT, 0b01 AIVIVT, 0b10 VIPT, 0b11 PIPT. */
  static const char *const names[] = {"VPIPT", "AIVIVT", "VIPT", "PIPT"};
  return names[l1ip & 3];
}

bool info_cpu_not_observed(const struct jitflush_cpu_info *cpu)
{
  return !cpu->observed;
}

char *info_cpulist(const struct jitflush_info *info,
                   bool (*pred)(const struct jitflush_cpu_info *cpu), char *out, size_t size)
{
  size_t used = 0;
  out[0] = '\0';
  unsigned i = 0;
  while (i < info->ncpus) {
    if (!pred(&info->cpus[i])) {
      i++;
      continue;
    }
    /* A run of consecutive CPU numbers that all match. */
    unsigned j = i;
    while (j + 1 < info->ncpus && pred(&info->cpus[j + 1]) &&
           info->cpus[j + 1].cpu == info->cpus[j].cpu + 1) {
      j++;
    }
    int n;
    if (j == i) {
      n = snprintf(out + used, size - used, "%s%d", used ? "," : "", info->cpus[i].cpu);
    } else {
      n = snprintf(out + used, size - used, "%s%d-%d", used ? "," : "", info->cpus[i].cpu,
                   info->cpus[j].cpu);
    }
    if (n < 0 || (size_t)n >= size - used) {
      /* Out of room: say so rather than print a list that looks whole. */
      if (size >= 4) {
        memcpy(out + size - 4, "...", 4);
      }
      return out;
    }
    used += (size_t)n;
    i = j + 1;
  }
  return out;
}
