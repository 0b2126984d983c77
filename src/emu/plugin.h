/*
 * Private interfaces between the files of the jitflush TCG plugin.
 *
 *   plugin.c            install, arguments, exit report
 *   plugin_instrument.c translation-time decisions and execution callbacks
 *   plugin_sched.c      emulated topology, threads, affinity syscalls,
 *                       seeded migration
 *   coherence.c         the I-side/D-side coherence model (QEMU-free)
 *   plugin_findings.c   stale fetches grouped by root cause, maintenance
 *                       sites, CTR_EL0 read sites, the findings report
 *   plugin_alias.c      double-mapped (RW + RX) views of one file
 *   plugin_store.c      guest stores into the model, mostly without jf_lock
 *   plugin_capstone.c   instruction decoding (the only file that knows
 *                       Capstone's v4/v5 vs v6 AArch64 names)
 *   plugin_region.c     measured regions: per-flush counts between the
 *                       bench's marker instructions (docs/BENCHMARKS.md#what-is-measured)
 *
 * Locking: jf_lock (plugin.c) guards every piece of shared state in the
 * scheduler and the model. Guest threads run in parallel host threads in
 * linux-user, so every execution callback that touches shared state takes
 * it; per-vCPU counters live in a QEMU scoreboard instead and need no lock.
 */
#ifndef JITFLUSH_EMU_PLUGIN_H
#define JITFLUSH_EMU_PLUGIN_H

#include <stdbool.h>
#include <stdint.h>

#include <glib.h>
#include <qemu-plugin.h>

#include "coherence.h"
#include "emu_config.h"
#include "store_groups.h"

#define JF_CPU_WORDS (EMU_MAX_CPUS / 64)

/* A set of emulated CPUs (the kernel's cpumask, one bit per CPU). */
struct jf_cpuset {
  uint64_t bits[JF_CPU_WORDS];
};

static inline bool jf_cpuset_has(const struct jf_cpuset *s, unsigned cpu)
{
  return cpu < EMU_MAX_CPUS && (s->bits[cpu / 64] >> (cpu % 64)) & 1;
}
static inline void jf_cpuset_add(struct jf_cpuset *s, unsigned cpu)
{
  s->bits[cpu / 64] |= UINT64_C(1) << (cpu % 64);
}

/* The counters a measured region snapshots (plugin_region.c). */
#define JF_REGION_NCOUNTERS 10

/*
 * Per-vCPU scoreboard entry. The inline operations QEMU emits update it
 * without a callback; the conditional callbacks test it. Never keep a
 * pointer to an entry across callbacks: QEMU reallocates scoreboards when
 * a vCPU with a new index appears.
 */
struct jf_vcpu_score {
  /* The one inline add every TB makes (jf_clock_tick): its instruction
   * count in the high part, the number of its words the fetch check
   * examines in the low part. Counting each in a field of its own cost one
   * more inline add per TB, two on a JIT's code: 0.1 s of a 0.36 s run
   * (docs/BENCHMARKS.md). The clock counts up to JF_MIGRATE_DUE (plugin_sched.c);
   * whenever the plugin sets it (jf_score_set_clock), what it counted since
   * CLOCK_ORIGIN is folded into INSNS_BASE and CHECKS_BASE. */
  uint64_t migrate_clock;
  uint64_t clock_origin;
  uint64_t insns_base;
  uint64_t checks_base;
  uint64_t clock_seq; /* odd while jf_score_set_clock runs */
  /* Instructions to the next migration beyond the clock's current stretch
   * (plugin_sched.c); only this vCPU's thread uses it. */
  uint64_t until_migration;
  uint64_t reg_pending; /* nonzero: write reg_value to x[reg_index] at
                           the next TB start (the mrs ended its TB, or a
                           syscall result must be overridden); the
                           migration clock is parked at JF_MIGRATE_DUE
                           meanwhile, its value kept in clock_parked */
  uint64_t clock_parked;
  uint64_t reg_index;
  uint64_t reg_value;
  uint64_t ctr_reads; /* executed mrs xN, ctr_el0 */
  uint64_t midr_reads;
  uint64_t dc_ops;
  uint64_t ic_ops;
  uint64_t isb;
  uint64_t stale_fetches;
  uint64_t sync_seq; /* the model's sync_seq of the thread on this
                        vCPU (0 none): the fetch fast path compares
                        it inline with each word's fresh_after bound */
  uint64_t migrations;
  uint64_t syscalls;   /* system calls entered */
  uint64_t loop_insns; /* instructions executed inside maintenance loops
                          (plugin_region.c) */
  /* The measured region this vCPU has open (plugin_region.c). */
  uint64_t region_open;
  uint64_t region_tag;
  uint64_t region_start[JF_REGION_NCOUNTERS];
};

