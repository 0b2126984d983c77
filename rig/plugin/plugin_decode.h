/*
 * Instruction decoding, once per instruction at translation time
 * (plugin_decode.c, the only file that knows Capstone's v4/v5 vs v6
 * AArch64 names).
 */
#ifndef JITFLUSH_EMU_PLUGIN_DECODE_H
#define JITFLUSH_EMU_PLUGIN_DECODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <glib.h>

#ifdef __cplusplus
extern "C" {
#endif

enum plugin_insn_kind {
  PLUGIN_INSN_OTHER,
  PLUGIN_INSN_MRS_CTR,  /* mrs xN, ctr_el0 */
  PLUGIN_INSN_MRS_MIDR, /* mrs xN, midr_el1 */
  PLUGIN_INSN_DC_CLEAN, /* dc cvau|cvac|civac|cvap|cvadp|ivac */
  PLUGIN_INSN_DC_ZVA,   /* a store of a zero block to the model */
  PLUGIN_INSN_IC_IVAU,
  PLUGIN_INSN_IC_IALLU, /* ic iallu / ic ialluis */
  PLUGIN_INSN_ISB,
  PLUGIN_INSN_DSB,
  PLUGIN_INSN_DMB,
  PLUGIN_INSN_MOPS,       /* a FEAT_MOPS prologue (cpyp, cpyfp, setp, ...): a store */
  PLUGIN_INSN_MARK_BEGIN, /* hint #0x7c: a measured region begins after it */
  PLUGIN_INSN_MARK_END,   /* hint #0x7d: the open region ends before it */
};

struct plugin_decoded {
  enum plugin_insn_kind kind;
  unsigned reg;           /* Xt (0..30, 31 = xzr) for mrs/dc/ic; Xd for MOPS */
  unsigned reg2;          /* Xn, the size, for MOPS */
  bool dsb_completes;     /* a DSB that waits for maintenance (not *LD) */
  bool dmb_full;          /* a DMB that orders loads and stores (not *LD, *ST) */
  bool dmb_orders_stores; /* a DMB that orders stores (not *LD) */
  bool cmodx_safe;        /* B, BL, BRK, HVC, ISB, NOP, SMC, SVC */
  /* A release store or release atomic, or a DMB that orders stores: after
   * it another thread may see the thread's earlier stores (a flag saying
   * that new code is ready). */
  bool publishes;
};

struct plugin_decoder;

/* Capstone is opened at the first word that needs it (a failure then ends
 * the process with a message); ERROR is kept for the callers' contract. */
struct plugin_decoder *plugin_decoder_open(GError **error);
void plugin_decoder_close(struct plugin_decoder *d);
/* Any thread. */
struct plugin_decoded plugin_decode(struct plugin_decoder *d, uint32_t insn);
/* A word of the branch and system group decoded by Capstone alone, without
 * the encoding shortcuts plugin_decode takes: what tests/emu/plugin/plugin_decode_test.cc
 * compares them with. */
struct plugin_decoded plugin_decode_with_capstone(struct plugin_decoder *d, uint32_t insn);

/* Whether register REG (0..30) as the instruction WORDS[K] reads it is
 * ordered after a load among WORDS[0..K), the instructions before it in
 * its block: its value comes from the load through registers or the flags
 * (an address or data dependency), or the load read from the address in
 * REG itself (the same location). Loads from the stack do not count: they
 * read the thread's own spills. Approximate in the lenient direction: any
 * register field of an instruction that reads a value from a load passes
 * it on, and only a load from the stack clears it. */
bool plugin_decode_after_load(const uint32_t *words, size_t k, unsigned reg);

#ifdef __cplusplus
}
#endif

#endif /* JITFLUSH_EMU_PLUGIN_DECODE_H */
