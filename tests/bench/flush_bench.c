/*
 * flush_bench: the guest side of ci/bench/run.sh (docs/BENCHMARKS.md#what-is-measured). It
 * JIT-writes a function of each size, flushes it with one of the routines
 * of tests/scenario (impl_*.c), and runs it, bracketing each flush and
 * each run with the rig's region markers, so that the plugin counts exactly
 * what one flush costs: instructions (inside and outside the maintenance
 * loops), dc and ic operations, mrs ctr_el0, system calls, and the stale
 * fetches of the run that follows.
 *
 *   flush_bench [--impl=NAME] [--sizes=N,N,...] [--calls=N] [--seed=N]
 *               [--first-call-cpu=N]
 *
 * The first flush of the process is measured on its own as the init cost;
 * the steady-state regions come after it. --first-call-cpu=N starts that
 * first flush on CPU N (the Galaxy S7 case: the routines that latch
 * CTR_EL0 latch the big core's): the thread pins itself to N and restores
 * its affinity right before the call, so it is still on N when the call
 * starts (the rig migrates only at seeded instruction counts, as a kernel
 * would not move a thread at once) but a probe made by the call sees every
 * CPU the thread may use, as it would in a JIT whose thread is not pinned.
 *
 * Region tags (the plugin's report lists sums per tag): KIND << 32 | bytes,
 * KIND 1 the first flush, 2 the run after it, 3 a steady-state flush, 4 the
 * run after it. Outside the rig the markers are NOPs and the program just
 * checks its results.
 *
 * Exit status: 0 every result was right, 1 a function returned a wrong
 * result, 2 usage error, 3 the environment refused (mmap, affinity).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "code_gen.h"
#include "cpu_pin.h"
#include "flush_impls.h"
#include "guest_args.h"
#include "jitflush.h"

enum {
  MAX_SIZES = 16,
  MAX_BYTES = 16 << 20,
  PAGE = 4096,
  FIRST_CALL_BYTES = 64,
};

enum tag_kind { TAG_FIRST_FLUSH = 1, TAG_FIRST_RUN = 2, TAG_FLUSH = 3, TAG_RUN = 4 };

/* The rig's markers (rig/plugin/plugin_region.c): unallocated HINTs, which
 * the Arm ARM requires to execute as NOPs. The tag travels in x16 (IP0,
 * which the procedure call standard lets any call clobber anyway). */
static inline void region_begin(enum tag_kind kind, uint64_t bytes)
{
  const uint64_t tag = (uint64_t)kind << 32 | bytes;
  __asm__ volatile("mov x16, %0\n\thint #0x7c" : : "r"(tag) : "x16", "memory");
}

static inline void region_end(void)
{
  __asm__ volatile("hint #0x7d" : : : "memory");
}

struct options {
  const struct sc_impl *impl;
  uint64_t sizes[MAX_SIZES];
  unsigned nsizes;
  unsigned calls;
  uint64_t seed;
  int first_call_cpu; /* -1: wherever the thread is */
};

static void usage(FILE *out)
{
  fprintf(out, "usage: flush_bench [--impl=NAME] [--sizes=N,N,...] [--calls=N] [--seed=N]\n"
               "                   [--first-call-cpu=N]\n");
  sc_print_impl_usage(out);
  fprintf(out,
          "  --sizes=LIST        bytes per flush, multiples of 64 up to %d\n"
          "                      (default 64,1024,16384,1048576)\n"
          "  --calls=N           steady-state flushes per size, 1-1000 (default 4)\n"
          "  --seed=N            seed of the generated code (default 1)\n"
          "  --first-call-cpu=N  start the first flush (the init) on CPU N\n",
          MAX_BYTES);
}

static bool parse_sizes(const char *text, struct options *opt)
{
  opt->nsizes = 0;
  char *copy = strdup(text);
  if (!copy)
    return false;
  bool ok = true;
  char *save = NULL;
  for (char *tok = strtok_r(copy, ",", &save); ok && tok; tok = strtok_r(NULL, ",", &save)) {
    uint64_t v;
    if (opt->nsizes == MAX_SIZES) {
      fprintf(stderr, "flush_bench: --sizes: at most %d sizes\n", MAX_SIZES);
      ok = false;
    } else if (!sc_parse_number("flush_bench", "--sizes", tok, 64, MAX_BYTES, &v)) {
      ok = false;
    } else if (v % 64 != 0) {
      fprintf(stderr, "flush_bench: --sizes: %" PRIu64 " is not a multiple of 64\n", v);
      ok = false;
    } else {
      opt->sizes[opt->nsizes++] = v;
    }
  }
  free(copy);
  if (ok && opt->nsizes == 0) {
    fprintf(stderr, "flush_bench: --sizes: expected at least one size\n");
    ok = false;
  }
  return ok;
}

