/*
 * The emulated topology: which emulated CPU each guest thread runs on, the
 * affinity syscalls answered on that topology, and seeded migrations
 * (plugin_sched.c).
 */
#ifndef JITFLUSH_EMU_PLUGIN_SCHED_H
#define JITFLUSH_EMU_PLUGIN_SCHED_H

#include <stdbool.h>
#include <stdint.h>

#include "cpuset.h"
#include "plugin_rig.h"
#include "plugin_vcpu.h"

/* A guest thread (one vCPU in linux-user) and the emulated CPU it runs on. */
struct plugin_thread {
  struct model_thread mt; /* serial, the emulated CPU it runs on now and
                                its cluster, the model's per-thread state */
  int tid;                /* guest (= host) thread id, 0 until known */
  bool alive;
  unsigned vcpu;           /* QEMU vCPU index while alive */
  struct jf_cpuset mask;   /* its affinity, always within online and allowed */
  uint64_t rng;            /* seeded per thread: migrations are repeatable */
  uint64_t insns_credited; /* instructions already credited to a CPU */
  bool adversary_armed;    /* read CTR_EL0 on its largest-line CPU; moves to
                              its smallest-line CPU at the next maintenance
                              (policy=adversarial) */
  bool adversary_holding;  /* moved there: random migrations stay on CPUs
                              of that geometry until its next CTR_EL0 read */
  struct jf_cpuset held;   /* those CPUs of MASK, while holding */
  /* The syscall in flight (entry callback -> return callback). */
  int64_t sc_num;
  uint64_t sc_args[3];
  GByteArray *sc_saved;    /* guest bytes the plugin replaced before the
                              host call, restored after it */
  struct jf_cpuset wanted; /* the mask it asked for, within [process]
                              allowed, offline CPUs kept (hotplug: Linux
                              gives a task its CPUs back when they return) */
  bool sc_apply;           /* setaffinity: an emulated mask to apply */
  struct jf_cpuset sc_mask;
  struct plugin_thread *sc_target;
  struct plugin_thread *sc_clone_child; /* clone: the record made for the child */
};

/* NULL with *ERROR set when the config leaves no CPU to run on. */
struct plugin_sched *plugin_sched_new(struct plugin_rig *rig, GError **error);
void plugin_sched_free(struct plugin_sched *sc);

void plugin_sched_vcpu_init(struct plugin_rig *rig, unsigned vcpu);
void plugin_sched_vcpu_exit(struct plugin_rig *rig, unsigned vcpu);
/* The thread on VCPU (the rig's lock held; never NULL while the vCPU runs
 * guest code). */
struct plugin_thread *plugin_sched_thread(const struct plugin_sched *sc, unsigned vcpu);

/* The migration clock of the vCPU whose state is V is due: true when only
 * a stretch of it ended (the clock is set for the next one) and nothing
 * else is to be done, false at a migration point (until_migration is 0:
 * the caller polls hotplug and calls plugin_sched_migrate) or at the end of the
 * thread's turn (until_handover is 0: plugin_turns.c). V is passed in, not
 * looked up: a scoreboard lookup is a call into QEMU, and migrations are
 * frequent. */
bool plugin_sched_stretch_ended(struct plugin_vcpu *v);
/* Sets V's clock again after its until_handover changed, on V's own vCPU:
 * the instructions left in the current stretch go back to until_migration,
 * so the migration points stay where they were. */
void plugin_sched_rearm(struct plugin_vcpu *v);
void plugin_sched_migrate(struct plugin_rig *rig, unsigned vcpu, struct plugin_vcpu *v);

/* The syscall callbacks (the caller polls hotplug first). */
void plugin_sched_syscall(struct plugin_rig *rig, unsigned vcpu, int64_t num, uint64_t a1,
                          uint64_t a2, uint64_t a3);
void plugin_sched_syscall_ret(struct plugin_rig *rig, unsigned vcpu, int64_t num, int64_t ret);

/* policy=adversarial: called with the lock held before T's mrs ctr_el0
 * result is computed, and before each of its maintenance operations. */
void plugin_sched_adversary_ctr_read(struct plugin_rig *rig, struct plugin_thread *t);
void plugin_sched_adversary_maintenance(struct plugin_rig *rig, struct plugin_thread *t);

/* A context synchronisation of T (model_sync), published to the vCPU
 * state that the fetch fast path reads (lock held). */
void plugin_sched_sync(struct plugin_rig *rig, struct plugin_thread *t);

/* The online CPUs changed (lock held): the process's CPUs become
 * [process] allowed within ONLINE, each thread's mask what it asked for
 * within those, and threads on a CPU that went offline move off it
 * (counted on VCPU). */
void plugin_sched_set_online(struct plugin_rig *rig, const struct jf_cpuset *online, unsigned vcpu);

/* Credits every live thread's executed instructions to its CPU (at exit). */
void plugin_sched_credit_all(struct plugin_rig *rig);
uint64_t plugin_sched_cpu_insns(const struct plugin_sched *sc, unsigned cpu);
unsigned plugin_sched_nthreads(const struct plugin_sched *sc);
/* The oldest last synchronisation of a live thread (lock held): a word
 * whose fresh_after bound is below it is fresh for every thread from now
 * on, until it is stored again (model_fresh_after). */
uint64_t plugin_sched_settled_before(const struct plugin_sched *sc);

#endif /* JITFLUSH_EMU_PLUGIN_SCHED_H */
