/*
 * Store groups (model_store_groups.h). Encodings are from the Arm ARM (DDI 0487),
 * "A64 Instruction Set Encoding": op0 = bits [28:25] picks the class, and
 * within "Loads and Stores" bits [29:27] and [25:24] the form.
 */
#include "model_store_groups.h"

#include <stdbool.h>
#include <string.h>

#define NUM_BASES 32 /* x0..x30, and 31: SP, the only base register 31 can be */
#define SP 31
/* Offsets further than this from the leader end the group: no group spans
 * more than a few pages, so a range never leaves the few the callback
 * looks up. */
#define MAX_SPAN (INT64_C(1) << 16)

/* A store of one general-purpose register at an immediate offset from
 * Rn: STR, STRB, STRH (unsigned offset, pre- and post-index), STUR*, STTR*.
 * QEMU makes each of them exactly one access of BYTES. */
struct simple_store {
  unsigned rn;
  int64_t offset;    /* the address, relative to Rn before the instruction */
  int64_t writeback; /* Rn changes by this after it */
  unsigned bytes;
};

/* imm9, bits [20:12], sign-extended. */
static int64_t simm9(uint32_t w)
{
  return (int64_t)((int32_t)(w << 11) >> 23);
}

static bool decode_simple_store(uint32_t w, struct simple_store *s)
{
  unsigned size = w >> 30;
  unsigned rt = w & 31;
  s->rn = (w >> 5) & 31;
  s->bytes = 1u << size;
  s->writeback = 0;
  /* size 111 V=0 01 opc=00 imm12 Rn Rt: STR (immediate, unsigned offset) */
  if ((w & 0x3fc00000) == 0x39000000) {
    s->offset = (int64_t)((w >> 10) & 0xfff) << size;
    return true;
  }
  /* size 111 V=0 00 opc=00 0 imm9 idx Rn Rt */
  if ((w & 0x3fe00000) != 0x38000000) {
    return false;
  }
  int64_t imm = simm9(w);
  /* With writeback, Rt == Rn is CONSTRAINED UNPREDICTABLE (unless Rn is
   * SP, where Rt = 31 is XZR): left to its own callback. */
  bool writeback_ok = rt != s->rn || s->rn == SP;
  switch ((w >> 10) & 3) {
  case 0: /* STUR */
  case 2: /* STTR: at EL0, the same access as STUR */
    s->offset = imm;
    return true;
  case 1: /* post-index */
    s->offset = 0;
    s->writeback = imm;
    return writeback_ok;
  default: /* pre-index */
    s->offset = imm;
    s->writeback = imm;
    return writeback_ok;
  }
}

unsigned model_simple_store_bytes(uint32_t word)
{
  struct simple_store s;
  return decode_simple_store(word, &s) ? s.bytes : 0;
}

/* Whether a load/store-class instruction certainly leaves Rn unchanged. */
static bool ldst_keeps_base(uint32_t w)
{
  switch ((w >> 27) & 7) {
  case 7: /* single register: unsigned offset; unscaled, unprivileged, register
             offset and atomics (bit 10 clear) have no writeback */
    return ((w >> 24) & 1) || !((w >> 10) & 1);
  case 5: /* pairs: no-allocate and signed offset (bit 23 clear) */
    return !((w >> 23) & 1);
  case 3: /* literal loads (no Rn); the rest (tags, RCpc) conservatively not */
    return ((w >> 24) & 3) == 0;
  case 1: /* exclusives and ordered; SIMD structures (V set) may post-index */
    return !((w >> 26) & 1);
  default:
    return false;
  }
}

/* Whether a data-processing instruction with Rd = 31 writes SP rather
 * than XZR: ADD/SUB (immediate) and (extended register) without S, and the
 * logical immediates other than ANDS. */
static bool writes_sp(uint32_t w)
{
  bool no_flags = !((w >> 29) & 1);
  if ((w & 0x1f000000) == 0x11000000) { /* add/sub immediate (and with tags) */
    return no_flags;
  }
  if ((w & 0x1f200000) == 0x0b200000) { /* add/sub extended register */
    return no_flags;
  }
  if ((w & 0x1f800000) == 0x12000000) { /* logical immediate */
    return ((w >> 29) & 3) != 3;
  }
  return false;
}

struct planner {
  int32_t open[NUM_BASES];     /* the group based on the register, or -1 */
  int64_t delta[NUM_BASES];    /* how far the register moved since its leader */
  int64_t lead_off[NUM_BASES]; /* the leader's address, relative to the register then */
};

static void end_group(struct planner *p, unsigned r)
{
  p->open[r] = -1;
}

/* An instruction other than a simple store: the groups whose base it may
 * write end. When in doubt, they end: that only costs a callback. */
