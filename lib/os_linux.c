/*
 * The production scheduler seam for Linux. Raw syscalls rather than the
 * glibc wrappers: sched_setaffinity(0, ...) acts on the calling thread (the
 * kernel's pid 0 means "current task"), which is exactly what the probe's
 * helper thread needs, and getcpu has no wrapper before glibc 2.29.
 */
#define _GNU_SOURCE 1 /* O_CLOEXEC, syscall(), getauxval under -std=c11 */
#if defined(__linux__)
#include <errno.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "os.h"

bool jf_os_get_affinity(struct jf_cpuset *out)
{
  jf_cpuset_clear(out);
  long n = syscall(SYS_sched_getaffinity, 0, sizeof out->bits, out->bits);
  /* The kernel returns the number of bytes it wrote. */
  return n > 0;
}

bool jf_os_pin_self(unsigned cpu)
{
  struct jf_cpuset one;
  jf_cpuset_clear(&one);
  jf_cpuset_add(&one, cpu);
  return syscall(SYS_sched_setaffinity, 0, sizeof one.bits, one.bits) == 0;
}

int jf_os_current_cpu(void)
{
  unsigned cpu = 0;
  if (syscall(SYS_getcpu, &cpu, NULL, NULL) != 0) {
    return -1;
  }
  return (int)cpu;
}
#endif
