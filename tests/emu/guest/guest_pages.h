/*
 * The pages the rig's guest programs put code in: a private RWX page, as
 * most JITs map theirs, and one memfd page mapped twice, writable and
 * executable, as JITs that keep W^X do (the double mapping of the
 * coherence model's views).
 */
#ifndef JITFLUSH_TESTS_EMU_GUEST_PAGES_H
#define JITFLUSH_TESTS_EMU_GUEST_PAGES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

/* A fresh private anonymous RWX page, or NULL. */
static inline uint32_t *guest_rwx_page(void)
{
  void *page =
      mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  return page == MAP_FAILED ? NULL : page;
}

/* One page of a new memfd called NAME, mapped shared twice: writable at
 * *RW and executable at *RX. False when a step failed. */
static inline bool guest_memfd_views(const char *name, uint32_t **rw, void **rx)
{
  int fd = memfd_create(name, 0);
  if (fd < 0 || ftruncate(fd, 4096) != 0)
    return false;
  void *w = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  void *x = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_SHARED, fd, 0);
  if (w == MAP_FAILED || x == MAP_FAILED)
    return false;
  *rw = w;
  *rx = x;
  return true;
}

#endif