/* The migration clock reaches this value when a migration is due. */
#define JF_MIGRATE_DUE (UINT64_C(1) << 62)
/* One instruction on the migration clock: the fetch checks a TB adds stay
 * below it as long as the plugin sets the clock at least every
 * JF_CLOCK_CHUNK instructions (plugin_sched.c), since a TB has at most 512
 * instructions (QEMU's TCG_MAX_INSNS) and checks at most all of them. */
#define JF_CLOCK_INSN_SHIFT 24
#define JF_CLOCK_CHUNK (UINT64_C(1) << 23)

/* What a TB of N instructions, CHECKED of them fetch-checked, adds to the
 * clock. */
static inline uint64_t jf_clock_tick(uint64_t n, uint64_t checked)
{
  return n << JF_CLOCK_INSN_SHIFT | checked;
}

/* A guest thread (one vCPU in linux-user) and the emulated CPU it runs on. */
struct jf_thread {
  struct jf_model_thread mt; /* serial, the emulated CPU it runs on now and
                                its cluster, the model's per-thread state */
  int tid;                   /* guest (= host) thread id, 0 until known */
  bool alive;
  unsigned vcpu;           /* QEMU vCPU index while alive */
  struct jf_cpuset mask;   /* its affinity, always within online and allowed */
  uint64_t rng;            /* seeded per thread: migrations are repeatable */
  uint64_t insns_credited; /* scoreboard insns already credited to a CPU */
  bool adversary_armed;    /* read CTR_EL0 on its largest-line CPU; moves to
                              its smallest-line CPU at the next maintenance
                              (plugin_sched.c, policy=adversarial) */
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
  struct jf_thread *sc_target;
  struct jf_thread *sc_clone_child; /* clone: the record made for the child */
};

/* The options qemu_plugin_install parsed. */
struct jf_options {
  const char *config_path;
  const char *report_path;
  const char *summary_path;
  bool have_seed;
  uint64_t seed;
  bool have_migrate_every;
  uint64_t migrate_every;
  bool check;
  bool check_full; /* check=full: every fetch of a checked word
                      calls the model (the fast path's reference) */
  bool have_policy;
  enum emu_sched_policy policy;
  const char *sarif_path;
  const char *findings_path; /* the stderr blocks, for the runner to print */
  const char *overlay_path;  /* the generated ROOT/sys/devices/system/cpu
                                that hotplug events rewrite; NULL for a
                                --sysfs-root tree, which is never changed */
};

/* ---- plugin.c: shared state ------------------------------------------- */
extern GMutex jf_lock;
extern struct emu_config *jf_config;
extern struct jf_options jf_opts;
extern struct qemu_plugin_scoreboard *jf_score;
extern struct jf_model *jf_model; /* guarded by jf_lock */

/* Writes TEXT to PATH, or says on stderr why it could not. */
void jf_write_file(const char *path, const GString *text);

static inline struct jf_vcpu_score *jf_vcpu_score(unsigned vcpu)
{
  return qemu_plugin_scoreboard_find(jf_score, vcpu);
}

