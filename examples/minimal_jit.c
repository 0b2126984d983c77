/*
 * minimal_jit: the smallest complete JIT. It writes a function into a page,
 * publishes it with jitflush_clear_cache, calls it, and then rewrites the
 * SAME page with a different function several times. Rewriting in place is
 * where a wrong flush bites: a core whose I-cache still holds a line of the
 * previous version runs old instructions (on a phone: wrong results or
 * SIGILL; under the rig, jitflush-emu reports a stale fetch).
 *
 * The function is f(x) = x + STEPS * k, one "add" per step, so it spans
 * many cache lines and a skipped line shows up as a wrong sum.
 *
 * AArch64 is the target that needs the flush. On x86_64 the example emits
 * x86 code instead (the flush is a no-op there, instruction fetch snoops
 * stores) so the same program runs natively; elsewhere it says so and
 * exits 0. POSIX systems get the page from mmap, Windows from VirtualAlloc.
 *
 * "minimal_jit --no-flush" leaves the flush out, to see what a checker
 * (examples/run-under-rig.sh) says about a JIT that forgets it.
 *
 * Exit status: 0 every result correct, 1 a wrong result, 2 the page could
 * not be mapped or protected, 64 an unknown argument.
 */
#define _DEFAULT_SOURCE 1 /* MAP_ANONYMOUS under -std=c11 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#if defined(_WIN32)
#include <windows.h>
#else
#include <sys/mman.h>
#endif

#include "jitflush.h"

enum { STEPS = 300, ROUNDS = 8, CODE_SIZE = 4096 };

typedef int (*jit_fn)(int);

#if defined(__aarch64__)
#define ARCH "aarch64"
/* add w0, w0, #imm12 (Arm ARM C6.2.4, ADD (immediate), 32-bit) */
static uint32_t a64_add_w0(unsigned imm12)
{
  return 0x11000000u | (imm12 & 0xfffu) << 10;
}

static size_t emit(uint8_t *code, unsigned k)
{
  uint32_t *insn = (uint32_t *)code;
  size_t n = 0;
  for (unsigned i = 0; i < STEPS; i++)
    insn[n++] = a64_add_w0(k);
  insn[n++] = 0xd65f03c0u; /* ret */
  return n * sizeof *insn;
}
#elif defined(__x86_64__)
#define ARCH "x86_64"
static size_t emit(uint8_t *code, unsigned k)
{
  size_t n = 0;
  code[n++] = 0x89; /* mov eax, edi (Windows: mov eax, ecx, its first argument) */
#if defined(_WIN32)
  code[n++] = 0xc8;
#else
  code[n++] = 0xf8;
#endif
  for (unsigned i = 0; i < STEPS; i++) {
    code[n++] = 0x05; /* add eax, imm32 */
    uint32_t imm = k;
    memcpy(code + n, &imm, sizeof imm);
    n += sizeof imm;
  }
  code[n++] = 0xc3; /* ret */
  return n;
}
#endif

#if defined(ARCH) && defined(_WIN32)
static uint8_t *code_map(void)
{
  return VirtualAlloc(NULL, CODE_SIZE, MEM_COMMIT | MEM_RESERVE, PAGE_READWRITE);
}

/* Returns 0 on success, like mprotect. */
static int code_protect(uint8_t *code, int executable)
{
  DWORD old;
  return VirtualProtect(code, CODE_SIZE, executable ? PAGE_EXECUTE_READ : PAGE_READWRITE, &old)
             ? 0
             : -1;
}

static void code_unmap(uint8_t *code)
{
  VirtualFree(code, 0, MEM_RELEASE);
}
#elif defined(ARCH)
static uint8_t *code_map(void)
{
  void *p = mmap(NULL, CODE_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  return p == MAP_FAILED ? NULL : p;
}

static int code_protect(uint8_t *code, int executable)
{
  return mprotect(code, CODE_SIZE, executable ? PROT_READ | PROT_EXEC : PROT_READ | PROT_WRITE);
}

static void code_unmap(uint8_t *code)
{
  munmap(code, CODE_SIZE);
}
#endif

int main(int argc, char **argv)
{
  int flush = !(argc == 2 && strcmp(argv[1], "--no-flush") == 0);
  if (argc > 2 || (argc == 2 && flush)) {
    fprintf(stderr, "usage: minimal_jit [--no-flush]\n");
    return 64;
  }
#if !defined(ARCH)
  puts("minimal_jit: no code generator for this architecture; nothing to do");
  return 0;
#else
  /* W^X: the page is writable or executable, never both at once. */
  uint8_t *code = code_map();
  if (!code) {
    perror("minimal_jit: mmap");
    return 2;
  }

  for (unsigned round = 0; round < ROUNDS; round++) {
    unsigned k = round + 1;
    if (code_protect(code, 0) != 0) {
      perror("minimal_jit: mprotect RW");
      return 2;
    }
    size_t size = emit(code, k);
    if (code_protect(code, 1) != 0) {
      perror("minimal_jit: mprotect RX");
      return 2;
    }
    /* The one line this library exists for: clean the D-side, invalidate
     * the I-side, with the line size that is safe on every core. */
    if (flush)
      jitflush_clear_cache(code, code + size);

    /* Object to function pointer: not ISO C, but what every JIT does. */
    jit_fn fn;
    memcpy(&fn, &code, sizeof fn);
    int got = fn(1000), want = 1000 + STEPS * (int)k;
    if (got != want) {
      fprintf(stderr, "minimal_jit: round %u: got %d, want %d (stale code ran)\n", round, got,
              want);
      return 1;
    }
  }

  static struct jitflush_info info; /* about 30 KiB: not on the stack */
  jitflush_get_info(&info);
  printf("minimal_jit: ok%s: %d rounds of %d instructions on %s (jitflush %s, %s, I-line %u, "
         "D-line %u)\n",
         flush ? "" : " (without flushing)", ROUNDS, STEPS, ARCH, JITFLUSH_VERSION_STRING,
         info.platform, info.iline, info.dline);
  code_unmap(code);
  return 0;
#endif
}
