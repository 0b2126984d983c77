/*
 * jitflush-emu (the runner): which file owns what is in
 * docs/ARCHITECTURE.md#two-programs. This header holds the runner's exit
 * statuses; each file's functions are declared in its own header.
 */
#ifndef JITFLUSH_EMU_RUNNER_H
#define JITFLUSH_EMU_RUNNER_H

/* Exit statuses of the runner's own failures (docs/RIG.md; --help).
 * A program's own status can coincide with these; the last stderr line then
 * tells them apart (only a completed run prints the summary). */
enum {
  EMU_EXIT_USAGE = 2,       /* bad command line or config */
  EMU_EXIT_QEMU = 3,        /* QEMU not found, not executable, no -plugin */
  EMU_EXIT_REPORT = 4,      /* --report or --sarif path cannot be written */
  EMU_EXIT_INTERNAL = 5,    /* plugin missing, or it wrote no summary */
  EMU_EXIT_PROGRAM = 6,     /* the program cannot run on the rig (not an
                               AArch64 ELF, not executable, its loader is
                               not in the sysroot), found before QEMU starts */
  EMU_EXIT_NOT_STARTED = 7, /* QEMU ended before the guest's first
                               instruction (the plugin counted none) */
  EMU_EXIT_BINFMT = 9,      /* --binfmt-*: binfmt_misc could not be set up
                               (not root, no user namespaces, taken) */
  EMU_EXIT_EXEC = 8,        /* the program executed an AArch64 program,
                               which runs outside the rig or not at all */
  EMU_EXIT_QEMU_API = 10,   /* QEMU's plugin API does not do what the rig
                               relies on: the plugin refused to run */
  EMU_EXIT_RERUN = 11,      /* --reproduce: the rerun did not end with the
                               recorded run's findings (runner_rerun.c) */
  EMU_EXIT_STALE = 86,      /* the plugin saw at least one stale fetch */
  EMU_EXIT_TIMEOUT = 124,   /* --timeout expired: the runner stopped the
                               program (timeout(1)'s status) */
};

#endif /* JITFLUSH_EMU_RUNNER_H */
