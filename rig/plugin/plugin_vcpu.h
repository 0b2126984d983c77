/*
 * Per-vCPU state, one QEMU scoreboard entry per vCPU, split by concern.
 * The inline operations QEMU emits update it without a callback; the
 * conditional callbacks test it. Never keep a pointer to an entry across
 * callbacks: QEMU reallocates scoreboards when a vCPU with a new index
 * appears.
 */
#ifndef JITFLUSH_EMU_VCPU_H
#define JITFLUSH_EMU_VCPU_H

#include <stdint.h>

#include "plugin_rig.h"
#include "rig_contract.h"

/*
 * The migration clock: the one inline add every observing TB makes
 * (plugin_clock_tick; a quiet TB makes none: plugin_instrument.c),
 * its instruction count in the high part, the number of its words the
 * fetch check examines in the low part: one inline add per TB instead of
 * two, three on a JIT's code (the cost is in docs/BENCHMARKS.md). The clock
 * counts up to PLUGIN_MIGRATE_DUE
 * (plugin_sched.c); whenever the plugin sets it (plugin_vcpu_set_clock), what
 * it counted since ORIGIN is folded into INSNS_BASE and CHECKS_BASE.
 */
struct plugin_vcpu_clock {
  uint64_t now;
  uint64_t origin;
  uint64_t insns_base;
  uint64_t checks_base;
  uint64_t seq; /* odd while plugin_vcpu_set_clock runs */
  /* Instructions to the next migration beyond the clock's current stretch
   * (plugin_sched.c); only this vCPU's thread uses it. */
  uint64_t until_migration;
  /* Instructions to the end of the thread's turn beyond the current
   * stretch, UINT64_MAX for never (plugin_turns.c). */
  uint64_t until_handover;
  /* The clock's value while a register write parks it at PLUGIN_MIGRATE_DUE
   * (plugin_regs.c). */
  uint64_t parked;
  /* Nonzero once the thread stored to a page holding code in this turn
   * (plugin_store.c): with policy=adversarial its next publishing
   * instruction ends the turn (plugin_turns.c, plugin_turns_published). */
  uint64_t code_stored;
};

/* The VCPU-source counters of rig_counters.def. */
struct plugin_vcpu_counters {
#define PLUGIN_FIELD_VCPU(name) uint64_t name;
#define PLUGIN_FIELD_CLOCK(name)
#define PLUGIN_FIELD_MODEL(name)
#define RIG_COUNTER(name, source, shown, description) PLUGIN_FIELD_##source(name)
#include "rig_counters.def"
#undef RIG_COUNTER
#undef PLUGIN_FIELD_MODEL
#undef PLUGIN_FIELD_CLOCK
#undef PLUGIN_FIELD_VCPU
};

/* A write of x[INDEX] := VALUE due at the vCPU's next TB start
 * (plugin_regs.c): the mrs ended its TB, or a syscall result must be
 * overridden. */
struct plugin_vcpu_reg_write {
  uint64_t pending;
  uint64_t index;
  uint64_t value;
};

/* The measured region this vCPU has open (plugin_region.c). */
struct plugin_vcpu_region {
  uint64_t open;
  uint64_t tag;
  uint64_t start[RIG_NCOUNTERS];
};

/* The words of a TB (QEMU's TCG_MAX_INSNS). */
#define PLUGIN_SELFSTORE_WORDS 512

