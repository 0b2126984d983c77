/*
 * checker_selftest: one hand-written code-publication sequence per rule of
 * the rig's coherence model (docs/COHERENCE-MODEL.md), so the scenario tests can
 * check that the plugin flags each broken sequence and accepts the correct
 * one. Each case writes a 2 KiB add/sub chain into fresh RWX memory, runs
 * the sequence named on the command line, then calls the code once.
 *
 *   checker_selftest CASE [--cpu=N]
 *
 *   correct            dc cvau per smallest D line; dsb ish; ic ivau per
 *                      smallest I line; dsb ish; isb        (never stale)
 *   no-dsb             ... ic ivau loop; isb                (invalidate never completes)
 *   no-isb             ... dsb ish; no isb                  (pipeline not synchronised)
 *   wrong-geometry     ic ivau stepping twice the running core's I line
 *   wrong-core-clean   dc cvau stepping another core's (larger) D line,
 *                      or twice the writer's when every core agrees
 *   store-after-flush  the correct sequence, then one more store into the code
 *   grouped-store-after-flush
 *                      the same, but the store into the code follows a store
 *                      to a data word through the same base register in one
 *                      block: the rig records both with the first store's
 *                      callback (rig/model/model_store_groups.c)
 *   span-store-after-flush
 *                      the same, but one 8-byte store rewrites two words:
 *                      the rig's span callback must record the second too
 *   no-clean           ic ivau only (stale wherever some core lacks IDC)
 *   other-exec-view    the code in a memfd mapped three times, RW, RX1 and
 *                      RX2 (both executable views faulted in before the
 *                      code is written): written and cleaned through RW, invalidated
 *                      through RX1, run through RX2 (stale on a VIPT
 *                      I-cache, which the invalidate reaches only at RX1's
 *                      index; correct on a PIPT one)
 *
 * "Smallest" is over every CPU the process may run on: the program pins
 * itself to each in turn and reads CTR_EL0 there (which the rig answers per
 * emulated core). It then pins itself to one CPU for the sequence, so that
 * no migration (an exception return, which synchronises the core) hides a
 * missing isb, and so the fetch happens on a core of known geometry: by
 * default the first CPU with the smallest I line (wrong-core-clean: the
 * smallest D line); --cpu=N picks another.
 *
 * Exit status: 0 the code returned the right value, 1 it did not, 2 usage,
 * 3 the environment refused (affinity, mmap). Under plain QEMU every case
 * exits 0 (QEMU keeps instruction fetch coherent by itself); under the rig
 * the runner turns a flagged case into status 86.
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
#include <unistd.h>

#include "arm64_cache_ops.h"
#include "a64_encode.h"
#include "code_gen.h"
#include "cpu_pin.h"
#include "guest_args.h"

enum {
  /* 2 KiB: long enough that a stride of twice a 256-byte A64FX line still
   * leaves whole lines out. */
  CODE_WORDS = 512,
  REGION_BYTES = 2 * 4096,
  /* The word store-after-flush rewrites: mid-function, away from the lines
   * at either end. */
  REWRITTEN_WORD = 300,
};

enum test_case {
  CASE_CORRECT,
  CASE_NO_DSB,
  CASE_NO_ISB,
  CASE_WRONG_GEOMETRY,
  CASE_WRONG_CORE_CLEAN,
  CASE_STORE_AFTER_FLUSH,
  CASE_NO_CLEAN,
  CASE_GROUPED_STORE_AFTER_FLUSH,
  CASE_SPAN_STORE_AFTER_FLUSH,
  CASE_OTHER_EXEC_VIEW,
};

static const char *const case_names[] = {
    [CASE_CORRECT] = "correct",
    [CASE_NO_DSB] = "no-dsb",
    [CASE_NO_ISB] = "no-isb",
    [CASE_WRONG_GEOMETRY] = "wrong-geometry",
    [CASE_WRONG_CORE_CLEAN] = "wrong-core-clean",
    [CASE_STORE_AFTER_FLUSH] = "store-after-flush",
    [CASE_NO_CLEAN] = "no-clean",
    [CASE_GROUPED_STORE_AFTER_FLUSH] = "grouped-store-after-flush",
    [CASE_SPAN_STORE_AFTER_FLUSH] = "span-store-after-flush",
    [CASE_OTHER_EXEC_VIEW] = "other-exec-view",
};
enum { NCASES = sizeof case_names / sizeof case_names[0] };

