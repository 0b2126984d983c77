/*
 * jit_loop: the rig's worst case for speed, a fetch-heavy JIT workload in
 * which nearly every executed instruction is JIT-written code. It writes a
 * counting loop into RWX memory, flushes it with jitflush_clear_cache, and
 * calls it; each call runs ITERATIONS iterations of
 *
 *     loop: add  x0, x0, #imm      (BODY times, BODY >= 1)
 *           subs x1, x1, #1
 *           b.ne loop
 *           ret
 *
 * so with the default BODY of 1 every translation block QEMU executes is
 * three JIT-written instructions: per-block costs of the plugin (inline
 * counters, conditional callbacks, fetch checks) are as visible as they can
 * be. ci/bench/run.sh times it on plain QEMU, under the rig with the checker
 * off and with it on (docs/BENCHMARKS.md, "The rig's own speed").
 *
 *   jit_loop [--iterations=N] [--body=N] [--calls=N] [--seed=N] [--no-flush]
 *            [--measured]
 *
 * Each call rewrites the immediates (the seed picks them) and flushes again,
 * so a run with several calls also exercises store -> flush -> retranslate.
 *
 * --no-flush skips jitflush_clear_cache: a JIT bug on purpose, so that the
 * rig finds every fetch of the loop stale (no clean, no invalidate), the
 * case a user runs the rig for. linux-user QEMU re-translates the page
 * after the stores, so the loop still computes the expected sum.
 *
 * --measured runs each call as a measured region (the rig's marker hints,
 * hint #0x7c with the call's number in x16, and hint #0x7d: NOPs on
 * hardware) and lays the code out so that the loop ends where a page ends
 * and its ret, written and flushed once, starts the next page. With
 * --no-flush every fetch of the loop is stale and the ret's is not, and
 * from the second call on nothing between the loop's last entry and the
 * region's end marker is checked or translated again (rewriting the loop
 * leaves the other page's translations).
 *
 * Exit status: 0 every call returned the expected sum, 1 one did not, 2 usage
 * error, 3 the environment refused (mmap).
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "a64_encode.h"
#include "code_gen.h"
#include "guest_args.h"
#include "jitflush.h"

enum {
  MAX_BODY = 256,
  REGION_BYTES = 4096,
  /* --measured: the ret starts the second of two pages. */
  LAYOUT_PAGE = 4096,
};

/* subs x1, x1, #1 (Arm ARM C6.2 SUBS (immediate), 64-bit: sf=1 op=1 S=1). */
#define INSN_SUBS_X1_1 0xf1000421u
/* b.ne back by WORDS instructions (B.cond, imm19 in words, cond NE = 1). */
static uint32_t encode_bne_back(unsigned words)
{
  return 0x54000000u | ((-(uint32_t)words & 0x7ffffu) << 5) | 0x1u;
}

typedef uint64_t (*loop_fn)(uint64_t x0, uint64_t x1);

struct options {
  uint64_t iterations;
  uint64_t body;
  uint64_t calls;
  uint64_t seed;
  bool no_flush;
  bool measured;
};

static void usage(FILE *out)
{
  fprintf(out, "usage: jit_loop [--iterations=N] [--body=N] [--calls=N] [--seed=N] [--no-flush]"
               " [--measured]\n");
}

static int parse(int argc, char **argv, struct options *o)
{
  const struct sc_option options[] = {
      SC_NUMBER("--iterations", 1, UINT64_C(1) << 40, o->iterations),
      SC_NUMBER("--body", 1, MAX_BODY, o->body),
      SC_NUMBER("--calls", 1, 1000000, o->calls),
      SC_NUMBER("--seed", 0, UINT64_MAX, o->seed),
      SC_FLAG("--no-flush", o->no_flush),
      SC_FLAG("--measured", o->measured),
  };
  return sc_parse_options("jit_loop", argc, argv, options, sizeof options / sizeof options[0],
                          usage);
}

/* Writes the loop at CODE, and its ret unless WITH_RET is false; returns
 * what one iteration adds to x0. */
static uint64_t emit_loop(uint32_t *code, unsigned body, struct sc_rng *rng, bool with_ret)
{
  uint64_t step = 0;
  for (unsigned i = 0; i < body; i++) {
    unsigned imm = 1 + (unsigned)sc_rng_below(rng, 4095);
    code[i] = a64_add_x0(imm, 0);
    step += imm;
  }
  code[body] = INSN_SUBS_X1_1;
  code[body + 1] = encode_bne_back(body + 1);
  if (with_ret) {
    code[body + 2] = A64_RET;
  }
  return step;
}

int main(int argc, char **argv)
{
  struct options o = {.iterations = 10000000, .body = 1, .calls = 1, .seed = 1};
  int rc = parse(argc, argv, &o);
  if (rc != 0) {
    return rc < 0 ? 0 : rc;
  }
  void *region = sc_map_code("jit_loop", o.measured ? 2 * LAYOUT_PAGE : REGION_BYTES);
  if (!region)
    return EXIT_ENVIRONMENT;
  uint32_t *code = region;
  if (o.measured) {
    uint32_t *ret = code + LAYOUT_PAGE / 4;
    code = ret - (o.body + 2);
    *ret = A64_RET;
    jitflush_clear_cache(ret, ret + 1);
  }
  struct sc_rng rng = {o.seed};
  unsigned wrong = 0;
  for (uint64_t call = 0; call < o.calls; call++) {
    uint64_t step = emit_loop(code, (unsigned)o.body, &rng, !o.measured);
    if (!o.no_flush) {
      jitflush_clear_cache(code, code + o.body + 3);
    }
    if (o.measured) {
      __asm__ volatile("mov x16, %0\n\thint #0x7c" : : "r"(call) : "x16", "memory");
    }
    uint64_t got = ((loop_fn)(uintptr_t)code)(0, o.iterations);
    if (o.measured) {
      __asm__ volatile("hint #0x7d" : : : "memory");
    }
    if (got != step * o.iterations) {
      fprintf(stderr, "jit_loop: call %" PRIu64 " returned %" PRIu64 ", expected %" PRIu64 "\n",
              call, got, step * o.iterations);
      wrong++;
    }
  }
  printf("jit_loop: iterations=%" PRIu64 " body=%" PRIu64 " calls=%" PRIu64 " seed=%" PRIu64
         " wrong=%u\n",
         o.iterations, o.body, o.calls, o.seed, wrong);
  return wrong ? EXIT_WRONG_RESULT : 0;
}
