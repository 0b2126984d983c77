/*
 * What a finding says (findings.h): the advice all three forms show.
 */
#ifndef JITFLUSH_EMU_FINDINGS_EXPLAIN_H
#define JITFLUSH_EMU_FINDINGS_EXPLAIN_H

#include <glib.h>

#include "findings_internal.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The CTR_EL0 read that the stride of FD's loop came from, NULL when no
 * read explains it (a hard-coded stride). */
const struct ctr_site *emu_findings_stride_source(const struct emu_findings *f,
                                                  const struct finding *fd);
/* The number (from 1, in the reports' order) of an earlier finding of the
 * other loop (clean or invalidate) whose stride came from the same
 * CTR_EL0 read as FD's: the same root cause. 0 when there is none. */
unsigned emu_findings_same_cause(const struct emu_findings *f, const struct finding *fd);
/* The findings that stand for a root cause of their own (settled first
 * by the caller, emu_findings_count). */
unsigned emu_findings_root_causes(const struct emu_findings *f);
/* "CTR_EL0 read once on cpu 7 (Exynos M1)" */
void emu_findings_append_ctr_read(GString *out, const struct emu_findings *f,
                                  const struct ctr_site *s);
/* The one sentence that says what went wrong and what to do about it
 * (g_free it). */
char *emu_findings_explain(const struct emu_findings *f, const struct finding *fd);

#ifdef __cplusplus
}
#endif

#endif /* JITFLUSH_EMU_FINDINGS_EXPLAIN_H */
