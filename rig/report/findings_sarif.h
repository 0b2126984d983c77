/*
 * The findings (findings.h) as SARIF 2.1.0, after emu_findings_resolve
 * (findings_names.h); locations relative to emu_findings_set_sarif_root.
 */
#ifndef JITFLUSH_EMU_FINDINGS_SARIF_H
#define JITFLUSH_EMU_FINDINGS_SARIF_H

#include <glib.h>

#include "findings.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A SARIF 2.1.0 log with one result per finding. */
GString *emu_findings_sarif(const struct emu_findings *f);

#ifdef __cplusplus
}
#endif

#endif /* JITFLUSH_EMU_FINDINGS_SARIF_H */
