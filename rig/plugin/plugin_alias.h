/*
 * Double-mapped (RW + RX) views of one file (plugin_alias.c): the
 * canonical address the model keys a guest address by.
 */
#ifndef JITFLUSH_EMU_PLUGIN_ALIAS_H
#define JITFLUSH_EMU_PLUGIN_ALIAS_H

#include <stdbool.h>
#include <stdint.h>

#include "plugin_rig.h"

struct plugin_alias *plugin_alias_new(void);
void plugin_alias_free(struct plugin_alias *a);
/* The address the model keys VA by (the rig's lock held). */
uint64_t plugin_alias_canon(const struct plugin_alias *a, uint64_t va);
/* VA lies in a non-executable mapping of file pages that an executable
 * mapping also shows: the RW view of double-mapped code (lock held). */
bool plugin_alias_nonexec_view(const struct plugin_alias *a, uint64_t va);
/* The syscall entry and return callbacks. Both take the rig's lock for the
 * syscalls that map or unmap memory; when the views change, the store
 * caches are emptied (plugin_store.h), and the model forgets unmapped
 * memory (model_forget). */
void plugin_alias_syscall(struct plugin_rig *rig, int64_t num, const uint64_t args[6]);
/* Before plugin_alias_syscall: the syscall's svc and link register, which the
 * kernel's notes name as the call that published code (0: unknown). */
void plugin_alias_syscall_site(uint64_t pc, uint64_t lr);
void plugin_alias_syscall_ret(struct plugin_rig *rig, int64_t num, int64_t ret);

/* A store of BYTES at VA by the instruction at WRITER_PC (lock held),
 * before the model records it: in a forked child, the first store to a
 * page shared with the parent faults its copy (model_kernel_sync.h,
 * model_kernel_store); when VA is in the RW view of double-mapped code,
 * the executable views' lines it changed are marked for
 * plugin_alias_refresh_views. */
void plugin_alias_note_store(struct plugin_rig *rig, uint64_t va, unsigned bytes,
                             uint64_t writer_pc);
/* At the fork's return in the child: its private pages are shared with the
 * parent, copy-on-write (model_kernel_sync.h, model_kernel_forked). */
void plugin_alias_forked(struct plugin_rig *rig);
/* At a context synchronisation, on a vCPU thread, lock NOT held: makes
 * QEMU translate the marked lines again (plugin_alias.c). */
void plugin_alias_refresh_views(struct plugin_rig *rig);

#endif /* JITFLUSH_EMU_PLUGIN_ALIAS_H */
