/*
 * Instruction decoding for the jitflush plugin, done once per instruction
 * at translation time. This is the only file that names Capstone's AArch64
 * identifiers: Capstone 4 and 5 spell them ARM64_*, Capstone 6 renamed the
 * architecture to AArch64 (CS_ARCH_AARCH64, AARCH64_INS_*), so the mapping
 * lives in the small block of macros below.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <capstone/capstone.h>

#include <glib.h>

#include "plugin_decode.h"

#define PLUGIN_DECODER_ERROR (g_quark_from_static_string("jf-decoder-error"))

/* Only the prefixes differ between the versions; the names are built from
 * them once, below. */
#if CS_API_MAJOR >= 6
#define PLUGIN_CS_ARCH CS_ARCH_AARCH64
#define PLUGIN_NAME(kind, x) AARCH64_##kind##_##x
#define PLUGIN_DETAIL(d) ((d)->aarch64)
#define PLUGIN_CC(v6_name, v4_name) AArch64CC_##v6_name
#define PLUGIN_BARRIER(x) AARCH64_DB_##x
#else
#define PLUGIN_CS_ARCH CS_ARCH_ARM64
#define PLUGIN_NAME(kind, x) ARM64_##kind##_##x
#define PLUGIN_DETAIL(d) ((d)->arm64)
#define PLUGIN_CC(v6_name, v4_name) ARM64_CC_##v4_name
#define PLUGIN_BARRIER(x) ARM64_BARRIER_##x
#endif
#define PLUGIN_INS(x) PLUGIN_NAME(INS, x)
#define PLUGIN_OP(x) PLUGIN_NAME(OP, x)
#define PLUGIN_REG(x) PLUGIN_NAME(REG, x)
#define PLUGIN_CC_UNCONDITIONAL(cc)                                                                \
  ((cc) == PLUGIN_CC(Invalid, INVALID) || (cc) == PLUGIN_CC(AL, AL) || (cc) == PLUGIN_CC(NV, NV))
#define PLUGIN_BARRIER_LD_ONLY(b)                                                                  \
  ((b) == PLUGIN_BARRIER(OSHLD) || (b) == PLUGIN_BARRIER(NSHLD) || (b) == PLUGIN_BARRIER(ISHLD) || \
   (b) == PLUGIN_BARRIER(LD))

/*
 * The maintenance instructions are all SYS #op1, Cn, Cm, #op2, Xt
 * (Arm ARM, "A64 system instructions for cache maintenance"). Capstone
 * 4 knows the ARMv8.0 ones by name but prints dc cvap / dc cvadp (ARMv8.2)
 * as plain "sys", and the naming of the operation operands differs between
 * versions, so the operation is taken from the encoding fields, which every
 * version reports the same way; Capstone still decides that the word is a
 * valid DC/IC/SYS at all.
 */
#define SYS_ENC(op1, crn, crm, op2)                                                                \
  (((uint32_t)(op1) << 16) | ((uint32_t)(crn) << 12) | ((uint32_t)(crm) << 8) |                    \
   ((uint32_t)(op2) << 5))
#define SYS_FIELDS_MASK SYS_ENC(7, 15, 15, 7)

static const struct {
  uint32_t fields;
  enum plugin_insn_kind kind;
} maintenance_ops[] = {
    {SYS_ENC(3, 7, 11, 1), PLUGIN_INSN_DC_CLEAN}, /* dc cvau */
    {SYS_ENC(3, 7, 10, 1), PLUGIN_INSN_DC_CLEAN}, /* dc cvac */
    {SYS_ENC(3, 7, 14, 1), PLUGIN_INSN_DC_CLEAN}, /* dc civac */
    {SYS_ENC(3, 7, 12, 1), PLUGIN_INSN_DC_CLEAN}, /* dc cvap (ARMv8.2) */
    {SYS_ENC(3, 7, 13, 1), PLUGIN_INSN_DC_CLEAN}, /* dc cvadp (ARMv8.5) */
    {SYS_ENC(0, 7, 6, 1), PLUGIN_INSN_DC_CLEAN},  /* dc ivac (EL1, kept: the
                                                  model treats it as a clean
                                                  plus invalidate of D) */
    {SYS_ENC(3, 7, 4, 1), PLUGIN_INSN_DC_ZVA},    /* dc zva */
    {SYS_ENC(3, 7, 5, 1), PLUGIN_INSN_IC_IVAU},   /* ic ivau */
    {SYS_ENC(0, 7, 5, 0), PLUGIN_INSN_IC_IALLU},  /* ic iallu */
    {SYS_ENC(0, 7, 1, 0), PLUGIN_INSN_IC_IALLU},  /* ic ialluis */
};