/*
 * Sets S's migration clock to CLOCK, on S's own vCPU (only it adds to the
 * clock) or before the vCPU runs, folding what the clock counted into the
 * bases. Other threads read the fields (hotplug, measured regions,
 * migrations of another thread), so the rewrite is a sequence lock's write
 * side: a reader never mixes old and new values.
 */
static inline void jf_score_set_clock(struct jf_vcpu_score *s, uint64_t clock)
{
  uint64_t seq = __atomic_load_n(&s->clock_seq, __ATOMIC_RELAXED);
  __atomic_store_n(&s->clock_seq, seq + 1, __ATOMIC_RELAXED);
  __atomic_thread_fence(__ATOMIC_RELEASE);
  uint64_t counted = s->migrate_clock - s->clock_origin;
  uint64_t one_insn = UINT64_C(1) << JF_CLOCK_INSN_SHIFT;
  __atomic_store_n(&s->insns_base, s->insns_base + (counted >> JF_CLOCK_INSN_SHIFT),
                   __ATOMIC_RELAXED);
  __atomic_store_n(&s->checks_base, s->checks_base + (counted & (one_insn - 1)), __ATOMIC_RELAXED);
  __atomic_store_n(&s->clock_origin, clock, __ATOMIC_RELAXED);
  __atomic_store_n(&s->migrate_clock, clock, __ATOMIC_RELAXED);
  __atomic_store_n(&s->clock_seq, seq + 2, __ATOMIC_RELEASE);
}

/* The guest instructions S's vCPU has executed and the fetches the checker
 * examined there, from any thread. */
struct jf_clock_counts {
  uint64_t insns, fetch_checks;
};

static inline struct jf_clock_counts jf_score_counts(const struct jf_vcpu_score *s)
{
  for (;;) {
    uint64_t seq = __atomic_load_n(&s->clock_seq, __ATOMIC_ACQUIRE);
    uint64_t counted = __atomic_load_n(&s->migrate_clock, __ATOMIC_RELAXED) -
                       __atomic_load_n(&s->clock_origin, __ATOMIC_RELAXED);
    struct jf_clock_counts c = {
        __atomic_load_n(&s->insns_base, __ATOMIC_RELAXED) + (counted >> JF_CLOCK_INSN_SHIFT),
        __atomic_load_n(&s->checks_base, __ATOMIC_RELAXED) +
            (counted & ((UINT64_C(1) << JF_CLOCK_INSN_SHIFT) - 1)),
    };
    __atomic_thread_fence(__ATOMIC_ACQUIRE);
    if (!(seq & 1) && __atomic_load_n(&s->clock_seq, __ATOMIC_RELAXED) == seq) {
      return c;
    }
  }
}

/* jf_score_counts summed over every vCPU. */
struct jf_clock_counts jf_clock_totals(void);

static inline unsigned jf_cluster_of(unsigned cpu)
{
  return (unsigned)jf_config->cpus[cpu].cluster;
}

/* The CTR_EL0 a guest reads on CPU: its own, or the sanitised system value
 * when the emulated kernel traps EL0 reads (Linux >= 4.9 on mismatched
 * systems, arch/arm64/kernel/cpufeature.c). */
uint64_t jf_visible_ctr(unsigned cpu);

/* ---- plugin_capstone.c -------------------------------------------------- */
enum jf_insn_kind {
  JF_INSN_OTHER,
  JF_INSN_MRS_CTR,  /* mrs xN, ctr_el0 */
  JF_INSN_MRS_MIDR, /* mrs xN, midr_el1 */
  JF_INSN_DC_CLEAN, /* dc cvau|cvac|civac|cvap|cvadp|ivac */
  JF_INSN_DC_ZVA,   /* a store of a zero block to the model */
  JF_INSN_IC_IVAU,
  JF_INSN_IC_IALLU, /* ic iallu / ic ialluis */
  JF_INSN_ISB,
  JF_INSN_DSB,
  JF_INSN_MARK_BEGIN, /* hint #0x7c: a measured region begins after it */
  JF_INSN_MARK_END,   /* hint #0x7d: the open region ends before it */
};

