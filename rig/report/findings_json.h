/*
 * The findings (findings.h) as members of the JSON report, after
 * emu_findings_resolve (findings_names.h).
 */
#ifndef JITFLUSH_EMU_FINDINGS_JSON_H
#define JITFLUSH_EMU_FINDINGS_JSON_H

#include <json-glib/json-glib.h>

#include "findings.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Sets the report's members "stale", "findings", "findings_omitted_stale",
 * "ctr_read_sites", "mappings" and "crash". */
void emu_findings_json(const struct emu_findings *f, JsonObject *report);

#ifdef __cplusplus
}
#endif

#endif /* JITFLUSH_EMU_FINDINGS_JSON_H */