struct plugin_decoder {
  csh handle;
  cs_insn *scratch; /* NULL until Capstone is first needed */
  /* Translation is serialised by QEMU's mmap_lock in linux-user, but the
   * scratch cs_insn must never be shared, so it has its own lock. */
  GMutex lock;
};

/* Capstone is opened at the first word that needs it, not at install:
 * loading it was a measurable part of a short program's run, and most
 * words never need it (docs/BENCHMARKS.md, "Start-up"). */
static bool open_capstone(struct plugin_decoder *d, GError **error)
{
  const char *problem = NULL;
  if (cs_open(PLUGIN_CS_ARCH, CS_MODE_LITTLE_ENDIAN, &d->handle) != CS_ERR_OK) {
    problem = "capstone: cs_open(AArch64) failed";
  } else if (cs_option(d->handle, CS_OPT_DETAIL, CS_OPT_ON) != CS_ERR_OK) {
    problem = "capstone: cannot enable instruction details";
  } else if (!(d->scratch = cs_malloc(d->handle))) {
    problem = "capstone: cs_malloc failed";
  }
  if (problem) {
    if (d->handle) {
      cs_close(&d->handle);
    }
    g_set_error_literal(error, PLUGIN_DECODER_ERROR, 1, problem);
    return false;
  }
  return true;
}

struct plugin_decoder *plugin_decoder_open(GError **error)
{
  (void)error;
  struct plugin_decoder *d = g_new0(struct plugin_decoder, 1);
  g_mutex_init(&d->lock);
  return d;
}

void plugin_decoder_close(struct plugin_decoder *d)
{
  if (!d) {
    return;
  }
  if (d->scratch) {
    cs_free(d->scratch, 1);
    cs_close(&d->handle);
  }
  g_mutex_clear(&d->lock);
  g_free(d);
}

static bool barrier_is_ld_only(const cs_insn *insn)
{
  const cs_detail *d = insn->detail;
  if (!d) {
    return false;
  }
  for (unsigned i = 0; i < PLUGIN_DETAIL(d).op_count; i++) {
    if (PLUGIN_DETAIL(d).operands[i].type == PLUGIN_OP(BARRIER)) {
      return PLUGIN_BARRIER_LD_ONLY(PLUGIN_DETAIL(d).operands[i].barrier);
    }
  }
  return false;
}

/* B, BL, BRK, HVC, ISB, NOP, SMC, SVC: the instructions the Arm ARM's
 * "concurrent modification and execution of instructions" rule lets one
 * thread execute while another rewrites them. Only the unconditional B. */
static bool is_cmodx_safe(const cs_insn *insn)
{
  switch (insn->id) {
  case PLUGIN_INS(B):
    return insn->detail && PLUGIN_CC_UNCONDITIONAL(PLUGIN_DETAIL(insn->detail).cc);
  case PLUGIN_INS(BL):
  case PLUGIN_INS(BRK):
  case PLUGIN_INS(HVC):
  case PLUGIN_INS(ISB):
  case PLUGIN_INS(NOP):
  case PLUGIN_INS(SMC):
  case PLUGIN_INS(SVC):
    return true;
  default:
    return false;
  }
}

/*
 * Stores with release semantics, by encoding (Arm ARM C4.1, the load/store
 * group's "load/store ordered", "load/store exclusive", "compare and swap",
 * "atomic memory operations" and "LDAPR/STLR (unscaled immediate)"
 * tables): the instructions a thread publishes data with, and the only
 * ones after which the architecture promises another thread sees its
 * earlier stores without a barrier.
 */
static bool is_release_store(uint32_t word)
{
  static const struct {
    uint32_t mask, value;
  } release[] = {
      {0x3fe00000, 0x08800000}, /* STLR, STLLR (o2=1 L=0 o1=0) */
      {0x3fa08000, 0x08a08000}, /* CASL, CASAL (o2=1 o1=1 o0=1) */
      {0x3fc08000, 0x08008000}, /* STLXR, STLXP, CASPL, CASPAL (o2=0 L=0 o0=1) */
      {0x3f600c00, 0x38600000}, /* LD<op>L, LD<op>AL, SWPL, SWPAL (V=0 R=1) */
      {0x3fe00c00, 0x19000000}, /* STLURB, STLURH, STLUR (opc=00) */
  };
  for (size_t i = 0; i < G_N_ELEMENTS(release); i++) {
    if ((word & release[i].mask) == release[i].value) {
      return true;
    }
  }
  return false;
}

