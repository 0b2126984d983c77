/*
 * Starts qemu-aarch64 for the runner.
 *
 * Why a mount namespace: QEMU's -L prefix is only a first guess. util/path.c
 * looks a guest path up under the prefix and, when it is not there, falls
 * back to the host's own file. A CPU or cache file that the overlay leaves
 * out on purpose (an offline CPU, sysfs=no-cache, sysfs=none) would then be
 * read from the x86 host's /sys/devices/system/cpu, and the guest would see
 * the host's CPUs. So the child binds the overlay's cpu folder (or an empty
 * one) over the host's /sys/devices/system/cpu in a private mount namespace:
 * a fallback then finds the same files, or none. Root can do that directly;
 * anyone else through a user namespace (user_namespaces(7): the creator
 * holds every capability in the new namespace until it execs a program as
 * a non-root user). If neither is allowed, the run goes on with a warning.
 */
#define _GNU_SOURCE
#include "runner.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#define HOST_CPU_DIR "/sys/devices/system/cpu"

static bool write_text(const char *path, const char *text) {
  int fd = open(path, O_WRONLY | O_CLOEXEC);
  if (fd < 0) return false;
  ssize_t len = (ssize_t)strlen(text);
  bool ok = write(fd, text, (size_t)len) == len;
  close(fd);
  return ok;
}

/* Enters a new user namespace that maps our own uid and gid onto
 * themselves, so the guest keeps seeing its real ids. */
static bool enter_user_namespace(void) {
  uid_t uid = getuid();
  gid_t gid = getgid();
  if (unshare(CLONE_NEWUSER | CLONE_NEWNS) != 0) return false;
  char map[64];
  /* setgroups must be denied before an unprivileged gid_map write. */
  if (!write_text("/proc/self/setgroups", "deny")) return false;
  snprintf(map, sizeof map, "%u %u 1\n", (unsigned)uid, (unsigned)uid);
  if (!write_text("/proc/self/uid_map", map)) return false;
  snprintf(map, sizeof map, "%u %u 1\n", (unsigned)gid, (unsigned)gid);
  return write_text("/proc/self/gid_map", map);
}

static void seal_host_cpu_dir(const char *source) {
  const char *step = "unshare";
  if (unshare(CLONE_NEWNS) != 0 && !enter_user_namespace()) goto fail;
  /* Keep the bind private to this namespace (systemd makes / shared). */
  step = "mount --make-rprivate /";
  if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0) goto fail;
  step = "bind mount";
  if (mount(source, HOST_CPU_DIR, NULL, MS_BIND, NULL) != 0) goto fail;
  return;
fail:
  fprintf(stderr,
          "jitflush-emu: warning: cannot hide the host's %s (%s: %s); files the overlay "
          "leaves out are read from the host\n",
          HOST_CPU_DIR, step, strerror(errno));
}

pid_t emu_spawn_qemu(char *const argv[], const char *seal_source) {
  /* The child reports a failed exec through this pipe; a successful exec
   * closes it (O_CLOEXEC) and the parent reads nothing. */
  int pipefd[2];
  if (pipe2(pipefd, O_CLOEXEC) != 0) return -1;
  pid_t pid = fork();
  if (pid < 0) {
    int e = errno;
    close(pipefd[0]);
    close(pipefd[1]);
    errno = e;
    return -1;
  }
  if (pid == 0) {
    close(pipefd[0]);
    signal(SIGINT, SIG_DFL);
    signal(SIGQUIT, SIG_DFL);
    /* A guest that dies of a signal makes QEMU write qemu_<prog>_*.core
     * into the working folder; the rig's SIGILL runs must not litter. */
    struct rlimit no_core = {0, 0};
    setrlimit(RLIMIT_CORE, &no_core);
    if (seal_source) seal_host_cpu_dir(seal_source);
    execv(argv[0], argv);
    int e = errno;
    if (write(pipefd[1], &e, sizeof e) < 0) _exit(127);
    _exit(127);
  }
  close(pipefd[1]);
  int child_errno = 0;
  ssize_t n;
  do {
    n = read(pipefd[0], &child_errno, sizeof child_errno);
  } while (n < 0 && errno == EINTR);
  close(pipefd[0]);
  if (n == (ssize_t)sizeof child_errno) {
    while (waitpid(pid, NULL, 0) < 0 && errno == EINTR) {
    }
    errno = child_errno;
    return -1;
  }
  return pid;
}
