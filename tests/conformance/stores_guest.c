/*
 * Every kind of store the guest can make, each rewriting an instruction
 * that was published (cleaned, invalidated, synchronised) and then run
 * without any maintenance: the rig must report each fetch stale, with the
 * fast path and with --check full (run_stores.py). Needs a CPU with LSE,
 * MOPS and SVE (qemu-configs/conformance-stores.conf: qemu-cpu=max).
 *
 * Prints "K <kind> <address of the rewritten word>" per kind.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#define MOV_W0_1 0x52800020u
#define MOV_W0_2 0x52800040u
#define RET 0xd65f03c0u
#define BLOCK 256 /* four 64-byte lines per kind */

static sigjmp_buf recover;

static void on_fault(int sig)
{
  siglongjmp(recover, sig);
}

static void publish(unsigned char *p, size_t len)
{
  for (size_t o = 0; o < len; o += 4) {
    __asm__ volatile("dc cvau, %0" ::"r"(p + o) : "memory");
  }
  __asm__ volatile("dsb ish" ::: "memory");
  for (size_t o = 0; o < len; o += 4) {
    __asm__ volatile("ic ivau, %0" ::"r"(p + o) : "memory");
  }
  __asm__ volatile("dsb ish\n isb" ::: "memory");
}

/* The store under test, writing (for the kinds that take a value) NEW2, the
 * eight bytes "mov w0, #2; ret", over the eight bytes OLD2 at P. */
static void store_kind(int kind, unsigned char *p, uint64_t old2, uint64_t new2,
                       const unsigned char *src)
{
  uint32_t lo_new = (uint32_t)new2, lo_old = (uint32_t)old2;
  switch (kind) {
  case 0: /* str (immediate) */
    __asm__ volatile("str %w1, [%0]" ::"r"(p), "r"(lo_new) : "memory");
    break;
  case 1: /* stp of two W registers */
    __asm__ volatile("stp %w1, %w2, [%0]" ::"r"(p), "r"(lo_new), "r"(RET) : "memory");
    break;
  case 2: { /* stp of two X registers: 16 bytes */
    uint64_t hi;
    memcpy(&hi, p + 8, 8);
    __asm__ volatile("stp %1, %2, [%0]" ::"r"(p), "r"(new2), "r"(hi) : "memory");
    break;
  }
  case 3: /* stlr */
    __asm__ volatile("stlr %w1, [%0]" ::"r"(p), "r"(lo_new) : "memory");
    break;
  case 4: { /* stxr until it succeeds */
    uint32_t failed;
    do {
      __asm__ volatile("ldxr wzr, [%1]\n stxr %w0, %w2, [%1]"
                       : "=&r"(failed)
                       : "r"(p), "r"(lo_new)
                       : "memory");
    } while (failed);
    break;
  }
  case 5: { /* cas */
    register uint64_t cmp __asm__("x2") = old2;
    __asm__ volatile(".arch armv8.1-a\n cas x2, %1, [%2]"
                     : "+r"(cmp)
                     : "r"(new2), "r"(p)
                     : "memory");
    break;
  }
  case 6: { /* casp */
    uint64_t hi;
    memcpy(&hi, p + 8, 8);
    register uint64_t c0 __asm__("x2") = old2, c1 __asm__("x3") = hi;
    register uint64_t n0 __asm__("x4") = new2, n1 __asm__("x5") = hi;
    __asm__ volatile(".arch armv8.1-a\n casp x2, x3, x4, x5, [%2]"
                     : "+r"(c0), "+r"(c1)
                     : "r"(p), "r"(n0), "r"(n1)
                     : "memory");
    break;
  }
  case 7: /* swp */
    __asm__ volatile(".arch armv8.1-a\n swp %1, xzr, [%0]" ::"r"(p), "r"(new2) : "memory");
    break;
  case 8: /* ldadd: old + (new - old) */
    __asm__ volatile(".arch armv8.1-a\n ldadd %w1, wzr, [%0]" ::"r"(p), "r"(lo_new - lo_old)
                     : "memory");
    break;
  case 9: /* dc zva: zeroes the 64-byte block (the word becomes udf #0) */
    __asm__ volatile("dc zva, %0" ::"r"(p) : "memory");
    break;
  case 10: { /* FEAT_MOPS copy of the new code */
    unsigned char *d = p;
    const unsigned char *s = src;
    size_t n = 8;
    __asm__ volatile(".arch armv8.8-a+mops\n cpyp [%0]!, [%1]!, %2!\n cpym [%0]!, [%1]!, %2!\n"
                     " cpye [%0]!, [%1]!, %2!"
                     : "+r"(d), "+r"(s), "+r"(n)
                     :
                     : "memory");
    break;
  }
  case 11: { /* FEAT_MOPS set (bytes 0xd5: an undefined system instruction) */
    unsigned char *d = p;
    size_t n = 8;
    uint64_t v = 0xd5;
    __asm__ volatile(".arch armv8.8-a+mops\n setp [%0]!, %1!, %2\n setm [%0]!, %1!, %2\n"
                     " sete [%0]!, %1!, %2"
                     : "+r"(d), "+r"(n)
                     : "r"(v)
                     : "memory");
    break;
  }
  case 12: /* SVE contiguous store of one active lane */
    __asm__ volatile(".arch armv8.2-a+sve\n whilelo p0.s, xzr, %2\n dup z0.s, %w1\n"
                     " st1w {z0.s}, p0, [%0]" ::"r"(p),
                     "r"(lo_new), "r"((uint64_t)1)
                     : "memory", "p0", "z0");
    break;
  case 13: /* SVE scatter store of one active lane */
    __asm__ volatile(".arch armv8.2-a+sve\n whilelo p0.d, xzr, %2\n dup z0.d, %1\n"
                     " index z1.d, #0, #8\n st1d {z0.d}, p0, [%0, z1.d]" ::"r"(p),
                     "r"(new2), "r"((uint64_t)1)
                     : "memory", "p0", "z0", "z1");
    break;
  default:
    break;
  }
}

