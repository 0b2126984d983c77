/*
 * Processes the guest forks (plugin_fork.c): each reports what it found
 * itself, next to the runner's summary, for the runner to merge.
 */
#ifndef JITFLUSH_EMU_PLUGIN_FORK_H
#define JITFLUSH_EMU_PLUGIN_FORK_H

#include <stdbool.h>
#include <stdint.h>

#include "plugin_rig.h"

/* The syscall return callback on VCPU: in a process the guest just
 * forked, starts its own findings and counts (the model's state stays the
 * parent's). */
void plugin_fork_syscall_ret(struct plugin_rig *rig, unsigned vcpu, int64_t num, int64_t ret);
/* Whether this process is one the guest forked (not the one QEMU
 * started). */
bool plugin_fork_is_child(const struct plugin_rig *rig);
/* At a forked process's exit: writes its findings and counts for the
 * runner (rig_contract.h, RIG_PROCESS_FILE_PREFIX). */
void plugin_fork_report(struct plugin_rig *rig);
/* At install with exec-of=: this process is a program a process of the run
 * executed (its parent, the runner that exec replaced that process with);
 * it reports like a forked one, from its start, into exec-of's folder. */
void plugin_fork_executed(struct plugin_rig *rig);
void plugin_fork_free(struct plugin_rig *rig);

#endif /* JITFLUSH_EMU_PLUGIN_FORK_H */
