/* The production file seam: plain syscalls, so sysfs reads stay
 * async-signal-safe (POSIX.1-2017 2.4.3 lists open, read and close). */
#define _GNU_SOURCE 1 /* O_CLOEXEC, syscall(), getauxval under -std=c11 */
#if defined(__linux__)
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include "internal/fs.h"

int jf_fs_open(const char *path)
{
  int fd;
  do
    fd = open(path, O_RDONLY | O_CLOEXEC);
  while (fd < 0 && errno == EINTR);
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
