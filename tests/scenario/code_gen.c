/* MAP_ANONYMOUS (mmap(2)) is not ISO C. */
#define _GNU_SOURCE
#include "code_gen.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include "a64_encode.h"

uint64_t sc_rng_next(struct sc_rng *rng)
{
  uint64_t z = (rng->state += 0x9e3779b97f4a7c15u);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
  return z ^ (z >> 31);
}

uint64_t sc_rng_below(struct sc_rng *rng, uint64_t bound)
{
  /* The modulo bias is irrelevant for picking lengths and offsets. */
  return sc_rng_next(rng) % bound;
}

uint64_t sc_apply_insn(uint32_t insn, uint64_t x0)
{
  uint64_t imm = (insn >> A64_IMM12_SHIFT) & 0xfffu;
  if (insn & A64_ADDSUB_LSL12)
    imm <<= 12;
  return (insn & A64_ADDSUB_MASK) == A64_SUB_X0_X0 ? x0 - imm : x0 + imm;
}

uint64_t sc_emit_chain(uint32_t *code, size_t count, uint64_t input, struct sc_rng *rng)
{
  uint64_t x0 = input;
  for (size_t i = 0; i + 1 < count; i++) {
    const uint64_t r = sc_rng_next(rng);
    /* Mostly small immediates; a shifted one now and then so the upper
     * bits of the result depend on the code too. Immediate 0 is avoided so
     * that every word changes the result. */
    const unsigned imm12 = 1 + (unsigned)((r >> 8) % 0xfff);
    const bool lsl12 = (r & 0xf) == 0;
    const uint32_t insn = (r & 0x10) ? a64_sub_x0(imm12, lsl12) : a64_add_x0(imm12, lsl12);
    code[i] = insn;
    x0 = sc_apply_insn(insn, x0);
  }
  code[count - 1] = A64_RET;
  return x0;
}

void *sc_map_code(const char *program, size_t bytes)
{
  void *p =
      mmap(NULL, bytes, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p != MAP_FAILED)
    return p;
  fprintf(stderr, "%s: mmap of %zu RWX bytes failed: %s\n", program, bytes, strerror(errno));
  return NULL;
}
