/*
 * The rig plugin_signal_test.cc hands the signal unit (rig/plugin/
 * plugin_signal.c), built in C by signal_rig.c because plugin_rig.h uses C11
 * atomics that C++17 cannot include; for the same reason the test calls
 * the unit's public functions (plugin_signal.h) through the one-line
 * forwarders below, each named after the function it calls.
 */
#ifndef JITFLUSH_TESTS_EMU_SIGNAL_RIG_H
#define JITFLUSH_TESTS_EMU_SIGNAL_RIG_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct plugin_rig;
struct model;
struct model_thread;
struct qemu_plugin_tb;

/* A rig of the config at CONFIG_PATH made as plugin.c's install makes it
 * (config, scoreboard, keep, alias tracker, model, store, registers,
 * scheduler, signals), with vCPU 0 started as QEMU starts the main
 * thread's (registers learnt, the thread placed); NULL when the config
 * does not load. */
struct plugin_rig *signal_rig_new(const char *config_path);
void signal_rig_free(struct plugin_rig *rig);
struct model *signal_rig_model(struct plugin_rig *rig);
/* The model's record of the thread on vCPU 0. */
struct model_thread *signal_rig_thread(struct plugin_rig *rig);
/* vCPU 0's signal_deliveries counter (rig_counters.def). */
uint64_t signal_rig_deliveries(struct plugin_rig *rig);

/* plugin_signals_syscall and plugin_signals_instrument_tb. */
void signal_rig_syscall(struct plugin_rig *rig, int64_t num, const uint64_t args[6]);
void signal_rig_instrument_tb(struct plugin_rig *rig, struct qemu_plugin_tb *tb);

#ifdef __cplusplus
}
#endif

#endif /* JITFLUSH_TESTS_EMU_SIGNAL_RIG_H */
