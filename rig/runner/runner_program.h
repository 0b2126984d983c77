/* Whether qemu-aarch64 can run a program at all (runner_program.c). */
#ifndef JITFLUSH_EMU_RUNNER_PROGRAM_H
#define JITFLUSH_EMU_RUNNER_PROGRAM_H

#include <stdbool.h>
#include <sys/types.h>

#include <glib.h>

/* Whether qemu-aarch64 can run the program at PATH. True with *INTERP its
 * PT_INTERP loader (newly allocated), or NULL for a static program; false
 * with *ERROR saying why in a phrase, e.g. "an ELF program for x86-64, not
 * AArch64". */
/* Reads exactly LEN bytes of FD at offset AT (retrying on EINTR). */
bool runner_read_at(int fd, void *buf, size_t len, off_t at);

bool runner_program_check(const char *path, char **interp, GError **error);

#endif /* JITFLUSH_EMU_RUNNER_PROGRAM_H */
