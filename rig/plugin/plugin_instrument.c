/*
 * Translation-time instrumentation: every decision is taken once per
 * translated instruction, and what the execution callbacks need is copied
 * out of the qemu_plugin_insn (which QEMU reuses) into a small struct of
 * our own. The execution callbacks then do constant work, or amortised
 * constant work for the model's DSB.
 *
 * Per TB that can observe the SoC (block_observes below; a quiet TB gets
 * no callback and no clock, at most the inline stores a crash report and a
 * store into the running TB need):
 *   - one inline add: the migration clock, which also counts the TB's
 *     instructions and fetch checks (plugin_clock_tick, plugin_vcpu.h);
 *   - one conditional callback (on_tb_due) when the clock is due: for a
 *     migration, the end of the thread's turn (plugin_turns.c), or a
 *     register write armed when the previous TB ended with an mrs (or a
 *     syscall result must be overridden), which lands before the TB's
 *     first instruction runs;
 *   - the fetch check of a plain TB (plan_fetch, register_fetch_checks);
 *     a stale block's repeats are counted without the lock ("Repeats
 *     without the lock").
 * Per instruction:
 *   - the fetch check, when the page was ever stored to;
 *   - the store callback (plugin_store.c; QEMU calls it only for
 *     instructions that store);
 *   - mrs ctr_el0 / midr_el1: the result is replaced from a callback on the
 *     NEXT instruction registered with QEMU_PLUGIN_CB_RW_REGS, the only
 *     point where the register holds the value QEMU computed;
 *   - dc / ic / isb / dsb: counters inline, model callbacks that read Xt.
 */
#include <limits.h>
#include <string.h>

#include "plugin_keep.h"
#include "model_kernel_sync.h"
#include "plugin_alias.h"
#include "plugin_decode.h"
#include "report_findings.h"
#include "plugin_findings.h"
#include "plugin_hotplug.h"
#include "plugin_checkpoint.h"
#include "plugin_instrument.h"
#include "plugin_selfcheck.h"
#include "plugin_selfstore.h"
#include "plugin_region.h"
#include "plugin_regs.h"
#include "plugin_sched.h"
#include "plugin_signal.h"
#include "plugin_store.h"
#include "plugin_turns.h"
#include "model_store_groups.h"
#include "plugin_vcpu.h"

/*
 * The rig the callbacks serve. QEMU hands a callback userdata of the
 * plugin's choosing, but the span store callback packs its writer and size
 * there, and the translation callback takes none: so the glue keeps the
 * one pointer, set by plugin.c at install, and passes it to every unit.
 */
static struct plugin_rig *rig;

static void fold_own(struct plugin_rig *r);
static void fork_child(void);
static void disarm_others(struct plugin_rig *r);
static void armed_slots_free(void);

void plugin_instrument_attach(struct plugin_rig *r)
{
  rig = r;
  if (r) {
    r->fold_repeats = fold_own;
    r->fork_child_repeats = fork_child;
    r->disarm_repeats = disarm_others;
  } else {
    armed_slots_free();
  }
}

/*
 * The last verdict of a checked word, kept so that a JIT running stale
 * code does not pay a full check on every fetch of it: a verdict depends
 * only on the model's fetch stamp of the word (model_fetch_stamp,
 * model_coherence.h), the fetching thread, and those of its cluster, sync_seq
 * and fetched_store_seq that the verdict read (model_verdict_reads: a
 * word never cleaned is stale whatever the thread did since, so its memo
 * outlives the thread's migrations). While these are as they were, the
 * verdict is the same and the fetch changes nothing in the model; a stale
 * one is recorded with report_findings_repeat, which does what
 * report_findings_record did without its lookups. check=full, the reference,
 * never uses it. A verdict also depends on the view the word is fetched
 * through (a VIPT I-cache tells the executable views of double-mapped code
 * apart, docs/COHERENCE-MODEL.md#double-mapped-code-and-vipt-instruction-caches);
 * the memo is kept per fetch record, that is
 * per fetching address, whose view is fixed while QEMU keeps the
 * translation (a mapping that changes it unmaps or re-protects the page,
 * and QEMU drops the translation).
 */
struct fetch_memo {
  struct model_stamp stamp;
  uint64_t sync_seq;
  uint64_t fetched_store_seq;
  unsigned thread; /* serial + 1; 0 = no memo */
  unsigned cluster;
  unsigned reads; /* MODEL_READS_* */
  bool stale;
  bool benign; /* stale, but it can only see the word it runs */
  struct report_stale_repeat repeat;
};

/* A plain TB's fetch records: for the TB-level slow path, and (also with
 * check=full) for the check before a migration at its start. */
struct tb_record {
  uint64_t fresh_after; /* the largest F of its words (UINT64_MAX: unknown) */
  /* Its gate and count ("Armed repeats", below), for a TB whose words may
   * never be fresh; SCORE NULL otherwise. */
  struct qemu_plugin_scoreboard *armed_score;
  size_t armed_offset;
  size_t n;
  struct insn_record *words[];
};

struct insn_record {
  uint64_t vaddr;
  struct model_word *word; /* model record for the fetch check, or NULL */
  /* Its plain TB's record, when a migration at the TB's start may judge
   * the word first (check_before_migration), else NULL. */
  const struct tb_record *tb;
  uint64_t view; /* model_view of VADDR, for the fetch check */
  uint8_t reg;   /* Xt */
  uint8_t reg2;  /* Xn, the size of a MOPS store */
  bool cmodx_safe;
  /* A dc whose address comes from a load before it in its block, or is
   * the address a load there read (plugin_decode_after_load). */
  bool after_load;
  enum plugin_insn_kind kind;
  struct fetch_memo memo; /* of the fetch check (the lock held) */
  /* A dc cvau's or ic ivau's: where the return address into the flush
   * routine's caller is (plugin_findings_return_rule), decided here once. */
  struct report_return_rule ret;
};

/* Whether the words of TR were judged at this entry of their TB already,
 * before a migration at its start (on_tb_due). */
static bool checked_before_migration(const struct plugin_vcpu *v, const struct tb_record *tr)
{
  return tr && v->checked_tb == tr && v->checked_clock == v->clock.now;
}

static struct insn_record *record_new(uint64_t vaddr)
{
  struct insn_record *r = plugin_keep_until_exit(rig->keep, g_new0(struct insn_record, 1));
  r->vaddr = vaddr;
  return r;
}

/* The value of the ID register an mrs at R reads on VCPU's emulated CPU.
 * For CTR_EL0 the adversarial scheduler may first move the thread, and the
 * read is recorded as a CTR_EL0 read site. */
static uint64_t id_register_value(unsigned vcpu, const struct insn_record *r)
{
  const struct rig_config *cfg = rig->config;
  plugin_rig_lock(rig);
  struct plugin_thread *t = plugin_sched_thread(rig->sched, vcpu);
  uint64_t value;
  if (r->kind == PLUGIN_INSN_MRS_CTR) {
    if (t) {
      plugin_sched_adversary_ctr_read(rig, t);
    }
    unsigned cpu = t ? t->mt.cpu : 0;
    value = rig_config_visible_ctr(cfg, cpu);
    report_findings_ctr_read(rig->findings, r->vaddr, cpu, value);
    model_ctr_read(rig->model, value);
  } else {
    value = cfg->clusters[rig_config_cluster_of(cfg, t ? t->mt.cpu : 0)].midr;
  }
  plugin_rig_unlock(rig);
  return value;
}

/* ---- execution callbacks ------------------------------------------------- */

static void check_before_migration(unsigned vcpu, const struct tb_record *tr);
static void armed_entry_judged(unsigned vcpu, const struct tb_record *tr);

/*
 * At a TB start whose migration clock reached PLUGIN_MIGRATE_DUE: a register
 * write is pending (the previous TB ended with an mrs, or a syscall result
 * must be overridden), a migration is due, or both. One conditional
 * callback per TB serves both, so a TB with nothing to do pays one inline
 * comparison.
 */
static void on_tb_due(unsigned vcpu, void *udata)
{
  struct plugin_vcpu *v = plugin_vcpu(rig, vcpu);
  plugin_regs_apply_pending(rig->regs, v);
  if (v->clock.now < PLUGIN_MIGRATE_DUE || plugin_sched_stretch_ended(v)) {
    return;
  }
  bool judged = false;
  if (v->clock.until_migration == 0) {
    /* A migration point: hotplug events land here too. The TB's fetch
     * check comes first (UDATA: its TB-level record, or NULL). */
    check_before_migration(vcpu, udata);
    judged = udata != NULL;
    plugin_hotplug_poll(rig, vcpu);
    plugin_sched_migrate(rig, vcpu, v);
  }
  if (v->clock.until_handover == 0) {
    /* The thread's repeats go in before another thread's guest code runs. */
    plugin_instrument_fold_own();
    plugin_turns_quantum_ended(rig, vcpu);
  }
  if (judged) {
    /* Noted once the clock is final for this entry: the end of the turn
     * that may follow the migration sets it again, and the TB's own check
     * must still see that it ran (it counted every word twice). The entry
     * is looked up again: another vCPU may have grown the scoreboard while
     * the turn was away. */
    v = plugin_vcpu(rig, vcpu);
    v->checked_tb = udata;
    v->checked_clock = v->clock.now;
    armed_entry_judged(vcpu, udata);
  }
}

