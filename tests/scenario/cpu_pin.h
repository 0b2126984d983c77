/*
 * Affinity helpers. Under the rig, sched_setaffinity/sched_getaffinity act
 * on the emulated topology (the plugin emulates them), so pinning to CPU 4
 * of an 8-CPU Exynos 8890 works on a 2-CPU host.
 */
#ifndef JITFLUSH_SCENARIO_CPU_PIN_H
#define JITFLUSH_SCENARIO_CPU_PIN_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <sched.h>
#include <stdbool.h>

/* Pins the calling thread to cpu. When saved is not NULL, stores the mask
 * it had before. Returns false (errno set) when either syscall fails. */
bool sc_pin_to_cpu(int cpu, cpu_set_t *saved);

/* Restores a mask saved by sc_pin_to_cpu. */
bool sc_restore_affinity(const cpu_set_t *saved);

#endif
