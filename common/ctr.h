/*
 * CTR_EL0, the Cache Type Register (Arm ARM D19.2.34). 64 bits: FEAT_MTE2
 * adds TminLine at [37:32], so never truncate it to 32.
 */
#ifndef JITFLUSH_INTERNAL_CTR_H
#define JITFLUSH_INTERNAL_CTR_H

#include <stdbool.h>
#include <stdint.h>

#define JF_CTR_IMINLINE_SHIFT 0
#define JF_CTR_L1IP_SHIFT 14
#define JF_CTR_DMINLINE_SHIFT 16
#define JF_CTR_ERG_SHIFT 20
#define JF_CTR_CWG_SHIFT 24
#define JF_CTR_IDC_BIT 28
#define JF_CTR_DIC_BIT 29
#define JF_CTR_TMINLINE_SHIFT 32
#define JF_CTR_LINE_MASK UINT64_C(0xf) /* IminLine, DminLine, CWG, ERG */
#define JF_CTR_RES1_BIT 31

struct jf_ctr {
  unsigned iline;    /* bytes: 4 << IminLine */
  unsigned dline;    /* bytes: 4 << DminLine */
  bool idc;          /* D-cache clean to PoU not required for I/D coherence */
  bool dic;          /* I-cache invalidate to PoU not required */
  unsigned l1ip;     /* 0 VPIPT, 1 AIVIVT, 2 VIPT, 3 PIPT */
  unsigned cwg;      /* bytes, 0 when not given */
  unsigned erg;      /* bytes, 0 when not given */
  unsigned tminline; /* bytes of the tag granule line, 0 when not given */
};

struct jf_ctr jf_ctr_decode(uint64_t ctr);

/* log2 of a power-of-two line size in bytes (4..2^31). */
unsigned jf_log2_line(unsigned bytes);

#endif
