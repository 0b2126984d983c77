/*
 * The names of the code the findings mention (report_findings.h): resolved once,
 * before the writers (report_findings_text.h, report_findings_json.h, report_findings_sarif.h)
 * run.
 */
#ifndef JITFLUSH_EMU_FINDINGS_NAMES_H
#define JITFLUSH_EMU_FINDINGS_NAMES_H

#include <stdint.h>

#include "report_findings.h"
#include "report_frame_names.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Fills OUT (zeroed by the caller) for PC. */
typedef void (*report_symbolize_fn)(uint64_t pc, struct report_frame_names *out, void *ctx);

/* Names every PC the findings mention (call once, before rendering; FN may
 * be NULL: then nothing has a name). */
void report_findings_resolve(struct report_findings *f, report_symbolize_fn fn, void *ctx);

/* The call instruction before a return address (A64 instructions are 4
 * bytes), which is what a caller frame should name. */
uint64_t report_findings_call_site_of(uint64_t lr);
/* PC's names, all NULL when it has none (or was not resolved). */
const struct report_frame_names *report_findings_frame_of(const struct report_findings *f,
                                                          uint64_t pc);

#ifdef __cplusplus
}
#endif

#endif /* JITFLUSH_EMU_FINDINGS_NAMES_H */