/* On the instruction after the mrs: its result is in Xt now. */
static void on_after_id_read(unsigned vcpu, void *udata)
{
  const struct insn_record *r = udata;
  plugin_regs_write_x(rig->regs, r->reg, id_register_value(vcpu, r));
}

/* On an mrs that ends its TB: the next TB's first instruction writes. */
static void on_id_read_at_tb_end(unsigned vcpu, void *udata)
{
  const struct insn_record *r = udata;
  plugin_regs_defer_write(rig, vcpu, r->reg, id_register_value(vcpu, r));
}

/* Whether R's memo holds the verdict T would get now. */
static bool memo_holds(const struct fetch_memo *mm, const struct plugin_thread *t,
                       const struct insn_record *r)
{
  struct model_stamp now = model_fetch_stamp(rig->model, r->word);
  if (mm->thread != t->mt.serial + 1 || mm->stamp.shared != now.shared ||
      mm->stamp.word != now.word) {
    return false;
  }
  if ((mm->reads & MODEL_READS_CLUSTER) && mm->cluster != t->mt.cluster) {
    return false;
  }
  if (mm->reads & MODEL_READS_SYNC) {
    return mm->sync_seq == t->mt.sync_seq && mm->fetched_store_seq == t->mt.fetched_store_seq;
  }
  /* The fetch would not raise fetched_store_seq: it did at the memo's
   * fetch, and the word was not stored since. */
  return t->mt.fetched_store_seq >= mm->fetched_store_seq;
}

/* What a fetch was: fresh, stale, or stale but able to see only the word it
 * runs (model_coherence.h, model_stale_benign: code rewritten with the same
 * bytes), which is counted apart and never a finding. */
enum fetch_outcome { FETCH_FRESH, FETCH_STALE, FETCH_BENIGN };

/* Counts OUTCOME in VCPU's counters (the lock not held). */
static void count_outcome(unsigned vcpu, enum fetch_outcome outcome, uint64_t n)
{
  if (outcome == FETCH_STALE) {
    plugin_vcpu(rig, vcpu)->counts.stale_fetches += n;
  } else if (outcome == FETCH_BENIGN) {
    plugin_vcpu(rig, vcpu)->counts.benign_stale_fetches += n;
  }
}

/* Set by check_fetch when it asked the model (the lock held): the check
 * may have changed what other verdicts read (repeats without the lock,
 * below). */
static _Thread_local bool model_judged;

/* One fetch of R's word by T (the lock held). */
static enum fetch_outcome check_fetch(struct plugin_thread *t, struct insn_record *r)
{
  struct fetch_memo *mm = &r->memo;
  if (!rig->opts.check_full && memo_holds(mm, t, r)) {
    if (!mm->stale) {
      return FETCH_FRESH;
    }
    if (mm->benign) {
      report_findings_benign(rig->findings, r->vaddr);
      return FETCH_BENIGN;
    }
    if (report_findings_repeat(rig->findings, &mm->repeat, r->vaddr, t->mt.cpu, t->mt.serial)) {
      return FETCH_STALE;
    }
  }
  model_judged = true;
  struct model_verdict v = model_fetch(rig->model, &t->mt, r->word, r->view, r->cmodx_safe);
  bool reads_sync = false;
  /* Through another view of double-mapped code a VIPT cluster may hold an
   * older version the model's bound does not cover: never benign. */
  bool benign = v.kind != MODEL_FRESH && r->view == MODEL_OWN_VIEW &&
                model_fetch_benign(rig->model, &t->mt, r->word, &reads_sync);
  *mm = (struct fetch_memo){
      .stamp = model_fetch_stamp(rig->model, r->word),
      .sync_seq = t->mt.sync_seq,
      .fetched_store_seq = t->mt.fetched_store_seq,
      .thread = t->mt.serial + 1,
      .cluster = t->mt.cluster,
      .reads = model_verdict_reads(rig->model, v.kind) | (reads_sync ? MODEL_READS_SYNC : 0),
      .stale = v.kind != MODEL_FRESH,
      .benign = benign,
  };
  if (v.kind == MODEL_FRESH) {
    return FETCH_FRESH;
  }
  if (benign) {
    report_findings_benign(rig->findings, r->vaddr);
    return FETCH_BENIGN;
  }
  unsigned known = report_findings_recorded(rig->findings);
  report_findings_record_memo(rig->findings, r->vaddr, t->mt.cpu, t->mt.serial, &v, &mm->repeat);
  if (report_findings_recorded(rig->findings) != known) {
    /* A new finding: kept before the guest's next system call. */
    plugin_checkpoint_wake(rig->checkpoint);
  }
  return FETCH_STALE;
}

/* The slow path of the per-word fetch check (every fetch, with
 * check=full): the word may be stale for this thread. */
static void on_fetch(unsigned vcpu, void *udata)
{
  struct insn_record *r = udata;
  const struct plugin_vcpu *v = plugin_vcpu(rig, vcpu);
  if (checked_before_migration(v, r->tb) || plugin_selfstore_judged(v, r->vaddr)) {
    return;
  }
  plugin_rig_lock(rig);
  struct plugin_thread *t = plugin_sched_thread(rig->sched, vcpu);
  enum fetch_outcome outcome = t ? check_fetch(t, r) : FETCH_FRESH;
  if (outcome == FETCH_STALE) {
    plugin_vcpu_note_host_thread(vcpu, t->mt.serial);
  }
  plugin_rig_unlock(rig);
  count_outcome(vcpu, outcome, 1);
}

/* TR's words in order, as on_fetch would judge them one by one (nothing
 * in a plain TB changes a verdict), when the thread on VCPU was not
 * synchronised after the largest F of them; the outcomes counted in N (the
 * lock held). */
static void judge_tb(unsigned vcpu, const struct tb_record *tr, uint64_t n[3])
{
  struct plugin_thread *t = plugin_sched_thread(rig->sched, vcpu);
  if (t && t->mt.sync_seq > tr->fresh_after) {
    t = NULL; /* what the TB's conditional callback compares */
  }
  for (size_t i = 0; t && i < tr->n; i++) {
    n[check_fetch(t, tr->words[i])]++;
  }
  if (n[FETCH_STALE]) {
    plugin_vcpu_note_host_thread(vcpu, t->mt.serial);
  }
}

/*
 * Repeats without the lock. A JIT that runs stale code runs the same stale
 * block again and again, and each entry took the rig's lock to judge its
 * words from their memos. A check that judged every word of a plain TB from
 * its memo (no model call) changed nothing any verdict reads: the model,
 * the thread and the findings' settling change only under the lock, and
 * every plugin_rig_unlock bumps rig->epoch, except the unlock of such a
 * check. So while the epoch is the one such a check saw, the TB's next
 * entry on the same thread gets the same verdicts: the entry counts its
 * stale and benign words in the vCPU's counters at once (where measured
 * regions and the summary read them) and is appended to the thread's log
 * of repeats. The log is folded in (each entry judged again, in order, as
 * the locked path would have: from the memos, so the findings get exactly
 * the same records) as soon as the thread takes the lock for anything
 * else (plugin_rig_lock), when the log is full, at each of its system calls
 * and before it hands its turn over, and for every thread at exit. So the findings see the thread's
 * repeats before any later event of its own, and, under the deterministic
 * schedule, before any other thread's guest code runs. check=full never
 * repeats from memos, so never takes this path.
 */
#define REPEAT_RUNS 32
#define REPEAT_MEMOS 16

struct repeat_memo {
  const struct tb_record *tr; /* NULL: empty */
  uint64_t epoch;
  uint64_t stale, benign; /* outcomes of one entry */
};

struct repeat_log {
  unsigned vcpu;
  unsigned n; /* runs[0..n) wait to be folded in */
  struct {
    const struct tb_record *tr;
    uint64_t times;
  } run[REPEAT_RUNS];
  struct repeat_memo memo[REPEAT_MEMOS];
  /* The TB armed on this vCPU, NULL none ("Armed repeats"); only the
   * log's own thread sets it. Its entries since the last flush wait in
   * its count; ARMED_STALE and ARMED_BENIGN are one entry's outcomes. */
  const struct tb_record *armed;
  uint64_t armed_stale, armed_benign;
  /* ARMED's gate is open (1): guarded by the rig's lock, since another
   * thread's change closes it (disarm_others). */
  bool gate_open;
  /* The TB of the last check on this vCPU (on_tb_fetch; its own thread):
   * a TB is armed only when two checks in a row are its own, a loop that
   * stays in it. JITs whose stale code runs through many blocks would pay
   * the arming and its closing again at nearly every check: on HotSpot's
   * row that cost a fifth more CPU time than it saved. */
  const struct tb_record *last_check;
};