struct plugin_vcpu {
  struct plugin_vcpu_clock clock;
  struct plugin_vcpu_counters counts;
  /* The model's sync_seq of the thread on this vCPU (0 none), published by
   * plugin_sched.c: the fetch fast path compares it inline with each
   * word's fresh_after bound (plugin_instrument.c). */
  uint64_t sync_seq;
  /* The last translation block this vCPU began, published by one inline
   * store per TB when checking (plugin_vcpu_block_word): where a fatal
   * signal found it, and the block a store may overwrite
   * (plugin_selfstore.c). plugin_vcpu_block_start and _end read it. */
  uint64_t running_block;
  struct plugin_vcpu_reg_write reg;
  struct plugin_vcpu_region region;
  /* Nonzero while the vCPU is inside a syscall (plugin_store.c: it holds
   * no model record there). */
  uint64_t in_syscall;
  /* The TB whose fetch check ran before a migration at its start, and the
   * clock after that migration (plugin_instrument.c, on_tb_due): that
   * entry's own check is then done. */
  const void *checked_tb;
  uint64_t checked_clock;
  /* The words of the running TB judged at a store into it
   * (plugin_selfstore.c): bit I is the word at the running block's start
   * + 4 I, while the
   * vCPU's instruction count is SELFSTORE_INSNS (that execution of the TB). */
  uint64_t selfstore_insns;
  uint64_t selfstore_judged[PLUGIN_SELFSTORE_WORDS / 64];
  /* The log of stale-block repeats of the thread on this vCPU
   * (plugin_instrument.c, "Repeats without the lock"): found here by the
   * block's callback, without a thread-local lookup. */
  void *repeats;
};

/* A field of every vCPU's entry, for QEMU's inline operations and
 * conditions: PLUGIN_VCPU_U64(rig, clock.now). */
#define PLUGIN_VCPU_U64(rig, member)                                                               \
  qemu_plugin_scoreboard_u64_in_struct((rig)->vcpus, struct plugin_vcpu, member)

/*
 * The running block in one word: its start in the low 48 bits (an AArch64
 * user address has at most 48: QEMU's linux-user guest address space, and
 * a branch into user space clears a tag's top byte) and its length in
 * instructions above (a TB holds at most 512). One inline store per TB
 * rather than two (start and end): a translated block's inline operations
 * are most of what the rig adds to QEMU's translation of stored code.
 * A block that does not fit publishes its start with length 0, as if
 * empty: no store is then taken for one into it.
 */
#define PLUGIN_BLOCK_START_BITS 48

static inline uint64_t plugin_vcpu_block_word(uint64_t start, uint64_t insns)
{
  uint64_t mask = (UINT64_C(1) << PLUGIN_BLOCK_START_BITS) - 1;
  if (start & ~mask || insns >> (64 - PLUGIN_BLOCK_START_BITS)) {
    return start & mask;
  }
  return start | insns << PLUGIN_BLOCK_START_BITS;
}

static inline uint64_t plugin_vcpu_block_start(uint64_t word)
{
  return word & ((UINT64_C(1) << PLUGIN_BLOCK_START_BITS) - 1);
}

static inline uint64_t plugin_vcpu_block_end(uint64_t word)
{
  return plugin_vcpu_block_start(word) + 4 * (word >> PLUGIN_BLOCK_START_BITS);
}

static inline struct plugin_vcpu *plugin_vcpu(const struct plugin_rig *rig, unsigned vcpu)
{
  return qemu_plugin_scoreboard_find(rig->vcpus, vcpu);
}

/* The migration clock reaches this value when a migration is due. */
#define PLUGIN_MIGRATE_DUE (UINT64_C(1) << 62)
/* One instruction on the migration clock: the fetch checks a TB adds stay
 * below it as long as the plugin sets the clock at least every
 * PLUGIN_CLOCK_CHUNK instructions (plugin_sched.c), since a TB has at most 512
 * instructions (QEMU's TCG_MAX_INSNS) and checks at most all of them. */
#define PLUGIN_CLOCK_INSN_SHIFT 24
#define PLUGIN_CLOCK_CHUNK (UINT64_C(1) << 23)

/* What a TB of N instructions, CHECKED of them fetch-checked, adds to the
 * clock. */
static inline uint64_t plugin_clock_tick(uint64_t n, uint64_t checked)
{
  return n << PLUGIN_CLOCK_INSN_SHIFT | checked;
}

/*
 * Sets V's migration clock to CLOCK, on V's own vCPU (only it adds to the
 * clock) or before the vCPU runs, folding what the clock counted into the
 * bases. Other threads read the fields (hotplug, measured regions,
 * migrations of another thread), so the rewrite is a sequence lock's write
 * side: a reader never mixes old and new values.
 */