/*
 * The words of the branch and system group whose answer the encoding alone
 * gives, exactly as Capstone's decode below would (tests/emu/plugin/plugin_decode_test.cc
 * compares the two over every such class): true with *OUT filled. The
 * rest (DSB, ISB, CLREX, MSR immediate and other system words) goes to
 * Capstone. Encodings from the Arm ARM's A64 "branches, exception
 * generating and system instructions" tables.
 */
static bool decode_by_encoding(uint32_t word, struct plugin_decoded *out)
{
  /* B and BL (imm26): CMODX-safe. */
  if ((word & 0x7c000000) == 0x14000000) {
    out->cmodx_safe = true;
    return true;
  }
  /* B.cond: safe only as B.AL or B.NV, which branch always. Bit 4 set is
   * BC.cond (FEAT_HBC), which no version of Capstone calls safe. */
  if ((word & 0xff000010) == 0x54000000) {
    out->cmodx_safe = (word & 0xe) == 0xe;
    return true;
  }
  /* CBZ, CBNZ, TBZ, TBNZ and the register branches (BR, BLR, RET, ERET,
   * the pointer-authenticated forms): none is safe, none is a kind. */
  if ((word & 0x7c000000) == 0x34000000 || (word & 0xfe000000) == 0xd6000000) {
    return true;
  }
  /* SVC, HVC, SMC (opc 000, LL 01..11) and BRK (opc 001, LL 00): safe. */
  if ((word & 0xffe0001c) == 0xd4000000 && (word & 3) != 0) {
    out->cmodx_safe = true;
    return true;
  }
  if ((word & 0xffe0001f) == 0xd4200000) {
    out->cmodx_safe = true;
    return true;
  }
  /* MRS and MSR (register, L either way) of any other system register:
   * no kind. */
  if ((word & 0xffd00000) == 0xd5100000) {
    return true;
  }
  /* SYS (L = 0, op0 = 01): cache maintenance by its fields, as below. */
  if ((word & 0xfff80000) == 0xd5080000) {
    uint32_t fields = word & SYS_FIELDS_MASK;
    for (size_t i = 0; i < G_N_ELEMENTS(maintenance_ops); i++) {
      if (maintenance_ops[i].fields == fields) {
        out->kind = maintenance_ops[i].kind;
        break;
      }
    }
    return true;
  }
  /* The hints: NOP is safe; the others (YIELD, WFE, BTI, PACIASP, ...)
   * are neither safe nor a kind. DMB's options are decided from CRm, as
   * below. */
  if ((word & 0xfffff01f) == 0xd503201f) {
    out->cmodx_safe = word == 0xd503201f;
    return true;
  }
  if ((word & 0xfffff0ff) == 0xd50330bf) {
    unsigned crm = (word >> 8) & 0xf;
    out->kind = PLUGIN_INSN_DMB;
    out->dmb_full = (crm & 3) == 3 || (crm & 3) == 0;
    out->dmb_orders_stores = (crm & 3) != 1;
    out->publishes = out->dmb_orders_stores;
    return true;
  }
  return false;
}

struct plugin_decoded plugin_decode(struct plugin_decoder *d, uint32_t word)
{
  struct plugin_decoded out = {.kind = PLUGIN_INSN_OTHER, .reg = word & 0x1f};

  /* The two ID registers are matched on the encoding, as the rig's
   * contract states it: MRS Xt, CTR_EL0 is 0xd53b0020 | Rt and
   * MRS Xt, MIDR_EL1 is 0xd5380000 | Rt (op0=3 op1=3/0 CRn=0 CRm=0). */
  if ((word & ~UINT32_C(0x1f)) == 0xd53b0020) {
    out.kind = PLUGIN_INSN_MRS_CTR;
    return out;
  }
  if ((word & ~UINT32_C(0x1f)) == 0xd5380000) {
    out.kind = PLUGIN_INSN_MRS_MIDR;
    return out;
  }
  /* The bench's region markers are HINT #0x7c and #0x7d (0xd503201f |
   * imm << 5): unallocated hints, which the Arm ARM requires to execute as
   * NOPs, so a marked program runs unchanged on hardware and plain QEMU. */
  if (word == 0xd5032f9f) {
    out.kind = PLUGIN_INSN_MARK_BEGIN;
    return out;
  }
  if (word == 0xd5032fbf) {
    out.kind = PLUGIN_INSN_MARK_END;
    return out;
  }