/* The calling thread's log; every thread's is in rig->repeat_logs (for
 * the exit). Kept until exit, like the TB records they point to. */
static _Thread_local struct repeat_log *repeat_log;

static struct repeat_memo *repeat_memo_for(struct repeat_log *log, const struct tb_record *tr)
{
  return &log->memo[((uintptr_t)tr >> 4) % REPEAT_MEMOS];
}

/* Whether TR's next entry on T would be judged from its memos with the
 * outcomes they hold, recording what report_findings_repeat_n records
 * (the lock held). */
static bool memos_decide(const struct plugin_thread *t, const struct tb_record *tr)
{
  for (size_t i = 0; i < tr->n; i++) {
    const struct fetch_memo *mm = &tr->words[i]->memo;
    if (!memo_holds(mm, t, tr->words[i]) ||
        (mm->stale && !mm->benign && !report_findings_repeat_applies(rig->findings, &mm->repeat))) {
      return false;
    }
  }
  return true;
}

/* TIMES entries of TR on VCPU recorded at once, as judge_tb would record
 * them one after the other, when every word's memo holds and the report
 * keeps no more single fetches (whose order would differ); false, recording
 * nothing, otherwise (the lock held). */
static bool fold_run_at_once(unsigned vcpu, const struct tb_record *tr, uint64_t times)
{
  struct plugin_thread *t = plugin_sched_thread(rig->sched, vcpu);
  if (!t || t->mt.sync_seq > tr->fresh_after) {
    return true; /* judge_tb records nothing */
  }
  if (report_findings_keeps_more(rig->findings)) {
    return false;
  }
  if (!memos_decide(t, tr)) {
    return false;
  }
  for (size_t i = 0; i < tr->n; i++) {
    const struct insn_record *r = tr->words[i];
    if (!r->memo.stale) {
      continue;
    }
    if (r->memo.benign) {
      report_findings_benign_n(rig->findings, r->vaddr, times);
    } else {
      report_findings_repeat_n(rig->findings, &r->memo.repeat, r->vaddr, t->mt.cpu, t->mt.serial,
                               times);
    }
  }
  return true;
}

/* TIMES entries of TR on VCPU, judged and recorded in order (the lock
 * held). */
static void fold_run(unsigned vcpu, const struct tb_record *tr, uint64_t times)
{
  if (times > 1 && fold_run_at_once(vcpu, tr, times)) {
    return;
  }
  for (uint64_t k = 0; k < times; k++) {
    uint64_t counts[3] = {0};
    judge_tb(vcpu, tr, counts);
  }
}

/*
 * Armed repeats. A TB whose words may never be fresh (fresh_after
 * UINT64_MAX: the JIT never completed their maintenance) and that branches
 * back to its own start (a loop a JIT runs without flushing it) is entered
 * stale again and again, and each entry still cost a callback, even the
 * ones counted without the lock: on a 3-instruction stale loop that
 * callback was three quarters of the rig's time. Such a TB gets a slot of
 * its own in a scoreboard, a gate and a count per vCPU: QEMU calls its
 * check only while the gate is 0, and an inline add counts every entry.
 * When two checks in a row on a vCPU were the TB's and the second judged
 * its entry from memos alone under the lock (remember_repeat), the TB is
 * armed there: the gate opens (1), the count starts from 0, and the
 * entries that follow run with no callback. The count stands for the runs
 * the callback would have appended to the thread's log, and goes into the
 * log (flush_armed, fold_log) before anything that comes after those
 * entries could read it: the check of another TB on the vCPU, any lock
 * the thread takes, a measured region's marker, a system call, the end of
 * the turn, the thread's exit. At most one TB is armed per vCPU, so the log
 * keeps the entries' order, and the findings get the same records in the
 * same order as before. A holder of the lock that may have changed what
 * memos read bumps the epoch, and first closes the open gates
 * (disarm_others): the next entry takes the callback and is judged as
 * before. check=full never arms
 * (docs/COHERENCE-MODEL.md#how-the-rig-applies-the-verdict-cheaply).
 */
/* The longest TB armed. QEMU translates a TB whose host code outgrows
 * 64 KiB again with half its instructions (tb_gen_code), which moves the
 * TB starts where migrations and hand-overs land, and with them a seed's
 * report: two inline operations more could tip a long TB over. One of at
 * most 64 instructions stays far below (a stale loop is short). */
#define ARMED_MAX_INSNS 64

struct armed_slot {
  uint64_t gate; /* 1: armed, no callback */
  uint64_t count;
};

#define ARMED_CHUNK_SLOTS 512

struct armed_chunk {
  struct armed_slot slot[ARMED_CHUNK_SLOTS];
};

static struct {
  GMutex lock;
  GPtrArray *chunks; /* struct qemu_plugin_scoreboard * of struct armed_chunk */
  unsigned used;     /* slots handed out of the last chunk */
} armed_slots;

/* A new slot for TR (translation time): kept until exit, like TR. */
static void armed_slot_new(struct tb_record *tr)
{
  g_mutex_lock(&armed_slots.lock);
  if (!armed_slots.chunks) {
    armed_slots.chunks = g_ptr_array_new();
  }
  if (armed_slots.chunks->len == 0 || armed_slots.used == ARMED_CHUNK_SLOTS) {
    g_ptr_array_add(armed_slots.chunks, qemu_plugin_scoreboard_new(sizeof(struct armed_chunk)));
    armed_slots.used = 0;
  }
  tr->armed_score = g_ptr_array_index(armed_slots.chunks, armed_slots.chunks->len - 1);
  tr->armed_offset =
      offsetof(struct armed_chunk, slot) + armed_slots.used * sizeof(struct armed_slot);
  armed_slots.used++;
  g_mutex_unlock(&armed_slots.lock);
}

/* The scoreboards are QEMU's and freed with the plugin; the array is ours. */
static void armed_slots_free(void)
{
  g_clear_pointer(&armed_slots.chunks, g_ptr_array_unref);
}

static struct armed_slot *armed_slot(const struct tb_record *tr, unsigned vcpu)
{
  return (struct armed_slot *)((char *)qemu_plugin_scoreboard_find(tr->armed_score, vcpu) -
                               offsetof(struct armed_chunk, slot) + tr->armed_offset);
}

static void close_gate(struct repeat_log *log)
{
  if (log->gate_open) {
    __atomic_store_n(&armed_slot(log->armed, log->vcpu)->gate, 0, __ATOMIC_RELAXED);
    log->gate_open = false;
    rig->gates_open--;
  }
}

/* rig->disarm_repeats (the lock held; the epoch is about to grow: the
 * holder may have changed what memos read). The holder's own armed TB,
 * while its thread's last check was that TB's (it still loops there), stays
 * armed if its memos still decide its entries: a migration changes the
 * thread's core, which the memo of a word never cleaned does not read, so a
 * stale loop stays armed across it. Every other open gate closes: reading
 * its memos again at every other thread's event cost more than the
 * callbacks it spared (5.6 million times on HotSpot's row). The armed TB's
 * entries so far stay in its count for its own thread to flush. */
static void disarm_others(struct plugin_rig *r)
{
  for (guint i = 0; r->gates_open && i < r->repeat_logs->len; i++) {
    struct repeat_log *log = g_ptr_array_index(r->repeat_logs, i);
    if (!log->gate_open) {
      continue;
    }
    const struct plugin_thread *t = plugin_sched_thread(r->sched, log->vcpu);
    if (log != repeat_log || log->last_check != log->armed || !t ||
        t->mt.sync_seq > log->armed->fresh_after || !memos_decide(t, log->armed)) {
      close_gate(log);
    }
  }
}

/* TR's entry on VCPU was judged before a migration at its start
 * (on_tb_due): when TR is armed there with its gate open, no check will
 * take that entry off the count that its inline add is about to make. */
static void armed_entry_judged(unsigned vcpu, const struct tb_record *tr)
{
  if (tr->armed_score && __atomic_load_n(&armed_slot(tr, vcpu)->gate, __ATOMIC_RELAXED)) {
    armed_slot(tr, vcpu)->count--;
  }
}

/* The entries of LOG's armed TB since the last flush, taken from its
 * count. The check of a TB with a slot takes its own entry off first
 * (on_tb_fetch), so the count holds only entries no check saw. */
static uint64_t armed_pending(struct repeat_log *log)
{
  struct armed_slot *slot = armed_slot(log->armed, log->vcpu);
  uint64_t times = slot->count;
  slot->count = 0;
  return times;
}

static void count_armed(struct repeat_log *log, uint64_t times)
{
  struct plugin_vcpu *v = plugin_vcpu(rig, log->vcpu);
  v->counts.stale_fetches += log->armed_stale * times;
  v->counts.benign_stale_fetches += log->armed_benign * times;
}

