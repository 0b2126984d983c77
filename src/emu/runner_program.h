/* Whether qemu-aarch64 can run a program at all (runner_program.c). */
#ifndef JITFLUSH_EMU_RUNNER_PROGRAM_H
#define JITFLUSH_EMU_RUNNER_PROGRAM_H

/* Why qemu-aarch64 cannot run the program at PATH (a newly allocated
 * phrase, e.g. "an ELF program for x86-64, not AArch64"), or NULL when it
 * can. Then *interp is its PT_INTERP loader (newly allocated), or NULL for
 * a static program. */
char *emu_program_problem(const char *path, char **interp);

#endif /* JITFLUSH_EMU_RUNNER_PROGRAM_H */
