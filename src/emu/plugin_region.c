/*
 * Measured regions: the exact per-flush counts of docs/BENCHMARKS.md#what-is-measured.
 *
 * A guest program (tests/bench/flush_bench.c) brackets each call it wants
 * measured with two marker instructions, unallocated HINT encodings that
 * execute as NOPs everywhere else:
 *
 *     mov  x16, #TAG
 *     hint #0x7c        region TAG begins after this instruction
 *     ...               the call being measured
 *     hint #0x7d        the open region ends before this instruction
 *
 * Between the two, the plugin counts what every vCPU did (so a thread the
 * measured call starts and joins, such as jitflush's probe helper, is
 * included) and adds it to the sums kept per TAG: instructions, of which
 * those inside maintenance loops, dc and ic operations, mrs ctr_el0, isb,
 * system calls, migrations, fetch checks and stale fetches. Counts are those
 * of the guest, so they are exact and, for a given seed, the same on every
 * run and every host.
 *
 * Instruction counts come from the per-TB inline counter, which QEMU adds
 * when a TB is entered. A marker in the middle of a TB has therefore already
 * seen the instructions that follow it in its TB counted; translation
 * records how many, and the marker callbacks take them off again.
 *
 * "Inside a maintenance loop" is decided at translation time. QEMU ends a
 * TB at every branch (and after some system instructions: ic ivau ends its
 * TB, dc cvau does not), so every flush loop of the routines the bench
 * measures, a straight-line body from a target T to a branch B back to T,
 * is one or two TBs of which the last ends with B. When the body holds a
 * dc or ic operation (already translated, since the body ran once before
 * B was first reached) each execution of B's TB is one iteration, and an
 * inline add on B counts the whole body, (B - T) / 4 + 1 instructions.
 * Everything else a region executes (argument checks, the geometry,
 * barriers, call and return, and the straight-line preamble that QEMU may
 * put in the same TB as the loop's first iteration) is "outside the
 * loops".
 *
 * The marker callbacks sum the scoreboard over all vCPUs: O(vCPUs), but
 * they run twice per measured call and never in programs without markers.
 */
#include <inttypes.h>
#include <stddef.h>

#include "plugin.h"

/* The counters a region measures, in report order. Two are no field of
 * their own but counted by the migration clock (jf_score_counts): insns
 * and fetch_checks, whose offsets are unused. */
static const struct {
  const char *name;
  size_t offset;
} counters[JF_REGION_NCOUNTERS] = {
    {"insns", 0},
    {"loop_insns", offsetof(struct jf_vcpu_score, loop_insns)},
    {"dc_ops", offsetof(struct jf_vcpu_score, dc_ops)},
    {"ic_ops", offsetof(struct jf_vcpu_score, ic_ops)},
    {"ctr_reads", offsetof(struct jf_vcpu_score, ctr_reads)},
    {"isb", offsetof(struct jf_vcpu_score, isb)},
    {"syscalls", offsetof(struct jf_vcpu_score, syscalls)},
    {"migrations", offsetof(struct jf_vcpu_score, migrations)},
    {"fetch_checks", 0},
    {"stale_fetches", offsetof(struct jf_vcpu_score, stale_fetches)},
};
#define INSNS 0        /* index of "insns" above */
#define FETCH_CHECKS 8 /* and of "fetch_checks" */

/* The register that carries the tag to the begin marker. */
#define TAG_REG 16

struct region_sum {
  uint64_t tag;
  uint64_t calls;
  uint64_t sum[JF_REGION_NCOUNTERS];
  uint64_t insns_min, insns_max; /* per call: shows whether a cost varies */
};

/* What a marker callback needs from translation time. */
struct marker {
  uint64_t after; /* instructions of its TB after it, already counted */
};

static GMutex region_lock;
static GHashTable *sums;     /* tag -> struct region_sum */
static GPtrArray *markers;   /* every struct marker, freed at exit */
static GHashTable *maint_at; /* vaddrs of translated dc/ic operations */
static uint64_t unbalanced;  /* begin while open, end while closed */

void jf_region_init(void)
{
  sums = g_hash_table_new_full(g_int64_hash, g_int64_equal, NULL, g_free);
  markers = g_ptr_array_new_with_free_func(g_free);
  maint_at = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL);
  unbalanced = 0;
}