struct jf_decoded {
  enum jf_insn_kind kind;
  unsigned reg;       /* Xt (0..30, 31 = xzr) for mrs/dc/ic */
  bool dsb_completes; /* a DSB that waits for maintenance (not *LD) */
  bool cmodx_safe;    /* B, BL, BRK, HVC, ISB, NOP, SMC, SVC */
};

bool jf_decoder_open(char **error);
void jf_decoder_close(void);
struct jf_decoded jf_decode(uint32_t insn);

/* ---- plugin_sched.c ------------------------------------------------------ */
bool jf_sched_init(char **error);
void jf_sched_free(void);
void jf_sched_vcpu_init(unsigned vcpu);
void jf_sched_vcpu_exit(unsigned vcpu);
/* The thread on VCPU (never NULL while the vCPU runs guest code). */
struct jf_thread *jf_sched_thread(unsigned vcpu);
/* Called from the TB callback once the migration clock is due; S is
 * VCPU's scoreboard entry. */
void jf_sched_migration_due(unsigned vcpu, struct jf_vcpu_score *s);
void jf_sched_syscall(unsigned vcpu, int64_t num, uint64_t a1, uint64_t a2, uint64_t a3);
void jf_sched_syscall_ret(unsigned vcpu, int64_t num, int64_t ret);
/* policy=adversarial: called under jf_lock before T's mrs ctr_el0 result
 * is computed, and before each of its maintenance operations. */
void jf_sched_adversary_ctr_read(struct jf_thread *t);
void jf_sched_adversary_maintenance(struct jf_thread *t);
/* A context synchronisation of T (jf_model_sync), published to the
 * scoreboard that the fetch fast path reads (jf_lock held). */
void jf_sched_sync(struct jf_thread *t);
/* Credits every live thread's executed instructions to its CPU (at exit). */
void jf_sched_credit_all(void);
uint64_t jf_sched_cpu_insns(unsigned cpu);
unsigned jf_sched_nthreads(void);
/* The oldest last synchronisation of a live thread (jf_lock held): a word
 * whose fresh_after bound is below it is fresh for every thread from now
 * on, until it is stored again (jf_model_fresh_after). */
uint64_t jf_sched_settled_before(void);

/* ---- plugin_findings.c (jf_lock held unless said) ------------------------ */
void jf_findings_init(void);
void jf_findings_free(void);
/* The model's site number for maintenance at PC called from CALLER (x30). */
uint32_t jf_findings_site(uint64_t pc, uint64_t caller);
/* A stale fetch at VA by T: counted into its finding, kept in the first
 * 100 of the report's "stale" list. */
void jf_findings_record(uint64_t va, const struct jf_thread *t, const struct jf_verdict *v);
/* An executed mrs xN, ctr_el0 at PC on CPU that returned VALUE. */
void jf_findings_ctr_read(uint64_t pc, unsigned cpu, uint64_t value);
unsigned jf_findings_count(void);
/* At exit, without jf_lock: appends the report's "stale", "findings" and
 * "ctr_read_sites" members (with their leading ",\n  "), writes the
 * sanitizer-style text to TEXT_PATH and SARIF to SARIF_PATH when set. */
void jf_findings_report(GString *json, const char *text_path, const char *sarif_path);

/* ---- plugin_hotplug.c ------------------------------------------------------ */
bool jf_hotplug_init(char **error);
void jf_hotplug_free(void);
bool jf_hotplug_online(unsigned cpu);
/* Applies the [hotplug] events that are due. Called WITHOUT jf_lock, from
 * the scheduler's migration and syscall callbacks of VCPU. */
void jf_hotplug_poll(unsigned vcpu);

