/*
 * patch_sync: one thread patches a function that another thread, on
 * another core, keeps calling. Run under the emulated big.LITTLE rig
 * (docs/COHERENCE-MODEL.md) it shows that a flush alone leaves the running
 * core's pipeline stale, and that jitflush_sync_cores() fixes it.
 *
 *   patch_sync --mode=flush-only|sync [--rounds=N] [--seed=N]
 *              [--patcher-cpu=N] [--runner-cpu=N]
 *
 * The runner (pinned to --runner-cpu, default 0: a LITTLE core of the
 * Exynos 8890) calls the function once per generation. The patcher (pinned
 * to --patcher-cpu, default 4: a big core) writes the next generation in
 * place, flushes it with jitflush_clear_cache(), and with --mode=sync also
 * calls jitflush_sync_cores(); then it publishes the generation number.
 *
 * The Arm ARM only allows executing a word while another core rewrites it
 * for B, BL, BRK, HVC, ISB, NOP, SMC and SVC (B2.2.5, concurrent
 * modification and execution of instructions), and the function is made of
 * ADD/SUB: so the patcher waits until the runner has returned from the
 * previous generation and is spinning on the generation counter, outside
 * the patched code, before it writes. The runner's wait is plain atomic
 * loads: no isb and no system call (whose exception return would
 * synchronise its core and hide what this program is about) between seeing
 * the new generation and calling it. Its only context synchronisation
 * after the patch can then come from the patcher's jitflush_sync_cores().
 *
 * Output (one line): mode, rounds, the CPUs both threads ran on (getcpu
 * after pinning), verified/wrong call counts, the sync status.
 * Exit status: 0 every call returned the right value, 1 a wrong value,
 * 2 usage error, 3 the environment refused (mmap, threads, pinning).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "code_gen.h"
#include "cpu_pin.h"
#include "guest_args.h"
#include "jitflush.h"

enum {
  REGION_BYTES = 4096,
  MAX_INSNS = 200, /* up to 800 bytes: several lines of every geometry */
};

enum mode { MODE_FLUSH_ONLY, MODE_SYNC };

struct options {
  enum mode mode;
  unsigned long rounds;
  uint64_t seed;
  int patcher_cpu;
  int runner_cpu;
};

/* The hand-over between the patcher and the runner. */
struct shared {
  const struct options *opt;
  uint32_t *code;                  /* the patched function, fixed address */
  _Atomic unsigned long published; /* generation ready to run */
  _Atomic unsigned long consumed;  /* generations the runner has run */
  /* Written before the release store of published. */
  uint64_t input, expected;
  _Atomic int sync_status; /* first non-OK jitflush_sync_cores result */
  _Atomic bool failed;     /* a thread could not start its work */
  int patcher_cpu_seen, runner_cpu_seen;
  unsigned long verified, wrong;
};

static void usage(FILE *out)
{
  fprintf(out, "usage: patch_sync --mode=flush-only|sync [--rounds=N] [--seed=N]\n"
               "                  [--patcher-cpu=N] [--runner-cpu=N]\n"
               "  --mode=flush-only  the patcher flushes, nothing synchronises the runner's core\n"
               "  --mode=sync        the patcher flushes, then calls jitflush_sync_cores()\n"
               "  --rounds=N         generations to patch, 1-100000 (default 40)\n"
               "  --seed=N           seed of the generated code (default 1)\n"
               "  --patcher-cpu=N    CPU of the patching thread (default 4)\n"
               "  --runner-cpu=N     CPU of the running thread (default 0)\n");
}

/* Returns 0, EXIT_USAGE after printing why, or -1 for --help. */
static int parse_options(int argc, char **argv, struct options *opt)
{
  *opt = (struct options){
      .mode = MODE_FLUSH_ONLY, .rounds = 40, .seed = 1, .patcher_cpu = 4, .runner_cpu = 0};
  const char *mode = NULL;
  const struct sc_option options[] = {
      SC_TEXT("--mode", mode),
      SC_NUMBER("--rounds", 1, 100000, opt->rounds),
      SC_NUMBER("--seed", 0, UINT64_MAX, opt->seed),
      SC_NUMBER("--patcher-cpu", 0, CPU_SETSIZE - 1, opt->patcher_cpu),
      SC_NUMBER("--runner-cpu", 0, CPU_SETSIZE - 1, opt->runner_cpu),
  };
  int rc = sc_parse_options("patch_sync", argc, argv, options, sizeof options / sizeof options[0],
                            usage);
  if (rc != 0)
    return rc;
  if (!mode) {
    fprintf(stderr, "patch_sync: --mode=flush-only or --mode=sync is required\n");
    usage(stderr);
    return EXIT_USAGE;
  }
  if (strcmp(mode, "flush-only") == 0) {
    opt->mode = MODE_FLUSH_ONLY;
  } else if (strcmp(mode, "sync") == 0) {
    opt->mode = MODE_SYNC;
  } else {
    fprintf(stderr, "patch_sync: --mode: expected flush-only or sync, got '%s'\n", mode);
    return EXIT_USAGE;
  }
  return 0;
}

/* The CPU the caller runs on, by the system call (glibc's sched_getcpu may
 * answer from rseq, which the rig does not emulate). -1 on failure. */
static int current_cpu(void)
{
  unsigned cpu = 0;
  if (syscall(SYS_getcpu, &cpu, NULL, NULL) != 0)
    return -1;
  return (int)cpu;
}

