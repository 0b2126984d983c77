/*
 * execve of an AArch64 program (plugin_exec.c): QEMU user mode hands it to
 * the host kernel, which cannot run it (or, with binfmt_misc, runs it in a
 * QEMU without the rig), so the run must not end like a checked one.
 */
#ifndef JITFLUSH_EMU_PLUGIN_EXEC_H
#define JITFLUSH_EMU_PLUGIN_EXEC_H

#include <stdint.h>

#include "rig.h"

/* The syscall entry callback: notes an execve/execveat of an AArch64 ELF
 * file in the exec= file (rig_contract.h) for the runner, or says so on
 * stderr when there is none. */
void jf_exec_syscall(struct jf_rig *rig, int64_t num, const uint64_t args[6]);

#endif /* JITFLUSH_EMU_PLUGIN_EXEC_H */
