/*
 * jit_stress: several threads JIT-compile functions into one shared RWX
 * region, flush them with a selectable routine, and run them: their own
 * right away, and a neighbour's after it was published. Run under the
 * emulated big.LITTLE rig (docs/RIG.md) it shows which routines let
 * a core fetch stale instructions; on plain QEMU or hardware it checks that
 * every routine computes the right results.
 *
 *   jit_stress [--impl=NAME] [--threads=N] [--iterations=N] [--seed=N]
 *              [--max-bytes=N] [--first-call-cpu=N] [--watch-ctr]
 *
 * Exit status: 0 every result was right, 1 a function returned a wrong
 * result (each one is printed), 2 usage error, 3 the environment refused
 * (mmap, threads).
 *
 * Ownership, so the program never breaks the Arm ARM's concurrent
 * modification and execution rule (B2.2.5: only B, BL, BRK, HVC, ISB, NOP,
 * SMC, SVC may be executed while being rewritten): thread t alone writes
 * slot t, and only after thread t+1 (mod N), the one reader of slot t, has
 * acknowledged the previous function there. The code goes out with a
 * release store after the flush; the reader loads it with acquire and runs
 * an isb on its own core before the call, as a JIT must for code another
 * thread made (the flush's own isb only synchronises the writer's core).
 * Offsets vary inside each slot, but slots stay put, so the same addresses
 * are rewritten over and over and stale lines have something to be stale
 * about.
 *
 * --watch-ctr reads CTR_EL0 right before and right after each flush and
 * counts the flushes where it changed: under the rig (which answers the read
 * per emulated core) that proves a migration between clusters landed inside
 * a flush. Reads only, so no system call (whose return would synchronise the
 * core) is added between the flush and the code it publishes.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "arm64_cache_ops.h"
#include "code_gen.h"
#include "cpu_pin.h"
#include "flush_impls.h"
#include "guest_args.h"

enum {
  MAX_THREADS = 64,
  PAGE = 4096,
  MAX_REPORTED_ERRORS = 20,
};

struct options {
  const struct sc_impl *impl;
  unsigned threads;
  unsigned long iterations;
  uint64_t seed;
  unsigned max_bytes;
  int first_call_cpu; /* -1: none */
  bool watch_ctr;
};

/* One slot of the code region and its hand-over state. */
struct slot {
  _Alignas(64) _Atomic unsigned long published; /* iteration + 1 ready to run */
  _Atomic unsigned long consumed;               /* iteration + 1 the reader ran */
  /* Written by the owner before the release store of published; read by
   * the reader after the acquire load. */
  const uint32_t *entry;
  size_t ninsns;
  uint64_t input;
  uint64_t expected;
};

struct shared {
  const struct options *opt;
  uint8_t *region;
  size_t slot_bytes;
  struct slot slots[MAX_THREADS];
  _Atomic unsigned long wrong;
  _Atomic unsigned long reported;
};

struct worker {
  pthread_t thread;
  unsigned index;
  struct shared *shared;
  unsigned long written, flushed, verified;
  unsigned long ctr_changed_in_flush;
};

static void usage(FILE *out)
{
  fprintf(out, "usage: jit_stress [--impl=NAME] [--threads=N] [--iterations=N] [--seed=N]\n"
               "                  [--max-bytes=N] [--first-call-cpu=N] [--watch-ctr]\n");
  sc_print_impl_usage(out);
  fprintf(out,
          "  --threads=N         worker threads, 1-%d (default 4)\n"
          "  --iterations=N      functions each thread writes (default 100)\n"
          "  --seed=N            seed for lengths, offsets and code (default 1)\n"
          "  --max-bytes=N       longest function in bytes, 8-65536 (default 4096)\n"
          "  --first-call-cpu=N  make the first flush on CPU N, then restore the affinity\n"
          "  --watch-ctr         count flushes during which CTR_EL0 changed (a migration)\n",
          MAX_THREADS);
}

