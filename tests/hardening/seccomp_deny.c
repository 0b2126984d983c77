/* Raw BPF seccomp filter for the hardening tests; see seccomp_deny.h. */
#define _GNU_SOURCE 1 /* syscall numbers, prctl */
#include "seccomp_deny.h"

#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stdint.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

#if defined(__x86_64__)
#define THIS_AUDIT_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define THIS_AUDIT_ARCH AUDIT_ARCH_AARCH64
#else
#error "seccomp_deny.c: add this architecture's AUDIT_ARCH_ value"
#endif

#ifndef SYS_clone3
#define SYS_clone3 435 /* same number on x86_64 and aarch64 (Linux 5.3) */
#endif

enum { MAX_RULES = 16, MAX_INSNS = 4 + 5 * MAX_RULES };

static struct sock_filter stmt(uint16_t code, uint32_t k)
{
  struct sock_filter f = {code, 0, 0, k};
  return f;
}

static struct sock_filter jump(uint16_t code, uint32_t k, uint8_t jt, uint8_t jf)
{
  struct sock_filter f = {code, jt, jf, k};
  return f;
}

int seccomp_deny_install(const struct seccomp_deny *rules, size_t count)
{
  if (count > MAX_RULES) {
    errno = E2BIG;
    return -1;
  }
  struct sock_filter prog[MAX_INSNS];
  unsigned n = 0;
  /* A call made through another ABI (e.g. 32-bit compat) carries other
   * numbers: let it through rather than misread it. The libraries under
   * test only use the native ABI. */
  prog[n++] = stmt(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch));
  prog[n++] = jump(BPF_JMP | BPF_JEQ | BPF_K, THIS_AUDIT_ARCH, 1, 0);
  prog[n++] = stmt(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
  for (size_t i = 0; i < count; i++) {
    const struct seccomp_deny *r = &rules[i];
    uint32_t ret = SECCOMP_RET_ERRNO | ((uint32_t)r->err & SECCOMP_RET_DATA);
    prog[n++] = stmt(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr));
    if (r->only_if_arg0) {
      prog[n++] = jump(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)r->nr, 0, 3);
      /* Little-endian (x86_64, aarch64): the low half comes first. */
      prog[n++] = stmt(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[0]));
      prog[n++] = jump(BPF_JMP | BPF_JEQ | BPF_K, r->arg0, 0, 1);
    } else {
      prog[n++] = jump(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)r->nr, 0, 1);
    }
    prog[n++] = stmt(BPF_RET | BPF_K, ret);
  }
  prog[n++] = stmt(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);

  struct sock_fprog fprog = {(unsigned short)n, prog};
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
    return -1;
  return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &fprog) == 0 ? 0 : -1;
}

static const struct {
  const char *name;
  long nr;
} known[] = {
    {"sched_setaffinity", SYS_sched_setaffinity},
    {"sched_getaffinity", SYS_sched_getaffinity},
    {"getcpu", SYS_getcpu},
    {"membarrier", SYS_membarrier},
    {"clone", SYS_clone},
    {"clone3", SYS_clone3},
    {"openat", SYS_openat},
    {"unshare", SYS_unshare},
};

const char seccomp_deny_names[] =
    "sched_setaffinity,sched_getaffinity,getcpu,membarrier,clone,clone3,openat,unshare";

long seccomp_deny_lookup(const char *name)
{
  for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
    if (strcmp(known[i].name, name) == 0)
      return known[i].nr;
  return -1;
}
