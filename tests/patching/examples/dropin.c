/*
 * docs/VENDORING.md example: unchanged code that flushes with the compiler builtin.
 * GCC and Clang turn __builtin___clear_cache into a call of __clear_cache;
 * linked with jitflush's drop-in ahead of libgcc (or compiler-rt's
 * builtins), that call is jitflush_clear_cache. AArch64 Linux.
 */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS under -std=c11 */
#include <stddef.h>
#include <stdint.h>
#include <sys/mman.h>

int main(void)
{
  uint32_t *buf =
      mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (buf == MAP_FAILED)
    return 1;
  buf[0] = 0xd2800540; /* mov x0, #42 */
  buf[1] = 0xd65f03c0; /* ret */
  __builtin___clear_cache((char *)buf, (char *)(buf + 2));
  int (*fn)(void) = (int (*)(void))(uintptr_t)buf;
  return fn() == 42 ? 0 : 1;
}
