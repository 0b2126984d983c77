/*
 * A seccomp filter, in raw classic BPF (no libseccomp), that makes chosen
 * system calls fail with a chosen errno and lets every other call through:
 * the way a sandbox (Android's app seccomp policy, Docker's default profile,
 * systemd's SystemCallFilter=) refuses what jitflush would like to use.
 * Kernel interface: Documentation/userspace-api/seccomp_filter.rst.
 */
#ifndef JITFLUSH_HARDENING_SECCOMP_DENY_H
#define JITFLUSH_HARDENING_SECCOMP_DENY_H

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

struct seccomp_deny {
  long nr;           /* system call number of this architecture */
  int err;           /* errno the call fails with */
  bool only_if_arg0; /* deny only when the first argument equals arg0 */
  unsigned arg0;     /* compared with the low 32 bits of argument 0 */
};

/* Sets PR_SET_NO_NEW_PRIVS (required to install a filter without
 * CAP_SYS_ADMIN) and installs the filter on the calling thread; threads it
 * creates later and programs it execs inherit it. Returns 0, or -1 with
 * errno set. */
int seccomp_deny_install(const struct seccomp_deny *rules, size_t count);

/* The number of a system call named in seccomp_deny_names (the ones these
 * tests deny), or -1. */
long seccomp_deny_lookup(const char *name);

/* "sched_setaffinity,sched_getaffinity,..." for messages. */
extern const char seccomp_deny_names[];

#ifdef __cplusplus
}
#endif

#endif
