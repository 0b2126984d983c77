/*
 * jitflush-emu (the runner):
 *
 *   runner.c          main: the checks, the run and its outcome, exit status
 *   runner_args.c     command line: options, help text, environment defaults
 *   runner_fail.c     the one-line failure messages
 *   runner_scratch.c  scratch folder, sysfs overlay, sysroot
 *   runner_reproduce.c  what a run records to be run again: the command
 *                     line, the rerun line, the environment beside the report
 *   runner_rerun.c    --reproduce REPORT: the recorded run again, checked
 *   runner_program.c  whether qemu-aarch64 can run the program at all
 *   runner_exec.c     starting QEMU: the child's namespace and limits, and
 *                     the copy of its stderr kept for status 7
 *
 * This header holds the runner's exit statuses (runner_exit_statuses.def);
 * each file's functions are declared in its own header.
 */
#ifndef JITFLUSH_EMU_RUNNER_H
#define JITFLUSH_EMU_RUNNER_H

/* The runner's exit statuses, EMU_EXIT_USAGE (2) and the rest, one row each
 * in runner_exit_statuses.def (their meanings: docs/RIG.md, --help). */
enum {
#define EMU_EXIT(name, status, help) EMU_EXIT_##name = status,
#define EMU_EXIT_OTHER(label, doc_label, help)
#include "runner_exit_statuses.def"
#undef EMU_EXIT
#undef EMU_EXIT_OTHER
};

#endif /* JITFLUSH_EMU_RUNNER_H */
