/*
 * The conformance guest's driver (tests/conformance/README.md): runs the
 * tests gen_guest.py described in its tables, each under every order of
 * its threads, and prints one line per run for run_conformance.py to join
 * with the rig's report.
 *
 * Usage: conformance_guest_CC [FIRST [COUNT]]   runs tests FIRST..FIRST+COUNT-1
 *        conformance_guest_CC --list            prints the tests' names
 *
 * Built with CT_IN_PLACE (gen_guest.py --layout text) the threads run their
 * blocks where the program has them, on pages nothing stored to before;
 * the first run stores to them, so a process makes one run:
 *        conformance_guest_CC TEST RUN          runs the RUN-th order of TEST;
 *                                               exit status 3: no such order
 *
 * Built with CT_FRESH (gen_guest.py --layout fresh) every run puts the
 * blocks on fresh pages that no thread fetched from or stored to: a memfd
 * the kernel writes them into (write(2), not a guest store), mapped
 * private, readable, writable and executable.
 * Built with CT_OLD_RUN_NEEDS_STALE (every translation but the first), a
 * fetch the outcome needs old that QEMU itself ran old (a store into the
 * translation block that runs it, which QEMU finishes from its old
 * translation) must be reported stale too: it was.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "guest_tests.h"

#define PAGE 4096

/* Loads x0-x26 from REGS, branches to ENTRY (a test thread's block, which
 * ends in `br x27`), stores x0-x26 back. x27-x29 are the trampoline's own,
 * so the generator refuses tests that use them. */
void ct_trampoline(uint64_t *regs, const void *entry);
__asm__(".text\n"
        ".globl ct_trampoline\n"
        "ct_trampoline:\n"
        "  stp x29, x30, [sp, #-96]!\n"
        "  stp x19, x20, [sp, #16]\n"
        "  stp x21, x22, [sp, #32]\n"
        "  stp x23, x24, [sp, #48]\n"
        "  stp x25, x26, [sp, #64]\n"
        "  stp x27, x28, [sp, #80]\n"
        "  mov x28, x0\n"
        "  mov x29, x1\n"
        "  ldp x0, x1, [x28, #0]\n"
        "  ldp x2, x3, [x28, #16]\n"
        "  ldp x4, x5, [x28, #32]\n"
        "  ldp x6, x7, [x28, #48]\n"
        "  ldp x8, x9, [x28, #64]\n"
        "  ldp x10, x11, [x28, #80]\n"
        "  ldp x12, x13, [x28, #96]\n"
        "  ldp x14, x15, [x28, #112]\n"
        "  ldp x16, x17, [x28, #128]\n"
        "  ldp x18, x19, [x28, #144]\n"
        "  ldp x20, x21, [x28, #160]\n"
        "  ldp x22, x23, [x28, #176]\n"
        "  ldp x24, x25, [x28, #192]\n"
        "  ldr x26, [x28, #208]\n"
        "  adr x27, 1f\n"
        "  br x29\n"
        "1:\n"
        "  stp x0, x1, [x28, #0]\n"
        "  stp x2, x3, [x28, #16]\n"
        "  stp x4, x5, [x28, #32]\n"
        "  stp x6, x7, [x28, #48]\n"
        "  stp x8, x9, [x28, #64]\n"
        "  stp x10, x11, [x28, #80]\n"
        "  stp x12, x13, [x28, #96]\n"
        "  stp x14, x15, [x28, #112]\n"
        "  stp x16, x17, [x28, #128]\n"
        "  stp x18, x19, [x28, #144]\n"
        "  stp x20, x21, [x28, #160]\n"
        "  stp x22, x23, [x28, #176]\n"
        "  stp x24, x25, [x28, #192]\n"
        "  str x26, [x28, #208]\n"
        "  ldp x19, x20, [sp, #16]\n"
        "  ldp x21, x22, [sp, #32]\n"
        "  ldp x23, x24, [sp, #48]\n"
        "  ldp x25, x26, [sp, #64]\n"
        "  ldp x27, x28, [sp, #80]\n"
        "  ldp x29, x30, [sp], #96\n"
        "  ret\n");

