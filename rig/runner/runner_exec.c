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
 *
 * Why a pipe on QEMU's stderr: when QEMU gives up before the guest's first
 * instruction, its own message ("qemu-aarch64: Could not open ...") is the
 * cause, and the runner's last line must repeat it (status 7). The runner
 * copies the pipe to its own stderr as it comes, so the output is what it
 * was, and keeps the tail. The guest shares QEMU's fd 2 (linux-user passes
 * file descriptors through), so its stderr is that pipe too: isatty(2) is
 * false in the guest, and a guest process that outlives QEMU and writes to
 * stderr afterwards gets EPIPE, as it would from a closed terminal.
 */
#define _GNU_SOURCE
#include "runner_exec.h"
#include "runner_exit_statuses.h"
#include "runner_fail.h"

#include <stdbool.h>
#include <stdint.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define HOST_CPU_DIR "/sys/devices/system/cpu"

/* How much of QEMU's stderr the runner keeps: its messages before the
 * guest starts are a line or two. */
#define TAIL_KEEP 4096

static bool write_text(const char *path, const char *text)
{
  int fd = open(path, O_WRONLY | O_CLOEXEC);
  if (fd < 0) {
    return false;
  }
  ssize_t len = (ssize_t)strlen(text);
  bool ok = write(fd, text, (size_t)len) == len;
  close(fd);
  return ok;
}

/* Enters a new user namespace that maps our own uid and gid onto
 * themselves, so the guest keeps seeing its real ids. */
static bool enter_user_namespace(void)
{
  uid_t uid = getuid();
  gid_t gid = getgid();
  if (unshare(CLONE_NEWUSER | CLONE_NEWNS) != 0) {
    return false;
  }
  char map[64];
  /* setgroups must be denied before an unprivileged gid_map write. */
  if (!write_text("/proc/self/setgroups", "deny")) {
    return false;
  }
  snprintf(map, sizeof map, "%u %u 1\n", (unsigned)uid, (unsigned)uid);
  if (!write_text("/proc/self/uid_map", map)) {
    return false;
  }
  snprintf(map, sizeof map, "%u %u 1\n", (unsigned)gid, (unsigned)gid);
  return write_text("/proc/self/gid_map", map);
}

/* Binds FROM over TO read-only. Over itself, it makes a shared tree
 * read-only on every path the guest may reach it by (-L's link included). */
static bool bind_read_only(const char *from, const char *to)
{
  return mount(from, to, NULL, MS_BIND, NULL) == 0 &&
         mount(NULL, to, NULL, MS_BIND | MS_REMOUNT | MS_RDONLY, NULL) == 0;
}

static void seal_host_cpu_dir(const struct runner_seal *seal)
{
  const char *source = seal->source;
  const char *step = "unshare";
  bool ns = unshare(CLONE_NEWNS) == 0 || enter_user_namespace();
  /* Keep the binds private to this namespace (systemd makes / shared). */
  if (ns) {
    step = "mount --make-rprivate /";
    ns = mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) == 0;
  }
  int e = errno;
  if (seal->shared && !(ns && bind_read_only(source, source))) {
    source = seal->private_copy(seal->ctx);
    if (!source) {
      fprintf(stderr, "jitflush-emu: cannot write the run's own sysfs tree\n");
      _exit(127);
    }
  }
  errno = e;
  if (!ns) {
    goto fail;
  }
  step = "bind mount";
  bool shared = seal->shared && source == seal->source;
  if (shared ? !bind_read_only(source, HOST_CPU_DIR)
             : mount(source, HOST_CPU_DIR, NULL, MS_BIND, NULL) != 0) {
    goto fail;
  }
  return;
fail:
  fprintf(stderr,
          "jitflush-emu: warning: cannot hide the host's %s (%s: %s); files the overlay "
          "leaves out are read from the host\n",
          HOST_CPU_DIR, step, strerror(errno));
}