static inline void plugin_vcpu_set_clock(struct plugin_vcpu *v, uint64_t clock)
{
  struct plugin_vcpu_clock *c = &v->clock;
  uint64_t seq = __atomic_load_n(&c->seq, __ATOMIC_RELAXED);
  __atomic_store_n(&c->seq, seq + 1, __ATOMIC_RELAXED);
  __atomic_thread_fence(__ATOMIC_RELEASE);
  uint64_t counted = c->now - c->origin;
  uint64_t one_insn = UINT64_C(1) << PLUGIN_CLOCK_INSN_SHIFT;
  __atomic_store_n(&c->insns_base, c->insns_base + (counted >> PLUGIN_CLOCK_INSN_SHIFT),
                   __ATOMIC_RELAXED);
  __atomic_store_n(&c->checks_base, c->checks_base + (counted & (one_insn - 1)), __ATOMIC_RELAXED);
  __atomic_store_n(&c->origin, clock, __ATOMIC_RELAXED);
  __atomic_store_n(&c->now, clock, __ATOMIC_RELAXED);
  __atomic_store_n(&c->seq, seq + 2, __ATOMIC_RELEASE);
}

/* The guest instructions V's vCPU has executed and the fetches the checker
 * examined there, from any thread. */
struct plugin_clock_counts {
  uint64_t insns, fetch_checks;
};

static inline struct plugin_clock_counts plugin_vcpu_clock_counts(const struct plugin_vcpu *v)
{
  const struct plugin_vcpu_clock *c = &v->clock;
  for (;;) {
    uint64_t seq = __atomic_load_n(&c->seq, __ATOMIC_ACQUIRE);
    uint64_t counted =
        __atomic_load_n(&c->now, __ATOMIC_RELAXED) - __atomic_load_n(&c->origin, __ATOMIC_RELAXED);
    struct plugin_clock_counts r = {
        __atomic_load_n(&c->insns_base, __ATOMIC_RELAXED) + (counted >> PLUGIN_CLOCK_INSN_SHIFT),
        __atomic_load_n(&c->checks_base, __ATOMIC_RELAXED) +
            (counted & ((UINT64_C(1) << PLUGIN_CLOCK_INSN_SHIFT) - 1)),
    };
    __atomic_thread_fence(__ATOMIC_ACQUIRE);
    if (!(seq & 1) && __atomic_load_n(&c->seq, __ATOMIC_RELAXED) == seq) {
      return r;
    }
  }
}

/* The vCPU and guest thread (serial) the calling host thread runs: in
 * linux-user each guest thread has its own host thread, so the plugin's
 * exit callback, run by the thread that took a fatal signal, finds it.
 * Noted by the checker's slow paths, which every thread that fetched a
 * stale word ran; false when this host thread never noted one. */
void plugin_vcpu_note_host_thread(unsigned vcpu, unsigned thread);
bool plugin_vcpu_host_thread(unsigned *vcpu, unsigned *thread);

/* plugin_vcpu_clock_counts summed over every vCPU. */
struct plugin_clock_counts plugin_vcpu_clock_totals(const struct plugin_rig *rig);

/* Every counter of rig_counters.def summed over every vCPU, by index. */
void plugin_vcpu_counter_totals(const struct plugin_rig *rig, uint64_t out[RIG_NCOUNTERS]);

/* A table of one pointer per vCPU index (the scheduler's and the turns'
 * threads): QEMU numbers vCPUs densely from 0 and reuses a dead thread's
 * index for the next thread it creates, so a GPtrArray grown on demand
 * serves. plugin_vcpu_slot_take empties the slot, for a thread that ends. */
static inline gpointer plugin_vcpu_slot(const GPtrArray *slots, unsigned vcpu)
{
  return vcpu < slots->len ? g_ptr_array_index(slots, vcpu) : NULL;
}

static inline void plugin_vcpu_slot_set(GPtrArray *slots, unsigned vcpu, gpointer p)
{
  if (slots->len <= vcpu) {
    g_ptr_array_set_size(slots, (gint)vcpu + 1);
  }
  g_ptr_array_index(slots, vcpu) = p;
}

static inline gpointer plugin_vcpu_slot_take(GPtrArray *slots, unsigned vcpu)
{
  gpointer p = plugin_vcpu_slot(slots, vcpu);
  if (p) {
    g_ptr_array_index(slots, vcpu) = NULL;
  }
  return p;
}

#endif /* JITFLUSH_EMU_VCPU_H */
