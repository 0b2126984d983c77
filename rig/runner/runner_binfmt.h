/* The rig as the kernel's handler of every AArch64 program
 * (runner_binfmt.c). */
#ifndef JITFLUSH_EMU_RUNNER_BINFMT_H
#define JITFLUSH_EMU_RUNNER_BINFMT_H

#include <stdbool.h>

#include <glib.h>

/* The name the runner is registered under, in binfmt_misc's folder. */
#define RUNNER_BINFMT_NAME "jitflush-emu"
/* The runner's argv[0] base name that means "started by binfmt_misc":
 * argv[1] is the program, the rest its arguments, every option from the
 * environment. The build links it to jitflush-emu. */
#define RUNNER_BINFMT_ARGV0 "jitflush-emu-binfmt"

/* Registers INTERPRETER (an absolute path) as the handler of every
 * AArch64 ELF executable in the binfmt_misc of this user namespace,
 * mounting binfmt_misc first when it is not; false with *ERROR saying why
 * (not root, an entry of that name already there, ...). */
bool runner_binfmt_register(const char *interpreter, GError **error);

/* Removes the registration; false with *ERROR when there is none. */
bool runner_binfmt_unregister(GError **error);

/* Runs COMMAND (looked up in PATH) in a new user and mount namespace of
 * its own, in which INTERPRETER is registered: every AArch64 program that
 * COMMAND and its children start runs through it, and the registration
 * ends with the namespace, so nothing is left behind. Returns COMMAND's
 * exit status (128+N for signal N), or -1 with *ERROR saying why the
 * namespace could not be set up. */
int runner_binfmt_run(const char *interpreter, char *const command[], GError **error);

/* jitflush-emu --binfmt-register, --binfmt-unregister or --binfmt-run --
 * COMMAND... (ARGV[1]), with INTERP the jitflush-emu-binfmt link: 0, or the
 * exit status after printing why (--binfmt-run: COMMAND's). */
int runner_binfmt_command(int argc, char **argv, const char *interp);
/* The command line of a runner started as jitflush-emu-binfmt PROGRAM
 * ARGS...: "--summary=stale" unless JITFLUSH_EMU_SUMMARY is set, "--", the
 * program and its arguments (*ARGC updated; free the array with g_free). */
char **runner_binfmt_argv(int *argc, char **argv);

#endif /* JITFLUSH_EMU_RUNNER_BINFMT_H */
