/*
 * Flushes of every shape through the toolchain's __builtin___clear_cache
 * (libgcc's __aarch64_sync_cache_range, which latches CTR_EL0 in a static
 * on its first call), for the findings tests (findings_test.cc): the first
 * call runs on --latch-cpu, everything after it on --run-cpu, so the
 * latched lines are the latch CPU's and every store, flush and fetch is
 * the run CPU's.
 *
 *   stubs            the 30-line JIT: 16-byte stubs at offset 32 of
 *                    each 64-byte block, each flushed (p, p + 12), as a
 *                    Lisp's linkage table or a patched instruction is
 *   short-aligned    12-byte code at 256-byte aligned starts, each flushed
 *                    (p, p + 12): one line in every geometry, always right
 *   short-unaligned  12 bytes at offset 0x78 of each 256-byte block, each
 *                    flushed (p, p + 12): across a 128-byte boundary
 *   long-aligned     one 1 KiB function from a page start, one flush
 *   long-unaligned   one 1000-byte function from page offset 0x24
 *   nonleaf          the long-aligned code flushed by a routine of this
 *                    program that calls a helper for the latched lines
 *                    before its loops (its caller is in the frame record)
 *
 * Prints "shape=S sum=N expected=M result ok": QEMU keeps its fetches
 * coherent, so the sums agree; the rig reports the fetches that were
 * stale.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "a64_encode.h"
#include "code_gen.h"
#include "cpu_pin.h"
#include "guest_args.h"

#define PROGRAM "flush_shapes"
#define STUBS 64
#define CODE_BYTES (STUBS * 256)

static void usage(FILE *out)
{
  fprintf(out, "usage: " PROGRAM " --latch-cpu=N --run-cpu=N --shape=stubs|short-aligned|"
               "short-unaligned|long-aligned|long-unaligned|nonleaf\n");
}

/* Writes a 16-byte stub at P returning x0 + 1 + I, flushes [P, P + 12)
 * (its last word is never run), runs it. */
static uint64_t stub(uint32_t *p, unsigned i)
{
  p[0] = a64_add_x0(1 + i, 0);
  p[1] = A64_RET;
  p[2] = A64_RET;
  p[3] = A64_RET;
  __builtin___clear_cache((char *)p, (char *)p + 12);
  return sc_as_fn(p)(0);
}

/* Stubs at OFFSET of each BLOCK-byte block; the expected sum in *WANT. */
static uint64_t stubs(char *code, unsigned block, unsigned offset, uint64_t *want)
{
  uint64_t sum = 0;
  *want = 0;
  for (unsigned i = 0; i < STUBS; i++) {
    sum += stub((uint32_t *)(code + (size_t)block * i + offset), i);
    *want += 1 + i;
  }
  return sum;
}

/* The lines the non-leaf routine steps by, latched on its first call as
 * libgcc does (a helper, so that the routine calls before its loops). */
static __attribute__((noinline)) void latched_lines(uint64_t *iline, uint64_t *dline)
{
  static uint64_t ctr;
  if (!ctr)
    __asm__ __volatile__("mrs %0, ctr_el0" : "=r"(ctr));
  *iline = 4u << (ctr & 0xf);
  *dline = 4u << ((ctr >> 16) & 0xf);
}

static __attribute__((noinline)) void nonleaf_flush(char *begin, char *end)
{
  uint64_t iline, dline;
  latched_lines(&iline, &dline);
  for (uintptr_t a = (uintptr_t)begin & ~(dline - 1); a < (uintptr_t)end; a += dline)
    __asm__ __volatile__("dc cvau, %0" ::"r"(a) : "memory");
  __asm__ __volatile__("dsb ish" ::: "memory");
  for (uintptr_t a = (uintptr_t)begin & ~(iline - 1); a < (uintptr_t)end; a += iline)
    __asm__ __volatile__("ic ivau, %0" ::"r"(a) : "memory");
  __asm__ __volatile__("dsb ish\n\tisb" ::: "memory");
}

/* One function of BYTES at CODE, flushed whole, run once. */
static uint64_t long_code(char *code, size_t bytes, bool nonleaf, uint64_t *want)
{
  struct sc_rng rng = {42};
  *want = sc_emit_chain((uint32_t *)code, bytes / 4, 7, &rng);
  if (nonleaf)
    nonleaf_flush(code, code + bytes);
  else
    __builtin___clear_cache(code, code + bytes);
  return sc_as_fn(code)(7);
}

int main(int argc, char **argv)
{
  unsigned latch = 0, run = 0;
  const char *shape = "";
  const struct sc_option options[] = {
      SC_NUMBER("--latch-cpu", 0, 4095, latch),
      SC_NUMBER("--run-cpu", 0, 4095, run),
      SC_TEXT("--shape", shape),
  };
  int parsed = sc_parse_options(PROGRAM, argc, argv, options, 3, usage);
  if (parsed)
    return parsed < 0 ? 0 : parsed;
  static char scratch[64];
  char *code = sc_map_code(PROGRAM, CODE_BYTES);
  if (!code)
    return 1;
  if (!sc_pin_to_cpu((int)latch, NULL)) {
    perror(PROGRAM ": pinning to the latch cpu");
    return 1;
  }
  /* The first calls, which latch the lines: of both routines. */
  __builtin___clear_cache(scratch, scratch + sizeof(scratch));
  nonleaf_flush(scratch, scratch + sizeof(scratch));
  if (!sc_pin_to_cpu((int)run, NULL)) {
    perror(PROGRAM ": pinning to the run cpu");
    return 1;
  }
  uint64_t sum, want;
  if (strcmp(shape, "stubs") == 0)
    sum = stubs(code, 64, 32, &want);
  else if (strcmp(shape, "short-aligned") == 0)
    sum = stubs(code, 256, 0, &want);
  else if (strcmp(shape, "short-unaligned") == 0)
    sum = stubs(code, 256, 0x78, &want);
  else if (strcmp(shape, "long-aligned") == 0)
    sum = long_code(code, 1024, false, &want);
  else if (strcmp(shape, "long-unaligned") == 0)
    sum = long_code(code + 0x24, 1000, false, &want);
  else if (strcmp(shape, "nonleaf") == 0)
    sum = long_code(code, 1024, true, &want);
  else {
    fprintf(stderr, PROGRAM ": --shape: unknown shape '%s'\n", shape);
    usage(stderr);
    return 2;
  }
  printf("shape=%s sum=%llu expected=%llu result %s\n", shape, (unsigned long long)sum,
         (unsigned long long)want, sum == want ? "ok" : "wrong");
  return sum == want ? 0 : 1;
}