struct cpu_lines {
  int cpu;
  unsigned iline, dline;
};

struct topology {
  struct cpu_lines cpus[CPU_SETSIZE];
  int ncpus;
  unsigned min_iline, min_dline, max_dline;
};

static void usage(FILE *out)
{
  fprintf(out, "usage: checker_selftest CASE [--cpu=N]\n  CASE:");
  for (int i = 0; i < NCASES; i++)
    fprintf(out, " %s", case_names[i]);
  fprintf(out, "\n");
}

/* Reads CTR_EL0 on every CPU of the current affinity mask. */
static bool probe(struct topology *topo)
{
  cpu_set_t allowed;
  if (sched_getaffinity(0, sizeof allowed, &allowed) != 0)
    return false;
  *topo = (struct topology){.min_iline = ~0u, .min_dline = ~0u};
  for (int cpu = 0; cpu < CPU_SETSIZE; cpu++) {
    if (!CPU_ISSET(cpu, &allowed))
      continue;
    if (!sc_pin_to_cpu(cpu, NULL))
      return false;
    const uint64_t ctr = sc_read_ctr_el0();
    struct cpu_lines *c = &topo->cpus[topo->ncpus++];
    *c = (struct cpu_lines){cpu, sc_ctr_iline(ctr), sc_ctr_dline(ctr)};
    if (c->iline < topo->min_iline)
      topo->min_iline = c->iline;
    if (c->dline < topo->min_dline)
      topo->min_dline = c->dline;
    if (c->dline > topo->max_dline)
      topo->max_dline = c->dline;
  }
  return topo->ncpus > 0;
}

static const struct cpu_lines *find_cpu(const struct topology *topo, int cpu)
{
  for (int i = 0; i < topo->ncpus; i++)
    if (topo->cpus[i].cpu == cpu)
      return &topo->cpus[i];
  return NULL;
}

static const struct cpu_lines *first_with_iline(const struct topology *topo, unsigned iline)
{
  for (int i = 0; i < topo->ncpus; i++)
    if (topo->cpus[i].iline == iline)
      return &topo->cpus[i];
  return NULL;
}

static const struct cpu_lines *first_with_dline(const struct topology *topo, unsigned dline)
{
  for (int i = 0; i < topo->ncpus; i++)
    if (topo->cpus[i].dline == dline)
      return &topo->cpus[i];
  return NULL;
}

static void clean_range(uintptr_t begin, uintptr_t end, uintptr_t stride)
{
  for (uintptr_t a = begin & ~(stride - 1); a < end; a += stride)
    sc_dc_cvau(a);
}

static void invalidate_range(uintptr_t begin, uintptr_t end, uintptr_t stride)
{
  for (uintptr_t a = begin & ~(stride - 1); a < end; a += stride)
    sc_ic_ivau(a);
}

/* Writes INSN to *WORD right after a store to a data word 2 KiB further on
 * (past the code, never executed), through the same base register in the
 * same block, so that the rig groups them and only the data store has a
 * callback of its own. */
static void store_after_data_store(uint32_t *word, uint32_t insn)
{
  __asm__ volatile("str %x[zero], [%[base], #2048]\n\t"
                   "str %w[insn], [%[base]]"
                   :
                   : [base] "r"(word), [zero] "r"((uint64_t)0), [insn] "r"(insn)
                   : "memory");
}

/* Writes the two words at WORD (8-byte aligned) with one str x: a lone
 * store of 8 bytes, which the rig records with its span callback. */
static void store_two_words(uint32_t *word, uint32_t first, uint32_t second)
{
  const uint64_t both = (uint64_t)second << 32 | first; /* little-endian */
  __asm__ volatile("str %x[both], [%[base]]" : : [base] "r"(word), [both] "r"(both) : "memory");
}

/* Three shared views of one memfd of REGION_BYTES: VIEWS[0] writable,
 * VIEWS[1] and VIEWS[2] executable. */
