/*
 * The selftest's stress loop. Linux only (it pins threads with
 * sched_setaffinity and asks getcpu where they ran); generated code exists
 * for AArch64 and x86-64.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>

#include "info_selftest.h"

#if defined(__linux__) && (defined(__aarch64__) || defined(__x86_64__))
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "info_codegen.h"

/* Large enough that functions land at many different line offsets, small
 * enough to stay in the L1/L2 of any core. */
enum { BUFFER_BYTES = 64 * 1024 };
/* Every phase runs at least this many functions however slow the machine
 * (the emulated rig runs code a hundred times slower than native). */
enum { MIN_FUNCTIONS_PER_PHASE = 24 };
/* Longest function, in instruction words (or x86 operations). */
enum { MAX_OPS = 200 };

struct phase_job {
  uint8_t *buffer;
  double seconds;
  uint32_t seed;
  struct info_selftest_phase *phase;
  char *first_wrong;
  size_t first_wrong_size;
};

static double now_seconds(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static uint32_t next_random(uint32_t *state)
{
  uint32_t x = *state;
  x ^= x << 13;
  x ^= x >> 17;
  x ^= x << 5;
  return *state = x;
}

/* A stale instruction on real hardware can be anything the buffer held
 * before; it may fault. Turn that into a reported wrong result instead of a
 * crash: the worker jumps back out of the generated code. */
static __thread sigjmp_buf *fault_escape;

static void on_fault(int sig)
{
  if (fault_escape) {
    siglongjmp(*fault_escape, sig);
  }
  signal(sig, SIG_DFL);
  raise(sig);
}

static void record_wrong(struct phase_job *job, size_t offset, size_t size, uint32_t want,
                         uint32_t got, int sig, int cpu)
{
  job->phase->wrong++;
  if (job->first_wrong[0]) {
    return;
  }
  if (sig) {
    snprintf(job->first_wrong, job->first_wrong_size,
             "function at buffer offset 0x%zx (%zu bytes) raised signal %d on CPU %d", offset, size,
             sig, cpu);
  } else {
    snprintf(
        job->first_wrong, job->first_wrong_size,
        "function at buffer offset 0x%zx (%zu bytes) returned 0x%08x, expected 0x%08x on CPU %d",
        offset, size, got, want, cpu);
  }
}

static int current_cpu(void)
{
  unsigned cpu;
  return syscall(SYS_getcpu, &cpu, NULL, NULL) == 0 ? (int)cpu : -1;
}

/* Writes one random function into the buffer; returns its offset, size
 * and the value it must return. */
static uint32_t write_function(uint8_t *buffer, uint32_t *rng, size_t *offset, size_t *size)
{
  unsigned ops = 1 + next_random(rng) % MAX_OPS;
  uint32_t seed = next_random(rng);
#if defined(__aarch64__)
  unsigned words = ops + 2;
  *size = (size_t)words * 4;
  /* Instructions are 4-byte aligned; any word offset is fair game, so
   * functions start and end at every position within a cache line. */
  *offset = (size_t)(next_random(rng) % ((BUFFER_BYTES - *size) / 4 + 1)) * 4;
  return info_codegen_a64((uint32_t *)(buffer + *offset), words, seed);
#else
  *size = info_codegen_x86_64_size(ops);
  *offset = next_random(rng) % (BUFFER_BYTES - *size + 1);
  return info_codegen_x86_64(buffer + *offset, ops, seed);
#endif
}

/* Calls FN with a way back out if it faults. Kept apart from the loop so
 * that no local of the loop lives across sigsetjmp (C11 7.13.2.1: such
 * locals are indeterminate after the longjmp unless volatile). */
/* noinline: inlined into a caller with live locals, the sigsetjmp would
 * make them indeterminate after a longjmp (-Wclobbered). */
__attribute__((noinline)) static int call_guarded(uint32_t (*fn)(void), uint32_t *result)
{
  sigjmp_buf escape;
  int sig = sigsetjmp(escape, 1);
  if (sig == 0) {
    fault_escape = &escape;
    *result = fn();
  }
  fault_escape = NULL;
  return sig;
}

static void *run_phase(void *arg)
{
  struct phase_job *job = arg;
  struct info_selftest_phase *phase = job->phase;
  if (phase->cpu >= 0) {
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(phase->cpu, &one);
    if (sched_setaffinity(0, sizeof one, &one) != 0) {
      phase->pin_refused = true;
      return NULL;
    }
  }
  uint32_t rng = job->seed ? job->seed : 1;
  double deadline = now_seconds() + job->seconds;
  while (phase->written < MIN_FUNCTIONS_PER_PHASE || now_seconds() < deadline) {
    size_t offset, size;
    uint32_t want = write_function(job->buffer, &rng, &offset, &size);
    phase->written++;
    jitflush_clear_cache(job->buffer + offset, job->buffer + offset + size);
    phase->flushed++;

    uint32_t (*fn)(void);
    void *entry = job->buffer + offset;
    memcpy(&fn, &entry, sizeof fn); /* object to function pointer, POSIX dlsym style */
    uint32_t got = 0;
    int sig = call_guarded(fn, &got);
    int cpu = current_cpu();
    if (cpu >= 0 && cpu < INFO_SELFTEST_CPU_BITS) {
      phase->ran_on[cpu / 64] |= UINT64_C(1) << (cpu % 64);
    }
    if (phase->cpu >= 0 && cpu >= 0 && cpu != phase->cpu) {
      phase->ran_elsewhere = true;
    }
    if (sig == 0 && got == want) {
      phase->verified++;
    } else {
      record_wrong(job, offset, size, want, got, sig, cpu);
    }
  }
  return NULL;
}

static void install_fault_handlers(struct sigaction *saved)
{
  static const int sigs[3] = {SIGILL, SIGSEGV, SIGBUS};
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_fault;
  sigemptyset(&sa.sa_mask);
  for (int i = 0; i < 3; i++) {
    sigaction(sigs[i], &sa, &saved[i]);
  }
}

static void restore_fault_handlers(const struct sigaction *saved)
{
  static const int sigs[3] = {SIGILL, SIGSEGV, SIGBUS};
  for (int i = 0; i < 3; i++) {
    sigaction(sigs[i], &saved[i], NULL);
  }
}

bool info_selftest_run(double seconds, struct info_selftest_result *out)
{
  memset(out, 0, sizeof *out);
  out->seconds = seconds;

  cpu_set_t allowed;
  if (sched_getaffinity(0, sizeof allowed, &allowed) != 0) {
    snprintf(out->error, sizeof out->error,
             "sched_getaffinity failed: cannot list the CPUs to test");
    return false;
  }
  for (int cpu = 0; cpu < CPU_SETSIZE; cpu++) {
    if (!CPU_ISSET(cpu, &allowed)) {
      continue;
    }
    if (out->nphases + 1 >= INFO_SELFTEST_MAX_PHASES) {
      out->phases_truncated = true;
      break;
    }
    out->phases[out->nphases++].cpu = cpu;
  }
  out->phases[out->nphases++].cpu = -1;

  /* RWX: the simplest JIT layout, and the one __clear_cache users have.
   * A kernel or policy that forbids it (PaX MPROTECT, SELinux execmem) is
   * reported, not worked around. */
  void *buffer = mmap(NULL, BUFFER_BYTES, PROT_READ | PROT_WRITE | PROT_EXEC,
                      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (buffer == MAP_FAILED) {
    snprintf(out->error, sizeof out->error, "cannot map %d bytes read-write-execute (W^X policy?)",
             BUFFER_BYTES);
    return false;
  }
  struct sigaction saved[3];
  install_fault_handlers(saved);

  double start = now_seconds();
  for (unsigned i = 0; i < out->nphases; i++) {
    struct phase_job job = {
        .buffer = buffer,
        .seconds = seconds / out->nphases,
        .seed = 0x2545f491u * (i + 1),
        .phase = &out->phases[i],
        .first_wrong = out->first_wrong,
        .first_wrong_size = sizeof out->first_wrong,
    };
    pthread_t thread;
    if (pthread_create(&thread, NULL, run_phase, &job) != 0) {
      snprintf(out->error, sizeof out->error, "cannot create a worker thread");
      break;
    }
    pthread_join(thread, NULL);
    out->written += out->phases[i].written;
    out->flushed += out->phases[i].flushed;
    out->verified += out->phases[i].verified;
    out->wrong += out->phases[i].wrong;
  }
  out->elapsed = now_seconds() - start;
  restore_fault_handlers(saved);
  munmap(buffer, BUFFER_BYTES);
  out->ran = out->error[0] == '\0';
  return out->ran && out->wrong == 0 && out->verified > 0;
}

#else

bool info_selftest_run(double seconds, struct info_selftest_result *out)
{
  memset(out, 0, sizeof *out);
  out->seconds = seconds;
  snprintf(out->error, sizeof out->error,
           "the selftest generates AArch64 or x86-64 Linux code; not available on this platform");
  return false;
}

#endif
