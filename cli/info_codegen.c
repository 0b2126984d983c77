/* Instruction encoders for the selftest's generated functions. */
#include "info_codegen.h"

/* A small deterministic generator: the selftest must be reproducible. */
static uint32_t next(uint32_t *state)
{
  /* xorshift32 (Marsaglia 2003); never 0 if not started at 0. */
  uint32_t x = *state ? *state : 0x9e3779b9u;
  x ^= x << 13;
  x ^= x >> 17;
  x ^= x << 5;
  *state = x;
  return x;
}

/* MOVZ (32-bit, sf=0): 0 10 100101 hw imm16 Rd -> 0x52800000 | imm16 << 5 | Rd. */
uint32_t info_a64_movz_w0(uint16_t imm)
{
  return 0x52800000u | ((uint32_t)imm << 5);
}

/* MOVK (32-bit) with hw=1 (LSL #16): 0x72a00000 | imm16 << 5 | Rd. */
uint32_t info_a64_movk_w0_lsl16(uint16_t imm)
{
  return 0x72a00000u | ((uint32_t)imm << 5);
}

/* ADD (immediate, 32-bit, sh=0): 0x11000000 | imm12 << 10 | Rn << 5 | Rd, Rn = Rd = w0. */
uint32_t info_a64_add_w0_imm(uint16_t imm12)
{
  return 0x11000000u | ((uint32_t)(imm12 & 0xfff) << 10);
}

uint32_t info_codegen_a64(uint32_t *out, unsigned nwords, uint32_t seed)
{
  if (nwords < 3) {
    nwords = 3;
  }
  uint32_t state = seed;
  uint16_t lo = (uint16_t)next(&state);
  uint16_t hi = (uint16_t)next(&state);
  unsigned n = 0;
  out[n++] = info_a64_movz_w0(lo);
  uint32_t low_sum = lo;
  for (unsigned i = 0; i + 3 < nwords; i++) {
    /* 1..4095: never 0, so that a stale word holding another add of 0
     * would still be caught by the running sum of the rest. */
    uint16_t imm = (uint16_t)(next(&state) % 4095 + 1);
    out[n++] = info_a64_add_w0_imm(imm);
    low_sum += imm;
  }
  /* movk replaces bits [31:16] and keeps [15:0] of the running sum. */
  out[n++] = info_a64_movk_w0_lsl16(hi);
  out[n++] = INFO_A64_RET;
  return ((uint32_t)hi << 16) | (low_sum & 0xffff);
}

size_t info_codegen_x86_64_size(unsigned nops)
{
  return 5 + 5 * (size_t)nops + 1;
}

static void put_u32le(uint8_t *p, uint32_t v)
{
  p[0] = (uint8_t)v;
  p[1] = (uint8_t)(v >> 8);
  p[2] = (uint8_t)(v >> 16);
  p[3] = (uint8_t)(v >> 24);
}

uint32_t info_codegen_x86_64(uint8_t *out, unsigned nops, uint32_t seed)
{
  uint32_t state = seed;
  uint32_t value = next(&state);
  size_t n = 0;
  out[n++] = 0xb8; /* mov eax, imm32 */
  put_u32le(out + n, value);
  n += 4;
  for (unsigned i = 0; i < nops; i++) {
    uint32_t imm = next(&state) | 1;
    out[n++] = 0x05; /* add eax, imm32 */
    put_u32le(out + n, imm);
    n += 4;
    value += imm;
  }
  out[n] = 0xc3; /* ret */
  return value;
}
