/*
 * What a finding says (report_findings.h): the advice all three forms show.
 */
#ifndef JITFLUSH_EMU_FINDINGS_EXPLAIN_H
#define JITFLUSH_EMU_FINDINGS_EXPLAIN_H

#include <glib.h>

#include "report_findings_internal.h"
#include "report_module_origin.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The CTR_EL0 read that the stride of FD's loop came from, NULL when no
 * read explains it (a hard-coded stride). */
const struct ctr_site *report_findings_stride_source(const struct report_findings *f,
                                                     const struct finding *fd);
/* The number (from 1, in the reports' order) of an earlier finding of the
 * other loop (clean or invalidate) whose stride came from the same
 * CTR_EL0 read as FD's: the same root cause. 0 when there is none. */
unsigned report_findings_same_cause(const struct report_findings *f, const struct finding *fd);
/* The findings that stand for a root cause of their own (settled first
 * by the caller, report_findings_count). */
unsigned report_findings_root_causes(const struct report_findings *f);
/* "CTR_EL0 read once on cpu 7 (Exynos M1)" */
void report_findings_append_ctr_read(GString *out, const struct report_findings *f,
                                     const struct ctr_site *s);
/* Who built the code FR names (docs/FINDINGS.md, "Who built it"): the
 * DW_AT_producer of the compile unit covering it without its options,
 * else the compilers its module's .comment names (linkers left out), else
 * NULL; *SOURCE says which ("DW_AT_producer", ".comment", NULL). g_free
 * it. */
char *report_findings_compiler(const struct report_frame_names *fr, const char **source);
/* Whose module FD's flush code is in (report_module_origin.h), the project's root
 * being the SARIF root; false (OUT untouched) when no module holds it.
 * report_module_origin_clear OUT after a true. */
bool report_findings_flush_origin(const struct report_findings *f, const struct finding *fd,
                                  struct report_module_origin *out);
/* What protects the people who run FD's code until its builders fix it,
 * NULL when nothing does: for a stride latched from a CTR_EL0 read, a
 * kernel that traps those reads. */
const char *report_findings_protection(const struct report_findings *f, const struct finding *fd);
/* "libgcc_s.so.1 (a system path)", "libllvmlite.so (llvmlite 0.43.0, an
 * installed Python package)": the module, its soname when it differs, its
 * package and whose it is. g_free it. */
char *report_findings_describe_module(const struct report_module_origin *o,
                                      const struct report_frame_names *fr);

/* The one sentence that says what went wrong and what to do about it
 * (g_free it). */
char *report_findings_explain(const struct report_findings *f, const struct finding *fd);

#ifdef __cplusplus
}
#endif

#endif /* JITFLUSH_EMU_FINDINGS_EXPLAIN_H */
