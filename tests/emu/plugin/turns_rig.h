/*
 * The rig plugin_turns_test.cc hands the deterministic schedule (rig/
 * plugin/plugin_turns.c), built in C by turns_rig.c because plugin_rig.h uses C11
 * atomics that C++17 cannot include; the test calls the unit's public
 * functions (plugin_turns.h, which declares the rig only) directly. Each
 * guest thread of a test is a host thread of the test, as linux-user QEMU
 * runs each guest thread on one.
 */
#ifndef JITFLUSH_TESTS_EMU_TURNS_RIG_H
#define JITFLUSH_TESTS_EMU_TURNS_RIG_H

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct plugin_rig;

/* The common parts (plugin_rig.c) and the schedule, made as plugin.c's
 * install makes it: plugin_turns_new(SEED, QUANTUM, ON). */
struct plugin_rig *turns_rig_new(uint64_t seed, uint64_t quantum, bool on);
void turns_rig_free(struct plugin_rig *rig);
/* The schedule (plugin_turns_finish's argument). */
struct plugin_turns *turns_rig_turns(struct plugin_rig *rig);

/* The instructions VCPU may run before its turn ends, as its turn's start
 * set them on its clock (UINT64_MAX: no end). */
uint64_t turns_rig_quantum_left(struct plugin_rig *rig, unsigned vcpu);

/* The report's "schedule" object, as JSON text (g_free it). */
char *turns_rig_report(struct plugin_rig *rig);

#ifdef __cplusplus
}
#endif

#endif /* JITFLUSH_TESTS_EMU_TURNS_RIG_H */