pid_t runner_spawn_qemu(char *const argv[], char *const env[], const struct runner_seal *seal,
                        int *stderr_fd)
{
  /* The child reports a failed exec through this pipe; a successful exec
   * closes it (O_CLOEXEC) and the parent reads nothing. */
  int pipefd[2], errfd[2];
  if (pipe2(pipefd, O_CLOEXEC) != 0) {
    return -1;
  }
  if (pipe2(errfd, O_CLOEXEC) != 0) {
    int e = errno;
    close(pipefd[0]);
    close(pipefd[1]);
    errno = e;
    return -1;
  }
  pid_t runner = getpid();
  pid_t pid = fork();
  if (pid < 0) {
    int e = errno;
    close(pipefd[0]);
    close(pipefd[1]);
    close(errfd[0]);
    close(errfd[1]);
    errno = e;
    return -1;
  }
  if (pid == 0) {
    close(pipefd[0]);
    /* QEMU dies with the runner, even of a SIGKILL that leaves the runner
     * no chance to end it; the check after it covers a runner that died
     * before the prctl. */
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != runner) {
      _exit(127);
    }
    signal(SIGINT, SIG_DFL);
    signal(SIGQUIT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    signal(SIGHUP, SIG_DFL);
    /* A guest that dies of a signal makes QEMU write qemu_<prog>_*.core
     * into the working folder; the rig's SIGILL runs must not litter. */
    struct rlimit no_core = {0, 0};
    setrlimit(RLIMIT_CORE, &no_core);
    /* The same addresses on every run, as record-and-replay tools do:
     * linux-user places the guest's mappings where the host's mmap does,
     * and a report that names them must not change with the host's
     * layout randomisation (docs/RIG.md, "Reproducible runs"). A kernel
     * that refuses leaves the addresses random, nothing else. */
    int persona = personality(0xffffffff);
    if (persona != -1) {
      personality((unsigned long)persona | ADDR_NO_RANDOMIZE);
    }
    /* The warning below goes straight to the runner's stderr. */
    if (seal) {
      seal_host_cpu_dir(seal);
    }
    /* dup2 clears O_CLOEXEC on fd 2; both pipe ends close at exec. */
    if (dup2(errfd[1], STDERR_FILENO) < 0) {
      int e = errno;
      if (write(pipefd[1], &e, sizeof e) < 0) {
        _exit(127);
      }
      _exit(127);
    }
    execve(argv[0], argv, env ? env : environ);
    int e = errno;
    if (write(pipefd[1], &e, sizeof e) < 0) {
      _exit(127);
    }
    _exit(127);
  }
  close(pipefd[1]);
  close(errfd[1]);
  int child_errno = 0;
  ssize_t n;
  do {
    n = read(pipefd[0], &child_errno, sizeof child_errno);
  } while (n < 0 && errno == EINTR);
  close(pipefd[0]);
  if (n == (ssize_t)sizeof child_errno) {
    close(errfd[0]);
    while (waitpid(pid, NULL, 0) < 0 && errno == EINTR) {
    }
    errno = child_errno;
    return -1;
  }
  *stderr_fd = errfd[0];
  return pid;
}

enum relay_result { RELAY_MORE, RELAY_EMPTY, RELAY_DONE };

/* Copies what is readable now from FD to stderr and TAIL. RELAY_DONE: end
 * of file, or the runner's own stderr refused the copy (the caller then
 * closes the pipe, so the writers get EPIPE as they would have from the
 * runner's stderr itself). */
static enum relay_result relay(int fd, GString *tail)
{
  char buf[4096];
  ssize_t n;
  do {
    n = read(fd, buf, sizeof buf);
  } while (n < 0 && errno == EINTR);
  if (n < 0) {
    return errno == EAGAIN ? RELAY_EMPTY : RELAY_DONE;
  }
  if (n == 0) {
    return RELAY_DONE;
  }
  g_string_append_len(tail, buf, n);
  if (tail->len > TAIL_KEEP) {
    g_string_erase(tail, 0, (gssize)(tail->len - TAIL_KEEP));
  }
  for (ssize_t off = 0; off < n;) {
    ssize_t w = write(STDERR_FILENO, buf + off, (size_t)(n - off));
    if (w < 0 && errno == EINTR) {
      continue;
    }
    if (w <= 0) {
      return RELAY_DONE;
    }
    off += w;
  }
  return RELAY_MORE;
}

/* How long an interrupted run waits for the plugin's reports before it
 * ends QEMU anyway. */
#define INTERRUPT_GRACE_MS 10000
#define INTERRUPT_POLL_MS 20

