/*
 * What jitflush-info shows for one CPU, read off struct jitflush_cpu_info.
 * The library fills a number for every CPU (an unseen CPU gets the floor so
 * that flushes stay safe); the CLI must not present such a number as a fact
 * about the core. These accessors decide, in one place, which fields are
 * known and which are shown as unknown (null in JSON, "-" in the table).
 */
#ifndef JITFLUSH_INFO_FACTS_H
#define JITFLUSH_INFO_FACTS_H

#include <stdbool.h>
#include <stddef.h>

#include "jitflush.h"

bool info_midr_known(const struct jitflush_cpu_info *cpu);
bool info_ctr_known(const struct jitflush_cpu_info *cpu);
/* A line is shown when it came from CTR_EL0, sysfs, the MIDR table or the
 * kernel's cluster facts (an inference, tagged as such); the floor is the
 * library's safe assumption, not knowledge. */
bool info_line_known(enum jitflush_source source);
bool info_idc_dic_known(const struct jitflush_cpu_info *cpu);

/* The core's name from jitflush's MIDR table, NULL when the MIDR is unknown
 * or not in the table. */
const char *info_core_name(const struct jitflush_cpu_info *cpu);

/* One source for a CPU's two lines: their common source, else the weaker
 * of the two (the enum runs strongest first). */
enum jitflush_source info_lines_source(const struct jitflush_cpu_info *cpu);

/* One-letter tag for the table legend: c s t f p i, "-" for none. */
const char *info_source_tag(enum jitflush_source source);

/* The implementer's name for MIDR_EL1[31:24] (Arm ARM D19.2.100; codes from
 * Linux arch/arm64/include/asm/cputype.h), NULL when not listed. */
const char *info_implementer_name(unsigned implementer);

/* The L1 lines jitflush's MIDR table lists for this MIDR (what the core's
 * own CTR_EL0 would report). False when the core is not in the table. */
bool info_midr_table_lines(uint64_t midr, unsigned *iline, unsigned *dline);

/* "VIPT", "PIPT", "AIVIVT", "VPIPT" for CTR_EL0.L1Ip [15:14]. */
const char *info_l1ip_name(unsigned l1ip);

/* Formats the CPUs of INFO for which PRED holds as a kernel cpulist
 * ("0-3,6"); "" when none. Returns OUT. */
char *info_cpulist(const struct jitflush_info *info,
                   bool (*pred)(const struct jitflush_cpu_info *cpu), char *out, size_t size);

bool info_cpu_not_observed(const struct jitflush_cpu_info *cpu);

#endif