static bool map_views(void *views[3])
{
  int fd = memfd_create("checker_selftest", 0);
  if (fd < 0 || ftruncate(fd, REGION_BYTES) != 0) {
    fprintf(stderr, "checker_selftest: memfd: %s\n", strerror(errno));
    return false;
  }
  const int prot[3] = {PROT_READ | PROT_WRITE, PROT_READ | PROT_EXEC, PROT_READ | PROT_EXEC};
  for (int i = 0; i < 3; i++) {
    views[i] = mmap(NULL, REGION_BYTES, prot[i], MAP_SHARED, fd, 0);
    if (views[i] == MAP_FAILED) {
      fprintf(stderr, "checker_selftest: mmap of a view: %s\n", strerror(errno));
      return false;
    }
  }
  close(fd);
  /* Each executable view is faulted in before the case writes its code, by
   * a call of a `ret` through every page of it: Linux syncs a page the first
   * time it is mapped executable (docs/COHERENCE-MODEL.md, "What Linux does
   * for you"), which would make the code of a view faulted in only at its
   * first run coherent whatever the program did. After these calls the
   * page's flag is set and the program's own maintenance is all there is.
   * The `ret` is each page's last word, which the case's code never
   * reaches: QEMU does not see stores through the RW view as changes to
   * the RX views' translations, so a `ret` where the code goes would stay
   * translated and run in place of it under plain QEMU. */
  const uint32_t ret = 0xd65f03c0u;
  _Static_assert(CODE_WORDS * 4 <= 4096 - 4, "the code stays clear of the page's last word");
  for (size_t at = 4096 - 4; at < REGION_BYTES; at += 4096) {
    *(volatile uint32_t *)((char *)views[0] + at) = ret;
    for (int i = 1; i < 3; i++)
      ((void (*)(void))(uintptr_t)((char *)views[i] + at))();
  }
  return true;
}

static uint64_t interpret(const uint32_t *code, size_t words, uint64_t x0)
{
  for (size_t i = 0; i + 1 < words; i++)
    x0 = sc_apply_insn(code[i], x0);
  return x0;
}

