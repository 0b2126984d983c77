/*
 * The x86_64 program QEMU's TCG runs in the realjit workload qemu_tcg
 * (docs/RUNNING-YOUR-JIT.md): a loop whose blocks TCG translates into
 * aarch64 code and flushes, one translation block at a time, with the line
 * sizes its constructor latched (util/cacheflush.c). Built static with the
 * host's gcc, so the guest QEMU needs no x86_64 libraries. Its output is
 * known: the rig must not change what TCG's code computes.
 */
#include <stdio.h>

static unsigned step(unsigned x, int i)
{
  switch (i & 7) {
  case 0:
    return x * 3 + 1;
  case 1:
    return x ^ (x >> 3);
  case 2:
    return x + 0x9e3779b9u;
  case 3:
    return (x << 5) | (x >> 27);
  case 4:
    return x * 2654435761u;
  case 5:
    return x - (unsigned)i;
  case 6:
    return ~x;
  default:
    return x / 3 + (unsigned)i;
  }
}

int main(void)
{
  unsigned x = 1;
  for (int i = 0; i < 200000; i++)
    x = step(x, i);
  printf("tcg_guest: %08x\n", x);
  return 0;
}
