/*
 * Translation-time instrumentation and the execution callbacks it
 * registers (plugin_instrument.c): with plugin.c, the QEMU glue.
 */
#ifndef JITFLUSH_EMU_PLUGIN_INSTRUMENT_H
#define JITFLUSH_EMU_PLUGIN_INSTRUMENT_H

#include "plugin_rig.h"
#include "rig_contract.h"

/* The rig every callback registered from now on serves (at install, before
 * any translation; NULL at exit). */
void plugin_instrument_attach(struct plugin_rig *rig);
/* QEMU's translation callback. */
void plugin_instrument_tb(qemu_plugin_id_t id, struct qemu_plugin_tb *tb);

/* The calling thread's stale-block repeats counted without the lock, folded
 * into the findings (takes the lock when there are any): before the thread
 * hands its turn over. */
void plugin_instrument_fold_own(void);
/* Adds to COUNTER the stale fetches of entries that ran with no callback
 * and are not counted yet (the lock held; a report while the guest runs). */
void plugin_instrument_count_pending(uint64_t counter[RIG_NCOUNTERS]);
/* Every thread's stale-block repeats counted without the lock, folded into
 * the findings (the lock held; at exit, when no other vCPU runs). */
void plugin_instrument_fold_all(void);
/* VCPU's thread ended (the lock held): its repeats go in now. */
void plugin_instrument_vcpu_exit(unsigned vcpu);

#endif /* JITFLUSH_EMU_PLUGIN_INSTRUMENT_H */
