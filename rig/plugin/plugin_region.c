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

#include "plugin_keep.h"
#include "plugin_region.h"
#include "plugin_regs.h"
#include "plugin_vcpu.h"

/* The register that carries the tag to the begin marker. */
#define TAG_REG 16

struct region_sum {
  uint64_t tag;
  uint64_t calls;
  uint64_t sum[RIG_NCOUNTERS];   /* every counter of rig_counters.def */
  uint64_t insns_min, insns_max; /* per call: shows whether a cost varies */
};

/* What a marker callback needs from translation time. */
struct marker {
  struct plugin_rig *rig;
  uint64_t after; /* instructions of its TB after it, already counted */
};

struct plugin_region {
  GMutex lock;
  GHashTable *sums;     /* tag -> struct region_sum */
  GHashTable *maint_at; /* vaddrs of translated dc/ic operations */
  uint64_t unbalanced;  /* begin while open, end while closed */
};

struct plugin_region *plugin_region_new(void)
{
  struct plugin_region *r = g_new0(struct plugin_region, 1);
  g_mutex_init(&r->lock);
  r->sums = g_hash_table_new_full(g_int64_hash, g_int64_equal, NULL, g_free);
  r->maint_at = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL);
  return r;
}

void plugin_region_free(struct plugin_region *r)
{
  if (r) {
    g_clear_pointer(&r->sums, g_hash_table_unref);
    g_clear_pointer(&r->maint_at, g_hash_table_unref);
    g_mutex_clear(&r->lock);
    g_free(r);
  }
}

/* ---- execution callbacks ------------------------------------------------- */

static void on_begin(unsigned vcpu, void *udata)
{
  const struct marker *m = udata;
  struct plugin_rig *rig = m->rig;
  uint64_t tag = plugin_regs_read_x(rig->regs, TAG_REG);
  uint64_t now[RIG_NCOUNTERS];
  plugin_vcpu_counter_totals(rig, now);
  now[RIG_COUNTER_insns] -= m->after; /* the region starts right after the marker */
  struct plugin_vcpu *v = plugin_vcpu(rig, vcpu);
  if (v->region.open) {
    g_mutex_lock(&rig->region->lock);
    rig->region->unbalanced++;
    g_mutex_unlock(&rig->region->lock);
  }
  v->region.open = 1;
  v->region.tag = tag;
  for (size_t c = 0; c < RIG_NCOUNTERS; c++) {
    v->region.start[c] = now[c];
  }
}

