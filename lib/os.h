/*
 * Scheduler seam: which CPUs the process may use, pinning the calling
 * thread, and where it runs now. Production: lib/os_linux.c. Tests link a
 * fake that models a topology.
 */
#ifndef JITFLUSH_INTERNAL_OS_H
#define JITFLUSH_INTERNAL_OS_H

#include <stdbool.h>

#include "cpuset.h"

/* The calling thread's affinity mask. False when the kernel refuses. */
bool jf_os_get_affinity(struct jf_cpuset *out);
/* Pins the calling thread to exactly CPU. False when refused (seccomp,
 * cpuset, offline CPU). */
bool jf_os_pin_self(unsigned cpu);
/* The CPU the calling thread runs on now, or -1 when unknown. */
int jf_os_current_cpu(void);

#endif
