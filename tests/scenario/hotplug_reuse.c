/*
 * hotplug_reuse: code flushed before a CPU came online, run on that CPU.
 * The guest side of scenario.Hotplug.CodeFlushedBeforeTheCpusCameOnline...
 * (tests/scenario/hotplug_test.cc).
 *
 *   hotplug_reuse --cpu=N [--late]
 *
 * It writes 64 small functions, one in the second 32-byte half of each
 * 64-byte line of a page, flushes the page once with jitflush_clear_cache
 * while CPU N is offline (so with whatever lines jitflush inferred for it),
 * then reads /sys/devices/system/cpu/online until CPU N is listed (the
 * rig's [hotplug] event), pins itself to N and runs every function there,
 * with no flush in between. jitflush's promise (docs/BACKGROUND.md "Offline CPUs") is
 * that this is safe whatever N's lines are: the kernel invalidated N's
 * I-cache when it booted it. On dynamiq-hidden-32.conf CPU 4 has 32-byte
 * lines and jitflush inferred 64, so only the boot-time invalidation (the
 * rig's model of it, model_coherence.c model_cluster_online) keeps the
 * second halves from being stale.
 *
 * --late is the control: it waits for CPU N first, then writes the functions
 * and flushes them with a fixed 64-byte stride (what an inference that is
 * wrong for N would use, had the flush come after N was online): the
 * second halves must be caught as stale on a 32-byte CPU.
 *
 * Exit status: 0 every function returned its value, 1 one did not, 2 usage,
 * 3 the environment refused (mmap, pinning, CPU N never came online).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdlib.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "code_gen.h"
#include "cpu_pin.h"
#include "guest_args.h"
#include "jitflush.h"

enum { NFUNCS = 64, PAGE = 4096, MAX_POLLS = 100000 };

/* dc cvau / dsb ish / ic ivau / dsb ish / isb with a fixed 64-byte stride. */
static void flush_fixed_64(char *begin, char *end)
{
  for (char *p = begin; p < end; p += 64)
    __asm__ volatile("dc cvau, %0" : : "r"(p) : "memory");
  __asm__ volatile("dsb ish" : : : "memory");
  for (char *p = begin; p < end; p += 64)
    __asm__ volatile("ic ivau, %0" : : "r"(p) : "memory");
  __asm__ volatile("dsb ish\n\tisb" : : : "memory");
}

static bool cpu_online(unsigned cpu)
{
  char buf[256];
  int fd = open("/sys/devices/system/cpu/online", O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return false;
  ssize_t n = read(fd, buf, sizeof buf - 1);
  close(fd);
  if (n <= 0)
    return false;
  buf[n] = '\0';
  /* A cpulist: ranges "a-b" and singles, comma-separated. */
  for (char *p = buf; *p;) {
    unsigned long first = strtoul(p, &p, 10), last = first;
    if (*p == '-')
      last = strtoul(p + 1, &p, 10);
    if (cpu >= first && cpu <= last)
      return true;
    if (*p != ',')
      break;
    p++;
  }
  return false;
}

int main(int argc, char **argv)
{
  uint64_t cpu = 0;
  bool late = argc == 3 && strcmp(argv[2], "--late") == 0;
  if ((argc != 2 && !late) || strncmp(argv[1], "--cpu=", 6) != 0 ||
      !sc_parse_number("hotplug_reuse", "--cpu", argv[1] + 6, 0, 1023, &cpu)) {
    fprintf(stderr, "usage: hotplug_reuse --cpu=N [--late]\n");
    return 2;
  }
  uint32_t *code = sc_map_code("hotplug_reuse", PAGE);
  if (!code)
    return 3;
  if (cpu_online((unsigned)cpu)) {
    fprintf(stderr, "hotplug_reuse: CPU %u is online already\n", (unsigned)cpu);
    return 3;
  }
  unsigned polls = 0;
  for (int step = 0; step < 2; step++) {
    if (step == (late ? 1 : 0)) {
      for (unsigned i = 0; i < NFUNCS; i++) {
        uint32_t *f = code + i * 16 + 8;     /* byte offset 64 * i + 32 */
        f[0] = 0xd2800000u | ((i + 1) << 5); /* movz x0, #(i + 1) */
        f[1] = 0xd65f03c0u;                  /* ret */
      }
      if (late)
        flush_fixed_64((char *)code, (char *)code + PAGE);
      else
        jitflush_clear_cache(code, code + PAGE / 4);
    } else {
      while (!cpu_online((unsigned)cpu))
        if (++polls == MAX_POLLS) {
          fprintf(stderr, "hotplug_reuse: CPU %u never came online\n", (unsigned)cpu);
          return 3;
        }
    }
  }
  if (!sc_pin_to_cpu((int)cpu, NULL)) {
    perror("hotplug_reuse: sched_setaffinity");
    return 3;
  }
  unsigned wrong = 0;
  for (unsigned i = 0; i < NFUNCS; i++) {
    uint64_t (*f)(void) = (uint64_t(*)(void))(uintptr_t)(code + i * 16 + 8);
    if (f() != i + 1)
      wrong++;
  }
  printf("hotplug_reuse: cpu=%u polls=%u functions=%d wrong=%u\n", (unsigned)cpu, polls, NFUNCS,
         wrong);
  return wrong ? 1 : 0;
}
