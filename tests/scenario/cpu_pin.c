#define _GNU_SOURCE
#include "cpu_pin.h"

#include <errno.h>

bool sc_pin_to_cpu(int cpu, cpu_set_t *saved)
{
  if (cpu < 0 || cpu >= CPU_SETSIZE) {
    errno = EINVAL;
    return false;
  }
  if (saved && sched_getaffinity(0, sizeof *saved, saved) != 0)
    return false;
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(cpu, &one);
  return sched_setaffinity(0, sizeof one, &one) == 0;
}

bool sc_restore_affinity(const cpu_set_t *saved)
{
  return sched_setaffinity(0, sizeof *saved, saved) == 0;
}
