/*
 * Private interfaces between the files of jitflush-emu (the runner).
 *
 *   runner.c          command line, checks, overlay, exit status
 *   runner_exec.c     starting QEMU: the child's namespace and limits
 *   runner_summary.c  the one-line summary the plugin writes at exit
 */
#ifndef JITFLUSH_EMU_RUNNER_H
#define JITFLUSH_EMU_RUNNER_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/* Exit statuses of the runner's own failures (DESIGN.md section 4; --help).
 * A program's own status can coincide with these; the last stderr line then
 * tells them apart (only a completed run prints the summary). */
enum {
  EMU_EXIT_USAGE = 2,       /* bad command line or config */
  EMU_EXIT_QEMU = 3,        /* QEMU not found, not executable, no -plugin */
  EMU_EXIT_REPORT = 4,      /* --report path cannot be written */
  EMU_EXIT_INTERNAL = 5,    /* plugin missing, or it wrote no summary */
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
  uint64_t findings; /* stale fetches grouped by root cause */
};

/* Parses "stale_fetches=N fetch_checks=N ..." (order free, unknown keys
 * ignored; the six counters of the stderr line are required, isb is not).
 * Returns false with *problem set to a static description on bad text. */
bool emu_summary_parse(const char *text, struct emu_summary *out, const char **problem);

/*
 * Starts ARGV (argv[0] is the QEMU path) in a child process. SEAL_SOURCE,
 * when not NULL, is a folder that the child binds over the host's
 * /sys/devices/system/cpu in a private mount namespace before exec (see
 * runner_exec.c for why). Returns the child's pid, or -1 with errno set.
 */
pid_t emu_spawn_qemu(char *const argv[], const char *seal_source);

#endif /* JITFLUSH_EMU_RUNNER_H */
