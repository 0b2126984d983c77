/*
 * Findings that outlive a QEMU killed with SIGKILL (plugin_checkpoint.c):
 * a thread that rewrites the run's checkpoint folder whenever a new finding
 * was recorded, and once a second while the guest runs.
 */
#ifndef JITFLUSH_EMU_PLUGIN_CHECKPOINT_H
#define JITFLUSH_EMU_PLUGIN_CHECKPOINT_H

#include <stdbool.h>

struct jf_checkpoint;

/* Starts the thread, which calls WRITE(CTX) when woken and at every
 * period; WRITE decides whether anything changed. */
struct jf_checkpoint *jf_checkpoint_start(void (*write)(void *ctx), void *ctx);

/* Something new to keep: the thread writes soon. URGENT (a new finding):
 * the guest's next system call waits until it is written (
 * jf_checkpoint_sync). Lock-free, for the execution callbacks; a forked
 * process (which has no such thread) does nothing. */
void jf_checkpoint_wake(struct jf_checkpoint *c, bool urgent);

/* At a guest system call: returns once every urgent wake-up so far is
 * written; at once when there was none (one atomic read). */
void jf_checkpoint_sync(struct jf_checkpoint *c);

#endif /* JITFLUSH_EMU_PLUGIN_CHECKPOINT_H */