  /* FEAT_MOPS prologues, CPYFP/CPYP and SETP/SETGP (all their variants):
   * sz=00 011 o0 01 op1 0 Rs op2 01 Rn Rd, with op1 00 for the copies and
   * 11 for the sets, and op2[3:2] 00 for a set's prologue (Arm ARM, the
   * memory copy and memory set instructions). QEMU's helpers write the
   * memory without a memory callback, so the plugin records the whole
   * destination [Xd, Xd + Xn) at the prologue, before any of it is written. */
  if ((word & 0xfbc00c00) == 0x19000400 || (word & 0xfbe0cc00) == 0x19c00400) {
    out.kind = PLUGIN_INSN_MOPS;
    out.reg = word & 31;
    out.reg2 = (word >> 5) & 31;
    return out;
  }

  /* Everything decided below (DC, IC, SYS, ISB, DSB and the CMODX-safe
   * B, BL, BRK, HVC, NOP, SMC, SVC) is in the "branches, exception
   * generating and system instructions" group, op0 = 101x in bits 28:26
   * = 101 (Arm ARM C4.1, the A64 top-level encoding table). Most code is
   * data processing, loads and stores: those skip Capstone, whose detailed
   * decode was a large part of the plugin's translation time. */
  if (((word >> 26) & 0x7) != 0x5) {
    out.publishes = is_release_store(word);
    return out;
  }
  if (decode_by_encoding(word, &out)) {
    return out;
  }
  return plugin_decode_with_capstone(d, word);
}

struct plugin_decoded plugin_decode_with_capstone(struct plugin_decoder *d, uint32_t word)
{
  struct plugin_decoded out = {.kind = PLUGIN_INSN_OTHER, .reg = word & 0x1f};
  uint8_t bytes[4] = {(uint8_t)word, (uint8_t)(word >> 8), (uint8_t)(word >> 16),
                      (uint8_t)(word >> 24)};
  const uint8_t *code = bytes;
  size_t size = sizeof(bytes);
  uint64_t address = 0;

  g_mutex_lock(&d->lock);
  GError *err = NULL;
  if (!d->scratch && !open_capstone(d, &err)) {
    /* Nothing at translation can report an error: the run cannot go on
     * with a word it cannot classify. */
    fprintf(stderr, "jitflush plugin: %s\n", err->message);
    _exit(127);
  }
  if (!cs_disasm_iter(d->handle, &code, &size, &address, d->scratch)) {
    g_mutex_unlock(&d->lock);
    return out;
  }
  switch (d->scratch->id) {
  case PLUGIN_INS(DC):
  case PLUGIN_INS(IC):
  case PLUGIN_INS(SYS):
    /* SYS (L=0) space: 1101 0101 0000 1 op1 CRn CRm op2 Rt */
    if ((word & 0xfff80000) == 0xd5080000) {
      uint32_t fields = word & SYS_FIELDS_MASK;
      for (size_t i = 0; i < G_N_ELEMENTS(maintenance_ops); i++) {
        if (maintenance_ops[i].fields == fields) {
          out.kind = maintenance_ops[i].kind;
          break;
        }
      }
    }
    break;
  case PLUGIN_INS(ISB):
    out.kind = PLUGIN_INSN_ISB;
    break;
  case PLUGIN_INS(DMB): {
    /* DMB <option>: CRm [11:8]; xx01 orders loads only (*LD), xx10
     * stores only (*ST), xx11 both; the reserved xx00 behave as SY (Arm
     * ARM, DMB). The model needs to know both. */
    unsigned crm = (word >> 8) & 0xf;
    out.kind = PLUGIN_INSN_DMB;
    out.dmb_full = (crm & 3) == 3 || (crm & 3) == 0;
    out.dmb_orders_stores = (crm & 3) != 1;
    out.publishes = out.dmb_orders_stores;
    break;
  }
  case PLUGIN_INS(DSB):
    out.kind = PLUGIN_INSN_DSB;
    /* The Arm ARM completes cache maintenance at a DSB whose required
     * access types include stores; a DSB *LD only waits for loads. */
    out.dsb_completes = !barrier_is_ld_only(d->scratch);
    break;
  default:
    break;
  }
  out.cmodx_safe = is_cmodx_safe(d->scratch);
  g_mutex_unlock(&d->lock);
  return out;
}