/* Returns 0 on success, EXIT_USAGE after printing why, or -1 for --help. */
static int parse_options(int argc, char **argv, struct options *opt)
{
  *opt = (struct options){.impl = &sc_impls[0],
                          .threads = 4,
                          .iterations = 100,
                          .seed = 1,
                          .max_bytes = 4096,
                          .first_call_cpu = -1};
  const char *impl = NULL;
  const struct sc_option options[] = {
      SC_TEXT("--impl", impl),
      SC_NUMBER("--threads", 1, MAX_THREADS, opt->threads),
      SC_NUMBER("--iterations", 1, 100000000, opt->iterations),
      SC_NUMBER("--seed", 0, UINT64_MAX, opt->seed),
      SC_NUMBER("--max-bytes", 8, 65536, opt->max_bytes),
      SC_NUMBER("--first-call-cpu", 0, CPU_SETSIZE - 1, opt->first_call_cpu),
      SC_FLAG("--watch-ctr", opt->watch_ctr),
  };
  int rc = sc_parse_options("jit_stress", argc, argv, options, sizeof options / sizeof options[0],
                            usage);
  if (rc == 0 && impl && !(opt->impl = sc_impl_option("jit_stress", impl, usage)))
    rc = EXIT_USAGE;
  opt->max_bytes &= ~3u;
  return rc;
}

static void wait_for(_Atomic unsigned long *flag, unsigned long want)
{
  /* sched_yield: there are more guest threads than host CPUs under QEMU. */
  while (atomic_load_explicit(flag, memory_order_acquire) != want)
    sched_yield();
}

static void check(struct shared *sh, unsigned thread, unsigned long iteration, const char *whose,
                  const struct slot *s, unsigned long *verified)
{
  const uint64_t got = sc_as_fn(s->entry)(s->input);
  if (got == s->expected) {
    (*verified)++;
    return;
  }
  atomic_fetch_add(&sh->wrong, 1);
  if (atomic_fetch_add(&sh->reported, 1) < MAX_REPORTED_ERRORS)
    fprintf(stderr,
            "jit_stress: WRONG RESULT: thread %u iteration %lu ran %s function at %p (%zu words, "
            "region offset 0x%zx): got 0x%016" PRIx64 ", expected 0x%016" PRIx64 "\n",
            thread, iteration, whose, (const void *)s->entry, s->ninsns,
            (size_t)((const uint8_t *)s->entry - sh->region), got, s->expected);
}

/* Mostly short functions (a few lines, where a skipped line is likely the
 * whole tail), some medium, some up to max_bytes. */
static size_t pick_length(struct sc_rng *rng, size_t max_insns)
{
  const uint64_t kind = sc_rng_below(rng, 10);
  size_t lo, hi;
  if (kind < 5) {
    lo = 2;
    hi = 32;
  } else if (kind < 8) {
    lo = 32;
    hi = 256;
  } else {
    lo = 256;
    hi = max_insns;
  }
  if (hi > max_insns)
    hi = max_insns;
  if (lo > hi)
    lo = hi;
  return lo + (size_t)sc_rng_below(rng, hi - lo + 1);
}

static void *worker_main(void *arg)
{
  struct worker *w = arg;
  struct shared *sh = w->shared;
  const struct options *opt = sh->opt;
  const unsigned n = opt->threads;
  struct slot *mine = &sh->slots[w->index];
  struct slot *neighbour = &sh->slots[(w->index + n - 1) % n];
  uint8_t *base = sh->region + (size_t)w->index * sh->slot_bytes;
  struct sc_rng rng = {opt->seed * 0x100000001b3u + w->index + 1};

  for (unsigned long it = 0; it < opt->iterations; it++) {
    /* The reader of my slot must be done with the last function first. */
    wait_for(&mine->consumed, it);

    const size_t ninsns = pick_length(&rng, opt->max_bytes / 4);
    const size_t room = sh->slot_bytes - ninsns * 4;
    uint32_t *code = (uint32_t *)(base + 4 * (size_t)sc_rng_below(&rng, room / 4 + 1));
    mine->entry = code;
    mine->ninsns = ninsns;
    mine->input = sc_rng_next(&rng);
    mine->expected = sc_emit_chain(code, ninsns, mine->input, &rng);
    w->written++;
    if (opt->watch_ctr) {
      const uint64_t before = sc_read_ctr_el0();
      opt->impl->flush(code, code + ninsns);
      if (sc_read_ctr_el0() != before)
        w->ctr_changed_in_flush++;
    } else {
      opt->impl->flush(code, code + ninsns);
    }
    w->flushed++;
    atomic_store_explicit(&mine->published, it + 1, memory_order_release);

    check(sh, w->index, it, "its own", mine, &w->verified);

    wait_for(&neighbour->published, it + 1);
    /* The writer's isb synchronised its own core only (Arm ARM B2.4.4). */
    sc_isb();
    check(sh, w->index, it, "a neighbour's", neighbour, &w->verified);
    atomic_store_explicit(&neighbour->consumed, it + 1, memory_order_release);
  }
  return NULL;
}

