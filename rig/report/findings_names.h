/*
 * The names of the code the findings mention (findings.h): resolved once,
 * before the writers (findings_text.h, findings_json.h, findings_sarif.h)
 * run.
 */
#ifndef JITFLUSH_EMU_FINDINGS_NAMES_H
#define JITFLUSH_EMU_FINDINGS_NAMES_H

#include <stdint.h>

#include "findings.h"
#include "frame_names.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Fills OUT (zeroed by the caller) for PC. */
typedef void (*emu_symbolize_fn)(uint64_t pc, struct emu_frame_names *out, void *ctx);

/* Names every PC the findings mention (call once, before rendering; FN may
 * be NULL: then nothing has a name). */
void emu_findings_resolve(struct emu_findings *f, emu_symbolize_fn fn, void *ctx);

/* The call instruction before a return address (A64 instructions are 4
 * bytes), which is what a caller frame should name. */
uint64_t emu_findings_call_site_of(uint64_t lr);
/* PC's names, all NULL when it has none (or was not resolved). */
const struct emu_frame_names *emu_findings_frame_of(const struct emu_findings *f, uint64_t pc);

#ifdef __cplusplus
}
#endif

#endif /* JITFLUSH_EMU_FINDINGS_NAMES_H */
