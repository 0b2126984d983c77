/* The production file seam: plain syscalls, so sysfs reads stay
 * async-signal-safe (POSIX.1-2017 2.4.3 lists open, read and close). */
#define _GNU_SOURCE 1 /* O_CLOEXEC, syscall(), getauxval under -std=c11 */
#if defined(__linux__)
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include "fs.h"

/* Without blocking: every sysfs and procfs file the probe reads is a
 * regular file, for which O_NONBLOCK changes nothing, but a FIFO in a tree
 * given in their place (a dump served with jitflush-emu --sysfs-root, a
 * container's bind mount) would block the open until a writer came. Opened
 * so, a FIFO without a writer reads as empty at once, which the parsers
 * refuse like a missing file. (No fstat to refuse it earlier: the probe's
 * per-flush online check reads sysfs, and a system call more per flush is
 * measured in docs/BENCHMARKS.md.) */
int jf_fs_open(const char *path)
{
  int fd;
  do {
    fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  } while (fd < 0 && errno == EINTR);
  return fd;
}

long jf_fs_read(int fd, void *buf, size_t len)
{
  ssize_t n;
  do {
    n = read(fd, buf, len);
  } while (n < 0 && errno == EINTR);
  return (long)n;
}

void jf_fs_close(int fd)
{
  close(fd);
}
#endif