/* Without the lock, on LOG's own thread: the armed TB's entries as the
 * log's last run, counted as repeat_without_lock counts them. The TB stays
 * armed unless another thread closed its gate. False, leaving everything,
 * when the log is full. */
static bool flush_armed(struct repeat_log *log)
{
  uint64_t times = armed_slot(log->armed, log->vcpu)->count;
  if (times && !(log->n && log->run[log->n - 1].tr == log->armed) && log->n == REPEAT_RUNS) {
    return false;
  }
  times = armed_pending(log);
  if (times) {
    if (log->n && log->run[log->n - 1].tr == log->armed) {
      log->run[log->n - 1].times += times;
    } else {
      log->run[log->n].tr = log->armed;
      log->run[log->n].times = times;
      log->n++;
    }
    count_armed(log, times);
  }
  if (!__atomic_load_n(&armed_slot(log->armed, log->vcpu)->gate, __ATOMIC_RELAXED)) {
    log->armed = NULL; /* closed by disarm_others */
  }
  return true;
}

/* LOG's entries, judged and recorded in order, then its armed TB's (the
 * lock held). DISARM: the thread is gone (its exit, or the end of the run). */
static void fold_log(struct repeat_log *log, bool disarm)
{
  unsigned n = log->n;
  log->n = 0;
  for (unsigned i = 0; i < n; i++) {
    fold_run(log->vcpu, log->run[i].tr, log->run[i].times);
  }
  if (log->armed) {
    uint64_t times = armed_pending(log);
    count_armed(log, times);
    fold_run(log->vcpu, log->armed, times);
    if (disarm) {
      close_gate(log);
      log->armed = NULL;
    }
  }
}

/* Arms TR on VCPU after a check judged its entry from memos alone, with
 * N its outcomes (the lock held, the thread's own log just folded): in
 * place of the TB armed before, if any. */
static void arm(unsigned vcpu, const struct tb_record *tr, const uint64_t n[3])
{
  struct repeat_log *log = repeat_log;
  if (!tr->armed_score || !log || log->vcpu != vcpu) {
    return;
  }
  if (log->armed) {
    close_gate(log);
  }
  log->armed = tr;
  log->armed_stale = n[FETCH_STALE];
  log->armed_benign = n[FETCH_BENIGN];
  struct armed_slot *slot = armed_slot(tr, vcpu);
  slot->count = 0;
  __atomic_store_n(&slot->gate, 1, __ATOMIC_RELAXED);
  log->gate_open = true;
  rig->gates_open++;
}

/* rig->fold_repeats: the calling thread's entries (the lock held). */
static void fold_own(struct plugin_rig *r)
{
  (void)r;
  if (repeat_log && (repeat_log->n || repeat_log->armed)) {
    fold_log(repeat_log, false);
  }
}

void plugin_instrument_fold_own(void)
{
  if (repeat_log && (repeat_log->n || (repeat_log->armed &&
                                       armed_slot(repeat_log->armed, repeat_log->vcpu)->count))) {
    plugin_rig_lock(rig);
    plugin_rig_unlock(rig);
  }
}

/* The stale-block entries of the calling thread (on VCPU) that ran with no
 * callback go into its counters and its log, without the lock unless the
 * log is full: before anything reads the counters (a measured region). */
static void flush_own(unsigned vcpu)
{
  if (repeat_log && repeat_log->vcpu == vcpu && repeat_log->armed && !flush_armed(repeat_log)) {
    plugin_instrument_fold_own();
  }
}

void plugin_instrument_count_pending(uint64_t counter[RIG_NCOUNTERS])
{
  for (guint i = 0; rig->repeat_logs && i < rig->repeat_logs->len; i++) {
    const struct repeat_log *log = g_ptr_array_index(rig->repeat_logs, i);
    if (log->armed && log->vcpu < (unsigned)qemu_plugin_num_vcpus()) {
      uint64_t times = __atomic_load_n(&armed_slot(log->armed, log->vcpu)->count, __ATOMIC_RELAXED);
      counter[RIG_COUNTER_stale_fetches] += log->armed_stale * times;
      counter[RIG_COUNTER_benign_stale_fetches] += log->armed_benign * times;
    }
  }
}

void plugin_instrument_fold_all(void)
{
  for (guint i = 0; rig->repeat_logs && i < rig->repeat_logs->len; i++) {
    fold_log(g_ptr_array_index(rig->repeat_logs, i), true);
  }
}

void plugin_instrument_vcpu_exit(unsigned vcpu)
{
  /* The exit callback may run on another host thread: the thread's log is
   * found by its vCPU, which a new thread may take next. */
  for (guint i = 0; rig->repeat_logs && i < rig->repeat_logs->len; i++) {
    struct repeat_log *log = g_ptr_array_index(rig->repeat_logs, i);
    if (log->vcpu == vcpu) {
      fold_log(log, true);
      log->vcpu = UINT_MAX;
    }
  }
  if (vcpu < (unsigned)qemu_plugin_num_vcpus()) {
    plugin_vcpu(rig, vcpu)->repeats = NULL;
  }
}

static void fork_child(void)
{
  /* Only the forking thread lives on, and its log was folded as it took
   * the lock before the fork; the others' memos name the parent's TBs,
   * and their armed TBs' entries were the parent's. */
  for (guint i = 0; rig->repeat_logs && i < rig->repeat_logs->len; i++) {
    struct repeat_log *log = g_ptr_array_index(rig->repeat_logs, i);
    if (log != repeat_log) {
      log->n = 0;
      memset(log->memo, 0, sizeof(log->memo));
      if (log->armed) {
        armed_slot(log->armed, log->vcpu)->count = 0;
        close_gate(log);
        log->armed = NULL;
      }
    }
  }
}

/* One more entry of TR on VCPU (V) counted without the lock, when its memo
 * still holds and the log has room. */
static bool repeat_without_lock(struct plugin_vcpu *v, unsigned vcpu, const struct tb_record *tr)
{
  struct repeat_log *log = v->repeats;
  if (!log || log->vcpu != vcpu) {
    return false;
  }
  const struct repeat_memo *m = repeat_memo_for(log, tr);
  if (m->tr != tr || m->epoch != __atomic_load_n(&rig->epoch, __ATOMIC_ACQUIRE)) {
    return false;
  }
  if (log->n && log->run[log->n - 1].tr == tr) {
    log->run[log->n - 1].times++;
  } else if (log->n < REPEAT_RUNS) {
    log->run[log->n].tr = tr;
    log->run[log->n].times = 1;
    log->n++;
  } else {
    return false; /* full: the locked path folds it */
  }
  v->counts.stale_fetches += m->stale;
  v->counts.benign_stale_fetches += m->benign;
  return true;
}

/* Remembers that TR's entry on VCPU was judged from memos alone at EPOCH
 * (the lock held). */
static void remember_repeat(unsigned vcpu, const struct tb_record *tr, uint64_t epoch,
                            const uint64_t n[3])
{
  if (!repeat_log) {
    repeat_log = plugin_keep_until_exit(rig->keep, g_new0(struct repeat_log, 1));
    repeat_log->vcpu = vcpu;
    if (!rig->repeat_logs) {
      rig->repeat_logs = g_ptr_array_new();
    }
    g_ptr_array_add(rig->repeat_logs, repeat_log);
    plugin_vcpu(rig, vcpu)->repeats = repeat_log;
  }
  if (repeat_log->vcpu != vcpu) {
    return; /* never in linux-user: a host thread runs one vCPU */
  }
  *repeat_memo_for(repeat_log, tr) = (struct repeat_memo){
      .tr = tr,
      .epoch = epoch,
      .stale = n[FETCH_STALE],
      .benign = n[FETCH_BENIGN],
  };
}

/* TR's check at this entry, under the lock. MAY_ARM: the entry is
 * on_tb_fetch's (whose count holds no entry of its own), and the vCPU's
 * check before it was TR's too: the TB may be armed. */
static void check_tb(unsigned vcpu, const struct tb_record *tr, bool may_arm)
{
  uint64_t n[3] = {0};
  model_judged = false;
  plugin_rig_lock(rig);
  judge_tb(vcpu, tr, n);
  if (model_judged || rig->opts.check_full) {
    plugin_rig_unlock(rig);
  } else {
    /* Nothing changed that another verdict reads: no bump. */
    remember_repeat(vcpu, tr, __atomic_load_n(&rig->epoch, __ATOMIC_RELAXED), n);
    if (may_arm) {
      arm(vcpu, tr, n);
    }
    g_mutex_unlock(&rig->lock);
  }
  count_outcome(vcpu, FETCH_STALE, n[FETCH_STALE]);
  count_outcome(vcpu, FETCH_BENIGN, n[FETCH_BENIGN]);
}

/* The slow path of a plain TB, unless its check already ran at this entry,
 * before a migration at its start. */