/* ---- plugin_sched.c: hotplug ------------------------------------------------ */
/* The online CPUs changed (jf_lock held): the process's CPUs become
 * [process] allowed within ONLINE, each thread's mask what it asked for
 * within those, and threads on a CPU that went offline move off it
 * (counted on VCPU's scoreboard). */
void jf_sched_set_online(const struct jf_cpuset *online, unsigned vcpu);

/* ---- plugin_alias.c ------------------------------------------------------- */
void jf_alias_init(void);
void jf_alias_free(void);
/* The address the model keys VA by (jf_lock held). */
uint64_t jf_alias_canon(uint64_t va);
/* VA lies in a non-executable mapping of file pages that an executable
 * mapping also shows: the RW view of double-mapped code (jf_lock held). */
bool jf_alias_nonexec_view(uint64_t va);
void jf_alias_syscall(int64_t num, const uint64_t args[6]);
void jf_alias_syscall_ret(int64_t num, int64_t ret);

/* ---- plugin_store.c ------------------------------------------------------- */
/* The memory callback of every storing instruction (QEMU_PLUGIN_MEM_W,
 * udata = the instruction's address). */
void jf_store_on_store(unsigned vcpu, qemu_plugin_meminfo_t info, uint64_t vaddr, void *udata);
/* The memory callback of a group's leader (store_groups.h); udata is
 * jf_store_group_record(G, INSN_PC), INSN_PC the block's instruction
 * addresses. */
void jf_store_on_group(unsigned vcpu, qemu_plugin_meminfo_t info, uint64_t vaddr, void *udata);
void *jf_store_group_record(const struct jf_store_group *g, const uint64_t *insn_pc);
/* The memory callback of a store, or a group's leader, that writes BYTES
 * from the address of the access QEMU reports; udata is
 * jf_store_span_udata(WRITER_PC, BYTES), which is NULL when the two do not
 * fit in a pointer (then use a group record). */
void jf_store_on_span(unsigned vcpu, qemu_plugin_meminfo_t info, uint64_t vaddr, void *udata);
void *jf_store_span_udata(uint64_t writer_pc, uint32_t bytes);
/* After jf_model is created. */
void jf_store_init(void);
/* The thread on VCPU now runs on a CPU of CLUSTER / VCPU runs no thread
 * (jf_lock held): the cluster its stores are recorded from. */
void jf_store_thread_placed(unsigned vcpu, unsigned cluster);
void jf_store_thread_gone(unsigned vcpu);
/* jf_alias_canon may give other answers now (jf_lock held): every vCPU's
 * cached page records are dropped. */
void jf_store_forget_pages(void);
void jf_store_free(void);

/* ---- plugin_instrument.c ------------------------------------------------- */
void jf_instrument_tb(qemu_plugin_id_t id, struct qemu_plugin_tb *tb);
void jf_instrument_vcpu_init(unsigned vcpu);
void jf_instrument_free(void);
/* Keeps BLOCK (g_malloc'd userdata given to QEMU) until jf_instrument_free
 * at exit, and returns it. */
void *jf_keep_until_exit(void *block);
/* Registers the override of x[reg] := value at VCPU's next TB start. */
void jf_instrument_defer_reg_write(unsigned vcpu, unsigned reg, uint64_t value);
/* X[reg] of the calling vCPU (from a callback registered with R_REGS). */
uint64_t jf_instrument_read_xreg(unsigned reg);

/* ---- plugin_region.c ------------------------------------------------------ */
void jf_region_init(void);
void jf_region_free(void);
/* At translation: WORDS/KINDS are the TB's N instructions. Counts the
 * instructions of maintenance loops and arms the marker callbacks. */
void jf_region_instrument_tb(struct qemu_plugin_tb *tb, const uint32_t *words,
                             const enum jf_insn_kind *kinds, size_t n);
/* Appends the "regions" array of the JSON report. */
void jf_region_report(GString *json);

#endif /* JITFLUSH_EMU_PLUGIN_H */
