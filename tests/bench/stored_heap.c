/*
 * stored_heap: the rig's cost when nearly every fetch is checked. A
 * Scheme-like system keeps its compiled closures in the heap, code and
 * data side by side: each closure is one 64-byte object whose first 32
 * bytes are code and whose next words are its data (a call counter it
 * stores to on every call, and a constant it adds). So every page that
 * holds code is stored to all the time, and the rig checks every fetch
 * (docs/BENCHMARKS.md, "Stored-code-heavy guests"). Each round recycles a
 * "young generation" (one object in PERIOD) the way a copying collector
 * reuses space: new code over old, flushed with jitflush_clear_cache,
 * then calls every object once; a call runs WORK turns of a loop in the
 * closure, so most fetches are of code on stored pages.
 *
 *   stored_heap [--objects=N] [--rounds=N] [--period=N] [--work=N] [--seed=N]
 *
 * A closure (Arm ARM C6.2: LDR (literal), ADD (immediate), ADR, STR
 * (immediate), ADD (shifted register)):
 *
 *      0: ldr  x9, counter       ; the object's own call count
 *      4: add  x9, x9, #1
 *      8: adr  x10, counter
 *     12: str  x9, [x10]         ; a store into the object's own line
 *     16: ldr  x11, constant
 *     20: add  x0, x0, x11      ; x1 (WORK) times
 *     24: subs x1, x1, #1
 *     28: b.ne 20
 *     32: ret
 *     36: nop
 *     40: counter  (8 bytes)
 *     48: constant (8 bytes)
 *
 * Exit status: 0 the sums and counters are right, 1 they are not, 2 usage
 * error, 3 the environment refused (mmap).
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "a64_encode.h"
#include "code_gen.h"
#include "guest_args.h"
#include "jitflush.h"

enum {
  OBJECT_BYTES = 64,
  CODE_WORDS = 10,
  COUNTER_OFFSET = 40,
  CONSTANT_OFFSET = 48,
};

/* ldr xT, [pc + OFFSET] (LDR (literal), 64-bit: opc=01). */
static uint32_t ldr_literal(unsigned rt, int32_t offset)
{
  return 0x58000000u | (((uint32_t)offset / 4 & 0x7ffffu) << 5) | rt;
}
/* add xD, xN, #IMM (64-bit). */
static uint32_t add_imm(unsigned rd, unsigned rn, uint32_t imm12)
{
  return 0x91000000u | (imm12 << 10) | (rn << 5) | rd;
}
/* adr xD, pc + OFFSET (OFFSET a multiple of 4 here: immlo = 0). */
static uint32_t adr(unsigned rd, int32_t offset)
{
  return 0x10000000u | (((uint32_t)offset >> 2 & 0x7ffffu) << 5) | rd;
}
/* str xT, [xN] (STR (immediate), unsigned offset 0, 64-bit). */
static uint32_t str_x(unsigned rt, unsigned rn)
{
  return 0xf9000000u | (rn << 5) | rt;
}
/* add xD, xN, xM (shifted register, LSL #0). */
static uint32_t add_reg(unsigned rd, unsigned rn, unsigned rm)
{
  return 0x8b000000u | (rm << 16) | (rn << 5) | rd;
}

typedef uint64_t (*closure_fn)(uint64_t x0, uint64_t x1);

struct options {
  uint64_t objects;
  uint64_t rounds;
  uint64_t period;
  uint64_t work;
  uint64_t seed;
};

static void usage(FILE *out)
{
  fprintf(out,
          "usage: stored_heap [--objects=N] [--rounds=N] [--period=N] [--work=N] [--seed=N]\n");
}

static int parse(int argc, char **argv, struct options *o)
{
  const struct sc_option options[] = {
      SC_NUMBER("--objects", 1, UINT64_C(1) << 20, o->objects),
      SC_NUMBER("--rounds", 1, UINT64_C(1) << 20, o->rounds),
      SC_NUMBER("--period", 1, UINT64_C(1) << 20, o->period),
      SC_NUMBER("--work", 1, UINT64_C(1) << 20, o->work),
      SC_NUMBER("--seed", 0, UINT64_MAX, o->seed),
  };
  return sc_parse_options("stored_heap", argc, argv, options, sizeof options / sizeof options[0],
                          usage);
}