int main(int argc, char **argv)
{
  int which = -1, pin_cpu = -1;
  for (int i = 1; i < argc; i++) {
    if (strncmp(argv[i], "--cpu=", 6) == 0) {
      char *end;
      errno = 0;
      long v = strtol(argv[i] + 6, &end, 10);
      if (errno || *end || end == argv[i] + 6 || v < 0 || v >= CPU_SETSIZE) {
        fprintf(stderr, "checker_selftest: --cpu: expected a CPU number, got '%s'\n", argv[i] + 6);
        return EXIT_USAGE;
      }
      pin_cpu = (int)v;
      continue;
    }
    if (which >= 0) {
      fprintf(stderr, "checker_selftest: more than one case given ('%s')\n", argv[i]);
      usage(stderr);
      return EXIT_USAGE;
    }
    for (int c = 0; c < NCASES; c++)
      if (strcmp(argv[i], case_names[c]) == 0)
        which = c;
    if (which < 0) {
      fprintf(stderr, "checker_selftest: unknown case '%s'\n", argv[i]);
      usage(stderr);
      return EXIT_USAGE;
    }
  }
  if (which < 0) {
    usage(stderr);
    return EXIT_USAGE;
  }

  static struct topology topo;
  if (!probe(&topo)) {
    fprintf(stderr, "checker_selftest: cannot read CTR_EL0 on each allowed CPU: %s\n",
            strerror(errno));
    return EXIT_ENVIRONMENT;
  }
  const struct cpu_lines *target;
  if (pin_cpu >= 0)
    target = find_cpu(&topo, pin_cpu);
  else if (which == CASE_WRONG_CORE_CLEAN)
    target = first_with_dline(&topo, topo.min_dline);
  else
    target = first_with_iline(&topo, topo.min_iline);
  if (!target) {
    fprintf(stderr, "checker_selftest: --cpu=%d is not in the process's affinity mask\n", pin_cpu);
    return EXIT_USAGE;
  }

  /* The strides every case uses, and the one thing each broken case gets
   * wrong. */
  uintptr_t dstride = topo.min_dline, istride = topo.min_iline;
  if (which == CASE_WRONG_GEOMETRY)
    istride = 2 * (uintptr_t)target->iline;
  if (which == CASE_WRONG_CORE_CLEAN)
    dstride = topo.max_dline > target->dline ? topo.max_dline : 2 * (uintptr_t)target->dline;

  /* CODE is where the program writes, RUN where it calls, ALSO another
   * executable view (other-exec-view only, which invalidates through it). */
  void *views[3] = {NULL, NULL, NULL};
  if (which == CASE_OTHER_EXEC_VIEW) {
    if (!map_views(views))
      return EXIT_ENVIRONMENT;
  } else {
    views[0] = views[2] = sc_map_code("checker_selftest", REGION_BYTES);
    if (!views[0])
      return EXIT_ENVIRONMENT;
  }
  uint32_t *code = views[0];
  const void *run = views[2];
  const uintptr_t begin = (uintptr_t)code, end = (uintptr_t)(code + CODE_WORDS);

  printf("checker_selftest: case=%s cpu=%d cpu_iline=%u cpu_dline=%u min_iline=%u min_dline=%u "
         "clean_stride=%u invalidate_stride=%u code=%p\n",
         case_names[which], target->cpu, target->iline, target->dline, topo.min_iline,
         topo.min_dline, (unsigned)dstride, (unsigned)istride, run);
  fflush(stdout);

  if (!sc_pin_to_cpu(target->cpu, NULL)) {
    fprintf(stderr, "checker_selftest: cannot pin to CPU %d: %s\n", target->cpu, strerror(errno));
    return EXIT_ENVIRONMENT;
  }

  /* From here to the call: no syscall, since returning from one would
   * synchronise this core and hide a missing isb. */
  struct sc_rng rng = {0x5eed};
  const uint64_t input = sc_rng_next(&rng);
  uint64_t expected = sc_emit_chain(code, CODE_WORDS, input, &rng);

  switch ((enum test_case)which) {
  case CASE_CORRECT:
  case CASE_WRONG_GEOMETRY:
  case CASE_WRONG_CORE_CLEAN:
  case CASE_STORE_AFTER_FLUSH:
  case CASE_GROUPED_STORE_AFTER_FLUSH:
  case CASE_SPAN_STORE_AFTER_FLUSH:
    clean_range(begin, end, dstride);
    sc_dsb_ish();
    invalidate_range(begin, end, istride);
    sc_dsb_ish();
    sc_isb();
    break;
  case CASE_NO_DSB:
    clean_range(begin, end, dstride);
    sc_dsb_ish();
    invalidate_range(begin, end, istride);
    /* Missing: dsb ish. Without it the invalidate need not have completed
     * when the isb refetches (Arm ARM B2.4.4). */
    sc_isb();
    break;
  case CASE_NO_ISB:
    clean_range(begin, end, dstride);
    sc_dsb_ish();
    invalidate_range(begin, end, istride);
    sc_dsb_ish();
    /* Missing: isb. The pipeline may already hold the old words. */
    break;
  case CASE_NO_CLEAN:
    /* Missing: dc cvau. Without IDC the new words may still sit in the
     * D-cache when the I-cache refills from the Point of Unification. */
    sc_dsb_ish();
    invalidate_range(begin, end, istride);
    sc_dsb_ish();
    sc_isb();
    break;
  case CASE_OTHER_EXEC_VIEW:
    clean_range(begin, end, dstride);
    sc_dsb_ish();
    /* Wrong view: the code runs from views[2]. */
    invalidate_range((uintptr_t)views[1], (uintptr_t)views[1] + (end - begin), istride);
    sc_dsb_ish();
    sc_isb();
    break;
  }
  if (which == CASE_STORE_AFTER_FLUSH || which == CASE_GROUPED_STORE_AFTER_FLUSH ||
      which == CASE_SPAN_STORE_AFTER_FLUSH) {
    /* A different immediate, so the result tells the two versions apart. */
    const uint32_t insn =
        sc_apply_insn(code[REWRITTEN_WORD], 0) == 1 ? a64_add_x0(2, 0) : a64_add_x0(1, 0);
    if (which == CASE_STORE_AFTER_FLUSH) {
      code[REWRITTEN_WORD] = insn;
    } else if (which == CASE_GROUPED_STORE_AFTER_FLUSH) {
      store_after_data_store(&code[REWRITTEN_WORD], insn);
    } else {
      const uint32_t next =
          sc_apply_insn(code[REWRITTEN_WORD + 1], 0) == 1 ? a64_add_x0(2, 0) : a64_add_x0(1, 0);
      store_two_words(&code[REWRITTEN_WORD], insn, next);
    }
    expected = interpret(code, CODE_WORDS, input);
  }

  const uint64_t got = sc_as_fn(run)(input);
  if (got != expected) {
    printf("checker_selftest: WRONG RESULT: got 0x%016" PRIx64 ", expected 0x%016" PRIx64 "\n", got,
           expected);
    return EXIT_WRONG_RESULT;
  }
  printf("checker_selftest: result ok (0x%016" PRIx64 ")\n", got);
  return 0;
}
