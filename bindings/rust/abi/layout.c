/*
 * The C compiler's layout of include/jitflush.h for the target the crate is
 * built for, as one table: the test layout_matches_the_c_compiler
 * (src/lib.rs) builds the same table from src/sys.rs with size_of and
 * offset_of! and compares the two, on the host and under the rig.
 * Row order is the contract between the two tables.
 */
#include <stddef.h>

#include "jitflush.h"

#define OFF(type, field) (long long)offsetof(struct type, field)

static const long long layout[] = {
    (long long)sizeof(struct jitflush_cpu_info),
    (long long)_Alignof(struct jitflush_cpu_info),
    OFF(jitflush_cpu_info, cpu),
    OFF(jitflush_cpu_info, online),
    OFF(jitflush_cpu_info, observed),
    OFF(jitflush_cpu_info, midr),
    OFF(jitflush_cpu_info, midr_source),
    OFF(jitflush_cpu_info, ctr_el0),
    OFF(jitflush_cpu_info, iline),
    OFF(jitflush_cpu_info, dline),
    OFF(jitflush_cpu_info, iline_source),
    OFF(jitflush_cpu_info, dline_source),
    OFF(jitflush_cpu_info, idc),
    OFF(jitflush_cpu_info, dic),
    OFF(jitflush_cpu_info, idc_dic_source),
    OFF(jitflush_cpu_info, l1ip),
    OFF(jitflush_cpu_info, sysfs_l1i_line),
    OFF(jitflush_cpu_info, sysfs_l1d_line),
    OFF(jitflush_cpu_info, inferred_from),
    (long long)sizeof(struct jitflush_info),
    (long long)_Alignof(struct jitflush_info),
    OFF(jitflush_info, iline),
    OFF(jitflush_info, dline),
    OFF(jitflush_info, idc),
    OFF(jitflush_info, dic),
    OFF(jitflush_info, iline_source),
    OFF(jitflush_info, dline_source),
    OFF(jitflush_info, complete),
    OFF(jitflush_info, heterogeneous),
    OFF(jitflush_info, per_call_guard),
    OFF(jitflush_info, online_check),
    OFF(jitflush_info, use_dc_civac),
    OFF(jitflush_info, status),
    OFF(jitflush_info, platform),
    OFF(jitflush_info, method),
    OFF(jitflush_info, ncpus_possible),
    OFF(jitflush_info, ncpus),
    OFF(jitflush_info, truncated),
    OFF(jitflush_info, cpus),
    (long long)sizeof(enum jitflush_source),
    (long long)sizeof(enum jitflush_status),
    (long long)sizeof(bool),
};

/* Writes the table's address to *out and returns its row count. */
size_t jitflush_rs_abi_layout(const long long **out);
size_t jitflush_rs_abi_layout(const long long **out)
{
  *out = layout;
  return sizeof layout / sizeof layout[0];
}