#define REG_BIT(r) ((r) < 31 ? UINT32_C(1) << (r) : 0)
#define RT(w) ((w)&31)
#define RN(w) (((w) >> 5) & 31)
#define RT2(w) (((w) >> 10) & 31)
#define RM(w) (((w) >> 16) & 31)

/*
 * The general registers WORD loads from memory (0: none, or not a load
 * of a general register), and in *BASE its base register (32: none), from
 * the load/store group's classes (Arm ARM C4.1.66 onwards): exclusive and
 * ordered (L, bit 22; compare and swap returns the old value in Rs), literal
 * (no base), pair (L), register (opc, bits 23:22, and the atomic memory
 * operations, which return the old value in Rt), and RCpc unscaled (opc
 * not 00). SIMD and FP loads write no general register.
 */
static uint32_t loaded_regs(uint32_t word, unsigned *base)
{
  *base = 32;
  if (((word >> 25) & 5) != 4) {
    return 0; /* not the load/store group (op0 = x1x0) */
  }
  bool simd = (word >> 26) & 1;
  if ((word & 0x3f000000) == 0x08000000) { /* exclusive, ordered, CAS */
    *base = RN(word);
    bool cas = (word >> 21) & 1 && (((word >> 23) & 1) || !(word >> 31));
    if (cas) {
      return REG_BIT(RM(word)) | (((word >> 23) & 1) ? 0 : REG_BIT(RM(word) + 1));
    }
    return ((word >> 22) & 1) ? REG_BIT(RT(word)) | REG_BIT(RT2(word)) : 0;
  }
  if ((word & 0x3b000000) == 0x18000000) {                    /* literal */
    return simd || (word >> 30) == 3 ? 0 : REG_BIT(RT(word)); /* PRFM: none */
  }
  if ((word & 0x38000000) == 0x28000000) { /* pair */
    *base = RN(word);
    return !simd && ((word >> 22) & 1) ? REG_BIT(RT(word)) | REG_BIT(RT2(word)) : 0;
  }
  if ((word & 0x3f000c00) == 0x19000000) { /* RCpc unscaled */
    *base = RN(word);
    return ((word >> 22) & 3) ? REG_BIT(RT(word)) : 0;
  }
  if ((word & 0x38000000) == 0x38000000 && !simd) { /* register */
    *base = RN(word);
    bool atomic = (word & 0x3f200c00) == 0x38200000;
    unsigned opc = (word >> 22) & 3;
    bool prfm = (word >> 30) == 3 && opc == 2;
    return atomic || (opc != 0 && !prfm) ? REG_BIT(RT(word)) : 0;
  }
  return 0;
}

bool plugin_decode_after_load(const uint32_t *words, size_t k, unsigned reg)
{
  if (reg >= 31) {
    return false;
  }
  uint32_t tainted = 0;
  bool flags = false;
  for (size_t i = 0; i < k; i++) {
    uint32_t w = words[i];
    unsigned base;
    uint32_t loaded = loaded_regs(w, &base);
    if (loaded || base < 32) {
      if (base == 31) {
        /* A load from the stack reads the thread's own spill: a dc that
         * depends on it is ordered after that load only, not after the
         * load that saw another thread's store. */
        tainted &= ~loaded;
      } else if (base == reg && loaded) {
        return true; /* a load from the address in REG itself */
      } else {
        tainted |= loaded;
      }
      continue;
    }
    if (((w >> 26) & 7) != 4 && ((w >> 25) & 7) != 5) {
      continue; /* not data processing (immediate: 100x, register: x101) */
    }
    uint32_t sources = REG_BIT(RN(w)) | REG_BIT(RM(w)) | REG_BIT(RT2(w));
    bool reads_flags = (w & 0x1fe00000) == 0x1a800000; /* conditional select */
    if ((sources & tainted) || (reads_flags && flags)) {
      tainted |= REG_BIT(RT(w));
      flags = true;
    }
  }
  return (tainted & REG_BIT(reg)) != 0;
}