/* So cached-first and libgcc latch the stride of a chosen (big) core. */
static int first_flush_on(int cpu, const struct options *opt, uint8_t *region,
                          unsigned long *flushed)
{
  cpu_set_t saved;
  if (!sc_pin_to_cpu(cpu, &saved)) {
    fprintf(stderr, "jit_stress: --first-call-cpu=%d: cannot run on that CPU: %s\n", cpu,
            strerror(errno));
    return EXIT_USAGE;
  }
  opt->impl->flush(region, region + 64);
  (*flushed)++;
  if (!sc_restore_affinity(&saved)) {
    fprintf(stderr, "jit_stress: restoring the affinity after the first flush: %s\n",
            strerror(errno));
    return EXIT_ENVIRONMENT;
  }
  return 0;
}

int main(int argc, char **argv)
{
  struct options opt;
  int rc = parse_options(argc, argv, &opt);
  if (rc != 0)
    return rc < 0 ? 0 : rc;

  static struct shared sh;
  sh.opt = &opt;
  /* Twice the longest function, so that offsets have room to vary. */
  sh.slot_bytes = ((size_t)opt.max_bytes * 2 + PAGE - 1) / PAGE * PAGE;
  const size_t region_bytes = sh.slot_bytes * opt.threads;
  void *region = sc_map_code("jit_stress", region_bytes);
  if (!region)
    return EXIT_ENVIRONMENT;
  sh.region = region;

  unsigned long first_flushes = 0;
  if (opt.first_call_cpu >= 0) {
    rc = first_flush_on(opt.first_call_cpu, &opt, sh.region, &first_flushes);
    if (rc != 0)
      return rc;
  }

  static struct worker workers[MAX_THREADS];
  for (unsigned t = 0; t < opt.threads; t++) {
    workers[t] = (struct worker){.index = t, .shared = &sh};
    int err = pthread_create(&workers[t].thread, NULL, worker_main, &workers[t]);
    if (err != 0) {
      fprintf(stderr, "jit_stress: pthread_create: %s\n", strerror(err));
      return EXIT_ENVIRONMENT;
    }
  }
  unsigned long written = 0, flushed = first_flushes, verified = 0, ctr_changed = 0;
  for (unsigned t = 0; t < opt.threads; t++) {
    pthread_join(workers[t].thread, NULL);
    written += workers[t].written;
    flushed += workers[t].flushed;
    verified += workers[t].verified;
    ctr_changed += workers[t].ctr_changed_in_flush;
  }

  const unsigned long wrong = atomic_load(&sh.wrong);
  printf("jit_stress: impl=%s threads=%u iterations=%lu seed=%" PRIu64
         " written=%lu flushed=%lu verified=%lu "
         "wrong=%lu",
         opt.impl->name, opt.threads, opt.iterations, opt.seed, written, flushed, verified, wrong);
  if (opt.watch_ctr)
    printf(" ctr_changed_in_flush=%lu", ctr_changed);
  printf("\n");
  munmap(region, region_bytes);
  return wrong == 0 ? 0 : EXIT_WRONG_RESULT;
}