static void on_tb_fetch(unsigned vcpu, void *udata)
{
  const struct tb_record *tr = udata;
  if (tr->armed_score) {
    armed_slot(tr, vcpu)->count--; /* this entry: judged here */
  }
  struct plugin_vcpu *v = plugin_vcpu(rig, vcpu);
  struct repeat_log *log = v->repeats;
  bool again = false;
  if (log && log->vcpu == vcpu) {
    if (log->armed) {
      flush_own(vcpu);
      v = plugin_vcpu(rig, vcpu);
    }
    again = log->last_check == tr;
    log->last_check = tr;
  }
  if (checked_before_migration(v, tr) || repeat_without_lock(v, vcpu, tr)) {
    return;
  }
  check_tb(vcpu, tr, again);
}

/*
 * A migration at the start of a plain TB that fetches stored code: the
 * migration clock counts a TB's instructions as the TB starts, so a
 * migration that falls due while a TB runs lands at its start, and it
 * falls due most often in the longest TBs, such as a function a JIT just
 * wrote. The migration's exception return (it completes no stores,
 * plugin_sched.c, MOVE_PREEMPT) would then synchronise the thread just
 * before the first fetch, every time, and hide a missing isb after a
 * completed sequence (docs/COHERENCE-MODEL.md, "The first version of new
 * code"). The check judges the TB first, as if the migration came at its
 * end: an order of events the scheduler could as well have made.
 */
static void check_before_migration(unsigned vcpu, const struct tb_record *tr)
{
  if (tr) {
    check_tb(vcpu, tr, false);
  }
}

/* The link register: in a leaf flush routine, the return address into
 * whoever called it (the finding's "caller"). */
#define XREG_LR 30
/* The frame pointer: a routine that calls something pushes the frame record
 * {x29, x30} and points x29 at it (AAPCS64, "The frame pointer"). */
#define XREG_FP 29

/* The 8 bytes at guest address VA, 0 when they cannot be read. */
static uint64_t read_guest_u64(uint64_t va)
{
  uint64_t le = 0;
  GByteArray *buf = g_byte_array_sized_new(sizeof(le));
  bool read = qemu_plugin_read_memory_vaddr(va, buf, sizeof(le)) && buf->len == sizeof(le);
  if (read) {
    memcpy(&le, buf->data, sizeof(le));
  }
  g_byte_array_unref(buf);
  return read ? GUINT64_FROM_LE(le) : 0;
}

/* X[REG], REG 31 being sp (DWARF's AArch64 numbering, report_symbols.h). */
static uint64_t read_dwarf_reg(unsigned reg)
{
  uint64_t v = 0;
  if (reg == 31) {
    return plugin_regs_read(rig->regs, PLUGIN_REG_SP, &v) ? v : 0;
  }
  return plugin_regs_read_x(rig->regs, reg);
}

/* The return address in the frame record x29 points at, 0 when x29 holds
 * no readable, aligned address: in a flush routine that made a call before
 * its loops, the return address into its own caller (report_findings_names.c
 * decides whether it is one). Read only where the unwind tables gave no
 * rule. */
static uint64_t frame_return_address(void)
{
  uint64_t fp = plugin_regs_read_x(rig->regs, XREG_FP);
  if (!fp || (fp & 15) != 0) {
    return 0;
  }
  return read_guest_u64(fp + 8);
}

/* The return address into the flush routine's caller by the rule R's
 * translation decided: one register, or one word at a register plus an
 * offset (the slot its prologue saved x30 in); 0 without a rule. */
static uint64_t unwound_return_address(const struct insn_record *r, uint64_t lr)
{
  switch (r->ret.kind) {
  case REPORT_RETURN_IN_REG:
    return r->ret.reg == XREG_LR ? lr : read_dwarf_reg(r->ret.reg);
  case REPORT_RETURN_AT:
    return read_guest_u64(read_dwarf_reg(r->ret.reg) + (uint64_t)r->ret.offset);
  default:
    return 0;
  }
}

static void on_maintenance(unsigned vcpu, void *udata)
{
  const struct insn_record *r = udata;
  uint64_t addr = plugin_regs_read_x(rig->regs, r->reg);
  bool maint = r->kind == PLUGIN_INSN_DC_CLEAN || r->kind == PLUGIN_INSN_IC_IVAU;
  uint64_t lr = maint ? plugin_regs_read_x(rig->regs, XREG_LR) : 0;
  uint64_t unwound = maint ? unwound_return_address(r, lr) : 0;
  uint64_t frame_lr = maint && r->ret.kind == REPORT_RETURN_UNKNOWN ? frame_return_address() : 0;
  plugin_rig_lock(rig);
  struct plugin_thread *t = plugin_sched_thread(rig->sched, vcpu);
  if (t) {
    switch (r->kind) {
    case PLUGIN_INSN_DC_CLEAN:
      plugin_sched_adversary_maintenance(rig, t);
      model_dc_clean(rig->model, &t->mt, addr,
                     report_findings_site_unwound(rig->findings, r->vaddr, lr, frame_lr, unwound),
                     r->after_load);
      break;
    case PLUGIN_INSN_IC_IVAU:
      plugin_sched_adversary_maintenance(rig, t);
      model_ic_ivau(rig->model, &t->mt, addr,
                    report_findings_site_unwound(rig->findings, r->vaddr, lr, frame_lr, unwound));
      break;
    case PLUGIN_INSN_DC_ZVA:
      /* QEMU zeroes the block without a memory callback. DCZID_EL0 of
       * QEMU's Arm cores gives 64-byte blocks. */
      model_store(rig->model, &t->mt, addr & ~UINT64_C(63), 64, r->vaddr);
      break;
    default:
      break;
    }
  }
  plugin_rig_unlock(rig);
}

/* A FEAT_MOPS prologue at R, before it runs: the copy or set writes
 * [Xd, Xd + Xn) over it and the main and epilogue instructions after it,
 * with no model event between (plugin_decode.c). Recorded a page at a time:
 * a store's size is an unsigned. */
static void on_mops(unsigned vcpu, void *udata)
{
  const struct insn_record *r = udata;
  uint64_t dest = plugin_regs_read_x(rig->regs, r->reg);
  uint64_t size = plugin_regs_read_x(rig->regs, r->reg2);
  plugin_rig_lock(rig);
  struct plugin_thread *t = plugin_sched_thread(rig->sched, vcpu);
  for (uint64_t done = 0; t && done < size;) {
    uint64_t chunk = MIN(size - done, UINT64_C(1) << MODEL_PAGE_SHIFT);
    model_store(rig->model, &t->mt, dest + done, (unsigned)chunk, r->vaddr);
    done += chunk;
  }
  plugin_rig_unlock(rig);
}

/* Applies a model event to the thread on VCPU. */
static void thread_event(unsigned vcpu, void (*event)(struct model *, struct model_thread *))
{
  plugin_rig_lock(rig);
  struct plugin_thread *t = plugin_sched_thread(rig->sched, vcpu);
  if (t) {
    event(rig->model, &t->mt);
  }
  plugin_rig_unlock(rig);
}

/* A barrier instruction ends the thread's maintenance loops: a flush
 * routine's loop runs between two of them, so a step never spans two calls
 * (model_coherence_attribution.c, "Loop recognition"). */
static void dsb_insn(struct model *m, struct model_thread *t)
{
  model_dsb(m, t);
  model_loops_end(t);
}

static void on_dsb(unsigned vcpu, void *udata)
{
  (void)udata;
  thread_event(vcpu, dsb_insn);
}

/* A DSB *LD completes no maintenance, but orders the thread's later
 * cleans after its earlier loads (docs/COHERENCE-MODEL.md#clean-ordering). */
static void on_dsb_ld(unsigned vcpu, void *udata)
{
  (void)udata;
  thread_event(vcpu, model_order_cleans);
}

/* UDATA is non-NULL for a DMB that orders loads and stores. */
static void on_dmb(unsigned vcpu, void *udata)
{
  plugin_rig_lock(rig);
  struct plugin_thread *t = plugin_sched_thread(rig->sched, vcpu);
  if (t) {
    model_dmb(rig->model, &t->mt, udata != NULL);
  }
  plugin_rig_unlock(rig);
}

/* A measured region's marker: the stale entries the vCPU's armed TB ran
 * with no callback are counted before plugin_region.c reads the counters. */
static void on_marker(unsigned vcpu, void *udata)
{
  (void)udata;
  flush_own(vcpu);
}

/* A publishing instruction after a store to code (its vCPU's code_stored
 * set): policy=adversarial ends the turn there (plugin_turns.c). */
static void on_publish(unsigned vcpu, void *udata)
{
  (void)udata;
  plugin_turns_published(rig, vcpu);
}

