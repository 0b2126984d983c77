/*
 * Generates the JIT-compiled functions the scenario programs run: a chain of
 * "add/sub x0, x0, #imm" ending in "ret", so the result proves which words
 * were executed. A word fetched from an old copy (or not at all) changes the
 * sum; under the rig the plugin flags the fetch itself.
 */
#ifndef JITFLUSH_SCENARIO_CODE_GEN_H
#define JITFLUSH_SCENARIO_CODE_GEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* splitmix64: tiny, seedable, and every seed (including 0) is usable. */
struct sc_rng {
  uint64_t state;
};

uint64_t sc_rng_next(struct sc_rng *rng);
/* A value in [0, bound); bound must be > 0. */
uint64_t sc_rng_below(struct sc_rng *rng, uint64_t bound);

/* What one arithmetic word does to x0 (the inverse of the encoders of
 * tests/common/a64_encode.h, which the chain is made of). */
uint64_t sc_apply_insn(uint32_t insn, uint64_t x0);

/*
 * Writes count words at code: count-1 random add/sub instructions and a
 * final ret (count >= 1). Returns what the function returns for input.
 */
uint64_t sc_emit_chain(uint32_t *code, size_t count, uint64_t input, struct sc_rng *rng);

/* BYTES of private read-write-execute memory for generated code, or NULL
 * after printing "PROGRAM: mmap of BYTES RWX bytes failed: REASON". */
void *sc_map_code(const char *program, size_t bytes);

typedef uint64_t (*sc_jit_fn)(uint64_t x0);

/* Object-to-function pointer conversion is implementation-defined in C11;
 * on AArch64 Linux both are plain addresses. */
static inline sc_jit_fn sc_as_fn(const void *code)
{
  return (sc_jit_fn)(uintptr_t)code;
}

#endif
