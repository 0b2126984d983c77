/* CTR_EL0 decoding. Field positions: Arm ARM D19.2.34 (CTR_EL0). */
#include "ctr.h"

/* Line fields hold log2 of the number of 4-byte words. */
static unsigned words_field_to_bytes(uint64_t ctr, unsigned shift)
{
  return 4u << ((ctr >> shift) & 0xf);
}

/* CWG and ERG use the same encoding, but 0 means "not provided". */
static unsigned optional_words_field_to_bytes(uint64_t ctr, unsigned shift)
{
  unsigned field = (unsigned)(ctr >> shift) & 0xf;
  return field ? 4u << field : 0;
}

struct jf_ctr jf_ctr_decode(uint64_t ctr)
{
  struct jf_ctr out;
  out.iline = words_field_to_bytes(ctr, JF_CTR_IMINLINE_SHIFT);
  out.dline = words_field_to_bytes(ctr, JF_CTR_DMINLINE_SHIFT);
  out.idc = (ctr >> JF_CTR_IDC_BIT) & 1;
  out.dic = (ctr >> JF_CTR_DIC_BIT) & 1;
  out.l1ip = (unsigned)(ctr >> JF_CTR_L1IP_SHIFT) & 3;
  out.cwg = optional_words_field_to_bytes(ctr, JF_CTR_CWG_SHIFT);
  out.erg = optional_words_field_to_bytes(ctr, JF_CTR_ERG_SHIFT);
  /* TminLine [37:32] is 6 bits wide (FEAT_MTE2); 0 means no tags. */
  unsigned tmin = (unsigned)(ctr >> JF_CTR_TMINLINE_SHIFT) & 0x3f;
  out.tminline = tmin ? 4u << (tmin & 0xf) : 0;
  return out;
}

unsigned jf_log2_line(unsigned bytes)
{
  unsigned log2 = 0;
  while (log2 < 31 && (1u << (log2 + 1)) <= bytes) {
    log2++;
  }
  return log2;
}
