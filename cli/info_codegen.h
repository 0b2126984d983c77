/*
 * Tiny machine-code generators for the selftest: each writes a function
 * `uint32_t f(void)` whose every instruction contributes to the result, so
 * that one stale instruction word changes the value it returns (or returns
 * early). Pure byte writers for both targets, so the host tests can check
 * the AArch64 encodings too.
 */
#ifndef JITFLUSH_INFO_CODEGEN_H
#define JITFLUSH_INFO_CODEGEN_H

#include <stddef.h>
#include <stdint.h>

/*
 * AArch64: movz w0, #lo16; NOPS x add w0, w0, #imm12; movk w0, #hi16, lsl 16;
 * ret. NWORDS >= 3 instruction words are written to OUT; SEED picks the
 * immediates. Returns the value the function returns.
 */
uint32_t info_codegen_a64(uint32_t *out, unsigned nwords, uint32_t seed);

/* Bytes an x86-64 function of NOPS operations takes: mov eax, imm32 (5),
 * NOPS x add eax, imm32 (5 each), ret (1). */
size_t info_codegen_x86_64_size(unsigned nops);
/* Writes it to OUT; returns the value the function returns. */
uint32_t info_codegen_x86_64(uint8_t *out, unsigned nops, uint32_t seed);

/* The A64 encodings used (Arm ARM C6.2, "MOVZ", "MOVK", "ADD (immediate)",
 * "RET"), exposed for the tests. */
uint32_t info_a64_movz_w0(uint16_t imm);
uint32_t info_a64_movk_w0_lsl16(uint16_t imm);
uint32_t info_a64_add_w0_imm(uint16_t imm12);
#define INFO_A64_RET 0xd65f03c0u

#endif
