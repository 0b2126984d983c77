/*
 * wx_dual: W^X code through two views of one memfd, the way hardened JITs
 * do it (never a page both writable and executable): functions are written
 * through the RW view, flushed, and called through the RX view.
 *
 *   wx_dual [--wrong-way] [--rx-via-mprotect] [--functions=N] [--seed=N]
 *
 * Default: jitflush_clear_cache_dual(rw, rx, len), which cleans the D-cache
 * through RW and invalidates the I-cache through RX. --wrong-way flushes
 * with jitflush_clear_cache(rw, rw + len): both operations through RW. On a
 * core whose L1 I-cache is VIPT (CTR_EL0.L1Ip = 2: Cortex-A53, Exynos M1,
 * Apple M1 as the rig emulates them) the invalidate then misses the lines
 * the RX view filled, because a VIPT cache is indexed by the fetching
 * virtual address; the rig flags those fetches with "invalidated through a
 * non-executable alias".
 *
 * --rx-via-mprotect maps the second view read-only and makes it executable
 * with mprotect afterwards, as JITs that reserve before they commit do.
 *
 * Each function goes to a fresh place after the previous one, with a
 * random gap, so entries and ends fall at every word offset within a
 * line. Fresh places also keep plain QEMU honest: it re-translates code
 * only on an ic ivau through the address that fetches it (its ic_ivau
 * helper in target/arm/helper.c), so reusing RX addresses under
 * --wrong-way would run old translations, not just be flagged.
 *
 * Output (one line): mode, functions, verified/wrong, how many distinct
 * offsets within a 64-byte line the entries had.
 * Exit status: 0 every call returned the right value, 1 a wrong value,
 * 2 usage error, 3 the environment refused (memfd, mmap).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "code_gen.h"
#include "guest_args.h"
#include "jitflush.h"

enum {
  REGION_BYTES = 512 * 1024,
  MAX_INSNS = 96,
  MAX_GAP_WORDS = 64, /* up to 256 bytes: every offset in every line size */
};

struct options {
  bool wrong_way;
  bool rx_via_mprotect;
  unsigned long functions;
  uint64_t seed;
};

static void usage(FILE *out)
{
  fprintf(out, "usage: wx_dual [--wrong-way] [--rx-via-mprotect] [--functions=N] [--seed=N]\n"
               "  --wrong-way        flush with jitflush_clear_cache(rw, rw + len) instead of\n"
               "                     jitflush_clear_cache_dual(rw, rx, len)\n"
               "  --rx-via-mprotect  map the RX view read-only, then mprotect it to RX\n"
               "  --functions=N      functions to write and call, 1-5000 (default 300)\n"
               "  --seed=N           seed of lengths, gaps and code (default 1)\n");
}

/* Returns 0, EXIT_USAGE after printing why, or -1 for --help. */
static int parse_options(int argc, char **argv, struct options *opt)
{
  *opt =
      (struct options){.wrong_way = false, .rx_via_mprotect = false, .functions = 300, .seed = 1};
  const struct sc_option options[] = {
      SC_FLAG("--wrong-way", opt->wrong_way),
      SC_FLAG("--rx-via-mprotect", opt->rx_via_mprotect),
      SC_NUMBER("--functions", 1, 5000, opt->functions),
      SC_NUMBER("--seed", 0, UINT64_MAX, opt->seed),
  };
  return sc_parse_options("wx_dual", argc, argv, options, sizeof options / sizeof options[0],
                          usage);
}

int main(int argc, char **argv)
{
  struct options opt;
  int rc = parse_options(argc, argv, &opt);
  if (rc != 0)
    return rc < 0 ? 0 : rc;

  /* One memory, two views: the RW one for the JIT's stores, the RX one
   * for execution. MAP_SHARED, so both show the same pages. */
  const int fd = memfd_create("wx_dual", MFD_CLOEXEC);
  if (fd < 0 || ftruncate(fd, REGION_BYTES) != 0) {
    fprintf(stderr, "wx_dual: memfd of %d bytes: %s\n", REGION_BYTES, strerror(errno));
    return EXIT_ENVIRONMENT;
  }
  uint8_t *rw = mmap(NULL, REGION_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  const int rx_prot = opt.rx_via_mprotect ? PROT_READ : PROT_READ | PROT_EXEC;
  uint8_t *rx = mmap(NULL, REGION_BYTES, rx_prot, MAP_SHARED, fd, 0);
  if (rw == MAP_FAILED || rx == MAP_FAILED) {
    fprintf(stderr, "wx_dual: mapping the memfd twice: %s\n", strerror(errno));
    return EXIT_ENVIRONMENT;
  }
  if (opt.rx_via_mprotect && mprotect(rx, REGION_BYTES, PROT_READ | PROT_EXEC) != 0) {
    fprintf(stderr, "wx_dual: mprotect of the RX view: %s\n", strerror(errno));
    return EXIT_ENVIRONMENT;
  }
  close(fd); /* the mappings keep the memory */

  struct sc_rng rng = {opt.seed};
  size_t cursor = 0;
  unsigned long written = 0, verified = 0, wrong = 0;
  uint64_t offsets_seen = 0; /* bit k: an entry at word k of a 64-byte line */
  for (unsigned long i = 0; i < opt.functions; i++) {
    const size_t ninsns = 2 + (size_t)sc_rng_below(&rng, MAX_INSNS - 1);
    const size_t offset = cursor + 4 * (size_t)sc_rng_below(&rng, MAX_GAP_WORDS);
    if (offset + 4 * ninsns > REGION_BYTES)
      break;
    cursor = offset + 4 * ninsns;
    const uint64_t input = sc_rng_next(&rng);
    const uint64_t expected = sc_emit_chain((uint32_t *)(rw + offset), ninsns, input, &rng);
    if (opt.wrong_way)
      jitflush_clear_cache(rw + offset, rw + offset + 4 * ninsns);
    else
      jitflush_clear_cache_dual(rw + offset, rx + offset, 4 * ninsns);
    written++;
    offsets_seen |= UINT64_C(1) << ((offset % 64) / 4);
    const uint64_t got = sc_as_fn(rx + offset)(input);
    if (got == expected) {
      verified++;
    } else {
      wrong++;
      fprintf(stderr,
              "wx_dual: WRONG RESULT: function %lu at rx+0x%zx returned 0x%016" PRIx64
              ", expected 0x%016" PRIx64 "\n",
              i, offset, got, expected);
    }
  }
  printf("wx_dual: mode=%s functions=%lu verified=%lu wrong=%lu line_offsets=%d\n",
         opt.wrong_way ? "wrong-way" : "dual", written, verified, wrong,
         __builtin_popcountll(offsets_seen));
  munmap(rw, REGION_BYTES);
  munmap(rx, REGION_BYTES);
  return wrong == 0 ? 0 : EXIT_WRONG_RESULT;
}
