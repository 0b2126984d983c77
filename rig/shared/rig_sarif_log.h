/* Reading back the SARIF logs the rig writes (rig_sarif_log.c), for the two
 * programs that merge them: the runner (a forked process's log into the
 * run's) and jitflush-emu-merge (a suite's logs into one). */
#ifndef JITFLUSH_EMU_SARIF_LOG_H
#define JITFLUSH_EMU_SARIF_LOG_H

#include <json-glib/json-glib.h>

/* The results of LOG's first run, or NULL when LOG has no run or the run
 * no "results" (the rig writes one run a log, docs/FINDINGS.md#sarif).
 * When RUN is not NULL, *RUN is that first run, or NULL when there is none.
 * Both belong to LOG. */
JsonArray *rig_sarif_results(JsonObject *log, JsonObject **run);

#endif /* JITFLUSH_EMU_SARIF_LOG_H */
