/*
 * The first version of a whole function on a fresh page, as a JIT emits
 * one (docs/COHERENCE-MODEL.md, "The first version of new code"): a
 * function of FN_WORDS words (mov w0, #0, additions, ret: it returns
 * FN_WORDS - 2) written into a private RWX page nothing fetched from or
 * stored to before, maintained, and called; ROUNDS times, the same code
 * every round. The function is long enough that a migration falls due
 * at the start of its block, whose context switch must not publish it.
 *
 *   fresh_guest SEQUENCE STYLE
 *   SEQUENCE  isb             the stores, then isb                  (IDC=1 DIC=1)
 *             dsb-isb         the stores, then dsb ish; isb          (IDC=1 DIC=1)
 *             ic-dsb-isb      the stores, then ic ivau on each line,
 *                             dsb ish; isb                           (IDC=1 DIC=0)
 *             dsb-ic-dsb-isb  the stores, then dsb ish; ic ivau on
 *                             each line, dsb ish; isb                (IDC=1 DIC=0)
 *   STYLE     loop            the words stored one at a time
 *             memcpy          the words copied from a buffer with memcpy
 *
 * herd7 -variant ifetch (herdtools7 catalogue/aarch64-ifetch) states the
 * verdicts the e2e test (tests/emu/runner/fresh_e2e_test.cc) checks:
 * DIC1.SM.B+isb and IDC1.SM.B+ic.ivau-dsb.ish-isb Sometimes (stale
 * fetches of the first version), DIC1.SM.B+dsb.ish-isb and
 * IDC1.SM.B+dsb.ish-ic.ivau-dsb.ish-isb Never.
 *
 * Exit 42 when every call returned FN_WORDS - 2, 1 when one did not,
 * 2 usage, 3 no mapping.
 */
#define _GNU_SOURCE /* memfd_create (guest_pages.h) */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "a64_encode.h"
#include "guest_pages.h"

#define ROUNDS 4
#define FN_WORDS 256

typedef unsigned (*jit_fn)(void);

static uint32_t image[FN_WORDS]; /* the function, for the memcpy style */

static void build(uint32_t *code)
{
  code[0] = a64_movz_x0(0);
  for (unsigned i = 1; i + 1 < FN_WORDS; i++) {
    code[i] = a64_add_x0(1, 0);
  }
  code[FN_WORDS - 1] = A64_RET;
}

static size_t icache_line(void)
{
  uint64_t ctr;
  __asm__ volatile("mrs %0, ctr_el0" : "=r"(ctr));
  return 4u << (ctr & 15);
}

/* The steps of a SEQUENCE, decided once before the rounds. */
struct steps {
  int dsb_first; /* dsb ish before the rest */
  int ic;        /* ic ivau on each line, dsb ish */
};

/* The steps after the stores of the whole function, with no other event
 * between them: no call, so nothing runs between the last store and the
 * function's first fetch but these instructions (a library call there,
 * thousands of instructions the first time with the loader's lazy binding,
 * is where the rig's migrations would publish the code). */
static void maintain(struct steps st, uint32_t *code, size_t line)
{
  if (st.dsb_first) {
    __asm__ volatile("dsb ish" ::: "memory");
  }
  if (st.ic) {
    for (size_t o = 0; o < FN_WORDS * 4; o += line) {
      __asm__ volatile("ic ivau, %0" ::"r"((char *)code + o) : "memory");
    }
    __asm__ volatile("dsb ish" ::: "memory");
  }
  __asm__ volatile("isb" ::: "memory");
}

int main(int argc, char **argv)
{
  static const char *const seqs[] = {"isb", "dsb-isb", "ic-dsb-isb", "dsb-ic-dsb-isb"};
  int known = 0;
  for (size_t i = 0; argc == 3 && i < sizeof seqs / sizeof seqs[0]; i++) {
    known |= strcmp(argv[1], seqs[i]) == 0;
  }
  if (!known || (strcmp(argv[2], "loop") != 0 && strcmp(argv[2], "memcpy") != 0)) {
    fprintf(stderr, "usage: fresh_guest isb|dsb-isb|ic-dsb-isb|dsb-ic-dsb-isb loop|memcpy\n");
    return 2;
  }
  uint32_t *page = guest_rwx_page();
  if (!page) {
    return 3;
  }
  int copy = strcmp(argv[2], "memcpy") == 0;
  struct steps st = {strncmp(argv[1], "dsb-", 4) == 0, strstr(argv[1], "ic-dsb-isb") != NULL};
  size_t line = icache_line();
  if (copy) {
    build(image);
  }
  unsigned wrong = 0;
  for (int round = 0; round < ROUNDS; round++) {
    if (copy) {
      memcpy(page, image, sizeof image);
    } else {
      build(page);
    }
    maintain(st, page, line);
    wrong += ((jit_fn)(uintptr_t)page)() != FN_WORDS - 2;
  }
  return wrong ? 1 : 42;
}