/* Pins the calling thread (WHO) to CPU and stores the CPU it then runs on
 * in *SEEN, or -1. On failure it marks the run failed, so the other thread
 * stops waiting, and returns false. */
static bool pin_and_report(struct shared *sh, const char *who, int cpu, int *seen)
{
  if (!sc_pin_to_cpu(cpu, NULL)) {
    fprintf(stderr, "patch_sync: cannot pin the %s thread to CPU %d: %s\n", who, cpu,
            strerror(errno));
    *seen = -1;
  } else {
    *seen = current_cpu();
  }
  if (*seen < 0)
    atomic_store(&sh->failed, true);
  return *seen >= 0;
}

/* Writes generation GEN of the function; the runner is not inside it. */
static void write_generation(struct shared *sh, unsigned long gen)
{
  struct sc_rng rng = {sh->opt->seed * 0x9e3779b97f4a7c15u + gen};
  const size_t ninsns = 2 + (size_t)sc_rng_below(&rng, MAX_INSNS - 1);
  sh->input = sc_rng_next(&rng);
  sh->expected = sc_emit_chain(sh->code, ninsns, sh->input, &rng);
  jitflush_clear_cache(sh->code, sh->code + ninsns);
}

static void *patcher_main(void *arg)
{
  struct shared *sh = arg;
  if (!pin_and_report(sh, "patcher", sh->opt->patcher_cpu, &sh->patcher_cpu_seen))
    return NULL;
  for (unsigned long gen = 1; gen <= sh->opt->rounds; gen++) {
    /* The runner has returned from generation gen-1 and spins on
     * `published`, outside the code: rewriting it now is allowed. */
    while (atomic_load_explicit(&sh->consumed, memory_order_acquire) != gen &&
           !atomic_load(&sh->failed))
      sched_yield(); /* the patcher's own syscalls synchronise only its core */
    if (atomic_load(&sh->failed))
      return NULL;
    write_generation(sh, gen);
    if (sh->opt->mode == MODE_SYNC) {
      const int status = jitflush_sync_cores();
      if (status != JITFLUSH_OK) {
        int expected_ok = JITFLUSH_OK;
        atomic_compare_exchange_strong(&sh->sync_status, &expected_ok, status);
      }
    }
    atomic_store_explicit(&sh->published, gen, memory_order_release);
  }
  return NULL;
}

static void *runner_main(void *arg)
{
  struct shared *sh = arg;
  if (!pin_and_report(sh, "runner", sh->opt->runner_cpu, &sh->runner_cpu_seen))
    return NULL;
  for (unsigned long gen = 0; gen <= sh->opt->rounds; gen++) {
    /* Plain loads only: see the file comment. */
    while (atomic_load_explicit(&sh->published, memory_order_acquire) != gen)
      if (atomic_load_explicit(&sh->failed, memory_order_relaxed))
        return NULL;
    const uint64_t got = sc_as_fn(sh->code)(sh->input);
    if (got == sh->expected) {
      sh->verified++;
    } else {
      sh->wrong++;
      fprintf(stderr,
              "patch_sync: WRONG RESULT: generation %lu returned 0x%016" PRIx64
              ", expected 0x%016" PRIx64 "\n",
              gen, got, sh->expected);
    }
    atomic_store_explicit(&sh->consumed, gen + 1, memory_order_release);
  }
  return NULL;
}

int main(int argc, char **argv)
{
  struct options opt;
  int rc = parse_options(argc, argv, &opt);
  if (rc != 0)
    return rc < 0 ? 0 : rc;

  void *region = sc_map_code("patch_sync", REGION_BYTES);
  if (!region)
    return EXIT_ENVIRONMENT;
  static struct shared sh;
  sh.opt = &opt;
  /* Not line aligned, so the function straddles lines of every geometry. */
  sh.code = (uint32_t *)((uint8_t *)region + 0x7c);
  /* Generation 0 is ready before either thread exists: the threads' start
   * (an exception return) synchronises their cores. */
  write_generation(&sh, 0);

  pthread_t patcher, runner;
  int err = pthread_create(&runner, NULL, runner_main, &sh);
  if (err == 0) {
    err = pthread_create(&patcher, NULL, patcher_main, &sh);
    if (err != 0) {
      atomic_store(&sh.failed, true);
      pthread_join(runner, NULL);
    }
  }
  if (err != 0) {
    fprintf(stderr, "patch_sync: pthread_create: %s\n", strerror(err));
    return EXIT_ENVIRONMENT;
  }
  pthread_join(patcher, NULL);
  pthread_join(runner, NULL);
  if (atomic_load(&sh.failed))
    return EXIT_ENVIRONMENT;

  printf("patch_sync: mode=%s rounds=%lu patcher_cpu=%d runner_cpu=%d verified=%lu wrong=%lu "
         "sync_status=%d\n",
         opt.mode == MODE_SYNC ? "sync" : "flush-only", opt.rounds, sh.patcher_cpu_seen,
         sh.runner_cpu_seen, sh.verified, sh.wrong, atomic_load(&sh.sync_status));
  munmap(region, REGION_BYTES);
  if (atomic_load(&sh.sync_status) != JITFLUSH_OK) {
    fprintf(stderr, "patch_sync: jitflush_sync_cores returned %d\n", atomic_load(&sh.sync_status));
    return EXIT_ENVIRONMENT;
  }
  return sh.wrong == 0 ? 0 : EXIT_WRONG_RESULT;
}
