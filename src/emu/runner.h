/*
 * Private interfaces between the files of jitflush-emu (the runner).
 *
 *   runner.c          command line, checks, overlay, exit status
 *   runner_program.c  whether qemu-aarch64 can run the program at all
 *   runner_exec.c     starting QEMU: the child's namespace and limits, and
 *                     the copy of its stderr kept for status 7
 *   runner_summary.c  the one-line summary the plugin writes at exit
 */
#ifndef JITFLUSH_EMU_RUNNER_H
#define JITFLUSH_EMU_RUNNER_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include <glib.h>

/* Exit statuses of the runner's own failures (docs/RIG.md; --help).
 * A program's own status can coincide with these; the last stderr line then
 * tells them apart (only a completed run prints the summary). */
enum {
  EMU_EXIT_USAGE = 2,       /* bad command line or config */
  EMU_EXIT_QEMU = 3,        /* QEMU not found, not executable, no -plugin */
  EMU_EXIT_REPORT = 4,      /* --report path cannot be written */
  EMU_EXIT_INTERNAL = 5,    /* plugin missing, or it wrote no summary */
  EMU_EXIT_PROGRAM = 6,     /* the program cannot run on the rig (not an
                               AArch64 ELF, not executable, its loader is
                               not in the sysroot), found before QEMU starts */
  EMU_EXIT_NOT_STARTED = 7, /* QEMU ended before the guest's first
                               instruction (the plugin counted none) */
  EMU_EXIT_STALE = 86,      /* the plugin saw at least one stale fetch */
};

/* What the plugin writes to summary=PATH when the guest exits. */
struct emu_summary {
  uint64_t stale_fetches;
  uint64_t fetch_checks;
  uint64_t migrations;
  uint64_t ctr_reads;
  uint64_t dc_ops;
  uint64_t ic_ops;
  uint64_t isb;
  uint64_t insns;    /* guest instructions executed; 0: the guest never ran */
  uint64_t findings; /* stale fetches grouped by root cause */
};

/* Parses "stale_fetches=N fetch_checks=N ..." (order free, unknown keys
 * ignored). The six counters of the stderr line and insns are required:
 * without insns an all-zero summary from a QEMU that never started the
 * guest would pass for a clean run. isb is optional.
 * Returns false with *problem set to a static description on bad text. */
bool emu_summary_parse(const char *text, struct emu_summary *out, const char **problem);

/* Why qemu-aarch64 cannot run the program at PATH (a newly allocated
 * phrase, e.g. "an ELF program for x86-64, not AArch64"), or NULL when it
 * can. Then *interp is its PT_INTERP loader (newly allocated), or NULL for
 * a static program. */
char *emu_program_problem(const char *path, char **interp);

/*
 * Starts ARGV (argv[0] is the QEMU path) in a child process. SEAL_SOURCE,
 * when not NULL, is a folder that the child binds over the host's
 * /sys/devices/system/cpu in a private mount namespace before exec (see
 * runner_exec.c for why). The child's stderr is a pipe whose read end is
 * returned in *stderr_fd: pass it to emu_wait_qemu. Returns the child's
 * pid, or -1 with errno set.
 */
pid_t emu_spawn_qemu(char *const argv[], const char *seal_source, int *stderr_fd);

/*
 * Copies everything the child writes to STDERR_FD to the runner's own
 * stderr as it comes, keeping the last few KiB in TAIL, until the child
 * PID exits; then closes STDERR_FD and returns its wait status.
 */
int emu_wait_qemu(pid_t pid, int stderr_fd, GString *tail);

#endif /* JITFLUSH_EMU_RUNNER_H */
