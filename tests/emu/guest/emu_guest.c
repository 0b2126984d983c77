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
 *   emu_guest env-jit       writes 128 bytes of code that returns 30 into a
 *                           fresh RWX page and flushes it with libgcc's
 *                           __clear_cache (CTR_EL0 latched in a static) when
 *                           EMU_GUEST_FLUSH is "libgcc" in its environment,
 *                           else by hand with a 4-byte stride (safe on any
 *                           core); runs it, exits 0 when it returned 30. The
 *                           environment picks the code path, as PYTHONPATH
 *                           picks the module a Python program's JIT is in
 *   emu_guest writers two-blocks|one-block
 *                           unflushed code in a fresh RWX page from two
 *                           store instructions: seven words by one in a
 *                           loop and a ret by another after it (two blocks),
 *                           or one word each from two stores of one block;
 *                           runs it and exits with its result (7 or 1)
 *   emu_guest jit-shared, jit-shared-flush
 *                           the same in shared anonymous memory flipped
 *                           from RW to RX with mprotect, as PHP's opcache
 *                           JIT does with the end of its shared memory
 *   emu_guest jit-forever   writes code without a flush, runs it, prints
 *                           "running PID" and runs it on until killed
 *   emu_guest jit-forever-forked
 *                           the same after forking a child that waits
 *                           forever; prints "running PID CHILD"
 *   emu_guest affinity-race CREATORS CHILDREN
 *                           CREATORS threads, each pinned to its own CPU,
 *                           start CHILDREN threads each at the same time;
 *                           every child compares its affinity with its
 *                           creator's; prints "children: N wrong: M"
 *   emu_guest exec PROGRAM [ARGS...]
 *                           execv(PROGRAM, ...); prints the error and exits
 *                           127 when it fails
 *   emu_guest spawn PROGRAM [ARGS...]
 *                           the same in a forked child; exits with the
 *                           child's status
 *   emu_guest fork-jit      writes code without a flush, forks; the child
 *                           runs it (stale: it inherits the parent's caches)
 *                           and exits with its result; the parent prints
 *                           "child PID status N", flushes the code, runs
 *                           it and exits 0 when both returned 42
 *   emu_guest fork-jit-flushed  the same, flushed before the fork
 *   emu_guest nonleaf-flush on cpu 0, 1 KiB of code written, flushed
 *                           right and run, then rewritten and flushed by
 *                           a routine that calls a helper for its stride
 *                           (128 bytes) before its loops, called from
 *                           nonleaf_caller, and run: exits 64 when both
 *                           runs returned what was written; stale on a
 *                           core with 64-byte lines
 *   emu_guest wx-reuse N rx|rw
 *                           W^X: "return I" written N times at the SAME place
 *                           through the RW view of a memfd, made visible by
 *                           the correct sequence (dc cvau through RW, dsb
 *                           ish, ic ivau unless CTR_EL0.DIC through RX, or
 *                           through RW with "rw",
 *                           which only a PIPT I-cache allows, dsb ish, isb)
 *                           and called through the RX view; prints
 *                           "wx-reuse: N wrong: M"
 *   emu_guest wx-views N rx1|rx2|both
 *                           like wx-reuse, with the memfd mapped three
 *                           times: RW, RX1 and RX2. The code is cleaned
 *                           through RW, invalidated through RX1, RX2 or
 *                           both, and called through RX2; on a VIPT I-cache
 *                           only an invalidate through RX2 reaches the
 *                           lines RX2 fetches. Prints
 *                           "wx-views: N wrong: M"
 *   emu_guest map-below-libs MIB
 *                           maps MIB MiB with MAP_FIXED just below the lowest
 *                           shared library, where /proc/self/maps shows no
 *                           mapping (PHP's opcache picks its shared memory
 *                           this way), writes to it and unmaps it, and the
 *                           same for the three ranges below, then
 *                           runs flushed JIT code: exits 42, or 3 when the
 *                           range was not free
 *   emu_guest remap-churn N keeps one function but maps it at a new address
 *                           N times (written, flushed, run, then the page is
 *                           unmapped, replaced by MAP_FIXED or moved by
 *                           mremap in turn), with "waiter" while another
 *                           thread waits in read(); prints
 *                           "remapped: N wrong: M"
 *   emu_guest release MODE  "return 7" stored into code memory and never
 *                           flushed, then the memory released in one way,
 *                           then called; exits with its result:
 *                           dontneed, brk, shmdt: MADV_DONTNEED / a brk
 *                           shrink / shmdt, the memory got back at the same
 *                           address and "return 42" read() into it (a store
 *                           by the kernel); dontneed-file: MADV_DONTNEED on a
 *                           private mapping of a file holding "return 42";
 *                           dontneed-file-ran: the same with "return 7"
 *                           flushed and run before the madvise (QEMU has
 *                           translated it);
 *                           dontneed-shared, free, remove: MADV_DONTNEED on
 *                           shared memory, MADV_FREE, MADV_REMOVE (the bytes
 *                           stay); mremap, mremap-flushed: moved by mremap
 *                           (flushed before the move or not)
 *   emu_guest shm-churn N   like remap-churn with System V segments attached
 *                           at a new address each time; prints
 *                           "attached: N wrong: M"
 *   emu_guest run-flushed signal|flag
 *                           the main thread writes "return 42", cleans,
 *                           invalidates and completes both (dsb ish); a
 *                           second thread, pinned to CPU 0, that never
 *                           executes an isb, runs it: from the handler of
 *                           a SIGUSR1 the main thread sends it with tgkill
 *                           ("signal": the delivery synchronises it), or
 *                           by calling the same handler straight after a
 *                           flag it spins on ("flag": it is not
 *                           synchronised); exits 0 when it got 42
 *   emu_guest entropy       takes 8 bytes from getrandom, 8 from a read and
 *                           8 from a readv of /dev/urandom, prints them and
 *                           the 16 AT_RANDOM bytes, then writes code whose
 *                           length those bytes choose and runs it without
 *                           a flush: what the rig counts depends on them
 *   emu_guest entropy-splice
 *                           moves 8 bytes of /dev/urandom into a pipe with
 *                           splice (the rig never sees them in guest
 *                           memory) and reads them from the pipe
 *   emu_guest clock         reads CLOCK_MONOTONIC and prints whether it
 *                           moved forward
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
#include <fcntl.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/uio.h>
#include <sys/shm.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "a64_encode.h"
#include "guest_pages.h"

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
  uint32_t *code = guest_rwx_page();
  if (!code)
    return NULL;
  code[0] = a64_movz_x0(42);
  code[1] = A64_RET;
  if (flush)
    __builtin___clear_cache((char *)code, (char *)(code + 2));
  return (jit_fn)(uintptr_t)code;
}

