/*
 * An aarch64 guest for the runner's end-to-end tests. Linked dynamically on
 * purpose: it also checks that the overlay shows the sysroot's loader.
 *
 *   emu_guest cat PATH...   prints "PATH: CONTENT" or "PATH: missing";
 *                           for a folder, "PATH/: ENTRY ENTRY ..." (sorted)
 *   emu_guest exit N        exits with status N
 *   emu_guest segv          dies of SIGSEGV
 *   emu_guest jit           writes code and runs it without any flush
 *   emu_guest jit-flush     the same with __builtin___clear_cache
 *   emu_guest jit-forever   writes code without a flush, runs it, prints
 *                           "running PID" and runs it on until killed
 *   emu_guest affinity-race CREATORS CHILDREN
 *                           CREATORS threads, each pinned to its own CPU,
 *                           start CHILDREN threads each at the same time;
 *                           every child compares its affinity with its
 *                           creator's; prints "children: N wrong: M"
 */
#define _GNU_SOURCE /* sched_getaffinity, CPU_* */
#include <dirent.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "a64_encode.h"

static int by_name(const struct dirent **a, const struct dirent **b)
{
  return strcmp((*a)->d_name, (*b)->d_name);
}

static void cat(const char *path)
{
  struct dirent **entries = NULL;
  int n = scandir(path, &entries, NULL, by_name);
  if (n >= 0) {
    printf("%s/:", path);
    for (int i = 0; i < n; i++) {
      if (entries[i]->d_name[0] != '.')
        printf(" %s", entries[i]->d_name);
      free(entries[i]);
    }
    free(entries);
    printf("\n");
    return;
  }
  FILE *f = fopen(path, "r");
  if (!f) {
    printf("%s: missing\n", path);
    return;
  }
  char buf[512];
  size_t len = fread(buf, 1, sizeof buf - 1, f);
  buf[len] = '\0';
  fclose(f);
  printf("%s: %s", path, buf);
}

typedef int (*jit_fn)(void);

/* "return 42" written into a fresh RWX page, flushed or not; NULL when no
 * page could be mapped. */
static jit_fn write_code(int flush)
{
  uint32_t *code =
      mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (code == MAP_FAILED)
    return NULL;
  code[0] = a64_movz_x0(42);
  code[1] = A64_RET;
  if (flush)
    __builtin___clear_cache((char *)code, (char *)(code + 2));
  return (jit_fn)(uintptr_t)code;
}

static int jit(int flush)
{
  jit_fn fn = write_code(flush);
  return fn ? fn() : 100;
}

/* Unflushed code that loads from address 0: a stale fetch, then SIGSEGV
 * in the stale code itself (the runner's crash report). */
static int jit_crash(void)
{
  uint32_t *code =
      mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (code == MAP_FAILED)
    return 100;
  code[0] = a64_movz_x0(0);
  code[1] = 0xf9400000; /* ldr x0, [x0] */
  code[2] = A64_RET;
  return ((jit_fn)(uintptr_t)code)();
}

/* Stale code run until the process is killed (the runner's signal tests). */
static int jit_forever(void)
{
  jit_fn fn = write_code(0);
  if (!fn)
    return 100;
  volatile int sum = fn(); /* stale at least once before anyone is told */
  printf("running %d\n", (int)getpid());
  fflush(stdout);
  for (;;)
    sum += fn();
}

/* Thread creation under load from several creators at once: a new thread
 * inherits its creator's affinity (sched_fork), whoever else is creating
 * threads at the same moment. */
struct creator {
  int cpu;
  int children;
  pthread_barrier_t *start;
  int wrong;
};

static void *child_checks_affinity(void *arg)
{
  const struct creator *c = arg;
  cpu_set_t mine;
  CPU_ZERO(&mine);
  bool right = sched_getaffinity(0, sizeof mine, &mine) == 0 && CPU_COUNT(&mine) == 1 &&
               CPU_ISSET(c->cpu, &mine);
  return (void *)(uintptr_t)!right;
}

static void *creator(void *arg)
{
  struct creator *c = arg;
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(c->cpu, &one);
  if (sched_setaffinity(0, sizeof one, &one) != 0) {
    c->wrong = c->children;
    return NULL;
  }
  pthread_barrier_wait(c->start);
  for (int i = 0; i < c->children; i++) {
    pthread_t t;
    void *wrong = NULL;
    if (pthread_create(&t, NULL, child_checks_affinity, c) != 0 || pthread_join(t, &wrong) != 0) {
      c->wrong++;
      continue;
    }
    c->wrong += wrong != NULL;
  }
  return NULL;
}