static void on_isb(unsigned vcpu, void *udata)
{
  (void)udata;
  plugin_rig_lock(rig);
  struct plugin_thread *t = plugin_sched_thread(rig->sched, vcpu);
  if (t) {
    plugin_sched_sync(rig, t);
    model_loops_end(&t->mt);
  }
  plugin_rig_unlock(rig);
  /* QEMU translates again what the RW view of double-mapped code changed. */
  plugin_alias_refresh_views(rig);
}

/* ---- translation --------------------------------------------------------- */

/*
 * The fetch check, decided at translation. Only words on pages the guest
 * ever stored to have a record (model_word_for_fetch). For each, the
 * model gives fresh_after, F: any thread synchronised after F fetches the
 * word fresh on every cluster, and F cannot change until the word is stored
 * again (model_coherence.h). A store to a page holding translated code makes
 * linux-user QEMU invalidate that page's TBs, so the next execution is a
 * new translation with a new F. The check is therefore an inline comparison
 * of the vCPU's published sync_seq with F (a conditional callback), and the
 * model is called only when sync_seq <= F: the same verdict, the same
 * findings, for a fraction of the callbacks. When every live thread has
 * already synchronised after F (the JIT flushed, then ran its isb), no
 * thread can ever compare below F again (sync_seq only grows, and a new
 * thread is synchronised as it starts), so the word gets no comparison.
 *
 * Granularity. In a "plain" TB (below) nothing between its first and last
 * instruction can change a verdict, so one comparison with
 * the largest F of its words decides for the whole TB, and the slow path
 * judges its words in order at TB entry. Any other TB compares per word.
 *
 * Exceptions, which call the model on every fetch: check=full (the
 * reference the fast path is tested against), and the RX view of
 * double-mapped code, which QEMU does not re-translate when the RW view is
 * written (plugin_alias.c).
 */
struct fetch_plan {
  size_t checked; /* instructions whose fetch is checked */
  size_t nslow;
  struct insn_record **slow; /* words that may be stale */
  struct qemu_plugin_insn **slow_insn;
  uint64_t *fresh_after;
  uint64_t tb_fresh_after; /* the largest F of the TB's words */
  bool every_fetch;        /* check=full or a double-mapped word */
  bool aliased;            /* a double-mapped word */
  uint64_t settled;        /* plugin_sched_settled_before at translation */
};

/*
 * Whether W, when it is not the last instruction of its TB, cannot change
 * any fetch's verdict: everything but the "branches, exception generating
 * and system instructions" class (Arm ARM C4.1, the top-level encoding
 * table, op0 = 101x), of which only the immediate and compare branches.
 * System instructions may be maintenance, barriers or mrs ctr_el0 (model
 * events, and the adversary may migrate the thread there); they get
 * per-word checks. A store is a model event too, but not for the words of
 * a TB that is running: a store to them makes QEMU stop the TB and
 * translate the rest again. A load or store that faults ends the TB early,
 * so the words after it, judged at the TB's entry, were never fetched: for
 * such a TB the check is stricter than per word (it may count a stale word
 * the fault skipped), never more lenient.
 */
static bool insn_is_plain(uint32_t w)
{
  uint32_t op0 = (w >> 25) & 0xf;
  if ((op0 & 0xe) != 0xa) {
    return true;
  }
  return (w & 0x7c000000) == 0x14000000 || /* B, BL */
         (w & 0xff000010) == 0x54000000 || /* B.cond */
         (w & 0x7e000000) == 0x34000000 || /* CBZ, CBNZ */
         (w & 0x7e000000) == 0x36000000;   /* TBZ, TBNZ */
}

static void plan_fetch(struct fetch_plan *p, struct qemu_plugin_insn *insn, uint64_t vaddr,
                       uint32_t word, bool cmodx_safe)
{
  plugin_rig_lock(rig);
  /* A lazily mapped executable view is faulted in at its first fetch, and
   * the kernel may sync the page then (model_kernel_sync.h). */
  model_kernel_fetch(rig->kernel, vaddr, plugin_alias_canon(rig->alias, vaddr));
  struct model_word *w = model_word_for_fetch(rig->model, vaddr, word, cmodx_safe);
  uint64_t view = model_view(rig->model, vaddr);
  uint64_t fresh_after = w ? model_fresh_after(rig->model, w, view) : 0;
  /* A view other than the address itself: double-mapped code. */
  bool every_fetch = w && (rig->opts.check_full || view != MODEL_OWN_VIEW);
  plugin_rig_unlock(rig);
  if (!w) {
    return;
  }
  p->checked++;
  if ((fresh_after == 0 || fresh_after < p->settled) && !every_fetch) {
    /* Never stored, or every live thread synchronised after F (and a
     * thread that starts later synchronises as it starts): fresh for
     * every fetch until a store re-translates it. */
    return;
  }
  struct insn_record *r = record_new(vaddr);
  r->word = w;
  r->view = view;
  r->cmodx_safe = cmodx_safe;
  p->slow[p->nslow] = r;
  p->slow_insn[p->nslow] = insn;
  p->fresh_after[p->nslow] = every_fetch ? UINT64_MAX : fresh_after;
  p->nslow++;
  p->tb_fresh_after = MAX(p->tb_fresh_after, fresh_after);
  p->every_fetch |= every_fetch;
  p->aliased |= view != MODEL_OWN_VIEW;
}

/* The record of a plain TB with words to check and no double-mapped one
 * (checked on every fetch), else NULL: its TB-level check, or with
 * check=full only its check before a migration (the same words, judged in
 * the same order, at the same moment). */
static struct tb_record *tb_record_for(const struct fetch_plan *p, bool plain)
{
  if (p->nslow == 0 || !plain || p->aliased) {
    return NULL;
  }
  struct tb_record *t = g_malloc(sizeof(*t) + p->nslow * sizeof(t->words[0]));
  t->fresh_after = p->every_fetch ? UINT64_MAX : p->tb_fresh_after;
  t->armed_score = NULL;
  t->armed_offset = 0;
  t->n = p->nslow;
  memcpy(t->words, p->slow, p->nslow * sizeof(t->words[0]));
  for (size_t i = 0; p->every_fetch && i < p->nslow; i++) {
    p->slow[i]->tb = t; /* each judged by on_fetch, unless first here */
  }
  return plugin_keep_until_exit(rig->keep, t);
}

/* SELF_LOOP: the TB's last instruction branches back to its start. */
static void register_fetch_checks(struct qemu_plugin_tb *tb, const struct fetch_plan *p,
                                  struct tb_record *t, bool self_loop)
{
  if (p->nslow == 0) {
    return;
  }
  if (t && !p->every_fetch) {
    if (p->tb_fresh_after == UINT64_MAX &&
        (!self_loop || qemu_plugin_tb_n_insns(tb) > ARMED_MAX_INSNS)) {
      qemu_plugin_register_vcpu_tb_exec_cb(tb, on_tb_fetch, QEMU_PLUGIN_CB_NO_REGS, t);
    } else if (p->tb_fresh_after == UINT64_MAX) {
      /* Never fresh: armed repeats (above). The count comes first, so
       * that the check finds its own entry there. */
      armed_slot_new(t);
      qemu_plugin_u64 gate = {t->armed_score, t->armed_offset + offsetof(struct armed_slot, gate)};
      qemu_plugin_u64 count = {t->armed_score,
                               t->armed_offset + offsetof(struct armed_slot, count)};
      qemu_plugin_register_vcpu_tb_exec_inline_per_vcpu(tb, QEMU_PLUGIN_INLINE_ADD_U64, count, 1);
      qemu_plugin_register_vcpu_tb_exec_cond_cb(tb, on_tb_fetch, QEMU_PLUGIN_CB_NO_REGS,
                                                QEMU_PLUGIN_COND_EQ, gate, 0, t);
    } else {
      qemu_plugin_register_vcpu_tb_exec_cond_cb(tb, on_tb_fetch, QEMU_PLUGIN_CB_NO_REGS,
                                                QEMU_PLUGIN_COND_LE, PLUGIN_VCPU_U64(rig, sync_seq),
                                                p->tb_fresh_after, t);
    }
    return;
  }
  for (size_t i = 0; i < p->nslow; i++) {
    if (p->fresh_after[i] == UINT64_MAX) {
      qemu_plugin_register_vcpu_insn_exec_cb(p->slow_insn[i], on_fetch, QEMU_PLUGIN_CB_NO_REGS,
                                             p->slow[i]);
    } else {
      qemu_plugin_register_vcpu_insn_exec_cond_cb(
          p->slow_insn[i], on_fetch, QEMU_PLUGIN_CB_NO_REGS, QEMU_PLUGIN_COND_LE,
          PLUGIN_VCPU_U64(rig, sync_seq), p->fresh_after[i], p->slow[i]);
    }
  }
}

/* The store callbacks QEMU calls (QEMU_PLUGIN_MEM_W), into plugin_store.c. */
static void on_store(unsigned vcpu, qemu_plugin_meminfo_t info, uint64_t vaddr, void *udata)
{
  plugin_store_on_store(rig->store, vcpu, info, vaddr, udata);
}

