/*
 * File access seam: the three calls every sysfs read goes through.
 * Production links lib/fs_posix.c; tests link a fake filesystem instead
 * (google/cpu_features' approach), so the code has no testing branches.
 * All three must be async-signal-safe in production (they are syscalls).
 */
#ifndef JITFLUSH_INTERNAL_FS_H
#define JITFLUSH_INTERNAL_FS_H

#include <stddef.h>

/* Returns a descriptor >= 0, or -1 when the file cannot be opened. */
int jf_fs_open(const char *path);
/* Returns bytes read (0 at end), or -1 on error. */
long jf_fs_read(int fd, void *buf, size_t len);
void jf_fs_close(int fd);

#endif
