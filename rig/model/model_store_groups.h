/*
 * Which of a translation block's stores share one store callback.
 *
 * The store callback is the rig's hottest (plugin_store.c): a store-heavy
 * guest makes one per four to six instructions. Stores through the same
 * base register at immediate offsets, with nothing between them that may
 * change the register, write words whose distance from the first store's
 * address is known when the block is translated: a function saving its
 * registers, a JIT filling a structure or emitting a few instructions. The
 * first such store (the leader) records the words of the whole group, and
 * the others get no callback.
 *
 * The leader records them before the later members run. Nothing the model
 * counts as an event can come between (system instructions, branches and
 * maintenance end every group, and migrations happen between blocks), so
 * the times are those the members would have had. If an instruction between
 * the leader and a member faults, the member's words are recorded though
 * never written: stricter, never more lenient (docs/COHERENCE-MODEL.md).
 *
 * No QEMU and no GLib in here, so tests/emu tests the grouping directly.
 */
#ifndef JITFLUSH_EMU_STORE_GROUPS_H
#define JITFLUSH_EMU_STORE_GROUPS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Disjoint byte ranges one group may cover; a store that would need more
 * leads a new group. */
#define MODEL_STORE_GROUP_RANGES 4

enum model_store_role {
  MODEL_STORE_OWN,    /* its own callback per access (any instruction that is not grouped) */
  MODEL_STORE_LEADER, /* one callback that records its group */
  MODEL_STORE_MEMBER, /* recorded by its group's leader: no callback */
};

/* Bytes [OFFSET, OFFSET + BYTES) from the leader's address, last written by
 * the instruction at index LAST_INSN of the block. */
struct model_store_range {
  int32_t offset;
  uint32_t bytes;
  uint32_t last_insn;
};

struct model_store_group {
  uint32_t leader; /* index in the block */
  uint32_t nranges;
  struct model_store_range range[MODEL_STORE_GROUP_RANGES];
};

/*
 * Plans the N instruction words WORDS of one block: ROLE[i] for each, and
 * for leaders and members GROUP_OF[i], an index into GROUPS, which must hold
 * N entries. Returns the number of groups.
 */
size_t model_groups_plan(const uint32_t *words, size_t n, enum model_store_role *role,
                         uint32_t *group_of, struct model_store_group *groups);

/* The bytes the store WORD writes when it is one a group may hold (one
 * general-purpose register at an immediate offset: one access of that
 * size), else 0. */
unsigned model_simple_store_bytes(uint32_t word);

#ifdef __cplusplus
}
#endif

#endif /* JITFLUSH_EMU_STORE_GROUPS_H */
