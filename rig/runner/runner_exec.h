/* Starting QEMU and copying its stderr (runner_exec.c). */
#ifndef JITFLUSH_EMU_RUNNER_EXEC_H
#define JITFLUSH_EMU_RUNNER_EXEC_H

#include <signal.h>
#include <stdbool.h>
#include <sys/types.h>

#include <glib.h>

/* What the child hides the host's /sys/devices/system/cpu behind. */
struct runner_seal {
  const char *source; /* the folder bound over it */
  /*
   * SOURCE is a tree other runs share (rig_sysfs_cache.h): the child first
   * binds it read-only over itself, so that no guest write reaches it.
   * Where it cannot (no mount namespace), it calls private_copy(ctx),
   * which writes the run's own tree and returns its folder, and uses that.
   */
  bool shared;
  const char *(*private_copy)(void *ctx);
  void *ctx;
};

/*
 * Starts ARGV (argv[0] is the QEMU path) in a child process, with the
 * environment ENV (NULL: the runner's own), which QEMU hands on to the
 * guest. SEAL, when
 * not NULL, says what the child binds over the host's
 * /sys/devices/system/cpu in a private mount namespace before exec (see
 * runner_exec.c for why). The child's stderr is a pipe whose read end is
 * returned in *stderr_fd: pass it to runner_wait_qemu. Returns the child's
 * pid, or -1 with errno set.
 */
pid_t runner_spawn_qemu(char *const argv[], char *const env[], const struct runner_seal *seal,
                        int *stderr_fd);

/* An interruption of the run: *SIGNAL becomes the signal the runner caught;
 * the plugin was asked to write SUMMARY and its other reports. TIMEOUT_MS,
 * when not 0, is the --timeout: at its expiry the wait loop sets
 * *TIMED_OUT, asks the plugin for its reports through CONTROL_FD, and ends
 * the run with SIGKILL once they are written. */
struct runner_interrupt {
  const volatile sig_atomic_t *signal;
  const char *summary;
  unsigned timeout_ms;
  int control_fd;
  bool *timed_out;
};

/*
 * Copies everything the child writes to STDERR_FD to the runner's own
 * stderr as it comes, keeping the last few KiB in TAIL, until the child
 * PID exits; then closes STDERR_FD and returns its wait status. Once
 * *INTR->signal is set (or the timeout expired), the child is sent that
 * signal (SIGKILL) as soon as INTR->summary exists, or after
 * INTERRUPT_GRACE_MS if the plugin never writes it.
 */
int runner_wait_qemu(pid_t pid, int stderr_fd, GString *tail, const struct runner_interrupt *intr);

/*
 * One run of QEMU: ARGV started with the overlay SEAL in place and the
 * environment ENV, waited for (runner_wait_qemu, the stderr's tail in TAIL).
 * While it runs, SIGINT, SIGTERM and SIGHUP to the runner ask the plugin,
 * through the FIFO CONTROL it reads (control=), to write SUMMARY and its
 * other reports, and a second one is passed on to QEMU; TIMEOUT_MS, when
 * not 0, is the --timeout (*TIMED_OUT once it expired). Returns QEMU's wait
 * status and *STOPPED_BY, the signal that interrupted the runner (0:
 * none), or -1 after printing the problem when QEMU could not start.
 */
int runner_run_qemu(char *const argv[], char *const env[], const struct runner_seal *seal,
                    const char *control, const char *summary, unsigned timeout_ms, bool *timed_out,
                    int *stopped_by, GString *tail);

#endif /* JITFLUSH_EMU_RUNNER_EXEC_H */
