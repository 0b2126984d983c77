/* Starting QEMU and copying its stderr (runner_exec.c). */
#ifndef JITFLUSH_EMU_RUNNER_EXEC_H
#define JITFLUSH_EMU_RUNNER_EXEC_H

#include <signal.h>
#include <sys/types.h>

#include <glib.h>

/*
 * Starts ARGV (argv[0] is the QEMU path) in a child process. SEAL_SOURCE,
 * when not NULL, is a folder that the child binds over the host's
 * /sys/devices/system/cpu in a private mount namespace before exec (see
 * runner_exec.c for why). The child's stderr is a pipe whose read end is
 * returned in *stderr_fd: pass it to emu_wait_qemu. Returns the child's
 * pid, or -1 with errno set.
 */
pid_t emu_spawn_qemu(char *const argv[], const char *seal_source, int *stderr_fd);

/* An interruption of the run: *SIGNAL becomes the signal the runner caught;
 * the plugin was asked to write SUMMARY and its other reports. */
struct emu_interrupt {
  const volatile sig_atomic_t *signal;
  const char *summary;
};

/*
 * Copies everything the child writes to STDERR_FD to the runner's own
 * stderr as it comes, keeping the last few KiB in TAIL, until the child
 * PID exits; then closes STDERR_FD and returns its wait status. Once
 * *INTR->signal is set, the child is sent that signal as soon as
 * INTR->summary exists, or after INTERRUPT_GRACE_MS if the plugin never
 * writes it.
 */
int emu_wait_qemu(pid_t pid, int stderr_fd, GString *tail, const struct emu_interrupt *intr);

#endif /* JITFLUSH_EMU_RUNNER_EXEC_H */
