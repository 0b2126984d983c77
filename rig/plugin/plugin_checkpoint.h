/*
 * Findings that outlive a QEMU killed with SIGKILL (plugin_checkpoint.c):
 * the run's checkpoint folder, rewritten at the guest's first system call
 * after each new finding.
 */
#ifndef JITFLUSH_EMU_PLUGIN_CHECKPOINT_H
#define JITFLUSH_EMU_PLUGIN_CHECKPOINT_H

struct jf_checkpoint;

/* WRITE(CTX) writes the checkpoint folder (plugin.c). */
struct jf_checkpoint *jf_checkpoint_new(void (*write)(void *ctx), void *ctx);
void jf_checkpoint_free(struct jf_checkpoint *c);

/* Something new to keep (a new finding, the guest's start): written at the
 * next jf_checkpoint_sync. One atomic store, for the execution callbacks. */
void jf_checkpoint_wake(struct jf_checkpoint *c);

/* At the entry of a guest system call: writes the checkpoint when there is
 * something new; at once otherwise (one atomic read). */
void jf_checkpoint_sync(struct jf_checkpoint *c);

#endif /* JITFLUSH_EMU_PLUGIN_CHECKPOINT_H */
