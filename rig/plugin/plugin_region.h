/*
 * Measured regions: per-flush counts between the bench's marker
 * instructions (plugin_region.c, docs/BENCHMARKS.md#what-is-measured).
 */
#ifndef JITFLUSH_EMU_PLUGIN_REGION_H
#define JITFLUSH_EMU_PLUGIN_REGION_H

#include <stddef.h>
#include <stdint.h>

#include <json-glib/json-glib.h>

#include "plugin_decode.h"
#include "plugin_rig.h"

struct plugin_region *plugin_region_new(void);
void plugin_region_free(struct plugin_region *r);
/* At translation: WORDS/KINDS are the TB's N instructions. Counts the
 * instructions of maintenance loops and arms the marker callbacks. */
void plugin_region_instrument_tb(struct plugin_rig *rig, struct qemu_plugin_tb *tb,
                                 const uint32_t *words, const enum plugin_insn_kind *kinds,
                                 size_t n);
/* Sets the report's "regions" and "region_unbalanced" members. */
void plugin_region_report(struct plugin_region *r, JsonObject *report);

#endif /* JITFLUSH_EMU_PLUGIN_REGION_H */