/* Returns 0 on success, EXIT_USAGE after printing why, or -1 for --help. */
static int parse_options(int argc, char **argv, struct options *opt)
{
  *opt = (struct options){.impl = &sc_impls[0],
                          .sizes = {64, 1024, 16384, 1048576},
                          .nsizes = 4,
                          .calls = 4,
                          .seed = 1,
                          .first_call_cpu = -1};
  const char *impl = NULL, *sizes = NULL;
  const struct sc_option options[] = {
      SC_TEXT("--impl", impl),
      SC_TEXT("--sizes", sizes),
      SC_NUMBER("--calls", 1, 1000, opt->calls),
      SC_NUMBER("--seed", 0, UINT64_MAX, opt->seed),
      SC_NUMBER("--first-call-cpu", 0, CPU_SETSIZE - 1, opt->first_call_cpu),
  };
  int rc = sc_parse_options("flush_bench", argc, argv, options, sizeof options / sizeof options[0],
                            usage);
  if (rc == 0 && impl && !(opt->impl = sc_impl_option("flush_bench", impl, usage)))
    rc = EXIT_USAGE;
  if (rc == 0 && sizes && !parse_sizes(sizes, opt))
    rc = EXIT_USAGE;
  return rc;
}

/* Writes a function of BYTES at CODE, moves to FIRST_CPU (unless -1, see
 * the top of the file), flushes the function and runs it, each in its own
 * region. Returns 0 when it computed the right result, 1 when not, or
 * EXIT_ENVIRONMENT / EXIT_USAGE when the move failed. */
static int write_flush_run(const struct options *opt, uint32_t *code, uint64_t bytes,
                           enum tag_kind flush_kind, int first_cpu, struct sc_rng *rng)
{
  const uint64_t input = sc_rng_next(rng);
  const uint64_t expected = sc_emit_chain(code, bytes / 4, input, rng);
  const sc_flush_fn flush = opt->impl->flush;

  if (first_cpu >= 0) {
    cpu_set_t saved;
    if (!sc_pin_to_cpu(first_cpu, &saved)) {
      fprintf(stderr, "flush_bench: --first-call-cpu=%d: cannot run on that CPU: %s\n", first_cpu,
              strerror(errno));
      return EXIT_USAGE;
    }
    if (!sc_restore_affinity(&saved)) {
      fprintf(stderr, "flush_bench: restoring the affinity before the first flush: %s\n",
              strerror(errno));
      return EXIT_ENVIRONMENT;
    }
  }

  region_begin(flush_kind, bytes);
  flush(code, (uint8_t *)code + bytes);
  region_end();

  region_begin(flush_kind + 1, bytes);
  const uint64_t got = sc_as_fn(code)(input);
  region_end();

  if (got != expected)
    fprintf(stderr,
            "flush_bench: WRONG RESULT: impl=%s %" PRIu64 "-byte function at %p: got 0x%016" PRIx64
            ", expected 0x%016" PRIx64 "\n",
            opt->impl->name, bytes, (void *)code, got, expected);
  return got == expected ? 0 : 1;
}

int main(int argc, char **argv)
{
  struct options opt;
  int rc = parse_options(argc, argv, &opt);
  if (rc != 0)
    return rc < 0 ? 0 : rc;

  uint64_t largest = FIRST_CALL_BYTES;
  for (unsigned i = 0; i < opt.nsizes; i++)
    if (opt.sizes[i] > largest)
      largest = opt.sizes[i];
  /* Page-aligned, so every flush starts on a line boundary of any core and
   * the minimum number of operations is exactly bytes / line. */
  const size_t region_bytes = (size_t)(largest + PAGE - 1) / PAGE * PAGE;
  uint32_t *code = sc_map_code("flush_bench", region_bytes);
  if (!code)
    return EXIT_ENVIRONMENT;

  struct sc_rng rng = {opt.seed * 0x100000001b3u + 1};
  unsigned long wrong = 0;

  rc = write_flush_run(&opt, code, FIRST_CALL_BYTES, TAG_FIRST_FLUSH, opt.first_call_cpu, &rng);
  if (rc > 1)
    return rc;
  wrong += (unsigned long)rc;
  for (unsigned s = 0; s < opt.nsizes; s++)
    for (unsigned c = 0; c < opt.calls; c++)
      wrong += (unsigned long)write_flush_run(&opt, code, opt.sizes[s], TAG_FLUSH, -1, &rng);

  printf("flush_bench: impl=%s calls=%u seed=%" PRIu64 " wrong=%lu\n", opt.impl->name, opt.calls,
         opt.seed, wrong);
  /* What jitflush probed (the bench divides the init cost by it, and takes
   * 0 CTR_EL0 reads per call as a target only when the view is complete). */
  static struct jitflush_info info;
  jitflush_get_info(&info);
  unsigned observed = 0;
  for (unsigned i = 0; i < info.ncpus; i++)
    observed += info.cpus[i].observed;
  printf("flush_bench: jitflush view: complete=%d per_call_guard=%d cpus_observed=%u iline=%u "
         "dline=%u idc=%d "
         "dic=%d\n",
         info.complete, info.per_call_guard, observed, info.iline, info.dline, info.idc, info.dic);
  munmap(code, region_bytes);
  return wrong == 0 ? 0 : EXIT_WRONG_RESULT;
}