static const char *const kinds[] = {"str",      "stp-w",    "stp-x",    "stlr",       "stxr",
                                    "cas",      "casp",     "swp",      "ldadd",      "dc-zva",
                                    "mops-cpy", "mops-set", "sve-st1w", "sve-scatter"};
#define NKINDS (sizeof kinds / sizeof kinds[0])

int main(void)
{
  unsigned char *code = mmap(NULL, NKINDS * BLOCK, PROT_READ | PROT_WRITE | PROT_EXEC,
                             MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (code == MAP_FAILED) {
    perror("stores guest: mmap");
    return 2;
  }
  static const uint32_t new_code[2] = {MOV_W0_2, RET};
  uint64_t old2 = (uint64_t)RET << 32 | MOV_W0_1, new2 = (uint64_t)RET << 32 | MOV_W0_2;
  struct sigaction sa = {.sa_handler = on_fault};
  sigaction(SIGILL, &sa, NULL);
  sigaction(SIGSEGV, &sa, NULL);
  for (size_t k = 0; k < NKINDS; k++) {
    unsigned char *p = code + k * BLOCK;
    for (size_t o = 0; o < BLOCK; o += 8) {
      memcpy(p + o, &old2, 8);
    }
    publish(p, BLOCK);
    int (*fn)(void) = (int (*)(void))(uintptr_t)p;
    int before = fn();
    store_kind((int)k, p, old2, new2, (const unsigned char *)new_code);
    volatile int after = -1;
    if (sigsetjmp(recover, 1) == 0) {
      after = fn(); /* no maintenance: the fetch of word 0 is stale */
    }
    printf("K %s %p %d %d\n", kinds[k], (void *)p, before, after);
  }
  return 0;
}