/* dc cvau and ic ivau on every word: no core's line is smaller. */
static __attribute__((noinline)) void flush_each_word(char *begin, char *end)
{
  for (char *p = begin; p < end; p += 4)
    __asm__ __volatile__("dc cvau, %0" ::"r"(p) : "memory");
  __asm__ __volatile__("dsb ish" ::: "memory");
  for (char *p = begin; p < end; p += 4)
    __asm__ __volatile__("ic ivau, %0" ::"r"(p) : "memory");
  __asm__ __volatile__("dsb ish\n\tisb" ::: "memory");
}

static int env_jit(void)
{
  uint32_t *code = guest_rwx_page();
  if (!code)
    return 100;
  code[0] = a64_movz_x0(0);
  for (int i = 1; i < 31; i++)
    code[i] = a64_add_x0(1, 0);
  code[31] = A64_RET;
  const char *flush = getenv("EMU_GUEST_FLUSH");
  if (flush && strcmp(flush, "libgcc") == 0)
    __builtin___clear_cache((char *)code, (char *)(code + 32));
  else
    flush_each_word((char *)code, (char *)(code + 32));
  return ((jit_fn)(uintptr_t)code)() == 30 ? 0 : 1;
}

/* The report names the store that last wrote each word, whichever of
 * them wrote the page first (docs/FINDINGS.md, `writers`). */
static __attribute__((noinline)) int writers(bool one_block)
{
  uint32_t *code = guest_rwx_page();
  if (!code)
    return 100;
  if (one_block) {
    /* Two stores with nothing between them: one translation block. */
    __asm__ __volatile__("str %w1, [%0]\n\tstr %w2, [%0, #4]"
                         :
                         : "r"(code), "r"(a64_movz_x0(1)), "r"(A64_RET)
                         : "memory");
  } else {
    volatile uint32_t *out = code;
    for (int i = 0; i < 7; i++)
      out[i] = a64_add_x0(1, 0);
    out[7] = A64_RET; /* after the loop's branch: another block */
  }
  return ((jit_fn)(uintptr_t)code)();
}

/* The stride of a routine that latched its lines on a core with 128-byte
 * lines (the Exynos M1's I line). A helper, so that the routine calls
 * something before its loops and is not a leaf. */
static __attribute__((noinline)) uintptr_t latched_line(void)
{
  volatile uintptr_t line = 128;
  return line;
}

static __attribute__((noinline)) void nonleaf_flush(char *begin, char *end)
{
  uintptr_t line = latched_line();
  for (uintptr_t a = (uintptr_t)begin & ~(line - 1); a < (uintptr_t)end; a += line)
    __asm__ __volatile__("dc cvau, %0" ::"r"(a) : "memory");
  __asm__ __volatile__("dsb ish" ::: "memory");
  for (uintptr_t a = (uintptr_t)begin & ~(line - 1); a < (uintptr_t)end; a += line)
    __asm__ __volatile__("ic ivau, %0" ::"r"(a) : "memory");
  __asm__ __volatile__("dsb ish\n\tisb" ::: "memory");
}

/* NONLEAF_WORDS words at CODE: x0 = 0, x0 += ADD for all but the last,
 * ret. 1 KiB: the loops make eight steps, enough to show their stride. */
#define NONLEAF_WORDS 256
static void write_adds(uint32_t *code, unsigned add)
{
  code[0] = a64_movz_x0(0);
  for (int i = 1; i < NONLEAF_WORDS - 1; i++)
    code[i] = a64_add_x0(add, 0);
  code[NONLEAF_WORDS - 1] = A64_RET;
}

/* The caller a finding must name (docs/FINDINGS.md, flush.caller), even
 * in a stripped copy of this program: the unwind tables find it. */
static __attribute__((noinline)) int nonleaf_caller(uint32_t *code)
{
  write_adds(code, 2);
  nonleaf_flush((char *)code, (char *)(code + NONLEAF_WORDS));
  return ((jit_fn)(uintptr_t)code)();
}

