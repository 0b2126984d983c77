/*
 * Signal delivery as a context synchronisation of the thread it interrupts
 * (plugin_signal.c, docs/COHERENCE-MODEL.md#synchronisation).
 */
#ifndef JITFLUSH_EMU_PLUGIN_SIGNAL_H
#define JITFLUSH_EMU_PLUGIN_SIGNAL_H

#include <stdint.h>

#include "plugin_rig.h"

struct plugin_signals *plugin_signals_new(void);
void plugin_signals_free(struct plugin_signals *s);

/* The syscall entry callback (the lock NOT held: it reads guest memory):
 * an rt_sigaction that installs a handler adds the handler's address. */
void plugin_signals_syscall(struct plugin_rig *rig, int64_t num, const uint64_t args[6]);

/* At translation: a TB that starts at a handler's address gets the
 * callback that recognises a delivery there and synchronises the thread,
 * and true is returned (such a TB observes the SoC: plugin_instrument.c).
 * Any other TB gets nothing. */
bool plugin_signals_instrument_tb(struct plugin_rig *rig, struct qemu_plugin_tb *tb);

#endif /* JITFLUSH_EMU_PLUGIN_SIGNAL_H */
