/*
 * --selftest: a JIT stress loop on every CPU this process may use. Each
 * round writes a function of random length at a random offset of one RWX
 * buffer, flushes exactly its bytes with jitflush_clear_cache, calls it and
 * checks the value it returns. One phase per allowed CPU with the worker
 * pinned there, then one phase free to migrate (where an emulated or real
 * scheduler can move it in mid-flush).
 */
#ifndef JITFLUSH_INFO_SELFTEST_H
#define JITFLUSH_INFO_SELFTEST_H

#include <stdbool.h>
#include <stdint.h>

#include "jitflush.h"

/* Phases: one per CPU up to JITFLUSH_MAX_CPUS, plus the free one. */
#define INFO_SELFTEST_MAX_PHASES (JITFLUSH_MAX_CPUS + 1)
/* CPU numbers the worker may report (getcpu); CPU_SETSIZE in glibc. */
#define INFO_SELFTEST_CPU_BITS 1024

struct info_selftest_phase {
  int cpu;            /* the CPU pinned to, -1 for the free phase */
  bool pin_refused;   /* sched_setaffinity failed: nothing ran */
  bool ran_elsewhere; /* getcpu disagreed with the pin */
  unsigned long written, flushed, verified, wrong;
  uint64_t ran_on[INFO_SELFTEST_CPU_BITS / 64]; /* CPUs getcpu reported */
};

struct info_selftest_result {
  bool ran; /* false: could not start, see error */
  char error[200];
  double seconds; /* requested */
  double elapsed; /* measured */
  unsigned nphases;
  bool phases_truncated; /* more allowed CPUs than phases */
  struct info_selftest_phase phases[INFO_SELFTEST_MAX_PHASES];
  unsigned long written, flushed, verified, wrong;
  char first_wrong[240]; /* what went wrong first, "" if nothing */
};

/* Runs for about SECONDS in total (every phase at least a few functions).
 * Returns true when it ran and every function returned the right value. */
bool info_selftest_run(double seconds, struct info_selftest_result *out);

#endif