void jf_region_free(void)
{
  g_clear_pointer(&sums, g_hash_table_unref);
  g_clear_pointer(&markers, g_ptr_array_unref);
  g_clear_pointer(&maint_at, g_hash_table_unref);
}

static void totals_now(uint64_t out[JF_REGION_NCOUNTERS])
{
  struct jf_clock_counts counted = jf_clock_totals();
  for (size_t c = 0; c < JF_REGION_NCOUNTERS; c++) {
    out[c] = c == INSNS ? counted.insns
             : c == FETCH_CHECKS
                 ? counted.fetch_checks
                 : qemu_plugin_u64_sum((qemu_plugin_u64){jf_score, counters[c].offset});
  }
}

/* ---- execution callbacks ------------------------------------------------- */

static void on_begin(unsigned vcpu, void *udata)
{
  const struct marker *m = udata;
  uint64_t tag = jf_instrument_read_xreg(TAG_REG);
  uint64_t now[JF_REGION_NCOUNTERS];
  totals_now(now);
  now[INSNS] -= m->after; /* the region starts right after the marker */
  struct jf_vcpu_score *s = jf_vcpu_score(vcpu);
  if (s->region_open) {
    g_mutex_lock(&region_lock);
    unbalanced++;
    g_mutex_unlock(&region_lock);
  }
  s->region_open = 1;
  s->region_tag = tag;
  for (size_t c = 0; c < JF_REGION_NCOUNTERS; c++) {
    s->region_start[c] = now[c];
  }
}

static void on_end(unsigned vcpu, void *udata)
{
  const struct marker *m = udata;
  uint64_t now[JF_REGION_NCOUNTERS];
  totals_now(now);
  now[INSNS] -= m->after + 1; /* it ends before the marker */
  struct jf_vcpu_score *s = jf_vcpu_score(vcpu);
  g_mutex_lock(&region_lock);
  if (!s->region_open) {
    unbalanced++;
    g_mutex_unlock(&region_lock);
    return;
  }
  s->region_open = 0;
  uint64_t tag = s->region_tag;
  struct region_sum *r = g_hash_table_lookup(sums, &tag);
  if (!r) {
    r = g_new0(struct region_sum, 1);
    r->tag = tag;
    r->insns_min = UINT64_MAX;
    g_hash_table_insert(sums, &r->tag, r);
  }
  r->calls++;
  for (size_t c = 0; c < JF_REGION_NCOUNTERS; c++) {
    r->sum[c] += now[c] - s->region_start[c];
  }
  uint64_t insns = now[INSNS] - s->region_start[INSNS];
  r->insns_min = MIN(r->insns_min, insns);
  r->insns_max = MAX(r->insns_max, insns);
  g_mutex_unlock(&region_lock);
}

/* ---- translation --------------------------------------------------------- */

/* The target of an immediate branch (B, B.cond, CBZ/CBNZ, TBZ/TBNZ) at PC,
 * or false for any other instruction (Arm ARM C4.1.65, "Branches, Exception
 * Generating and System instructions"). */
static bool branch_target(uint32_t w, uint64_t pc, uint64_t *target)
{
  int64_t offset;
  if ((w & 0xfc000000) == 0x14000000) { /* B imm26 */
    offset = (int64_t)((uint64_t)(w & 0x03ffffff) << 38) >> 36;
  } else if ((w & 0xff000010) == 0x54000000 || /* B.cond imm19 */
             (w & 0x7e000000) == 0x34000000) { /* CBZ, CBNZ imm19 */
    offset = (int64_t)((uint64_t)((w >> 5) & 0x7ffff) << 45) >> 43;
  } else if ((w & 0x7e000000) == 0x36000000) { /* TBZ, TBNZ imm14 */
    offset = (int64_t)((uint64_t)((w >> 5) & 0x3fff) << 50) >> 48;
  } else {
    return false;
  }
  *target = pc + (uint64_t)offset;
  return true;
}

static bool is_maintenance(enum jf_insn_kind k)
{
  return k == JF_INSN_DC_CLEAN || k == JF_INSN_IC_IVAU || k == JF_INSN_IC_IALLU;
}

/* Longest loop body (instructions) taken for a maintenance loop: longer
 * backward branches are outer loops, whatever their range holds. */
#define MAX_LOOP_BODY 64

