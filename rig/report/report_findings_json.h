/*
 * The findings (report_findings.h) as members of the JSON report, after
 * report_findings_resolve (report_findings_names.h).
 */
#ifndef JITFLUSH_EMU_FINDINGS_JSON_H
#define JITFLUSH_EMU_FINDINGS_JSON_H

#include <json-glib/json-glib.h>

#include "report_findings.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Sets the report's members "stale", "findings", "findings_omitted_stale",
 * "ctr_read_sites", "mappings" and "crash". */
void report_findings_json(const struct report_findings *f, JsonObject *report);

#ifdef __cplusplus
}
#endif

#endif /* JITFLUSH_EMU_FINDINGS_JSON_H */
