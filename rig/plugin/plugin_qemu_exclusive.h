/*
 * QEMU's exclusive sections, seen from the plugin (plugin_qemu_exclusive.c).
 *
 * Before an exclusive section (a full translation cache, a fork, a vCPU
 * growing the plugin's scoreboards, an atomic step the host cannot do in
 * parallel) QEMU stops every vCPU that runs guest code. A thread the
 * deterministic schedule keeps waiting for its turn inside a block's
 * callback counts as running, so the section waits for it
 * (plugin_turns.c lets such threads go, one at a time). The plugin API
 * does not say when a section waits; QEMU's own counter does.
 */
#ifndef JITFLUSH_EMU_QEMU_EXCLUSIVE_H
#define JITFLUSH_EMU_QEMU_EXCLUSIVE_H

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* QEMU's pending_cpus (cpus-common.c) in this process: while a section
 * waits, 1 + the vCPUs it still waits for; 1 during the section; 0
 * otherwise. NULL when the running executable's symbol table does not
 * name exactly one such object (a stripped QEMU); *WHY (static text) then
 * says what was missing. Reads the symbol table (libelf, loaded lazily)
 * on every call: the schedule calls it once (plugin_turns.c). */
const int *plugin_qemu_pending_cpus(const char **why);

/* The link-time address and size of the one data object (STT_OBJECT,
 * local or global) named NAME in the symbol table of the ELF file at
 * PATH. False when the file cannot be read, has no symbol table, or has
 * no such object or more than one; *WHY (static text) says which. */
bool plugin_elf_data_object(const char *path, const char *name, uint64_t *addr, uint64_t *size,
                            const char **why);

/* The load bias of the main executable of this process (0 when it is not
 * position-independent): its runtime address minus its link address. */
uint64_t plugin_main_executable_bias(void);

#ifdef __cplusplus
}
#endif

#endif /* JITFLUSH_EMU_QEMU_EXCLUSIVE_H */
