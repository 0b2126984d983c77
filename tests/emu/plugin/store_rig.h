/*
 * The rig plugin_store_test.cc hands the store path (rig/plugin/
 * plugin_store.c), built in C by store_rig.c because plugin_rig.h uses C11
 * atomics that C++17 cannot include; the test reaches the unit's public
 * functions (plugin_store.h) through the forwarders below.
 */
#ifndef JITFLUSH_TESTS_EMU_STORE_RIG_H
#define JITFLUSH_TESTS_EMU_STORE_RIG_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct plugin_rig;
struct model;
struct model_thread;

/* The common parts (plugin_rig.c) with one cluster of CTR_EL0 = CTR and
 * the rig's default schedule (its turns: stores serial). */
struct plugin_rig *store_rig_new(uint64_t ctr);
void store_rig_free(struct plugin_rig *rig);
struct model *store_rig_model(struct plugin_rig *rig);

/* plugin_store_thread_placed: T runs on VCPU. */
void store_rig_place(struct plugin_rig *rig, unsigned vcpu, struct model_thread *t);
/* A store of BYTES at VA by the instruction at PC on VCPU, as QEMU's
 * memory callback of a lone store reports it (plugin_store_on_span). */
void store_rig_store(struct plugin_rig *rig, unsigned vcpu, uint64_t va, unsigned bytes,
                     uint64_t pc);
/* plugin_store_parallel: the turns were given up. */
void store_rig_parallel(struct plugin_rig *rig);
/* The rig's epoch: it grows at every release of the rig's lock by a
 * holder that may have changed what a fetch verdict reads (plugin_rig.h),
 * so it shows which stores took the lock. */
uint64_t store_rig_epoch(struct plugin_rig *rig);

#ifdef __cplusplus
}
#endif

#endif /* JITFLUSH_TESTS_EMU_STORE_RIG_H */
