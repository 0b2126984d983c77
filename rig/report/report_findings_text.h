/*
 * The findings (report_findings.h) as text for stderr, after report_findings_resolve
 * (report_findings_names.h).
 */
#ifndef JITFLUSH_EMU_FINDINGS_TEXT_H
#define JITFLUSH_EMU_FINDINGS_TEXT_H

#include <glib.h>

#include "report_findings.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The stderr blocks, most stale fetches first, and a SUMMARY line; empty
 * when there is no finding. */
GString *report_findings_text(const struct report_findings *f);

#ifdef __cplusplus
}
#endif

#endif /* JITFLUSH_EMU_FINDINGS_TEXT_H */
