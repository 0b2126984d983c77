/*
 * Signal delivery as a context synchronisation of the thread it interrupts
 * (plugin_signal.c, docs/COHERENCE-MODEL.md#synchronisation).
 */
#ifndef JITFLUSH_EMU_PLUGIN_SIGNAL_H
#define JITFLUSH_EMU_PLUGIN_SIGNAL_H

#include <stdint.h>

#include "rig.h"

struct jf_signals *jf_signals_new(void);
void jf_signals_free(struct jf_signals *s);

/* The syscall entry callback (the lock NOT held: it reads guest memory):
 * an rt_sigaction that installs a handler adds the handler's address. */
void jf_signals_syscall(struct jf_rig *rig, int64_t num, const uint64_t args[6]);

/* At translation: a TB that starts at a handler's address gets the
 * callback that recognises a delivery there and synchronises the thread.
 * Any other TB gets nothing. */
void jf_signals_instrument_tb(struct jf_rig *rig, struct qemu_plugin_tb *tb);

#endif /* JITFLUSH_EMU_PLUGIN_SIGNAL_H */