/* Compiles a closure adding CONSTANT into OBJ and flushes its code. */
static void compile(uint8_t *obj, uint64_t constant)
{
  const uint32_t code[CODE_WORDS] = {
      ldr_literal(9, COUNTER_OFFSET),
      add_imm(9, 9, 1),
      adr(10, COUNTER_OFFSET - 8),
      str_x(9, 10),
      ldr_literal(11, CONSTANT_OFFSET - 16),
      add_reg(0, 0, 11),
      0xf1000421u,                       /* subs x1, x1, #1 */
      0x54000000u | (0x7fffeu << 5) | 1, /* b.ne back 2 words */
      A64_RET,
      0xd503201fu, /* nop */
  };
  memcpy(obj, code, sizeof(code));
  memset(obj + COUNTER_OFFSET, 0, 8);
  memcpy(obj + CONSTANT_OFFSET, &constant, 8);
  jitflush_clear_cache(obj, obj + sizeof(code));
}

int main(int argc, char **argv)
{
  struct options o = {.objects = 4096, .rounds = 40, .period = 16, .work = 50, .seed = 1};
  int rc = parse(argc, argv, &o);
  if (rc != 0) {
    return rc < 0 ? 0 : rc;
  }
  uint8_t *heap = sc_map_code("stored_heap", o.objects * OBJECT_BYTES);
  if (!heap) {
    return EXIT_ENVIRONMENT;
  }
  struct sc_rng rng = {o.seed};
  uint64_t compiled = 0;
  for (uint64_t i = 0; i < o.objects; i++) {
    compile(heap + i * OBJECT_BYTES, 1 + sc_rng_below(&rng, 4095));
    compiled++;
  }
  uint64_t sum = 0, expected = 0, calls = 0;
  for (uint64_t r = 0; r < o.rounds; r++) {
    for (uint64_t i = r % o.period; i < o.objects; i += o.period) {
      compile(heap + i * OBJECT_BYTES, 1 + sc_rng_below(&rng, 4095));
      compiled++;
    }
    for (uint64_t i = 0; i < o.objects; i++) {
      uint8_t *obj = heap + i * OBJECT_BYTES;
      uint64_t constant;
      memcpy(&constant, obj + CONSTANT_OFFSET, 8);
      expected += constant * o.work;
      sum = ((closure_fn)(uintptr_t)obj)(sum, o.work);
      calls++;
    }
  }
  /* Every object counted its calls since it was last compiled. */
  uint64_t counted = 0;
  for (uint64_t i = 0; i < o.objects; i++) {
    uint64_t c;
    memcpy(&c, heap + i * OBJECT_BYTES + COUNTER_OFFSET, 8);
    counted += c;
  }
  uint64_t since = 0;
  for (uint64_t i = 0; i < o.objects; i++) {
    /* Object I was last compiled in the last round R with R % PERIOD ==
     * I % PERIOD, or before the rounds: it has been called since. */
    uint64_t phase = i % o.period, last = UINT64_MAX;
    if (o.rounds > phase) {
      last = phase + (o.rounds - 1 - phase) / o.period * o.period;
    }
    since += last == UINT64_MAX ? o.rounds : o.rounds - last;
  }
  int wrong = sum != expected || counted != since;
  printf("stored_heap: objects=%" PRIu64 " rounds=%" PRIu64 " period=%" PRIu64 " work=%" PRIu64
         " seed=%" PRIu64 " compiled=%" PRIu64 " calls=%" PRIu64 " wrong=%d\n",
         o.objects, o.rounds, o.period, o.work, o.seed, compiled, calls, wrong);
  if (wrong) {
    fprintf(stderr,
            "stored_heap: sum %" PRIu64 " (expected %" PRIu64 "), calls counted %" PRIu64
            " (expected %" PRIu64 ")\n",
            sum, expected, counted, since);
  }
  return wrong ? EXIT_WRONG_RESULT : 0;
}