struct run {
  const struct ct_test *t;
  unsigned char *base;                       /* thread P's block at page P, then the locations */
  const unsigned char *code[CT_MAX_THREADS]; /* where thread P's block runs */
  unsigned char *locs;                       /* the memory locations */
  uint64_t regs[CT_MAX_THREADS][32];
  int nturns;
  /* The turns at which thread P runs its parts, then -1. */
  int turns[CT_MAX_THREADS][CT_MAX_TURNS + 1];
};

struct worker {
  struct run *r;
  int p;
};

/* Whose turn it is: written and read with plain (relaxed) accesses, so the
 * hand-over adds no barrier and no ordering the test does not have. READY
 * counts the threads that made their last system call (the affinity) and
 * wait: the first turn starts only when all do, so that no thread of the
 * test passes a context synchronisation (a system call's return) while
 * another runs its part. */
static int turn, ready;

static uint64_t value_of(const struct run *r, const struct ct_value *v)
{
  switch (v->kind) {
  case V_LABEL:
    return (uint64_t)(r->code[v->thread] + r->t->offsets[v->index]);
  case V_LOC:
    return (uint64_t)(r->locs + (size_t)v->index * 64);
  default:
    return (uint64_t)v->num;
  }
}

#ifdef CT_FRESH
/* SIZE bytes of fresh pages holding the N blocks of T, thread P's at page
 * P, that no guest store wrote: the kernel copies them into a memfd, and
 * the private mapping of it is the test's. Never synced by the program,
 * and never fetched before the run. */
static unsigned char *fresh_pages(const struct ct_test *t, int n, size_t size)
{
  int fd = memfd_create("conformance-fresh", 0);
  if (fd < 0 || ftruncate(fd, (off_t)size) != 0) {
    perror("conformance guest: memfd");
    exit(2);
  }
  for (int p = 0; p < n; p++) {
    size_t len = (size_t)(t->stop[p] - t->begin[p]);
    if (pwrite(fd, t->begin[p], len, (off_t)p * PAGE) != (ssize_t)len) {
      perror("conformance guest: pwrite");
      exit(2);
    }
  }
  unsigned char *base = mmap(NULL, size, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE, fd, 0);
  close(fd);
  return base;
}
#endif

#if !defined(CT_IN_PLACE) && !defined(CT_FRESH)
/* The whole publication sequence, before any test thread exists: the copied
 * code starts out coherent everywhere. */
static void sync_code(unsigned char *start, size_t len)
{
  uint64_t ctr;
  __asm__ volatile("mrs %0, ctr_el0" : "=r"(ctr));
  size_t dline = 4u << ((ctr >> 16) & 15), iline = 4u << (ctr & 15);
  for (size_t o = 0; o < len; o += dline) {
    __asm__ volatile("dc cvau, %0" ::"r"(start + o) : "memory");
  }
  __asm__ volatile("dsb ish" ::: "memory");
  for (size_t o = 0; o < len; o += iline) {
    __asm__ volatile("ic ivau, %0" ::"r"(start + o) : "memory");
  }
  __asm__ volatile("dsb ish\n isb" ::: "memory");
}
#endif

