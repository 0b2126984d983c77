/*
 * The parts of the plugin's rig (rig/plugin/plugin_rig.h) every plugin unit
 * test builds (alias_rig.c, signal_rig.c), made through the real
 * constructors as plugin.c's install makes them. C only: plugin_rig.h uses C11
 * atomics.
 */
#ifndef JITFLUSH_TESTS_EMU_PLUGIN_RIG_H
#define JITFLUSH_TESTS_EMU_PLUGIN_RIG_H

#include <stdint.h>

#include "plugin_rig.h"

/* The lock, the vCPU scoreboard, the keep, the alias tracker, the model of
 * NCLUSTERS clusters (cluster C's CTR_EL0 CTR[C]) over the tracker's
 * views, and the store, whose locked stores the tracker watches. */
struct plugin_rig *plugin_rig_new(const uint64_t *ctr, unsigned nclusters);
/* Frees those and RIG (the caller freed what it added). */
void plugin_rig_free(struct plugin_rig *rig);

#endif /* JITFLUSH_TESTS_EMU_PLUGIN_RIG_H */
