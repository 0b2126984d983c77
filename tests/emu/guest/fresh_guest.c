/*
 * The first version of a whole function on a fresh page, as a JIT emits
 * one (docs/COHERENCE-MODEL.md, "The first version of new code"): a
 * function of FN_WORDS words (mov w0, #0, additions, ret: it returns
 * FN_WORDS - 2) written into a private RWX page, maintained, and called;
 * ROUNDS times, the same code every round. The rig's migrations fall
 * among the stores, between them and the function, and at the start of
 * the function's own block; none of them may publish it.
 *
 *   fresh_guest SEQUENCE STYLE [PAGE [ROUNDS]]
 *   SEQUENCE  isb             the stores, then isb                  (IDC=1 DIC=1)
 *             dsb-isb         the stores, then dsb ish; isb          (IDC=1 DIC=1)
 *             ic-dsb-isb      the stores, then ic ivau on each line,
 *                             dsb ish; isb                           (IDC=1 DIC=0)
 *             dsb-ic-dsb-isb  the stores, then dsb ish; ic ivau on
 *                             each line, dsb ish; isb                (IDC=1 DIC=0)
 *   STYLE     loop            the words stored one at a time
 *             loop-call       the same, then a call into the C library
 *                             (snprintf: thousands of instructions, and
 *                             the loader's lazy binding the first time)
 *                             between the last store and the sequence
 *             memcpy          the words copied from a buffer with memcpy
 *   PAGE      fresh           a page nothing stored to or fetched from (default)
 *             used            the same page, zeroed with stores first
 *   ROUNDS    a number from 1 to 16 (default 4): once, or in a loop
 *
 * herd7 -variant ifetch (herdtools7 catalogue/aarch64-ifetch, and the
 * suite's own tests/conformance/litmus) states the verdicts the e2e test
 * (tests/emu/runner/fresh_e2e_test.cc) checks: DIC1.SM.B+isb,
 * jf.IDC1.SM.B+ic-dsb-isb, and with other work between the store
 * and the rest jf.DIC1.SM.B+po-isb and jf.IDC1.SM.B+po-ic-dsb-isb,
 * Sometimes (stale fetches of the first version); DIC1.SM.B+dsb.ish-isb
 * and IDC1.SM.B+dsb.ish-ic.ivau-dsb.ish-isb Never.
 *
 * Exit 42 when every call returned FN_WORDS - 2, 1 when one did not,
 * 2 usage, 3 no mapping.
 */
#define _GNU_SOURCE /* memfd_create (guest_pages.h) */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "a64_encode.h"
#include "guest_pages.h"

#define ROUNDS_DEFAULT 4
#define ROUNDS_MAX 16
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

/* The steps after the stores of the whole function (after other_work in
 * the loop-call style): inline, no call. */
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

/* Work between the stores and the sequence: a call into the C library
 * that makes no system call, whose result is used. */
static unsigned other_work(int round)
{
  char text[64];
  return (unsigned)snprintf(text, sizeof text, "round %d of the function at %p", round,
                            (void *)text);
}

int main(int argc, char **argv)
{
  static const char *const seqs[] = {"isb", "dsb-isb", "ic-dsb-isb", "dsb-ic-dsb-isb"};
  static const char *const styles[] = {"loop", "loop-call", "memcpy"};
  int known = 0, style = -1;
  for (size_t i = 0; argc >= 3 && i < sizeof seqs / sizeof seqs[0]; i++) {
    known |= strcmp(argv[1], seqs[i]) == 0;
  }
  for (size_t i = 0; argc >= 3 && i < sizeof styles / sizeof styles[0]; i++) {
    style = strcmp(argv[2], styles[i]) == 0 ? (int)i : style;
  }
  int used = argc >= 4 && strcmp(argv[3], "used") == 0;
  int page_known = argc < 4 || used || strcmp(argv[3], "fresh") == 0;
  char *end = NULL;
  long rounds = argc >= 5 ? strtol(argv[4], &end, 10) : ROUNDS_DEFAULT;
  int rounds_known = argc < 5 || (*end == '\0' && rounds >= 1 && rounds <= ROUNDS_MAX);
  if (!known || style < 0 || !page_known || !rounds_known || argc > 5) {
    fprintf(stderr, "usage: fresh_guest isb|dsb-isb|ic-dsb-isb|dsb-ic-dsb-isb "
                    "loop|loop-call|memcpy [fresh|used [ROUNDS 1-16]]\n");
    return 2;
  }
  uint32_t *page = guest_rwx_page();
  if (!page) {
    return 3;
  }
  if (used) {
    /* Stored to before, never fetched from. */
    for (size_t i = 0; i < 4096 / sizeof *page; i++) {
      ((volatile uint32_t *)page)[i] = 0;
    }
  }
  int copy = style == 2;
  struct steps st = {strncmp(argv[1], "dsb-", 4) == 0, strstr(argv[1], "ic-dsb-isb") != NULL};
  size_t line = icache_line();
  if (copy) {
    build(image);
  }
  unsigned wrong = 0, work = 0;
  for (int round = 0; round < rounds; round++) {
    if (copy) {
      memcpy(page, image, sizeof image);
    } else {
      build(page);
    }
    if (style == 1) {
      work += other_work(round);
    }
    maintain(st, page, line);
    wrong += ((jit_fn)(uintptr_t)page)() != FN_WORDS - 2;
  }
  return wrong || (style == 1 && work == 0) ? 1 : 42;
}
