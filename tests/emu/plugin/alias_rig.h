/*
 * The rig plugin_alias_test.cc hands the alias unit (rig/plugin/
 * plugin_alias.c), built in C by alias_rig.c because plugin_rig.h uses C11
 * atomics that C++17 cannot include; for the same reason the test calls
 * the unit's public functions (plugin_alias.h) through the one-line
 * forwarders below, each named after the function it calls.
 */
#ifndef JITFLUSH_TESTS_EMU_ALIAS_RIG_H
#define JITFLUSH_TESTS_EMU_ALIAS_RIG_H

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct plugin_rig;
struct model;

/* A rig with one cluster of CTR_EL0 = CTR: its lock, the vCPU scoreboard,
 * the keep, the alias tracker, the model over the tracker's views and the
 * store watched by the tracker, made as plugin.c's install makes them. */
struct plugin_rig *alias_rig_new(uint64_t ctr);
void alias_rig_free(struct plugin_rig *rig);
struct model *alias_rig_model(struct plugin_rig *rig);

/* plugin_alias_canon, plugin_alias_nonexec_view, plugin_alias_note_store and
 * plugin_alias_refresh_views of the rig's tracker. */
uint64_t alias_rig_canon(struct plugin_rig *rig, uint64_t va);
bool alias_rig_nonexec_view(struct plugin_rig *rig, uint64_t va);
void alias_rig_note_store(struct plugin_rig *rig, uint64_t va, unsigned bytes);
void alias_rig_refresh_views(struct plugin_rig *rig);
/* One syscall as the plugin's callbacks report it: plugin_alias_syscall at its
 * entry with ARGS, then plugin_alias_syscall_ret with RET. */
void alias_rig_syscall(struct plugin_rig *rig, int64_t num, const uint64_t args[6], int64_t ret);

#ifdef __cplusplus
}
#endif

#endif /* JITFLUSH_TESTS_EMU_ALIAS_RIG_H */