static int nonleaf(void)
{
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(0, &one);
  uint32_t *code = guest_rwx_page();
  if (!code || sched_setaffinity(0, sizeof one, &one) != 0)
    return 100;
  write_adds(code, 1);
  __builtin___clear_cache((char *)code, (char *)(code + NONLEAF_WORDS));
  if (((jit_fn)(uintptr_t)code)() != NONLEAF_WORDS - 2)
    return 101;
  return nonleaf_caller(code) == 2 * (NONLEAF_WORDS - 2) ? 64 : 102;
}

static int jit(int flush)
{
  jit_fn fn = write_code(flush);
  return fn ? fn() : 100;
}

/* PHP 8.2's opcache keeps its JIT buffer at the end of its shared memory,
 * one MAP_SHARED | MAP_ANONYMOUS mapping, and mprotects the buffer RW to
 * write code and RX to run it. */
static int jit_shared(int flush)
{
  uint32_t *code = mmap(NULL, 2 * 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (code == MAP_FAILED)
    return 100;
  uint32_t *buffer = code + 1024; /* the second page */
  buffer[0] = a64_movz_x0(42);
  buffer[1] = A64_RET;
  if (flush)
    __builtin___clear_cache((char *)buffer, (char *)(buffer + 2));
  if (mprotect(buffer, 4096, PROT_READ | PROT_EXEC) != 0)
    return 101;
  return ((jit_fn)(uintptr_t)buffer)();
}

/* Unflushed code that loads from address 0: a stale fetch, then SIGSEGV
 * in the stale code itself (the runner's crash report). */
static int jit_crash(void)
{
  uint32_t *code = guest_rwx_page();
  if (!code)
    return 100;
  code[0] = a64_movz_x0(0);
  code[1] = 0xf9400000; /* ldr x0, [x0] */
  code[2] = A64_RET;
  return ((jit_fn)(uintptr_t)code)();
}

/* Stale code run until the process is killed (the runner's signal tests). */
static int jit_forever(bool forked)
{
  pid_t child = 0;
  if (forked) {
    child = fork();
    if (child == 0) {
      for (;;)
        pause();
    }
    if (child < 0)
      return 101;
  }
  jit_fn fn = write_code(0);
  if (!fn)
    return 100;
  volatile int sum = fn(); /* stale at least once before anyone is told */
  if (forked)
    printf("running %d %d\n", (int)getpid(), (int)child);
  else
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
 * Map/unmap churn: one page of code, "return I", at a new
 * address each time. The address hint walks a 1 GiB window, so no address
 * is used twice in a row; the page then goes away in one of the three ways
 * a JIT frees code memory.
 */
#define CHURN_WINDOW (UINT64_C(1) << 30)
#define CHURN_BASE UINT64_C(0x5000000000)

static void *churn_map(void *hint, int extra_flags)
{
  return mmap(hint, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
              MAP_PRIVATE | MAP_ANONYMOUS | extra_flags, -1, 0);
}

static int churn_one(int i)
{
  void *hint = (void *)(uintptr_t)(CHURN_BASE + ((uint64_t)i * 2 * 4096) % CHURN_WINDOW);
  uint32_t *code = churn_map(hint, 0);
  if (code == MAP_FAILED)
    return 1;
  code[0] = a64_movz_x0((uint32_t)i & 0xffff);
  code[1] = A64_RET;
  __builtin___clear_cache((char *)code, (char *)(code + 2));
  int wrong = ((jit_fn)(uintptr_t)code)() != (i & 0xffff);
  switch (i % 3) {
  case 0:
    break;
  case 1: /* a new anonymous page over the old one, then unmapped */
    if (churn_map(code, MAP_FIXED) != code)
      return 1;
    break;
  case 2: /* moved to the next slot of the window, then unmapped there */
    code = mremap(code, 4096, 4096, MREMAP_MAYMOVE | MREMAP_FIXED, (char *)code + 4096);
    if (code == MAP_FAILED)
      return 1;
    break;
  }
  return munmap(code, 4096) != 0 || wrong;
}

/* A thread that waits in a syscall for the whole churn: the rig must not
 * wait for it before it frees the records of unmapped pages. */
static void *wait_for_end(void *arg)
{
  int *end = arg;
  char byte;
  return (void *)(intptr_t)read(*end, &byte, 1);
}

static int remap_churn(int n, bool with_waiter)
{
  int end[2];
  pthread_t waiter;
  if (with_waiter && (pipe(end) != 0 || pthread_create(&waiter, NULL, wait_for_end, &end[0]) != 0))
    return 3;
  int wrong = 0;
  for (int i = 0; i < n; i++)
    wrong += churn_one(i);
  if (with_waiter) {
    close(end[1]);
    pthread_join(waiter, NULL);
  }
  printf("remapped: %d wrong: %d\n", n, wrong);
  return wrong ? 1 : 0;
}

/*
 * Memory released without munmap. Each mode leaves "return 7"
 * stored and never flushed in a code page, releases the page, and calls
 * it. Where the release gives the page new contents (a zero page, the
 * file's page), the kernel placed them and the fetch is fresh; where the
 * page keeps its bytes (shared memory, MADV_FREE, a page moved by mremap),
 * the unflushed store is as stale as before.
 */
#define RWX (PROT_READ | PROT_WRITE | PROT_EXEC)

static void store_unflushed(uint32_t *code, uint32_t result)
{
  code[0] = a64_movz_x0(result);
  code[1] = A64_RET;
}

/* "return 42" written into the page at CODE by the kernel: read() from a
 * pipe, a store the rig does not see (docs/RIG.md, "Limits"). */
static int kernel_loads(uint32_t *code)
{
  uint32_t insns[2] = {a64_movz_x0(42), A64_RET};
  int fds[2];
  if (pipe(fds) != 0 || write(fds[1], insns, sizeof insns) != sizeof insns ||
      read(fds[0], code, sizeof insns) != sizeof insns)
    return -1;
  close(fds[0]);
  close(fds[1]);
  return 0;
}

static int call(void *code)
{
  return ((jit_fn)(uintptr_t)code)();
}

static int release_madvise(int shared, int advice)
{
  uint32_t *code =
      mmap(NULL, 4096, RWX, (shared ? MAP_SHARED : MAP_PRIVATE) | MAP_ANONYMOUS, -1, 0);
  if (code == MAP_FAILED)
    return 100;
  store_unflushed(code, 7);
  if (madvise(code, 4096, advice) != 0)
    return 101;
  if (code[0] == 0 && kernel_loads(code) != 0) /* a private page read zeros */
    return 102;
  return call(code);
}

static int release_dontneed_file(int ran)
{
  uint32_t insns[2] = {a64_movz_x0(42), A64_RET};
  int fd = memfd_create("release", 0);
  if (fd < 0 || write(fd, insns, sizeof insns) != sizeof insns || ftruncate(fd, 4096) != 0)
    return 100;
  uint32_t *code = mmap(NULL, 4096, RWX, MAP_PRIVATE, fd, 0);
  if (code == MAP_FAILED)
    return 100;
  store_unflushed(code, 7); /* into the private copy */
  if (ran) {
    __builtin___clear_cache((char *)code, (char *)(code + 2));
    if (call(code) != 7)
      return 103;
  }
  if (madvise(code, 4096, MADV_DONTNEED) != 0)
    return 101;
  return call(code); /* the file's page again */
}

static int release_brk(void)
{
  char *top = sbrk(0);
  uintptr_t pad = (4096 - (uintptr_t)top % 4096) % 4096;
  if (sbrk((intptr_t)pad + 4096) == (void *)-1)
    return 100;
  uint32_t *code = (uint32_t *)(top + pad);
  if (mprotect(code, 4096, RWX) != 0)
    return 100;
  store_unflushed(code, 7);
  if (sbrk(-4096) == (void *)-1 || sbrk(4096) == (void *)-1) /* unmapped, mapped again */
    return 101;
  if (mprotect(code, 4096, RWX) != 0 || kernel_loads(code) != 0)
    return 102;
  return call(code);
}

static int release_shmdt(void)
{
  int first = shmget(IPC_PRIVATE, 4096, IPC_CREAT | 0600);
  uint32_t *code = first < 0 ? (void *)-1 : shmat(first, NULL, SHM_EXEC);
  if (code == (void *)-1)
    return 100;
  store_unflushed(code, 7);
  shmctl(first, IPC_RMID, NULL);
  if (shmdt(code) != 0)
    return 101;
  int second = shmget(IPC_PRIVATE, 4096, IPC_CREAT | 0600);
  if (second < 0 || shmat(second, code, SHM_EXEC) != code)
    return 102;
  shmctl(second, IPC_RMID, NULL);
  if (kernel_loads(code) != 0)
    return 102;
  return call(code);
}

static int release_mremap(int flushed)
{
  uint32_t *code = mmap(NULL, 4096, RWX, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  char *to = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (code == MAP_FAILED || to == MAP_FAILED)
    return 100;
  store_unflushed(code, 7);
  if (flushed)
    __builtin___clear_cache((char *)code, (char *)(code + 2));
  if (mremap(code, 4096, 4096, MREMAP_MAYMOVE | MREMAP_FIXED, to) != to)
    return 101;
  return call(to);
}

static int release(const char *mode)
{
  if (strcmp(mode, "dontneed") == 0)
    return release_madvise(0, MADV_DONTNEED);
  if (strcmp(mode, "dontneed-shared") == 0)
    return release_madvise(1, MADV_DONTNEED);
  if (strcmp(mode, "free") == 0)
    return release_madvise(0, MADV_FREE);
  if (strcmp(mode, "remove") == 0)
    return release_madvise(1, MADV_REMOVE);
  if (strcmp(mode, "dontneed-file") == 0 || strcmp(mode, "dontneed-file-ran") == 0)
    return release_dontneed_file(strcmp(mode, "dontneed-file-ran") == 0);
  if (strcmp(mode, "brk") == 0)
    return release_brk();
  if (strcmp(mode, "shmdt") == 0)
    return release_shmdt();
  if (strcmp(mode, "mremap") == 0 || strcmp(mode, "mremap-flushed") == 0)
    return release_mremap(strcmp(mode, "mremap-flushed") == 0);
  return 64;
}

/* System V segments at a new address each time, like remap_churn. */
static int shm_churn(int n)
{
  int wrong = 0;
  for (int i = 0; i < n; i++) {
    void *hint = (void *)(uintptr_t)(CHURN_BASE + ((uint64_t)i * 2 * 4096) % CHURN_WINDOW);
    int id = shmget(IPC_PRIVATE, 4096, IPC_CREAT | 0600);
    uint32_t *code = id < 0 ? (void *)-1 : shmat(id, hint, SHM_EXEC);
    if (code == (void *)-1)
      return 100;
    shmctl(id, IPC_RMID, NULL);
    code[0] = a64_movz_x0((uint32_t)i & 0xffff);
    code[1] = A64_RET;
    __builtin___clear_cache((char *)code, (char *)(code + 2));
    wrong += call(code) != (i & 0xffff);
    if (shmdt(code) != 0)
      return 101;
  }
  printf("attached: %d wrong: %d\n", n, wrong);
  return wrong ? 1 : 0;
}

/* The sequence of Arm ARM B2.4.4 for one line of new code: clean through
 * the view that wrote it, invalidate through IVIEW. The clean is never
 * skipped: IDC differs between the cores of some SoCs (Tegra186), and the
 * thread may move after it read CTR_EL0. DIC is the same on every core of
 * every shipped config. */
static void make_visible(char *rw, char *iview)
{
  uint64_t ctr;
  __asm__ volatile("mrs %0, ctr_el0" : "=r"(ctr));
  __asm__ volatile("dc cvau, %0" ::"r"(rw) : "memory");
  __asm__ volatile("dsb ish" ::: "memory");
  if (!(ctr >> 29 & 1)) { /* DIC */
    __asm__ volatile("ic ivau, %0" ::"r"(iview) : "memory");
    __asm__ volatile("dsb ish" ::: "memory");
  }
  __asm__ volatile("isb" ::: "memory");
}

static int wx_reuse(int n, bool through_rx)
{
  uint32_t *rw;
  void *rx;
  if (!guest_memfd_views("wx-reuse", &rw, &rx))
    return 3;
  int wrong = 0;
  for (int i = 0; i < n; i++) {
    rw[0] = a64_movz_x0((uint32_t)i & 0xffff);
    rw[1] = A64_RET;
    make_visible((char *)rw, through_rx ? rx : (char *)rw);
    wrong += ((jit_fn)(uintptr_t)rx)() != (i & 0xffff);
  }
  printf("wx-reuse: %d wrong: %d\n", n, wrong);
  return wrong ? 1 : 0;
}

/* Two executable views of the same memfd page: the code is
 * written and cleaned through RW, invalidated through RX1 when THROUGH_RX1,
 * through RX2 when THROUGH_RX2, and always called through RX2. */
__attribute__((noinline)) static int wx_views(int n, bool through_rx1, bool through_rx2)
{
  int fd = memfd_create("wx-views", 0);
  if (fd < 0 || ftruncate(fd, 4096) != 0)
    return 3;
  uint32_t *rw = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  char *rx1 = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_SHARED, fd, 0);
  char *rx2 = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_SHARED, fd, 0);
  if (rw == MAP_FAILED || rx1 == MAP_FAILED || rx2 == MAP_FAILED)
    return 3;
  int wrong = 0;
  for (int i = 0; i < n; i++) {
    rw[0] = a64_movz_x0((uint32_t)i & 0xffff);
    rw[1] = A64_RET;
    uint64_t ctr;
    __asm__ volatile("mrs %0, ctr_el0" : "=r"(ctr));
    __asm__ volatile("dc cvau, %0" ::"r"(rw) : "memory");
    __asm__ volatile("dsb ish" ::: "memory");
    if (!(ctr >> 29 & 1)) { /* DIC */
      if (through_rx1)
        __asm__ volatile("ic ivau, %0" ::"r"(rx1) : "memory");
      if (through_rx2)
        __asm__ volatile("ic ivau, %0" ::"r"(rx2) : "memory");
      __asm__ volatile("dsb ish" ::: "memory");
    }
    __asm__ volatile("isb" ::: "memory");
    wrong += ((jit_fn)(uintptr_t)rx2)() != (i & 0xffff);
  }
  printf("wx-views: %d wrong: %d\n", n, wrong);
  return wrong ? 1 : 0;
}

/* The lowest start of the mappings around the shared libraries (within
 * 4 GiB below the lowest library), from /proc/self/maps as the program
 * sees it; UINT64_MAX when there is no library. */
static uint64_t lowest_near_libraries(void)
{
  uint64_t lib = UINT64_MAX, lowest = UINT64_MAX;
  for (int pass = 0; pass < 2; pass++) {
    FILE *f = fopen("/proc/self/maps", "r");
    char line[512];
    while (f && fgets(line, sizeof line, f)) {
      unsigned long long start = 0;
      if (sscanf(line, "%llx-", &start) != 1)
        continue;
      if (pass == 0 && strstr(line, ".so") && start < lib)
        lib = start;
      if (pass == 1 && start < lowest && start + (UINT64_C(4) << 30) >= lib && start <= lib)
        lowest = start;
    }
    if (f)
      fclose(f);
  }
  return lowest;
}

static bool range_free(uint64_t lo, uint64_t hi)
{
  FILE *f = fopen("/proc/self/maps", "r");
  char line[512];
  bool free_range = f != NULL;
  while (f && fgets(line, sizeof line, f)) {
    unsigned long long start = 0, end = 0;
    if (sscanf(line, "%llx-%llx", &start, &end) == 2 && start < hi && lo < end)
      free_range = false;
  }
  if (f)
    fclose(f);
  return free_range;
}

static int map_below_libs(int mib)
{
  uint64_t len = (uint64_t)mib << 20;
  uint64_t lowest = lowest_near_libraries();
  uint64_t top = lowest & ~((UINT64_C(1) << 21) - 1);
  if (lowest == UINT64_MAX || top < 4 * len) {
    fprintf(stderr, "map-below-libs: no room below 0x%llx\n", (unsigned long long)lowest);
    return 3;
  }
  /* Four ranges in turn, each free as far as the program can see. */
  for (uint64_t lo = top - len; lo >= top - 4 * len; lo -= len) {
    if (!range_free(lo, lo + len)) {
      fprintf(stderr, "map-below-libs: 0x%llx is mapped\n", (unsigned long long)lo);
      return 3;
    }
    char *p = mmap((void *)(uintptr_t)lo, len, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
    if (p == MAP_FAILED)
      return 3;
    p[0] = p[len - 1] = 1;
    munmap(p, len);
  }
  return jit(1);
}

static int fork_jit(int flushed)
{
  jit_fn fn = write_code(flushed);
  if (!fn)
    return 100;
  fflush(stdout);
  pid_t child = fork();
  if (child == 0)
    _exit(fn());
  int status = 0;
  if (child < 0 || waitpid(child, &status, 0) != child)
    return 101;
  printf("child %d status %d\n", (int)child, WIFEXITED(status) ? WEXITSTATUS(status) : -1);
  __builtin___clear_cache((char *)(uintptr_t)fn, (char *)(uintptr_t)fn + 8);
  return WIFEXITED(status) && WEXITSTATUS(status) == 42 && fn() == 42 ? 0 : 1;
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

/*
 * One reader that synchronises correctly (acquire load of the round, isb)
 * and a writer that flushes the two words of a function (8-byte aligned,
 * so within one line on any core: no stride question) either before it publishes
 * the round with a release store ("late": correct) or just after ("early":
 * the reader may run the code before the flush completes). Whether the
 * early publication is caught depends only on where the turn passes.
 */
struct publish_order {
  uint32_t *code;
  atomic_int round;
  atomic_int done;
  int rounds;
  int wrong;
};

static void flush_pair(const uint32_t *fn)
{
  __asm__ volatile("dc cvau, %0\n\tdsb ish\n\tic ivau, %0\n\tdsb ish" ::"r"(fn) : "memory");
}

static void *publish_order_reader(void *arg)
{
  struct publish_order *p = arg;
  for (int r = 1; r <= p->rounds; r++) {
    while (atomic_load_explicit(&p->round, memory_order_acquire) < r) {
    }
    __asm__ volatile("isb" ::: "memory");
    jit_fn fn = (jit_fn)(uintptr_t)(p->code + 2 * (r % 64));
    if (fn() != r)
      p->wrong++;
    atomic_store_explicit(&p->done, r, memory_order_release);
  }
  return NULL;
}

static int publish_order(bool flush_first, int rounds)
{
  if (rounds < 1 || rounds > 4096)
    return 64;
  struct publish_order p = {.rounds = rounds};
  p.code = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p.code == MAP_FAILED)
    return 100;
  pthread_t reader;
  if (pthread_create(&reader, NULL, publish_order_reader, &p) != 0)
    return 65;
  for (int r = 1; r <= rounds; r++) {
    uint32_t *fn = p.code + 2 * (r % 64);
    fn[0] = a64_movz_x0((uint32_t)r);
    fn[1] = A64_RET;
    if (flush_first)
      flush_pair(fn);
    atomic_store_explicit(&p.round, r, memory_order_release);
    if (!flush_first)
      flush_pair(fn);
    while (atomic_load_explicit(&p.done, memory_order_acquire) < r) {
    }
  }
  pthread_join(reader, NULL);
  printf("publish-order: %s rounds=%d wrong=%d\n", flush_first ? "late" : "early", rounds, p.wrong);
  return p.wrong ? 1 : 0;
}

/*
 * A signal's delivery is an exception return, a context
 * synchronisation of the thread that takes it (Arm ARM; Linux delivers on
 * the return to user space, arch/arm64/kernel/signal.c). The runner thread
 * makes its last system call (sched_setaffinity, gettid) before the code is
 * written, then spins without system calls and without an isb; pinned to
 * one CPU, the rig never migrates it (a migration would synchronise it).
 * The handler is global state because a signal handler takes no argument.
 */
struct flushed_run {
  uint32_t *code;
  pid_t runner_tid;
  atomic_int ready; /* the runner spins from now on */
  atomic_int go;    /* "flag": the code is flushed */
  atomic_int done;  /* the runner ran it */
  int result;
};

static struct flushed_run flushed_run;

static void run_flushed_code(void)
{
  flushed_run.result = call(flushed_run.code);
  atomic_store_explicit(&flushed_run.done, 1, memory_order_release);
}

/* Not inlined: "flag" calls it too, so that the rig sees a plain call of
 * a registered handler, which is no delivery. */
static __attribute__((noinline)) void on_sigusr1(int sig)
{
  (void)sig;
  run_flushed_code();
}

static void *flushed_runner(void *arg)
{
  bool by_signal = arg != NULL;
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(0, &one);
  if (sched_setaffinity(0, sizeof one, &one) != 0)
    return (void *)1;
  flushed_run.runner_tid = (pid_t)syscall(SYS_gettid);
  atomic_store_explicit(&flushed_run.ready, 1, memory_order_release);
  if (by_signal) {
    while (!atomic_load_explicit(&flushed_run.done, memory_order_acquire)) {
    }
  } else {
    while (!atomic_load_explicit(&flushed_run.go, memory_order_acquire)) {
    }
    on_sigusr1(SIGUSR1);
  }
  return NULL;
}

static int run_flushed(bool by_signal)
{
  flushed_run.code =
      mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (flushed_run.code == MAP_FAILED)
    return 100;
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_sigusr1;
  sigemptyset(&sa.sa_mask);
  if (sigaction(SIGUSR1, &sa, NULL) != 0)
    return 101;
  pthread_t runner;
  if (pthread_create(&runner, NULL, flushed_runner, by_signal ? (void *)1 : NULL) != 0)
    return 65;
  while (!atomic_load_explicit(&flushed_run.ready, memory_order_acquire)) {
  }
  flushed_run.code[0] = a64_movz_x0(42);
  flushed_run.code[1] = A64_RET;
  flush_pair(flushed_run.code); /* dc cvau, dsb ish, ic ivau, dsb ish */
  if (by_signal) {
    if (syscall(SYS_tgkill, (pid_t)getpid(), flushed_run.runner_tid, SIGUSR1) != 0)
      return 102;
  } else {
    atomic_store_explicit(&flushed_run.go, 1, memory_order_release);
  }
  void *failed = NULL;
  if (pthread_join(runner, &failed) != 0 || failed)
    return 103;
  printf("run-flushed: %s result=%d\n", by_signal ? "signal" : "flag", flushed_run.result);
  return flushed_run.result == 42 ? 0 : 1;
}

/* fork while other threads spin without system calls: QEMU's fork stops
 * every other vCPU (an exclusive section), which a thread waiting for its
 * turn inside the execution loop cannot do; the rig must not hang. */
static atomic_int spin_stop;
static atomic_int spinning;

static void *spin_until_stopped(void *arg)
{
  (void)arg;
  atomic_fetch_add(&spinning, 1);
  while (!atomic_load_explicit(&spin_stop, memory_order_relaxed)) {
  }
  return NULL;
}

static int fork_with_threads(int spinners)
{
  if (spinners < 1 || spinners > 8)
    return 64;
  pthread_t t[8];
  for (int i = 0; i < spinners; i++)
    if (pthread_create(&t[i], NULL, spin_until_stopped, NULL) != 0)
      return 65;
  /* Fork only once every spinner has run: under the rig's turns each one
   * then waits inside QEMU's execution loop, which the fork's exclusive
   * section must let go (plugin_turns.c, "escapes"). */
  while (atomic_load(&spinning) < spinners) {
  }
  pid_t child = fork();
  if (child == 0)
    _exit(7);
  /* The spinners stop before the wait: how long they spin then does not
   * depend on when the child (another process) ends. */
  atomic_store(&spin_stop, 1);
  for (int i = 0; i < spinners; i++)
    pthread_join(t[i], NULL);
  int status = 0;
  if (child < 0 || waitpid(child, &status, 0) != child)
    return 66;
  printf("fork-with-threads: child exited %d\n", WEXITSTATUS(status));
  return WEXITSTATUS(status) == 7 ? 0 : 1;
}

/* Defined after main: the threaded modes' schedules depend on where their
 * code sits, which code added before them would move. */
static int entropy(void);
static int entropy_splice(void);
static int read_clock(void);

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
  if (argc == 2 && strcmp(argv[1], "env-jit") == 0)
    return env_jit();
  if (argc == 2 && strcmp(argv[1], "jit-flush") == 0)
    return jit(1);
  if (argc == 2 && strcmp(argv[1], "nonleaf-flush") == 0)
    return nonleaf();
  if (argc == 3 && strcmp(argv[1], "writers") == 0 &&
      (strcmp(argv[2], "one-block") == 0 || strcmp(argv[2], "two-blocks") == 0))
    return writers(strcmp(argv[2], "one-block") == 0);
  if (argc == 2 && strcmp(argv[1], "jit-shared") == 0)
    return jit_shared(0);
  if (argc == 2 && strcmp(argv[1], "jit-shared-flush") == 0)
    return jit_shared(1);
  if (argc == 2 && strcmp(argv[1], "jit-forever") == 0)
    return jit_forever(false);
  if (argc == 2 && strcmp(argv[1], "jit-forever-forked") == 0)
    return jit_forever(true);
  if (argc == 2 && strcmp(argv[1], "jit-crash") == 0)
    return jit_crash();
  if (argc == 4 && strcmp(argv[1], "affinity-race") == 0)
    return affinity_race(atoi(argv[2]), atoi(argv[3]));
  if (argc >= 3 && strcmp(argv[1], "exec") == 0) {
    execv(argv[2], argv + 2);
    perror(argv[2]);
    return 127;
  }
  if (argc == 3 && strcmp(argv[1], "map-below-libs") == 0)
    return map_below_libs(atoi(argv[2]));
  if (argc == 4 && strcmp(argv[1], "wx-reuse") == 0)
    return wx_reuse(atoi(argv[2]), strcmp(argv[3], "rx") == 0);
  if (argc == 2 && strcmp(argv[1], "fork-jit") == 0)
    return fork_jit(0);
  if (argc == 2 && strcmp(argv[1], "fork-jit-flushed") == 0)
    return fork_jit(1);
  if (argc >= 3 && strcmp(argv[1], "spawn") == 0) {
    pid_t child = fork();
    if (child == 0) {
      execv(argv[2], argv + 2);
      perror(argv[2]);
      _exit(127);
    }
    int status = 0;
    if (child < 0 || waitpid(child, &status, 0) != child)
      return 126;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  }
  if ((argc == 3 || argc == 4) && strcmp(argv[1], "remap-churn") == 0)
    return remap_churn(atoi(argv[2]), argc == 4 && strcmp(argv[3], "waiter") == 0);
  if (argc == 4 && strcmp(argv[1], "publish") == 0)
    return publish(atoi(argv[2]), atoi(argv[3]));
  if (argc == 3 && strcmp(argv[1], "fork-with-threads") == 0)
    return fork_with_threads(atoi(argv[2]));
  if (argc == 4 && strcmp(argv[1], "publish-order") == 0 &&
      (strcmp(argv[2], "early") == 0 || strcmp(argv[2], "late") == 0))
    return publish_order(strcmp(argv[2], "late") == 0, atoi(argv[3]));
  if (argc == 3 && strcmp(argv[1], "release") == 0)
    return release(argv[2]);
  if (argc == 3 && strcmp(argv[1], "shm-churn") == 0)
    return shm_churn(atoi(argv[2]));
  if (argc == 3 && strcmp(argv[1], "run-flushed") == 0 &&
      (strcmp(argv[2], "signal") == 0 || strcmp(argv[2], "flag") == 0))
    return run_flushed(strcmp(argv[2], "signal") == 0);
  /* Last, and not inlined: the schedule of the threaded modes above depends
   * on where their code sits (TB boundaries), and their tests on it. */
  if (argc == 4 && strcmp(argv[1], "wx-views") == 0 &&
      (strcmp(argv[3], "rx1") == 0 || strcmp(argv[3], "rx2") == 0 || strcmp(argv[3], "both") == 0))
    return wx_views(atoi(argv[2]), strcmp(argv[3], "rx2") != 0, strcmp(argv[3], "rx1") != 0);
  if (argc == 2 && strcmp(argv[1], "entropy") == 0)
    return entropy();
  if (argc == 2 && strcmp(argv[1], "entropy-splice") == 0)
    return entropy_splice();
  if (argc == 2 && strcmp(argv[1], "clock") == 0)
    return read_clock();
  fprintf(stderr,
          "usage: emu_guest cat PATH... | exit N | segv | jit | jit-flush | jit-shared |\n"
          "       jit-shared-flush | jit-forever |\n"
          "       jit-crash | affinity-race CREATORS CHILDREN | publish READERS ROUNDS |\n"
          "       remap-churn N [waiter] | exec PROGRAM [ARGS...] | spawn PROGRAM [ARGS...] |\n"
          "       fork-jit | fork-jit-flushed | nonleaf-flush | wx-reuse N rx|rw | wx-views N "
          "rx1|rx2|both |\n"
          "       map-below-libs MIB |\n"
          "       fork-with-threads SPINNERS | publish-order early|late ROUNDS |\n"
          "       release MODE | shm-churn N | run-flushed signal|flag | entropy |\n"
          "       entropy-splice | clock\n");
  return 64;
}

static int entropy(void)
{
  uint64_t got = 0, read_bytes = 0;
  uint32_t readv_bytes[2] = {0, 0};
  if (getrandom(&got, sizeof got, 0) != (ssize_t)sizeof got)
    return 100;
  int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
  if (fd < 0 || read(fd, &read_bytes, sizeof read_bytes) != (ssize_t)sizeof read_bytes)
    return 101;
  struct iovec iov[2] = {{&readv_bytes[0], 4}, {&readv_bytes[1], 4}};
  if (readv(fd, iov, 2) != 8)
    return 102;
  close(fd);
  const unsigned char *at_random = (const unsigned char *)getauxval(AT_RANDOM);
  printf("getrandom %016llx read %016llx readv %08x%08x AT_RANDOM ", (unsigned long long)got,
         (unsigned long long)read_bytes, readv_bytes[0], readv_bytes[1]);
  for (int i = 0; at_random && i < 16; i++)
    printf("%02x", at_random[i]);
  printf("\n");
  fflush(stdout);
  /* 1 to 190 additions, then ret: as many stale fetches and instructions. */
  unsigned n = 1 + (unsigned)(got % 64) + (unsigned)(read_bytes % 64) + (readv_bytes[1] % 64);
  uint32_t *code = guest_rwx_page();
  if (!code)
    return 103;
  code[0] = a64_movz_x0(0);
  for (unsigned i = 1; i <= n; i++)
    code[i] = a64_add_x0(1, 0);
  code[n + 1] = A64_RET;
  return ((jit_fn)(uintptr_t)code)() == (int)n ? 0 : 104;
}

static int entropy_splice(void)
{
  int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
  int p[2];
  if (fd < 0 || pipe(p) != 0)
    return 100;
  if (splice(fd, NULL, p[1], NULL, 8, 0) != 8)
    return 101;
  uint64_t v = 0;
  if (read(p[0], &v, sizeof v) != (ssize_t)sizeof v)
    return 102;
  printf("splice %016llx\n", (unsigned long long)v);
  return 0;
}

static int read_clock(void)
{
  struct timespec a, b;
  if (clock_gettime(CLOCK_MONOTONIC, &a) != 0 || clock_gettime(CLOCK_MONOTONIC, &b) != 0)
    return 100;
  printf("clock %s\n", b.tv_sec > a.tv_sec || (b.tv_sec == a.tv_sec && b.tv_nsec >= a.tv_nsec)
                           ? "forward"
                           : "backward");
  return 0;
}