static void *worker(void *arg)
{
  const struct worker *w = arg;
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(w->p, &set);
  if (sched_setaffinity(0, sizeof set, &set) != 0) {
    perror("conformance guest: sched_setaffinity");
    exit(2);
  }
  uint64_t *regs = w->r->regs[w->p];
  /* Slots 28 and 29 are not loaded into registers: the yield code that
   * gen_guest.py puts after a split store reads them through x28. */
  regs[28] = (uint64_t)(uintptr_t)&turn;
  regs[29] = (uint64_t)(uintptr_t)&w->r->turns[w->p][0];
  __atomic_fetch_add(&ready, 1, __ATOMIC_RELAXED);
  while (__atomic_load_n(&turn, __ATOMIC_RELAXED) != w->r->turns[w->p][0]) {
  }
  ct_trampoline(regs, w->r->code[w->p]);
  const int *last = (const int *)(uintptr_t)regs[29];
  __atomic_store_n(&turn, *last + 1, __ATOMIC_RELAXED);
  /* A thread's exit completes its maintenance (the kernel's dsb): no
   * thread exits before every part has run. */
  while (__atomic_load_n(&turn, __ATOMIC_RELAXED) != w->r->nturns) {
  }
  return NULL;
}

static void run_order(const struct ct_test *t, const int *order, int nturns)
{
  int n = t->nthreads;
#ifdef CT_IN_PLACE
  size_t size = PAGE; /* the locations only */
#else
  size_t size = (size_t)(n + 1) * PAGE;
#endif
  struct run r = {.t = t};
#ifdef CT_FRESH
  r.base = fresh_pages(t, n, size);
#else
  r.base = mmap(NULL, size, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
#endif
  if (r.base == MAP_FAILED) {
    perror("conformance guest: mmap");
    exit(2);
  }
#ifdef CT_IN_PLACE
  for (int p = 0; p < n; p++) {
    r.code[p] = t->begin[p];
  }
  r.locs = r.base;
#else
  for (int p = 0; p < n; p++) {
#ifndef CT_FRESH
    memcpy(r.base + (size_t)p * PAGE, t->begin[p], (size_t)(t->stop[p] - t->begin[p]));
#endif
    r.code[p] = r.base + (size_t)p * PAGE;
  }
  r.locs = r.base + (size_t)n * PAGE;
#endif
  int parts[CT_MAX_THREADS] = {0};
  r.nturns = nturns;
  for (int k = 0; k < nturns; k++) {
    r.turns[order[k]][parts[order[k]]++] = k;
  }
  for (int p = 0; p < n; p++) {
    r.turns[p][parts[p]] = -1;
  }
  for (int i = 0; i < t->nlocs; i++) {
    uint64_t v = value_of(&r, &t->mem[i]);
    memcpy(r.locs + (size_t)i * 64, &v, sizeof v);
  }
#if !defined(CT_IN_PLACE) && !defined(CT_FRESH)
  /* In place the blocks are the program's own code, and fresh pages the
   * kernel's: nothing to publish. */
  sync_code(r.base, (size_t)n * PAGE);
#endif
  for (const struct ct_init *in = t->init; in->thread >= 0; in++) {
    r.regs[in->thread][in->reg] = value_of(&r, &in->value);
  }
  __atomic_store_n(&turn, -1, __ATOMIC_RELAXED);
  __atomic_store_n(&ready, 0, __ATOMIC_RELAXED);
  pthread_t tid[CT_MAX_THREADS];
  struct worker w[CT_MAX_THREADS];
  for (int p = 0; p < n; p++) {
    w[p] = (struct worker){&r, p};
    if (pthread_create(&tid[p], NULL, worker, &w[p]) != 0) {
      fprintf(stderr, "conformance guest: pthread_create failed\n");
      exit(2);
    }
  }
  while (__atomic_load_n(&ready, __ATOMIC_RELAXED) != n) {
  }
  __atomic_store_n(&turn, 0, __ATOMIC_RELAXED);
  for (int p = 0; p < n; p++) {
    pthread_join(tid[p], NULL);
  }
  int premise = 1;
  char stale[512] = "";
  size_t used = 0;
  for (const struct ct_expect *e = t->expect; e->kind != E_END; e++) {
    uint64_t want = value_of(&r, &e->value), got;
    if (e->kind == E_MEM) {
      memcpy(&got, r.locs + (size_t)e->loc * 64, sizeof got);
    } else {
      got = r.regs[e->thread][e->reg];
    }
    bool old_run = false;
#ifdef CT_OLD_RUN_NEEDS_STALE
    old_run = e->kind == E_FETCH_OLD && got == want;
#endif
    if (got == want && !old_run) {
      continue; /* QEMU's own execution already shows it */
    }
    if (e->kind == E_FETCH_OLD) {
      /* QEMU ran the new instruction, or ran the old one in this
       * translation: the outcome needs the rig to say that the old one may
       * have been fetched there. */
      uint64_t word = (uint64_t)(r.code[e->word_thread] + t->offsets[e->word_index]);
      used += (size_t)snprintf(stale + used, sizeof stale - used, " %d:0x%llx", e->thread,
                               (unsigned long long)word);
    } else {
      premise = 0;
    }
  }
  char order_text[CT_MAX_TURNS + 1];
  for (int k = 0; k < nturns; k++) {
    order_text[k] = (char)('0' + order[k]);
  }
  order_text[nturns] = 0;
  printf("R %s %s %d 0x%llx %zu%s\n", t->name, order_text, premise,
         (unsigned long long)(uintptr_t)r.base, size, stale);
}

/* Every interleaving of the test's threads' parts, in lexicographic order
 * (the distinct permutations of the multiset of thread numbers); ONLY >= 0
 * runs the ONLY-th of them alone. Whether that one exists. */
static bool run_test(const struct ct_test *t, int only)
{
  int order[CT_MAX_TURNS], n = 0;
  for (int p = 0; p < t->nthreads; p++) {
    for (int k = 0; k < t->segments[p]; k++) {
      if (n == CT_MAX_TURNS) {
        fprintf(stderr, "conformance guest: %s has more than %d parts\n", t->name, CT_MAX_TURNS);
        exit(2);
      }
      order[n++] = p;
    }
  }
  for (int k = 0;; k++) {
    if (only < 0 || k == only) {
      run_order(t, order, n);
      if (k == only) {
        return true;
      }
    }
    int i = n - 2;
    while (i >= 0 && order[i] >= order[i + 1]) {
      i--;
    }
    if (i < 0) {
      return only < 0;
    }
    int j = n - 1;
    while (order[j] <= order[i]) {
      j--;
    }
    int x = order[i];
    order[i] = order[j];
    order[j] = x;
    for (int a = i + 1, b = n - 1; a < b; a++, b--) {
      x = order[a];
      order[a] = order[b];
      order[b] = x;
    }
  }
}

int main(int argc, char **argv)
{
  if (argc > 1 && strcmp(argv[1], "--list") == 0) {
    for (int i = 0; i < ct_ntests; i++) {
      printf("%s\n", ct_tests[i].name);
    }
    return 0;
  }
#ifdef CT_IN_PLACE
  if (argc != 3 || atoi(argv[1]) < 0 || atoi(argv[1]) >= ct_ntests || atoi(argv[2]) < 0) {
    fprintf(stderr, "usage: conformance guest TEST RUN (TEST below %d)\n", ct_ntests);
    return 2;
  }
  setvbuf(stdout, NULL, _IOLBF, 0);
  return run_test(&ct_tests[atoi(argv[1])], atoi(argv[2])) ? 0 : 3;
#endif
  int first = argc > 1 ? atoi(argv[1]) : 0;
  int count = argc > 2 ? atoi(argv[2]) : ct_ntests - first;
  if (first < 0 || count < 0 || first + count > ct_ntests) {
    fprintf(stderr, "conformance guest: tests %d..%d out of range (%d tests)\n", first,
            first + count - 1, ct_ntests);
    return 2;
  }
  setvbuf(stdout, NULL, _IOLBF, 0);
  for (int i = first; i < first + count; i++) {
    run_test(&ct_tests[i], -1);
  }
  return 0;
}
