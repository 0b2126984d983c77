/*
 * execve of an AArch64 program (plugin_exec.c): QEMU user mode hands it to
 * the host kernel, which cannot run it (or, with binfmt_misc, runs it in a
 * QEMU without the rig), so the run must not end like a checked one.
 */
#ifndef JITFLUSH_EMU_PLUGIN_EXEC_H
#define JITFLUSH_EMU_PLUGIN_EXEC_H

#include <stdbool.h>
#include <stdint.h>

#include "plugin_rig.h"

/* Writes the process's reports before an exec replaces it (UNDO false),
 * or lets them be written again when the exec failed (UNDO true). */
typedef void plugin_exec_reports_fn(struct plugin_rig *rig, bool undo);

/* The syscall entry callback for an execve/execveat of an AArch64 ELF
 * file. With follow= (rig_contract.h) the process becomes the runner,
 * which runs the program on the rig (REPORTS is called first); otherwise,
 * or when that exec fails, the program is noted in the exec= file for the
 * runner, or said on stderr when there is none. */
void plugin_exec_syscall(struct plugin_rig *rig, int64_t num, const uint64_t args[6],
                         plugin_exec_reports_fn *reports);

#endif /* JITFLUSH_EMU_PLUGIN_EXEC_H */
