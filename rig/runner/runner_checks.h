/* What a run checks before QEMU starts (runner_checks.c). */
#ifndef JITFLUSH_EMU_RUNNER_CHECKS_H
#define JITFLUSH_EMU_RUNNER_CHECKS_H

#include "runner_args.h"

/* Whether qemu-aarch64 can run O's program with the loader in SYSROOT
 * (NULL: none given): 0, or the exit status after printing why. */
int runner_check_program(const struct runner_options *o, const char *sysroot);
/* NULL when the plugin will be able to write the output file PATH, else
 * why not (static text, or strerror's). */
const char *runner_check_output(const char *path);
/* The qemu-aarch64 the run uses (--qemu, JITFLUSH_QEMU, the installed
 * rig's or the build's: runner_locate.h; made
 * absolute, freed with g_free), or NULL with *STATUS set after printing
 * why: missing, not executable, or without plugin support. */
char *runner_check_find_qemu(const struct runner_options *o, int *status);
/* The plugin the run loads (JITFLUSH_PLUGIN, the installed rig's or the
 * build's), or NULL with
 * *STATUS set after printing why. */
char *runner_check_find_plugin(int *status);

#endif /* JITFLUSH_EMU_RUNNER_CHECKS_H */
