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
 *
 * The e2e test (tests/emu/runner/rewrite_e2e_test.cc) states the verdicts:
 * the rewrites of slot 0 can only fetch the trampoline again and are no
 * finding; slot 4's first version replaced the page's zeros and is one.
 * Exit 3: no mapping; 2: usage.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "a64_encode.h"
#include "guest_pages.h"

#define ROUNDS 8
#define SLOT_WORDS 16 /* 64 bytes a slot */
#define A64_NOP 0xd503201fu

typedef int (*jit_fn)(void);

static void write_trampoline(uint32_t *slot)
{
  slot[0] = a64_movz_x0(42);
  slot[1] = A64_NOP;
  slot[2] = A64_NOP;
  slot[3] = A64_RET;
}

/* The whole sequence, one word at a time: right on every core. */
static void publish(uint32_t *slot)
{
  for (int i = 0; i < 4; i++) {
    __asm__ volatile("dc cvau, %0" ::"r"(slot + i) : "memory");
  }
  __asm__ volatile("dsb ish" ::: "memory");
  for (int i = 0; i < 4; i++) {
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
  if (argc != 2 || (strcmp(argv[1], "same") != 0 && strcmp(argv[1], "same-fresh") != 0)) {
    fprintf(stderr, "usage: rewrite_guest same|same-fresh\n");
    return 2;
  }
  uint32_t *page = guest_rwx_page();
  if (!page) {
    return 3;
  }
  write_trampoline(page);
  publish(page);
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
