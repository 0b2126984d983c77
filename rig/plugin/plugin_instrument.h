/*
 * Translation-time instrumentation and the execution callbacks it
 * registers (plugin_instrument.c): with plugin.c, the QEMU glue.
 */
#ifndef JITFLUSH_EMU_PLUGIN_INSTRUMENT_H
#define JITFLUSH_EMU_PLUGIN_INSTRUMENT_H

#include "rig.h"

/* The rig every callback registered from now on serves (at install, before
 * any translation; NULL at exit). */
void jf_instrument_attach(struct jf_rig *rig);
/* QEMU's translation callback. */
void jf_instrument_tb(qemu_plugin_id_t id, struct qemu_plugin_tb *tb);

#endif /* JITFLUSH_EMU_PLUGIN_INSTRUMENT_H */