static void count_loop(struct qemu_plugin_tb *tb, const uint32_t *words,
                       const enum jf_insn_kind *kinds, size_t n)
{
  uint64_t start = qemu_plugin_insn_vaddr(qemu_plugin_tb_get_insn(tb, 0));
  uint64_t last_pc = start + 4 * (n - 1);
  bool maintains = false;
  g_mutex_lock(&region_lock);
  for (size_t i = 0; i < n; i++) {
    if (is_maintenance(kinds[i])) {
      uint64_t *key = g_new(uint64_t, 1);
      *key = start + 4 * i;
      g_hash_table_add(maint_at, key);
    }
  }
  uint64_t target;
  if (branch_target(words[n - 1], last_pc, &target) && target <= last_pc &&
      last_pc - target < 4 * MAX_LOOP_BODY && (last_pc - target) % 4 == 0) {
    for (uint64_t pc = target; pc <= last_pc && !maintains; pc += 4) {
      maintains = g_hash_table_contains(maint_at, &pc);
    }
  }
  g_mutex_unlock(&region_lock);
  if (maintains) {
    qemu_plugin_register_vcpu_insn_exec_inline_per_vcpu(
        qemu_plugin_tb_get_insn(tb, n - 1), QEMU_PLUGIN_INLINE_ADD_U64,
        qemu_plugin_scoreboard_u64_in_struct(jf_score, struct jf_vcpu_score, loop_insns),
        (last_pc - target) / 4 + 1);
  }
}

void jf_region_instrument_tb(struct qemu_plugin_tb *tb, const uint32_t *words,
                             const enum jf_insn_kind *kinds, size_t n)
{
  if (n == 0) {
    return;
  }
  count_loop(tb, words, kinds, n);
  for (size_t i = 0; i < n; i++) {
    if (kinds[i] != JF_INSN_MARK_BEGIN && kinds[i] != JF_INSN_MARK_END) {
      continue;
    }
    struct marker *m = g_new0(struct marker, 1);
    m->after = n - 1 - i;
    g_mutex_lock(&region_lock);
    g_ptr_array_add(markers, m);
    g_mutex_unlock(&region_lock);
    if (kinds[i] == JF_INSN_MARK_BEGIN) {
      qemu_plugin_register_vcpu_insn_exec_cb(qemu_plugin_tb_get_insn(tb, i), on_begin,
                                             QEMU_PLUGIN_CB_R_REGS, m);
    } else {
      qemu_plugin_register_vcpu_insn_exec_cb(qemu_plugin_tb_get_insn(tb, i), on_end,
                                             QEMU_PLUGIN_CB_NO_REGS, m);
    }
  }
}

/* ---- report ---------------------------------------------------------------- */

static gint by_tag(gconstpointer a, gconstpointer b)
{
  uint64_t x = (*(struct region_sum *const *)a)->tag;
  uint64_t y = (*(struct region_sum *const *)b)->tag;
  return x < y ? -1 : x > y;
}

/* [{"tag": T, "calls": N, "insns": SUM, ..., "insns_min": A,
 *   "insns_max": B}, ...] sorted by tag; sums over the calls, so a reader
 * divides by "calls". An unbalanced marker pair is reported, never hidden. */
void jf_region_report(GString *json)
{
  g_mutex_lock(&region_lock);
  GPtrArray *list = g_ptr_array_new();
  GHashTableIter it;
  gpointer value;
  g_hash_table_iter_init(&it, sums);
  while (g_hash_table_iter_next(&it, NULL, &value)) {
    g_ptr_array_add(list, value);
  }
  g_ptr_array_sort(list, by_tag);
  g_string_append(json, "[");
  for (guint i = 0; i < list->len; i++) {
    const struct region_sum *r = g_ptr_array_index(list, i);
    g_string_append_printf(json, "%s\n    {\"tag\": %" PRIu64 ", \"calls\": %" PRIu64, i ? "," : "",
                           r->tag, r->calls);
    for (size_t c = 0; c < JF_REGION_NCOUNTERS; c++) {
      g_string_append_printf(json, ", \"%s\": %" PRIu64, counters[c].name, r->sum[c]);
    }
    g_string_append_printf(json, ", \"insns_min\": %" PRIu64 ", \"insns_max\": %" PRIu64 "}",
                           r->insns_min, r->insns_max);
  }
  g_string_append_printf(json, "%s],\n  \"region_unbalanced\": %" PRIu64, list->len ? "\n  " : "",
                         unbalanced);
  g_ptr_array_free(list, true);
  g_mutex_unlock(&region_lock);
}
