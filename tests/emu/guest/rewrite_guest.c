/*
 * Code rewritten with the same bytes, as libffi re-uses a closure slot
 * (docs/COHERENCE-MODEL.md, "Rewrites with the same bytes"): a trampoline
 * of four words, the same in every slot, on a private RWX page.
 *
 *   rewrite_guest same        the trampoline written into slot 0, published
 *                             (dc cvau, dsb ish, ic ivau, dsb ish, isb, by
 *                             word) and run, then written again with the
 *                             same bytes and run, ROUNDS times, with no
 *                             maintenance: exits 42
 *   rewrite_guest same-fresh  the same, then the trampoline written into
 *                             slot 4 (256 bytes on, a line no one wrote or
 *                             ran) and run with no maintenance: exits 42
 *   rewrite_guest self-same   a function that stores over its own
 *                             fifth word (movz x0, #42) from its first
 *                             (str w1, [x0, #16]), written and published
 *                             as above, called once with w1 = the same
 *                             word: a store into the running block with
 *                             the same bytes; exits 42
 *   rewrite_guest self-other  the same with w1 = movz x0, #43: the
 *                             running block runs on from its old
 *                             translation (docs/COHERENCE-MODEL.md, "A
 *                             store into the running block"); exits 42
 *
 * The e2e test (tests/emu/runner/rewrite_e2e_test.cc) states the verdicts:
 * the rewrites of slot 0 can only fetch the trampoline again and are no
 * finding; slot 4's first version replaced the page's zeros and is one;
 * the store into the running block is benign with the same bytes and a
 * finding with other ones.
 * Exit 3: no mapping; 2: usage.
 */
#define _GNU_SOURCE /* memfd_create (guest_pages.h) */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "a64_encode.h"
#include "guest_pages.h"

#define ROUNDS 8
#define SLOT_WORDS 16 /* 64 bytes a slot */
#define A64_NOP 0xd503201fu

typedef int (*jit_fn)(void);
typedef int (*self_fn)(uint32_t *self, uint32_t word);

#define A64_STR_W1_X0_16 0xb9001001u /* str w1, [x0, #16] (imm12 = 4), C6.2.321 */
#define SELF_WORDS 6

/* Stores W1 over its word 4, then runs it. */
static void write_self(uint32_t *code)
{
  code[0] = A64_STR_W1_X0_16;
  code[1] = A64_NOP;
  code[2] = A64_NOP;
  code[3] = A64_NOP;
  code[4] = a64_movz_x0(42);
  code[5] = A64_RET;
}

static void write_trampoline(uint32_t *slot)
{
  slot[0] = a64_movz_x0(42);
  slot[1] = A64_NOP;
  slot[2] = A64_NOP;
  slot[3] = A64_RET;
}

/* The whole sequence, one word at a time: right on every core. */
static void publish(uint32_t *slot, int words)
{
  for (int i = 0; i < words; i++) {
    __asm__ volatile("dc cvau, %0" ::"r"(slot + i) : "memory");
  }
  __asm__ volatile("dsb ish" ::: "memory");
  for (int i = 0; i < words; i++) {
    __asm__ volatile("ic ivau, %0" ::"r"(slot + i) : "memory");
  }
  __asm__ volatile("dsb ish\n isb" ::: "memory");
}

static int run(uint32_t *slot)
{
  return ((jit_fn)(uintptr_t)slot)();
}

int main(int argc, char **argv)
{
  static const char *const modes[] = {"same", "same-fresh", "self-same", "self-other"};
  int known = 0;
  for (size_t i = 0; argc == 2 && i < sizeof modes / sizeof modes[0]; i++) {
    known |= strcmp(argv[1], modes[i]) == 0;
  }
  if (!known) {
    fprintf(stderr, "usage: rewrite_guest same|same-fresh|self-same|self-other\n");
    return 2;
  }
  uint32_t *page = guest_rwx_page();
  if (!page) {
    return 3;
  }
  if (strncmp(argv[1], "self-", 5) == 0) {
    write_self(page);
    publish(page, SELF_WORDS);
    uint32_t word = a64_movz_x0(strcmp(argv[1], "self-same") == 0 ? 42 : 43);
    return ((self_fn)(uintptr_t)page)(page, word);
  }
  write_trampoline(page);
  publish(page, 4);
  int result = run(page);
  for (int round = 0; round < ROUNDS && result == 42; round++) {
    write_trampoline(page); /* the same bytes: no maintenance */
    result = run(page);
  }
  if (result == 42 && strcmp(argv[1], "same-fresh") == 0) {
    uint32_t *fresh = page + 4 * SLOT_WORDS;
    write_trampoline(fresh); /* the first version on this line: no maintenance */
    result = run(fresh);
  }
  return result;
}
