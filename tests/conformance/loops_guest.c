/*
 * A JIT's loop: 50 rounds of writing one instruction of a function,
 * maintaining it with one of four sequences, and calling it
 * (run_loops.py, tests/conformance/README.md). Two sequences are the
 * ifetch model's allowed shapes (herd7 -variant ifetch: DIC1.SM.B+isb and
 * jf.IDC1.SM.B+ic-dsb-isb, both Sometimes), which the rig must report in
 * every round; two are their forbidden neighbours (DIC1.SM.B+dsb.ish-isb,
 * IDC1.SM.B+dsb.ish-ic.ivau-dsb.ish-isb: Never), which it must not.
 *
 * Usage: loops_guest SEQUENCE mmap|text
 *   SEQUENCE  isb          str; isb                        (IDC=1 DIC=1)
 *             dsb-isb      str; dsb ish; isb               (IDC=1 DIC=1)
 *             ic-dsb-isb   str; ic ivau; dsb ish; isb      (IDC=1 DIC=0)
 *             dsb-ic-dsb-isb  str; dsb ish; ic ivau; dsb ish; isb (IDC=1 DIC=0)
 *   mmap      the function lives in a fresh anonymous mapping, written and
 *             published before the loop (a page stored to before)
 *   text      it lives in the program's own code, in a page nothing stored
 *             to before the first round
 * The function is called once before the loop, so QEMU translated it
 * before its first store. Prints "rounds N wrong M" (M: calls that returned
 * another round's number). Exit status 0, 2 usage, 3 no mapping.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#define ROUNDS 50
#define MOV_W0(k) (0x52800000u | (uint32_t)(k) << 5)
#define RET 0xd65f03c0u

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
  if (!known || (strcmp(argv[2], "mmap") != 0 && strcmp(argv[2], "text") != 0)) {
    fprintf(stderr, "usage: loops_guest isb|dsb-isb|ic-dsb-isb|dsb-ic-dsb-isb mmap|text\n");
    return 2;
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
