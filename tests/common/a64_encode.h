/*
 * The AArch64 instruction encoders of the tests' generated code, in one
 * place for C (the scenario, patching and bench programs, the rig's guest)
 * and C++ (tests/common/a64_codegen.h). Each names its Arm ARM section;
 * every function the tests generate is a chain of these ending in RET.
 */
#ifndef JITFLUSH_TESTS_A64_ENCODE_H
#define JITFLUSH_TESTS_A64_ENCODE_H

#include <stdint.h>

#define A64_RET 0xd65f03c0u /* ret (x30), C6.2.254 */

/* Macros, not an enum: C11 enumerators must fit an int. */
#define A64_MOVZ_X0 0xd2800000u     /* movz x0, #imm16 (sf=1, hw=0), C6.2.239 */
#define A64_ADD_X0_X0 0x91000000u   /* add x0, x0, #imm12 (sf=1 op=0 S=0), C6.2.5 */
#define A64_SUB_X0_X0 0xd1000000u   /* sub x0, x0, #imm12 (sf=1 op=1 S=0), C6.2.356 */
#define A64_ADDSUB_MASK 0xff800000u /* the opcode bits of the two above */
#define A64_ADDSUB_LSL12 (1u << 22) /* the immediate is shifted left by 12 */
#define A64_IMM12_SHIFT 10

static inline uint32_t a64_movz_x0(uint32_t imm16)
{
  return A64_MOVZ_X0 | ((imm16 & 0xffffu) << 5);
}

static inline uint32_t a64_add_x0(uint32_t imm12, int lsl12)
{
  return A64_ADD_X0_X0 | (lsl12 ? A64_ADDSUB_LSL12 : 0) | ((imm12 & 0xfffu) << A64_IMM12_SHIFT);
}

static inline uint32_t a64_sub_x0(uint32_t imm12, int lsl12)
{
  return A64_SUB_X0_X0 | (lsl12 ? A64_ADDSUB_LSL12 : 0) | ((imm12 & 0xfffu) << A64_IMM12_SHIFT);
}

#endif