static void end_groups_written(struct planner *p, uint32_t w)
{
  unsigned op0 = (w >> 25) & 0xf;
  if ((op0 & 0x5) == 0x4) { /* loads and stores: 31 in Rt, Rt2, Rs is XZR */
    unsigned form = (w >> 27) & 7;
    bool atomic = form == 7 && !((w >> 24) & 1) && ((w >> 21) & 1) && !((w >> 10) & 3);
    unsigned written[3] = {w & 31, SP, SP};
    if (form != 7) {
      written[1] = (w >> 10) & 31; /* Rt2 */
    }
    if (atomic || form == 1 || form == 3) {
      written[2] = (w >> 16) & 31; /* Rs: the status of STXR, the old value of CAS */
    }
    for (size_t i = 0; i < 3; i++) {
      if (written[i] != SP) {
        end_group(p, written[i]);
      }
    }
    /* CASP Ws/Xs, W/X(s+1), ...: 0 sz 001000 0 L 1 Rs o0 11111 Rn Rt
     * returns the old pair in Rs and Rs + 1 (Arm ARM, CASP). */
    if ((w & 0xbfa07c00) == 0x08207c00 && written[2] != SP) {
      end_group(p, (written[2] + 1) & 31);
    }
    if (!ldst_keeps_base(w)) {
      end_group(p, (w >> 5) & 31);
    }
    return;
  }
  if ((op0 & 0xe) == 0x8 || (op0 & 0x7) == 0x5 || (op0 & 0x7) == 0x7) {
    /* data processing (immediate, register, SIMD and FP): Rd */
    unsigned rd = w & 31;
    if (rd != SP || writes_sp(w)) {
      end_group(p, rd);
    }
    return;
  }
  /* Branches, exceptions, system instructions (cache maintenance,
   * barriers, mrs) and unallocated encodings: everything ends. */
  for (unsigned r = 0; r < NUM_BASES; r++) {
    end_group(p, r);
  }
}

/* Adds [LO, HI), written by INSN, to G: merged with the ranges of INSN
 * it overlaps or touches, and taken out of the others, so that each byte
 * names the instruction that wrote it last (a finding's writers are exact
 * per word, docs/FINDINGS.md); false when G would need more ranges than it
 * has. */
static bool add_range(struct model_store_group *g, int64_t lo, int64_t hi, uint32_t insn)
{
  if (lo < -MAX_SPAN || hi > MAX_SPAN) {
    return false;
  }
  struct model_store_range kept[2 * MODEL_STORE_GROUP_RANGES];
  uint32_t nkept = 0;
  for (uint32_t i = 0; i < g->nranges; i++) {
    const struct model_store_range *r = &g->range[i];
    int64_t r_lo = r->offset, r_hi = r->offset + (int64_t)r->bytes;
    if (r->last_insn == insn && r_lo <= hi && lo <= r_hi) {
      lo = r_lo < lo ? r_lo : lo;
      hi = r_hi > hi ? r_hi : hi;
    } else if (r_hi <= lo || hi <= r_lo) {
      kept[nkept++] = *r;
    } else {
      /* Overwritten in part: what lies outside [LO, HI) keeps its writer. */
      if (r_lo < lo) {
        kept[nkept++] =
            (struct model_store_range){(int32_t)r_lo, (uint32_t)(lo - r_lo), r->last_insn};
      }
      if (r_hi > hi) {
        kept[nkept++] =
            (struct model_store_range){(int32_t)hi, (uint32_t)(r_hi - hi), r->last_insn};
      }
    }
  }
  if (nkept >= MODEL_STORE_GROUP_RANGES) {
    return false;
  }
  kept[nkept++] = (struct model_store_range){(int32_t)lo, (uint32_t)(hi - lo), insn};
  memcpy(g->range, kept, nkept * sizeof(kept[0]));
  g->nranges = nkept;
  return true;
}

size_t model_groups_plan(const uint32_t *words, size_t n, enum model_store_role *role,
                         uint32_t *group_of, struct model_store_group *groups)
{
  struct planner p;
  size_t ngroups = 0;
  for (unsigned r = 0; r < NUM_BASES; r++) {
    p.open[r] = -1;
  }
  for (size_t i = 0; i < n; i++) {
    uint32_t w = words[i];
    struct simple_store s;
    role[i] = MODEL_STORE_OWN;
    group_of[i] = 0;
    if (!decode_simple_store(w, &s)) {
      end_groups_written(&p, w);
      continue;
    }
    unsigned r = s.rn;
    if (p.open[r] >= 0) {
      struct model_store_group *g = &groups[p.open[r]];
      int64_t lo = p.delta[r] + s.offset - p.lead_off[r];
      if (add_range(g, lo, lo + s.bytes, (uint32_t)i)) {
        role[i] = MODEL_STORE_MEMBER;
        group_of[i] = (uint32_t)p.open[r];
        p.delta[r] += s.writeback;
        if (p.delta[r] < -MAX_SPAN || p.delta[r] > MAX_SPAN) {
          end_group(&p, r);
        }
        continue;
      }
    }
    /* The first store through R since R last changed: a new group. */
    struct model_store_group *g = &groups[ngroups];
    g->leader = (uint32_t)i;
    g->nranges = 1;
    g->range[0] = (struct model_store_range){0, s.bytes, (uint32_t)i};
    role[i] = MODEL_STORE_LEADER;
    group_of[i] = (uint32_t)ngroups;
    p.open[r] = (int32_t)ngroups++;
    p.delta[r] = s.writeback;
    p.lead_off[r] = s.offset;
  }
  /* A leader alone needs no group: its own callback does the same. */
  for (size_t i = 0; i < n; i++) {
    if (role[i] == MODEL_STORE_LEADER) {
      const struct model_store_group *g = &groups[group_of[i]];
      if (g->nranges == 1 && g->range[0].offset == 0 && g->range[0].last_insn == i) {
        role[i] = MODEL_STORE_OWN;
      }
    }
  }
  return ngroups;
}
