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
 *             loop-move       the thread pinned to one CPU, the words
 *                             stored one at a time, then pinned to
 *                             another: the kernel moves it at once, and
 *                             the context switch's dsb ish (__switch_to,
 *                             arch/arm64/kernel/process.c) completes its
 *                             stores before the sequence
 *             loop-stay       the same, always pinned to the same CPU: it
 *                             never moves, and nothing completes its stores
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
 * The two affinity styles are the rig's model of Linux, not herd7's:
 * loop-move is clean with the Sometimes sequences, loop-stay stale.
 *
 * Exit 42 when every call returned FN_WORDS - 2, 1 when one did not,
 * 2 usage, 3 no mapping or an affinity call failed.
 */
#define _GNU_SOURCE /* memfd_create (guest_pages.h), sched_getcpu */
#include <sched.h>
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

/* Pins the thread to CPU: the kernel moves it there at once when it runs
 * elsewhere, and nothing moves it afterwards. */
static int pin(int cpu)
{
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  return sched_setaffinity(0, sizeof set, &set);
}

int main(int argc, char **argv)
{
  static const char *const seqs[] = {"isb", "dsb-isb", "ic-dsb-isb", "dsb-ic-dsb-isb"};
  static const char *const styles[] = {"loop", "loop-call", "memcpy", "loop-move", "loop-stay"};
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
                    "loop|loop-call|memcpy|loop-move|loop-stay [fresh|used [ROUNDS 1-16]]\n");
    return 2;
  }
  uint32_t *page = guest_rwx_page();
  /* The first two CPUs the thread may run on, for the affinity styles. */
  int cpus[2] = {-1, -1};
  cpu_set_t all;
  if (!page || sched_getaffinity(0, sizeof all, &all) != 0) {
    return 3;
  }
  for (int c = 0, k = 0; c < CPU_SETSIZE && k < 2; c++) {
    if (CPU_ISSET(c, &all)) {
      cpus[k++] = c;
    }
  }
  int moves = style == 3, pins = style >= 3;
  if (pins && cpus[1] < 0) {
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
    /* loop-move: each round starts where the last one ended and moves;
     * loop-stay never leaves the first CPU. */
    if (pins && pin(cpus[moves ? round % 2 : 0]) != 0) {
      return 3;
    }
    if (copy) {
      memcpy(page, image, sizeof image);
    } else {
      build(page);
    }
    if (style == 1) {
      work += other_work(round);
    }
    if (pins && pin(cpus[moves ? (round + 1) % 2 : 0]) != 0) {
      return 3;
    }
    maintain(st, page, line);
    wrong += ((jit_fn)(uintptr_t)page)() != FN_WORDS - 2;
  }
  return wrong || (style == 1 && work == 0) ? 1 : 42;
}