static void on_store_group(unsigned vcpu, qemu_plugin_meminfo_t info, uint64_t vaddr, void *udata)
{
  (void)info;
  plugin_store_on_group(rig->store, vcpu, vaddr, udata);
}

static void on_store_span(unsigned vcpu, qemu_plugin_meminfo_t info, uint64_t vaddr, void *udata)
{
  (void)info;
  plugin_store_on_span(rig->store, vcpu, vaddr, udata);
}

/* QEMU calls a memory callback only for the accesses an instruction makes,
 * so every instruction gets one, except the members of a store group
 * (model_store_groups.h), whose leader records them. --check full, the reference,
 * records every store by itself, at the size QEMU reports. Otherwise a
 * store whose size the encoding gives, and a group that writes one range
 * from its leader's address, get the span callback, which needs no record. */
static void register_store_callbacks(struct qemu_plugin_tb *tb, const uint32_t *words, size_t n)
{
  enum model_store_role *role = g_new(enum model_store_role, n);
  uint32_t *group_of = g_new(uint32_t, n);
  struct model_store_group *groups = g_new(struct model_store_group, n);
  uint64_t *pc = g_new(uint64_t, n);
  for (size_t i = 0; i < n; i++) {
    pc[i] = qemu_plugin_insn_vaddr(qemu_plugin_tb_get_insn(tb, i));
    role[i] = MODEL_STORE_OWN;
  }
  if (!rig->opts.check_full) {
    model_groups_plan(words, n, role, group_of, groups);
  }
  for (size_t i = 0; i < n; i++) {
    struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
    void *span = NULL;
    if (role[i] == MODEL_STORE_OWN) {
      if (!rig->opts.check_full) {
        span = plugin_store_span_udata(pc[i], model_simple_store_bytes(words[i]));
      }
      if (!span) {
        qemu_plugin_register_vcpu_mem_cb(insn, on_store, QEMU_PLUGIN_CB_NO_REGS, QEMU_PLUGIN_MEM_W,
                                         (void *)(uintptr_t)pc[i]);
      }
    } else if (role[i] == MODEL_STORE_LEADER) {
      const struct model_store_group *g = &groups[group_of[i]];
      if (g->nranges == 1 && g->range[0].offset == 0) {
        span = plugin_store_span_udata(pc[g->range[0].last_insn], g->range[0].bytes);
      }
      if (!span) {
        qemu_plugin_register_vcpu_mem_cb(insn, on_store_group, QEMU_PLUGIN_CB_NO_REGS,
                                         QEMU_PLUGIN_MEM_W,
                                         plugin_store_group_record(rig->store, g, pc));
      }
    }
    if (span) {
      qemu_plugin_register_vcpu_mem_cb(insn, on_store_span, QEMU_PLUGIN_CB_NO_REGS,
                                       QEMU_PLUGIN_MEM_W, span);
    }
  }
  g_free(role);
  g_free(group_of);
  g_free(groups);
  g_free(pc);
}

/*
 * Quiet blocks. Most TBs a program runs are its own never-stored code that
 * executes no maintenance, no barrier, no mrs of an ID register, no system
 * call and no release: on every emulated core they do the same thing, and
 * which core runs them matters only at the next TB that can tell. Such a TB
 * gets no migration clock and no conditional callback, so it runs as plain
 * QEMU runs it: the schedule (migrations, the turns, the adversary) is
 * defined over the TBs that can observe the SoC, and a migration that fell
 * due during quiet TBs lands at the start of the next observing one, which
 * the guest cannot tell from a migration at the quiet TB's start
 * (docs/COHERENCE-MODEL.md#what-a-migration-can-change). A quiet TB stores
 * nothing the model orders: its stores are recorded as before, and a store
 * is ordered only by barriers, maintenance and context synchronisation,
 * all of which make their TB observing.
 *
 * A TB observes when one of its instructions does (insn_observes), when it
 * fetches code the guest stored (CHECKED: words with a model record, whose
 * fetches are checked), when a signal handler starts at it, or when:
 *  - it ends with a branch that may go backward or anywhere (a direct
 *    branch to its own or a lower address; br, blr, ret and the like): every
 *    loop passes one, so a thread that spins, waiting for another, keeps
 *    counting and hands its turn over (the deterministic schedule stays
 *    live);
 *  - the instruction just before its start is an svc or an mrs of CTR_EL0
 *    or MIDR_EL1: a register write the rig defers to the next TB's start
 *    (a syscall result it overrides, an mrs that ended its TB;
 *    plugin_regs.c) is applied by that TB's conditional callback. Decided
 *    from memory, not from the order QEMU translates in;
 *  - it is the first TB the process translates.
 */
static bool insn_is_svc_class(uint32_t w)
{
  return (w & 0xff000000) == 0xd4000000; /* exception generation: svc, hvc, smc, brk, hlt, ... */
}

static bool insn_observes(const struct plugin_decoded *dec, uint32_t w)
{
  return dec->kind != PLUGIN_INSN_OTHER || dec->publishes || insn_is_svc_class(w);
}

/* The loads and stores encoding group (Arm ARM C4.1, op0 = x1x0). */
static bool insn_is_load_store(uint32_t w)
{
  return ((w >> 25) & 5) == 4;
}

static int64_t sign_extend(uint64_t v, unsigned bits)
{
  return (int64_t)(v << (64 - bits)) >> (64 - bits);
}

/* Whether W, ending its TB, may branch to its own TB or below it. */
static bool insn_may_branch_back(uint32_t w)
{
  if ((w & 0xfe000000) == 0xd6000000) {
    return true; /* branch to a register: br, blr, ret, their PAC forms, eret */
  }
  if ((w & 0x7c000000) == 0x14000000) {
    return sign_extend(w & 0x3ffffff, 26) <= 0; /* b, bl */
  }
  if ((w & 0xff000010) == 0x54000000 || (w & 0x7e000000) == 0x34000000) {
    return sign_extend((w >> 5) & 0x7ffff, 19) <= 0; /* b.cond, cbz, cbnz */
  }
  if ((w & 0x7e000000) == 0x36000000) {
    return sign_extend((w >> 5) & 0x3fff, 14) <= 0; /* tbz, tbnz */
  }
  return false;
}

/* Whether W at PC is a direct branch (b, b.cond, cbz, cbnz, tbz, tbnz; not
 * bl, which enters another function) that may go to TARGET. */
static bool insn_branches_to(uint32_t w, uint64_t pc, uint64_t target)
{
  int64_t offset;
  if ((w & 0xfc000000) == 0x14000000) {
    offset = sign_extend(w & 0x3ffffff, 26);
  } else if ((w & 0xff000010) == 0x54000000 || (w & 0x7e000000) == 0x34000000) {
    offset = sign_extend((w >> 5) & 0x7ffff, 19);
  } else if ((w & 0x7e000000) == 0x36000000) {
    offset = sign_extend((w >> 5) & 0x3fff, 14);
  } else {
    return false;
  }
  return pc + (uint64_t)(offset * 4) == target;
}

/* Whether the word before VADDR hands a register write to the TB at VADDR
 * (see above); true when it cannot be read. */
static bool follows_deferred_write(uint64_t vaddr)
{
  uint32_t le = 0;
  GByteArray *buf = g_byte_array_sized_new(sizeof(le));
  bool read = vaddr >= 4 && qemu_plugin_read_memory_vaddr(vaddr - 4, buf, sizeof(le)) &&
              buf->len == sizeof(le);
  if (read) {
    memcpy(&le, buf->data, sizeof(le));
  }
  g_byte_array_unref(buf);
  if (!read) {
    return true;
  }
  uint32_t w = GUINT32_FROM_LE(le);
  return insn_is_svc_class(w) || (w & ~UINT32_C(0x1f)) == 0xd53b0020 || /* mrs xN, ctr_el0 */
         (w & ~UINT32_C(0x1f)) == 0xd5380000;                           /* mrs xN, midr_el1 */
}

static bool block_observes(struct qemu_plugin_tb *tb, const uint32_t *words, size_t n,
                           bool observes, size_t checked, bool handler)
{
  if (rig->opts.every_block || observes || checked || insn_may_branch_back(words[n - 1])) {
    return true;
  }
  /* The first TB the process translates is where the guest starts: on the
   * clock, so that a guest that ran at all counted instructions (the
   * runner reads insns=0 as "the guest never ran"). */
  static bool started;
  if (!__atomic_exchange_n(&started, true, __ATOMIC_RELAXED)) {
    return true;
  }
  uint64_t start = qemu_plugin_tb_vaddr(tb);
  return handler || follows_deferred_write(start);
}

static void count_inline(struct qemu_plugin_insn *insn, qemu_plugin_u64 e)
{
  qemu_plugin_register_vcpu_insn_exec_inline_per_vcpu(insn, QEMU_PLUGIN_INLINE_ADD_U64, e, 1);
}

