/* The production file seam: plain syscalls, so sysfs reads stay
 * async-signal-safe (POSIX.1-2017 2.4.3 lists open, read and close). */
#define _GNU_SOURCE 1 /* O_CLOEXEC, syscall(), getauxval under -std=c11 */
#if defined(__linux__)
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal/fs.h"

/* Only regular files: every sysfs and procfs file the probe reads is one.
 * A FIFO or a device in a tree given in their place (a dump served with
 * jitflush-emu --sysfs-root, a container's bind mount) would block the
 * read until a writer came, so it is opened without blocking (fstat is
 * async-signal-safe too) and refused like a missing file. */
int jf_fs_open(const char *path)
{
  int fd;
  do
    fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  while (fd < 0 && errno == EINTR);
  struct stat st;
  if (fd >= 0 && (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))) {
    close(fd);
    errno = ENXIO;
    return -1;
  }
  return fd;
}

long jf_fs_read(int fd, void *buf, size_t len)
{
  ssize_t n;
  do
    n = read(fd, buf, len);
  while (n < 0 && errno == EINTR);
  return (long)n;
}

void jf_fs_close(int fd)
{
  close(fd);
}
#endif
