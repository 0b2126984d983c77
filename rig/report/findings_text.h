/*
 * The findings (findings.h) as text for stderr, after emu_findings_resolve
 * (findings_names.h).
 */
#ifndef JITFLUSH_EMU_FINDINGS_TEXT_H
#define JITFLUSH_EMU_FINDINGS_TEXT_H

#include <glib.h>

#include "findings.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The stderr blocks, most stale fetches first, and a SUMMARY line; empty
 * when there is no finding. */
GString *emu_findings_text(const struct emu_findings *f);

#ifdef __cplusplus
}
#endif

#endif /* JITFLUSH_EMU_FINDINGS_TEXT_H */
