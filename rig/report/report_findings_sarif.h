/*
 * The findings (report_findings.h) as SARIF 2.1.0, after report_findings_resolve
 * (report_findings_names.h); locations relative to report_findings_set_sarif_root.
 */
#ifndef JITFLUSH_EMU_FINDINGS_SARIF_H
#define JITFLUSH_EMU_FINDINGS_SARIF_H

#include <glib.h>

#include "report_findings.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A SARIF 2.1.0 log with one result per finding. */
GString *report_findings_sarif(const struct report_findings *f);

#ifdef __cplusplus
}
#endif

#endif /* JITFLUSH_EMU_FINDINGS_SARIF_H */
