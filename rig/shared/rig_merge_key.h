/* The root cause a finding of a report belongs to, across processes and
 * across a run and its rerun (rig_merge_key.c). */
#ifndef JITFLUSH_EMU_MERGE_KEY_H
#define JITFLUSH_EMU_MERGE_KEY_H

#include <json-glib/json-glib.h>

/* The key under which jitflush-emu --merge counts FINDING (one object of a
 * report's "findings") together with the findings of other processes, and
 * jitflush-emu --reproduce matches a rerun's findings with the run's:
 * equal keys are one root cause. Newly allocated. */
char *rig_merge_key(JsonObject *finding);

#endif /* JITFLUSH_EMU_MERGE_KEY_H */
