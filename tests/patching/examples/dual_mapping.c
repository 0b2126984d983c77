/*
 * docs/LIBRARY.md example: W^X code through two views of one memfd. Write through
 * the RW view, flush with jitflush_clear_cache_dual (clean through RW,
 * invalidate through RX: a VIPT I-cache is indexed by the address that
 * fetches), run through the RX view. AArch64 Linux.
 */
#define _GNU_SOURCE /* memfd_create */
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "jitflush.h"

int main(void)
{
  const size_t size = 4096;
  int fd = memfd_create("jit-code", MFD_CLOEXEC);
  if (fd < 0 || ftruncate(fd, (off_t)size) != 0)
    return 1;
  uint8_t *rw = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  uint8_t *rx = mmap(NULL, size, PROT_READ | PROT_EXEC, MAP_SHARED, fd, 0);
  close(fd); /* the mappings keep the memory alive */
  if (rw == MAP_FAILED || rx == MAP_FAILED)
    return 1;

  static const uint32_t code[] = {
      0xd2800540, /* mov x0, #42 */
      0xd65f03c0, /* ret */
  };
  memcpy(rw, code, sizeof code);
  jitflush_clear_cache_dual(rw, rx, sizeof code);

  int (*fn)(void) = (int (*)(void))(uintptr_t)rx;
  return fn() == 42 ? 0 : 1;
}