static void on_end(unsigned vcpu, void *udata)
{
  const struct marker *m = udata;
  struct plugin_rig *rig = m->rig;
  struct plugin_region *reg = rig->region;
  uint64_t now[RIG_NCOUNTERS];
  plugin_vcpu_counter_totals(rig, now);
  now[RIG_COUNTER_insns] -= m->after + 1; /* it ends before the marker */
  struct plugin_vcpu *v = plugin_vcpu(rig, vcpu);
  g_mutex_lock(&reg->lock);
  if (!v->region.open) {
    reg->unbalanced++;
    g_mutex_unlock(&reg->lock);
    return;
  }
  v->region.open = 0;
  uint64_t tag = v->region.tag;
  struct region_sum *r = g_hash_table_lookup(reg->sums, &tag);
  if (!r) {
    r = g_new0(struct region_sum, 1);
    r->tag = tag;
    r->insns_min = UINT64_MAX;
    g_hash_table_insert(reg->sums, &r->tag, r);
  }
  r->calls++;
  for (size_t c = 0; c < RIG_NCOUNTERS; c++) {
    r->sum[c] += now[c] - v->region.start[c];
  }
  uint64_t insns = now[RIG_COUNTER_insns] - v->region.start[RIG_COUNTER_insns];
  r->insns_min = MIN(r->insns_min, insns);
  r->insns_max = MAX(r->insns_max, insns);
  g_mutex_unlock(&reg->lock);
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

static bool is_maintenance(enum plugin_insn_kind k)
{
  return k == PLUGIN_INSN_DC_CLEAN || k == PLUGIN_INSN_IC_IVAU || k == PLUGIN_INSN_IC_IALLU;
}

/* Longest loop body (instructions) taken for a maintenance loop: longer
 * backward branches are outer loops, whatever their range holds. */
#define MAX_LOOP_BODY 64

static void count_loop(struct plugin_rig *rig, struct qemu_plugin_tb *tb, const uint32_t *words,
                       const enum plugin_insn_kind *kinds, size_t n)
{
  struct plugin_region *reg = rig->region;
  uint64_t start = qemu_plugin_insn_vaddr(qemu_plugin_tb_get_insn(tb, 0));
  uint64_t last_pc = start + 4 * (n - 1);
  bool maintains = false;
  g_mutex_lock(&reg->lock);
  for (size_t i = 0; i < n; i++) {
    if (is_maintenance(kinds[i])) {
      uint64_t *key = g_new(uint64_t, 1);
      *key = start + 4 * i;
      g_hash_table_add(reg->maint_at, key);
    }
  }
  uint64_t target;
  if (branch_target(words[n - 1], last_pc, &target) && target <= last_pc &&
      last_pc - target < 4 * MAX_LOOP_BODY && (last_pc - target) % 4 == 0) {
    for (uint64_t pc = target; pc <= last_pc && !maintains; pc += 4) {
      maintains = g_hash_table_contains(reg->maint_at, &pc);
    }
  }
  g_mutex_unlock(&reg->lock);
  if (maintains) {
    qemu_plugin_register_vcpu_insn_exec_inline_per_vcpu(
        qemu_plugin_tb_get_insn(tb, n - 1), QEMU_PLUGIN_INLINE_ADD_U64,
        PLUGIN_VCPU_U64(rig, counts.loop_insns), (last_pc - target) / 4 + 1);
  }
}

void plugin_region_instrument_tb(struct plugin_rig *rig, struct qemu_plugin_tb *tb,
                                 const uint32_t *words, const enum plugin_insn_kind *kinds,
                                 size_t n)
{
  if (n == 0) {
    return;
  }
  count_loop(rig, tb, words, kinds, n);
  for (size_t i = 0; i < n; i++) {
    if (kinds[i] != PLUGIN_INSN_MARK_BEGIN && kinds[i] != PLUGIN_INSN_MARK_END) {
      continue;
    }
    struct marker *m = plugin_keep_until_exit(rig->keep, g_new0(struct marker, 1));
    m->rig = rig;
    m->after = n - 1 - i;
    if (kinds[i] == PLUGIN_INSN_MARK_BEGIN) {
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

/* "regions": [{"tag": T, "calls": N, "insns": SUM, ..., "insns_min": A,
 * "insns_max": B}, ...] sorted by tag; sums over the calls, so a reader
 * divides by "calls". An unbalanced marker pair is reported, never hidden. */
void plugin_region_report(struct plugin_region *reg, JsonObject *report)
{
  g_mutex_lock(&reg->lock);
  GPtrArray *list = g_ptr_array_new();
  GHashTableIter it;
  gpointer value;
  g_hash_table_iter_init(&it, reg->sums);
  while (g_hash_table_iter_next(&it, NULL, &value)) {
    g_ptr_array_add(list, value);
  }
  g_ptr_array_sort(list, by_tag);
  JsonArray *regions = json_array_new();
  for (guint i = 0; i < list->len; i++) {
    const struct region_sum *r = g_ptr_array_index(list, i);
    JsonObject *o = json_object_new();
    json_object_set_int_member(o, "tag", (gint64)r->tag);
    json_object_set_int_member(o, "calls", (gint64)r->calls);
    for (size_t c = 0; c < RIG_NCOUNTERS; c++) {
      json_object_set_int_member(o, rig_counters[c].name, (gint64)r->sum[c]);
    }
    json_object_set_int_member(o, "insns_min", (gint64)r->insns_min);
    json_object_set_int_member(o, "insns_max", (gint64)r->insns_max);
    json_array_add_object_element(regions, o);
  }
  json_object_set_array_member(report, "regions", regions);
  json_object_set_int_member(report, "region_unbalanced", (gint64)reg->unbalanced);
  g_ptr_array_free(list, true);
  g_mutex_unlock(&reg->lock);
}
