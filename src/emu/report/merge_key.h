/* The root cause a finding of a report belongs to, across processes
 * (merge_key.c). */
#ifndef JITFLUSH_EMU_MERGE_KEY_H
#define JITFLUSH_EMU_MERGE_KEY_H

#include <json-glib/json-glib.h>

/* The key under which jitflush-emu --merge counts FINDING (one object of a
 * report's "findings") together with the findings of other processes:
 * equal keys are one root cause. Newly allocated. */
char *emu_merge_key(JsonObject *finding);

#endif /* JITFLUSH_EMU_MERGE_KEY_H */
