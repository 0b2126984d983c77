/*
 * seccomp_run: runs a program inside a seccomp filter that refuses the
 * named system calls. Used to put qemu-aarch64 itself in the sandbox:
 * QEMU's linux-user mode refuses to let the guest install a filter
 * (prctl(PR_SET_SECCOMP) fails with EINVAL, seccomp(2) with ENOSYS, checked
 * with QEMU 10.0), but it forwards the guest's sched_setaffinity, getcpu
 * and membarrier to the host kernel, so a host filter around QEMU is what
 * the guest meets.
 *
 *   seccomp_run [--deny NAME[:ERRNO]]... -- PROGRAM [ARGS...]
 *
 * ERRNO is EPERM (default), ENOSYS or EAGAIN. Exit status: the program's;
 * 2 for a usage error, 3 when the filter cannot be installed, 127 when
 * the program cannot be executed.
 */
#define _GNU_SOURCE 1
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "seccomp_deny.h"

static int usage(const char *problem)
{
  fprintf(stderr,
          "seccomp_run: %s\nusage: seccomp_run [--deny NAME[:ERRNO]]... -- PROGRAM [ARGS...]\n"
          "  NAME: %s\n  ERRNO: EPERM (default), ENOSYS, EAGAIN\n",
          problem, seccomp_deny_names);
  return 2;
}

static int errno_named(const char *name)
{
  if (strcmp(name, "EPERM") == 0)
    return EPERM;
  if (strcmp(name, "ENOSYS") == 0)
    return ENOSYS;
  if (strcmp(name, "EAGAIN") == 0)
    return EAGAIN;
  return -1;
}

int main(int argc, char **argv)
{
  struct seccomp_deny rules[16];
  size_t count = 0;
  int i = 1;
  for (; i < argc && strcmp(argv[i], "--") != 0; i++) {
    if (strcmp(argv[i], "--deny") != 0 || i + 1 >= argc)
      return usage("expected --deny NAME[:ERRNO] or --");
    char spec[64];
    snprintf(spec, sizeof spec, "%s", argv[++i]);
    char *colon = strchr(spec, ':');
    int err = EPERM;
    if (colon) {
      *colon = '\0';
      err = errno_named(colon + 1);
      if (err < 0)
        return usage("unknown errno name");
    }
    long nr = seccomp_deny_lookup(spec);
    if (nr < 0)
      return usage("unknown system call name");
    if (count == sizeof rules / sizeof rules[0])
      return usage("too many --deny");
    rules[count++] = (struct seccomp_deny){nr, err, false, 0};
  }
  if (i + 1 >= argc)
    return usage("no program after --");
  if (seccomp_deny_install(rules, count) != 0) {
    fprintf(stderr, "seccomp_run: cannot install the filter: %s\n", strerror(errno));
    return 3;
  }
  execvp(argv[i + 1], argv + i + 1);
  fprintf(stderr, "seccomp_run: cannot execute %s: %s\n", argv[i + 1], strerror(errno));
  return 127;
}
