/*
 * Findings that outlive a QEMU killed with SIGKILL (plugin_checkpoint.c):
 * the run's checkpoint folder, rewritten at the guest's first system call
 * after each new finding.
 */
#ifndef JITFLUSH_EMU_PLUGIN_CHECKPOINT_H
#define JITFLUSH_EMU_PLUGIN_CHECKPOINT_H

struct plugin_checkpoint;

/* WRITE(CTX) writes the checkpoint folder (plugin.c). */
struct plugin_checkpoint *plugin_checkpoint_new(void (*write)(void *ctx), void *ctx);
void plugin_checkpoint_free(struct plugin_checkpoint *c);

/* Something new to keep (a new finding, the guest's start): written at the
 * next plugin_checkpoint_sync. One atomic store, for the execution callbacks. */
void plugin_checkpoint_wake(struct plugin_checkpoint *c);

/* At the entry of a guest system call: writes the checkpoint when there is
 * something new; at once otherwise (one atomic read). */
void plugin_checkpoint_sync(struct plugin_checkpoint *c);

#endif /* JITFLUSH_EMU_PLUGIN_CHECKPOINT_H */
