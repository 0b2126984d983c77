/*
 * A JIT's loop: 50 rounds of writing one instruction of a function,
 * maintaining it with one of four sequences, and calling it
 * (run_loops.py, tests/conformance/README.md). Two sequences are the
 * ifetch model's allowed shapes (herd7 -variant ifetch: DIC1.SM.B+isb and
 * jf.IDC1.SM.B+ic-dsb-isb, both Sometimes), which the rig must report in
 * every round; two are their forbidden neighbours (DIC1.SM.B+dsb.ish-isb,
 * IDC1.SM.B+dsb.ish-ic.ivau-dsb.ish-isb: Never), which it must not.
 *
 * Usage: loops_guest SEQUENCE mmap|text|fresh
 *   SEQUENCE  isb          str; isb                        (IDC=1 DIC=1)
 *             dsb-isb      str; dsb ish; isb               (IDC=1 DIC=1)
 *             ic-dsb-isb   str; ic ivau; dsb ish; isb      (IDC=1 DIC=0)
 *             dsb-ic-dsb-isb  str; dsb ish; ic ivau; dsb ish; isb (IDC=1 DIC=0)
 *   mmap      the function lives in a fresh anonymous mapping, written and
 *             published before the loop (a page stored to before)
 *   text      it lives in the program's own code, in a page nothing stored
 *             to before the first round
 *   fresh     a whole function of FRESH_WORDS words (mov w0, #0, additions,
 *             ret), written each round, the same code every
 *             round, into a fresh anonymous mapping that nothing fetched
 *             from or stored to before the first round: its first version
 *             replaces the page's zeros, and every word of it may be
 *             fetched stale (counts cover the whole function)
 * In mmap and text the function is called once before the loop, so QEMU
 * translated it before its first store. Prints "rounds N wrong M" (M: calls
 * that returned another round's number, or in fresh another sum). Exit
 * status 0, 2 usage, 3 no mapping.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#define ROUNDS 50
#define MOV_W0(k) (0x52800000u | (uint32_t)(k) << 5)
#define RET 0xd65f03c0u
#define ADD_X0_1 0x91000400u /* add x0, x0, #1 */
#define FRESH_WORDS 256

/* The text layout's function: a page of its own in a writable and
 * executable section, stored to by nothing before the loop. */
extern uint32_t loops_text_fn[];
__asm__(".section .jftext,\"awx\",@progbits\n"
        ".p2align 12\n"
        ".globl loops_text_fn\n"
        "loops_text_fn:\n"
        "  mov w0, #0\n"
        "  ret\n"
        ".p2align 12\n"
        ".text\n");

static uint64_t read_ctr(void)
{
  uint64_t ctr;
  __asm__ volatile("mrs %0, ctr_el0" : "=r"(ctr));
  return ctr;
}

/* The fresh layout's round: the function's words stored in one go (no
 * event between the stores), then SEQ over every line of it, as a JIT that
 * emits a function and publishes it. */
static void write_function(const char *seq, uint32_t *code)
{
  code[0] = MOV_W0(0);
  for (unsigned i = 1; i + 1 < FRESH_WORDS; i++) {
    code[i] = ADD_X0_1;
  }
  code[FRESH_WORDS - 1] = RET;
  size_t line = 4u << (read_ctr() & 15);
  if (strcmp(seq, "dsb-isb") == 0 || strcmp(seq, "dsb-ic-dsb-isb") == 0) {
    __asm__ volatile("dsb ish" ::: "memory");
  }
  if (strcmp(seq, "ic-dsb-isb") == 0 || strcmp(seq, "dsb-ic-dsb-isb") == 0) {
    for (size_t o = 0; o < FRESH_WORDS * 4; o += line) {
      __asm__ volatile("ic ivau, %0" ::"r"((char *)code + o) : "memory");
    }
    __asm__ volatile("dsb ish" ::: "memory");
  }
  __asm__ volatile("isb" ::: "memory");
}

static void write_and_maintain(const char *seq, uint32_t *code, uint32_t insn)
{
  if (strcmp(seq, "isb") == 0) {
    __asm__ volatile("str %w0, [%1]\n isb" ::"r"(insn), "r"(code) : "memory");
  } else if (strcmp(seq, "dsb-isb") == 0) {
    __asm__ volatile("str %w0, [%1]\n dsb ish\n isb" ::"r"(insn), "r"(code) : "memory");
  } else if (strcmp(seq, "ic-dsb-isb") == 0) {
    __asm__ volatile("str %w0, [%1]\n ic ivau, %1\n dsb ish\n isb" ::"r"(insn), "r"(code)
                     : "memory");
  } else {
    __asm__ volatile("str %w0, [%1]\n dsb ish\n ic ivau, %1\n dsb ish\n isb" ::"r"(insn), "r"(code)
                     : "memory");
  }
}

int main(int argc, char **argv)
{
  static const char *const seqs[] = {"isb", "dsb-isb", "ic-dsb-isb", "dsb-ic-dsb-isb"};
  int known = 0;
  for (size_t i = 0; argc == 3 && i < sizeof seqs / sizeof seqs[0]; i++) {
    known |= strcmp(argv[1], seqs[i]) == 0;
  }
  if (!known || (strcmp(argv[2], "mmap") != 0 && strcmp(argv[2], "text") != 0 &&
                 strcmp(argv[2], "fresh") != 0)) {
    fprintf(stderr, "usage: loops_guest isb|dsb-isb|ic-dsb-isb|dsb-ic-dsb-isb mmap|text|fresh\n");
    return 2;
  }
  if (strcmp(argv[2], "fresh") == 0) {
    uint32_t *page = mmap(NULL, FRESH_WORDS * 4, PROT_READ | PROT_WRITE | PROT_EXEC,
                          MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (page == MAP_FAILED) {
      perror("loops_guest: mmap");
      return 3;
    }
    unsigned (*function)(void) = (unsigned (*)(void))(uintptr_t)page;
    unsigned wrong = 0;
    for (unsigned k = 1; k <= ROUNDS; k++) {
      write_function(argv[1], page);
      wrong += function() != FRESH_WORDS - 2;
    }
    printf("rounds %d wrong %u\n", ROUNDS, wrong);
    return 0;
  }
  uint32_t *code = loops_text_fn;
  if (strcmp(argv[2], "mmap") == 0) {
    code = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (code == MAP_FAILED) {
      perror("loops_guest: mmap");
      return 3;
    }
    code[0] = MOV_W0(0);
    code[1] = RET;
    __builtin___clear_cache((char *)code, (char *)(code + 2));
  }
  unsigned (*fn)(void) = (unsigned (*)(void))(uintptr_t)code;
  unsigned wrong = fn() != 0;
  for (unsigned k = 1; k <= ROUNDS; k++) {
    write_and_maintain(argv[1], code, MOV_W0(k));
    wrong += fn() != k;
  }
  printf("rounds %d wrong %u\n", ROUNDS, wrong);
  return 0;
}