static int affinity_race(int creators, int children)
{
  if (creators < 1 || creators > 64)
    return 64;
  pthread_barrier_t start;
  pthread_barrier_init(&start, NULL, (unsigned)creators);
  struct creator c[64];
  pthread_t t[64];
  for (int i = 0; i < creators; i++) {
    c[i] = (struct creator){.cpu = i, .children = children, .start = &start};
    if (pthread_create(&t[i], NULL, creator, &c[i]) != 0)
      return 65;
  }
  int wrong = 0;
  for (int i = 0; i < creators; i++) {
    pthread_join(t[i], NULL);
    wrong += c[i].wrong;
  }
  printf("children: %d wrong: %d\n", creators * children, wrong);
  return wrong ? 1 : 0;
}

/*
 * Code published to unpinned readers that never synchronise their own
 * fetches (no isb: the model's "not synchronised" kind), with every way
 * threads wait for each other: readers spin on the published round with no
 * system call (only the end of a turn lets the writer run again), ack
 * through a pipe the writer reads (a blocking read), and meet at a barrier
 * every 16 rounds (futex waits); the writer yields now and then. Under the
 * deterministic schedule every run of a seed gives the same report.
 */
struct publish {
  uint32_t *code;
  atomic_int round;
  int rounds;
  int ack[2];
  pthread_barrier_t meet;
  atomic_int wrong;
};

static void *publish_reader(void *arg)
{
  struct publish *p = arg;
  for (int r = 1; r <= p->rounds; r++) {
    while (atomic_load_explicit(&p->round, memory_order_acquire) < r) {
    }
    jit_fn fn = (jit_fn)(uintptr_t)(p->code + 2 * (r % 64));
    if (fn() != r)
      atomic_fetch_add(&p->wrong, 1);
    char one = 1;
    if (write(p->ack[1], &one, 1) != 1)
      atomic_fetch_add(&p->wrong, 1);
    if (r % 16 == 0)
      pthread_barrier_wait(&p->meet);
  }
  return NULL;
}

static int publish(int readers, int rounds)
{
  if (readers < 1 || readers > 16 || rounds < 1 || rounds > 4096)
    return 64;
  struct publish p = {.rounds = rounds};
  p.code = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p.code == MAP_FAILED || pipe(p.ack) != 0)
    return 100;
  pthread_barrier_init(&p.meet, NULL, (unsigned)readers);
  pthread_t t[16];
  for (int i = 0; i < readers; i++)
    if (pthread_create(&t[i], NULL, publish_reader, &p) != 0)
      return 65;
  for (int r = 1; r <= rounds; r++) {
    uint32_t *fn = p.code + 2 * (r % 64);
    fn[0] = a64_movz_x0((uint32_t)r);
    fn[1] = A64_RET;
    __builtin___clear_cache((char *)fn, (char *)(fn + 2));
    atomic_store_explicit(&p.round, r, memory_order_release);
    for (int i = 0; i < readers; i++) {
      char one;
      if (read(p.ack[0], &one, 1) != 1)
        atomic_fetch_add(&p.wrong, 1);
    }
    if (r % 8 == 0)
      sched_yield();
  }
  for (int i = 0; i < readers; i++)
    pthread_join(t[i], NULL);
  printf("publish: readers=%d rounds=%d wrong=%d\n", readers, rounds, atomic_load(&p.wrong));
  return atomic_load(&p.wrong) ? 1 : 0;
}

int main(int argc, char **argv)
{
  if (argc >= 2 && strcmp(argv[1], "cat") == 0) {
    for (int i = 2; i < argc; i++)
      cat(argv[i]);
    return 0;
  }
  if (argc == 3 && strcmp(argv[1], "exit") == 0)
    return atoi(argv[2]);
  if (argc == 2 && strcmp(argv[1], "segv") == 0)
    raise(SIGSEGV);
  if (argc == 2 && strcmp(argv[1], "jit") == 0)
    return jit(0);
  if (argc == 2 && strcmp(argv[1], "jit-flush") == 0)
    return jit(1);
  if (argc == 2 && strcmp(argv[1], "jit-forever") == 0)
    return jit_forever();
  if (argc == 2 && strcmp(argv[1], "jit-crash") == 0)
    return jit_crash();
  if (argc == 4 && strcmp(argv[1], "affinity-race") == 0)
    return affinity_race(atoi(argv[2]), atoi(argv[3]));
  if (argc == 4 && strcmp(argv[1], "publish") == 0)
    return publish(atoi(argv[2]), atoi(argv[3]));
  fprintf(stderr, "usage: emu_guest cat PATH... | exit N | segv | jit | jit-flush | jit-forever |\n"
                  "       jit-crash | affinity-race CREATORS CHILDREN | publish READERS ROUNDS\n");
  return 64;
}
