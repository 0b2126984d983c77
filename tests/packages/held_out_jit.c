/* A program the repository's build never sees, for the test that installs
 * jitflush-rig into a fresh Debian root (check_packages.sh fresh): a tiny
 * JIT that writes functions returning 0..N into one buffer, flushes each
 * with the toolchain's __builtin___clear_cache (libgcc's, which latches
 * CTR_EL0) and calls it. Built static, so the root needs no arm64 libc. */
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>

int main(void)
{
  enum { SLOTS = 64, STRIDE = 32 };
  uint32_t *buf =
      mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (buf == MAP_FAILED) {
    perror("mmap");
    return 1;
  }
  long sum = 0;
  for (int round = 0; round < 4; round++) {
    for (int i = 0; i < SLOTS; i++) {
      uint32_t *f = buf + i * (STRIDE / 4);
      f[0] = 0x52800000u | ((uint32_t)(i + round) << 5); /* mov w0, #(i+round) */
      f[1] = 0xd65f03c0u;                                /* ret */
      __builtin___clear_cache((char *)f, (char *)(f + 2));
      sum += ((int (*)(void))f)();
    }
  }
  printf("jit: sum %ld\n", sum);
  return 0;
}
