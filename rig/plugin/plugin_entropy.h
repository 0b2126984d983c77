/*
 * The guest's entropy under the run's seed (plugin_entropy.c,
 * docs/RIG.md "Reproducible runs"): what getrandom returns and what reads
 * of /dev/urandom and /dev/random return are replaced by bytes drawn from
 * the seed, so that a guest that seeds a hash table or a JIT's address
 * choices from them runs the same way on every run of one seed. The
 * AT_RANDOM bytes of the auxiliary vector are QEMU's own, made from the
 * seed by QEMU's -seed option, which the runner passes.
 */
#ifndef JITFLUSH_EMU_PLUGIN_ENTROPY_H
#define JITFLUSH_EMU_PLUGIN_ENTROPY_H

#include <stdint.h>

#include <json-glib/json-glib.h>

struct plugin_entropy;

struct plugin_entropy *plugin_entropy_new(uint64_t seed);
void plugin_entropy_free(struct plugin_entropy *e);

/* The syscall entry callback on VCPU: notes what the return needs. */
void plugin_entropy_syscall(struct plugin_entropy *e, unsigned vcpu, int64_t num,
                            const uint64_t args[6]);
/* The syscall return callback on VCPU: replaces what the host returned
 * with seeded bytes, and follows the descriptors of the random devices.
 * Takes no lock of the rig's (it writes guest memory: plugin_sched.c says
 * why that must not happen under the rig's lock). */
void plugin_entropy_syscall_ret(struct plugin_entropy *e, unsigned vcpu, int64_t num, int64_t ret);

/* Into the report's SCHEDULE object: "entropy" (what was replaced) and,
 * when some entropy reached the guest that the seed did not make,
 * "outside_seed" (what) and "reproducible": false. */
void plugin_entropy_report(struct plugin_entropy *e, JsonObject *schedule);

#endif /* JITFLUSH_EMU_PLUGIN_ENTROPY_H */
