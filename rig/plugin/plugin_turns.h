/*
 * The deterministic schedule (plugin_turns.c): one guest thread runs at a
 * time, and the turn passes at seeded instruction counts and at system
 * calls that may block, so that which guest instruction runs before which
 * is a function of the seed and the guest alone (docs/RIG.md,
 * "Reproducible runs").
 */
#ifndef JITFLUSH_EMU_PLUGIN_TURNS_H
#define JITFLUSH_EMU_PLUGIN_TURNS_H

#include <stdbool.h>
#include <stdint.h>

#include <json-glib/json-glib.h>

/* Declared only, so that a C++ test can include this header (plugin_rig.h uses
 * C11 atomics). */
struct plugin_rig;
struct plugin_turns;

/* ON false: schedule=parallel, the threads run as the host schedules them
 * (nothing waits; nothing is reproducible). */
struct plugin_turns *plugin_turns_new(uint64_t seed, uint64_t quantum, bool on);
void plugin_turns_free(struct plugin_turns *turns);

/* On the new thread's own host thread, after plugin_sched_vcpu_init: waits for
 * its first turn (outside QEMU's execution loop). */
void plugin_turns_thread_start(struct plugin_rig *rig, unsigned vcpu);
void plugin_turns_thread_exit(struct plugin_rig *rig, unsigned vcpu);

/* The syscall callbacks. plugin_turns_syscall returns true when the process is
 * ending (exit_group): the caller writes the reports before the other
 * threads are let go. */
bool plugin_turns_syscall(struct plugin_rig *rig, unsigned vcpu, int64_t num, uint64_t a1,
                          uint64_t a2);
void plugin_turns_syscall_ret(struct plugin_rig *rig, unsigned vcpu, int64_t num, int64_t ret);

/* After a clone that made thread RET returned and every unit saw it: the creator keeps the turn
 * until the child's vCPU has started. QEMU may grow the plugin's scoreboards there, in an exclusive
 * section, and no guest code may run while it waits. */
void plugin_turns_await_child(struct plugin_rig *rig, unsigned vcpu, int64_t num, int64_t ret);

/* The vCPU's turn ended (its clock's until_handover reached 0): the turn
 * passes, and the thread waits inside QEMU's execution loop for its next. */
void plugin_turns_quantum_ended(struct plugin_rig *rig, unsigned vcpu);

/* policy=adversarial: the thread on VCPU stored to code in this turn and
 * runs an instruction that may publish it; the turn passes to another
 * thread at its next block. */
void plugin_turns_published(struct plugin_rig *rig, unsigned vcpu);

/* The schedule's lock, held across a fork (plugin.c). */
void plugin_turns_lock(struct plugin_turns *turns);
void plugin_turns_unlock(struct plugin_turns *turns);

/* The process is ending: every thread runs freely from now on. */
void plugin_turns_finish(struct plugin_turns *turns);

/* How many times the draws read a thread's state in /proc so far (a few
 * microseconds each; not in the report, which must not depend on the
 * host's timing). */
uint64_t plugin_turns_looks(struct plugin_turns *turns);

/* "schedule": its mode, turn length, hand-overs and, when the turns had to
 * be given up, why. */
void plugin_turns_report(struct plugin_turns *turns, JsonObject *report);

#endif /* JITFLUSH_EMU_PLUGIN_TURNS_H */