int runner_wait_qemu(pid_t pid, int stderr_fd, GString *tail, const struct runner_interrupt *intr)
{
  /* A pidfd wakes poll() when the child exits; without one (Linux < 5.3,
   * or a seccomp filter) waitpid is polled every 50 ms. Waiting for end of
   * file instead would hang on a guest's background process that keeps
   * stderr open. */
  int pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
  int fd = stderr_fd;
  fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
  /* EPIPE is the relay's to handle, not a reason for the runner to die. */
  void (*old_pipe)(int) = signal(SIGPIPE, SIG_IGN);
  int wstatus = 0;
  bool ended = false; /* an interruption's signal was sent */
  int waited_ms = 0;
  const gint64 deadline =
      intr && intr->timeout_ms ? g_get_monotonic_time() + (gint64)intr->timeout_ms * 1000 : 0;
  for (;;) {
    pid_t done;
    do {
      done = waitpid(pid, &wstatus, WNOHANG);
    } while (done < 0 && errno == EINTR);
    if (done != 0) {
      break;
    }
    int sig = intr ? *intr->signal : 0;
    if (deadline && !sig && !*intr->timed_out && g_get_monotonic_time() >= deadline) {
      /* The plugin writes the reports and names each thread's last block
       * (plugin.c, control_thread); then the guest is ended as by a
       * harness's kill, which no guest can catch or ignore. */
      *intr->timed_out = true;
      if (intr->control_fd < 0 || write(intr->control_fd, "t", 1) != 1) {
        waited_ms = INTERRUPT_GRACE_MS;
      }
    }
    if (!sig && intr && *intr->timed_out) {
      sig = SIGKILL;
    }
    if (sig && !ended) {
      if (access(intr->summary, F_OK) == 0 || waited_ms >= INTERRUPT_GRACE_MS) {
        kill(pid, sig);
        ended = true;
      }
      waited_ms += INTERRUPT_POLL_MS;
    }
    struct pollfd fds[2] = {{.fd = fd, .events = POLLIN}, {.fd = pidfd, .events = POLLIN}};
    int timeout = sig && !ended ? INTERRUPT_POLL_MS : pidfd >= 0 ? -1 : 50;
    if (deadline && !ended && !sig) {
      gint64 left_ms = (deadline - g_get_monotonic_time()) / 1000 + 1;
      if (timeout < 0 || left_ms < timeout) {
        timeout = left_ms > 0 ? (int)left_ms : 0;
      }
    }
    int ready = poll(fds, 2, timeout);
    if (ready < 0 && errno != EINTR) {
      /* Only with bad fds; rather than spin, just wait for the child. */
      while (waitpid(pid, &wstatus, 0) < 0 && errno == EINTR) {
      }
      break;
    }
    if (fd >= 0 && ready > 0 && (fds[0].revents & (POLLIN | POLLHUP | POLLERR)) &&
        relay(fd, tail) == RELAY_DONE) {
      close(fd);
      fd = -1;
    }
  }
  /* QEMU's last words are in the pipe before its exit status is ready. */
  while (fd >= 0 && relay(fd, tail) == RELAY_MORE) {
  }
  signal(SIGPIPE, old_pipe);
  if (fd >= 0) {
    close(fd);
  }
  if (pidfd >= 0) {
    close(pidfd);
  }
  return wstatus;
}

/* The signal state of one run (main thread and handler only). */
static volatile sig_atomic_t child_pid;
static volatile sig_atomic_t interrupted; /* the first SIGINT/TERM/HUP */
static volatile sig_atomic_t control_fd = -1;

/*
 * SIGINT, SIGTERM or SIGHUP to the runner: QEMU would die of it at once
 * without its exit callbacks, losing every finding. So the first one asks
 * the plugin, through the control FIFO, to write its reports now; the wait
 * loop ends QEMU with the same signal once the summary is there
 * (runner_wait_qemu). A second one is passed on at once.
 */
static void interrupt_run(int sig)
{
  if (!interrupted) {
    interrupted = sig;
    if (control_fd >= 0 && write(control_fd, "r", 1) == 1) {
      return;
    }
  }
  if (child_pid > 0) {
    kill((pid_t)child_pid, sig);
  }
}

int runner_run_qemu(char *const argv[], char *const env[], const struct runner_seal *seal,
                    const char *control, const char *summary, unsigned timeout_ms, bool *timed_out,
                    int *stopped_by, GString *tail)
{
  /* Held open for writing, so that the plugin's open does not wait and a
   * signal handler can write without blocking; not inherited by QEMU. */
  if (mkfifo(control, 0600) == 0) {
    control_fd = open(control, O_RDWR | O_NONBLOCK | O_CLOEXEC);
  }
  /* ^C from a terminal reaches QEMU too, through the process group: QEMU
   * then dies at once, and the run ends as interrupted (runner_outcome). */
  struct sigaction ign = {.sa_handler = SIG_IGN}, stop = {.sa_handler = interrupt_run};
  struct sigaction old_int, old_quit, old_term, old_hup;
  sigaction(SIGINT, &stop, &old_int);
  sigaction(SIGQUIT, &ign, &old_quit);
  sigaction(SIGTERM, &stop, &old_term);
  sigaction(SIGHUP, &stop, &old_hup);

  int stderr_fd = -1;
  int wstatus = -1;
  pid_t pid = runner_spawn_qemu(argv, env, seal, &stderr_fd);
  if (pid < 0) {
    runner_fail(RUNNER_EXIT_QEMU, "cannot run %s: %s", argv[0], g_strerror(errno));
  } else {
    child_pid = pid;
    const struct runner_interrupt intr = {&interrupted, summary, timeout_ms, (int)control_fd,
                                          timed_out};
    wstatus = runner_wait_qemu(pid, stderr_fd, tail, &intr);
    child_pid = 0;
  }
  sigaction(SIGINT, &old_int, NULL);
  sigaction(SIGQUIT, &old_quit, NULL);
  sigaction(SIGTERM, &old_term, NULL);
  sigaction(SIGHUP, &old_hup, NULL);
  if (control_fd >= 0) {
    close(control_fd);
    control_fd = -1;
  }
  *stopped_by = interrupted;
  return wstatus;
}