void plugin_instrument_tb(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
  (void)id;
  size_t n = qemu_plugin_tb_n_insns(tb);
  if (n == 0) {
    return;
  }
  /* First: the self-check runs before anything else of the first block. */
  plugin_selfcheck_tb(rig, tb);
  plugin_rig_lock(rig);
  uint64_t settled = plugin_sched_settled_before(rig->sched);
  plugin_rig_unlock(rig);
  struct fetch_plan plan = {
      .settled = settled,
      .slow = g_new(struct insn_record *, n),
      .slow_insn = g_new(struct qemu_plugin_insn *, n),
      .fresh_after = g_new(uint64_t, n),
  };
  bool plain = true;           /* see register_fetch_checks */
  bool observes = false;       /* an instruction can observe the SoC (block_observes) */
  bool touches_memory = false; /* a load or a store: it may fault, or store into the TB */
  /* What plugin_region.c needs to find the maintenance loops and markers. */
  uint32_t *words = g_new0(uint32_t, n);
  enum plugin_insn_kind *kinds = g_new0(enum plugin_insn_kind, n);

  for (size_t i = 0; i < n; i++) {
    struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
    uint64_t vaddr = qemu_plugin_insn_vaddr(insn);
    uint32_t word = 0;
    if (qemu_plugin_insn_data(insn, &word, sizeof(word)) != sizeof(word)) {
      plain = false;
      continue;
    }
    word = GUINT32_FROM_LE(word);
    struct plugin_decoded dec = plugin_decode(rig->decoder, word);
    words[i] = word;
    kinds[i] = dec.kind;
    plain = plain && dec.kind == PLUGIN_INSN_OTHER && (i + 1 == n || insn_is_plain(word));
    observes = observes || insn_observes(&dec, word);
    touches_memory = touches_memory || insn_is_load_store(word);

    if (rig->opts.check) {
      plan_fetch(&plan, insn, vaddr, word, dec.cmodx_safe);
    }

    struct insn_record *r = NULL;
    if (dec.kind != PLUGIN_INSN_OTHER) {
      r = record_new(vaddr);
      r->reg = (uint8_t)dec.reg;
      r->reg2 = (uint8_t)dec.reg2;
      r->kind = dec.kind;
      r->after_load =
          dec.kind == PLUGIN_INSN_DC_CLEAN && plugin_decode_after_load(words, i, dec.reg);
    }
    switch (dec.kind) {
    case PLUGIN_INSN_MRS_CTR:
    case PLUGIN_INSN_MRS_MIDR:
      count_inline(insn, dec.kind == PLUGIN_INSN_MRS_CTR ? PLUGIN_VCPU_U64(rig, counts.ctr_reads)
                                                         : PLUGIN_VCPU_U64(rig, counts.midr_reads));
      if (dec.reg == 31) {
        break; /* xzr: nothing to rewrite */
      }
      if (i + 1 < n) {
        qemu_plugin_register_vcpu_insn_exec_cb(qemu_plugin_tb_get_insn(tb, i + 1), on_after_id_read,
                                               QEMU_PLUGIN_CB_RW_REGS, r);
      } else {
        qemu_plugin_register_vcpu_insn_exec_cb(insn, on_id_read_at_tb_end, QEMU_PLUGIN_CB_NO_REGS,
                                               r);
      }
      break;
    case PLUGIN_INSN_DC_CLEAN:
    case PLUGIN_INSN_IC_IVAU:
    case PLUGIN_INSN_IC_IALLU:
    case PLUGIN_INSN_DC_ZVA:
      if (dec.kind == PLUGIN_INSN_DC_CLEAN) {
        count_inline(insn, PLUGIN_VCPU_U64(rig, counts.dc_ops));
      } else if (dec.kind != PLUGIN_INSN_DC_ZVA) {
        count_inline(insn, PLUGIN_VCPU_U64(rig, counts.ic_ops));
      }
      /* ic iallu[is] is EL1-only (UNDEFINED at EL0): counted, not modelled. */
      if (rig->opts.check && dec.kind != PLUGIN_INSN_IC_IALLU) {
        if (dec.kind != PLUGIN_INSN_DC_ZVA) {
          r->ret = plugin_findings_return_rule(rig, r->vaddr);
        }
        qemu_plugin_register_vcpu_insn_exec_cb(insn, on_maintenance, QEMU_PLUGIN_CB_R_REGS, r);
      }
      break;
    case PLUGIN_INSN_ISB:
      count_inline(insn, PLUGIN_VCPU_U64(rig, counts.isb));
      if (rig->opts.check) {
        qemu_plugin_register_vcpu_insn_exec_cb(insn, on_isb, QEMU_PLUGIN_CB_NO_REGS, r);
      }
      break;
    case PLUGIN_INSN_DSB:
      count_inline(insn, PLUGIN_VCPU_U64(rig, counts.dsb));
      if (rig->opts.check) {
        qemu_plugin_register_vcpu_insn_exec_cb(insn, dec.dsb_completes ? on_dsb : on_dsb_ld,
                                               QEMU_PLUGIN_CB_NO_REGS, r);
      }
      break;
    case PLUGIN_INSN_MOPS:
      if (rig->opts.check) {
        qemu_plugin_register_vcpu_insn_exec_cb(insn, on_mops, QEMU_PLUGIN_CB_R_REGS, r);
      }
      break;
    case PLUGIN_INSN_DMB:
      /* Not counted (no counter for it): the model orders cleans and
       * stores with it (model_coherence.c, model_dmb). */
      if (rig->opts.check && dec.dmb_orders_stores) {
        qemu_plugin_register_vcpu_insn_exec_cb(insn, on_dmb, QEMU_PLUGIN_CB_NO_REGS,
                                               dec.dmb_full ? (void *)rig : NULL);
      }
      break;
    case PLUGIN_INSN_MARK_BEGIN:
    case PLUGIN_INSN_MARK_END:
      /* Before plugin_region.c's own callback (registered after this):
       * the region's counters must hold the entries of an armed TB. */
      if (rig->opts.check) {
        qemu_plugin_register_vcpu_insn_exec_cb(insn, on_marker, QEMU_PLUGIN_CB_NO_REGS, NULL);
      }
      break;
    case PLUGIN_INSN_OTHER:
      break;
    }
    if (dec.publishes && plugin_rig_adversary_hands_over(rig)) {
      qemu_plugin_register_vcpu_insn_exec_cond_cb(insn, on_publish, QEMU_PLUGIN_CB_NO_REGS,
                                                  QEMU_PLUGIN_COND_NE,
                                                  PLUGIN_VCPU_U64(rig, clock.code_stored), 0, NULL);
    }
  }
  /* The TB's callbacks run in the order they are registered, before those
   * of its first instruction: a signal delivery into the TB (a handler's
   * entry) synchronises the thread before anything else, then the clock
   * counts the TB (its instructions and fetch checks, both exact unless
   * the TB faults) before on_tb_due and the TB's fetch check. */
  bool handler = rig->opts.check && plugin_signals_instrument_tb(rig, tb);
  bool quiet = !block_observes(tb, words, n, observes, plan.checked, handler);
  if (!quiet) {
    qemu_plugin_register_vcpu_tb_exec_inline_per_vcpu(tb, QEMU_PLUGIN_INLINE_ADD_U64,
                                                      PLUGIN_VCPU_U64(rig, clock.now),
                                                      plugin_clock_tick(n, plan.checked));
  }
  struct tb_record *tr = tb_record_for(&plan, plain);
  if (!quiet) {
    qemu_plugin_register_vcpu_tb_exec_cond_cb(tb, on_tb_due, QEMU_PLUGIN_CB_RW_REGS,
                                              QEMU_PLUGIN_COND_GE, PLUGIN_VCPU_U64(rig, clock.now),
                                              PLUGIN_MIGRATE_DUE, tr);
  }
  register_fetch_checks(tb, &plan, tr,
                        insn_branches_to(words[n - 1], qemu_plugin_tb_vaddr(tb) + 4 * (n - 1),
                                         qemu_plugin_tb_vaddr(tb)));
  if (rig->opts.check) {
    register_store_callbacks(tb, words, n);
    if (rig->opts.every_block || touches_memory || observes || plan.checked) {
      /* A TB without loads, stores, observing instructions or checked words
       * (quiet, or on the clock only for its branch) can neither store into
       * itself nor fault on memory: where a crash finds the vCPU is the
       * last TB that could (docs/RIG.md, "What the rig instruments").
       * One store publishes the block for both: for the crash report
       * (report_findings.h, "a crash") and for a store into it
       * (plugin_selfstore.c). */
      plugin_selfstore_instrument_tb(rig, tb);
    }
  }
  g_free(plan.slow);
  g_free(plan.slow_insn);
  g_free(plan.fresh_after);
  plugin_region_instrument_tb(rig, tb, words, kinds, n);
  g_free(words);
  g_free(kinds);
}
