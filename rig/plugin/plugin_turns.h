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

/* Declared only, so that a C++ test can include this header (rig.h uses
 * C11 atomics). */
struct jf_rig;
struct jf_turns;

/* ON false: schedule=parallel, the threads run as the host schedules them
 * (nothing waits; nothing is reproducible). */
struct jf_turns *jf_turns_new(uint64_t seed, uint64_t quantum, bool on);
void jf_turns_free(struct jf_turns *turns);

/* On the new thread's own host thread, after jf_sched_vcpu_init: waits for
 * its first turn (outside QEMU's execution loop). */
void jf_turns_thread_start(struct jf_rig *rig, unsigned vcpu);
void jf_turns_thread_exit(struct jf_rig *rig, unsigned vcpu);

/* The syscall callbacks. jf_turns_syscall returns true when the process is
 * ending (exit_group): the caller writes the reports before the other
 * threads are let go. */
bool jf_turns_syscall(struct jf_rig *rig, unsigned vcpu, int64_t num, uint64_t a1, uint64_t a2);
void jf_turns_syscall_ret(struct jf_rig *rig, unsigned vcpu, int64_t num, int64_t ret);

/* After a clone that made thread RET returned and every unit saw it: the creator keeps the turn
 * until the child's vCPU has started. QEMU may grow the plugin's scoreboards there, in an exclusive
 * section, and no guest code may run while it waits. */
void jf_turns_await_child(struct jf_rig *rig, unsigned vcpu, int64_t num, int64_t ret);

/* The vCPU's turn ended (its clock's until_handover reached 0): the turn
 * passes, and the thread waits inside QEMU's execution loop for its next. */
void jf_turns_quantum_ended(struct jf_rig *rig, unsigned vcpu);

/* policy=adversarial: the thread on VCPU stored to code in this turn and
 * runs an instruction that may publish it; the turn passes to another
 * thread at its next block. */
void jf_turns_published(struct jf_rig *rig, unsigned vcpu);

/* The schedule's lock, held across a fork (plugin.c). */
void jf_turns_lock(struct jf_turns *turns);
void jf_turns_unlock(struct jf_turns *turns);

/* The process is ending: every thread runs freely from now on. */
void jf_turns_finish(struct jf_turns *turns);

/* "schedule": its mode, turn length, hand-overs and, when the turns had to
 * be given up, why. */
void jf_turns_report(struct jf_turns *turns, JsonObject *report);

#endif /* JITFLUSH_EMU_PLUGIN_TURNS_H */
