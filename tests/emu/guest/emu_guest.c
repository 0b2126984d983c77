/*
 * An aarch64 guest for the runner's end-to-end tests. Linked dynamically on
 * purpose: it also checks that the overlay shows the sysroot's loader.
 *
 *   emu_guest cat PATH...   prints "PATH: CONTENT" or "PATH: missing";
 *                           for a folder, "PATH/: ENTRY ENTRY ..." (sorted)
 *   emu_guest exit N        exits with status N
 *   emu_guest segv          dies of SIGSEGV
 *   emu_guest jit           writes code and runs it without any flush
 *   emu_guest jit-flush     the same with __builtin___clear_cache
 */
#include <dirent.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "a64_encode.h"

static int by_name(const struct dirent **a, const struct dirent **b)
{
  return strcmp((*a)->d_name, (*b)->d_name);
}

static void cat(const char *path)
{
  struct dirent **entries = NULL;
  int n = scandir(path, &entries, NULL, by_name);
  if (n >= 0) {
    printf("%s/:", path);
    for (int i = 0; i < n; i++) {
      if (entries[i]->d_name[0] != '.')
        printf(" %s", entries[i]->d_name);
      free(entries[i]);
    }
    free(entries);
    printf("\n");
    return;
  }
  FILE *f = fopen(path, "r");
  if (!f) {
    printf("%s: missing\n", path);
    return;
  }
  char buf[512];
  size_t len = fread(buf, 1, sizeof buf - 1, f);
  buf[len] = '\0';
  fclose(f);
  printf("%s: %s", path, buf);
}

static int jit(int flush)
{
  uint32_t *code =
      mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (code == MAP_FAILED)
    return 100;
  code[0] = a64_movz_x0(42);
  code[1] = A64_RET;
  if (flush)
    __builtin___clear_cache((char *)code, (char *)(code + 2));
  int (*fn)(void) = (int (*)(void))(uintptr_t)code;
  return fn();
}

int main(int argc, char **argv)
{
  if (argc >= 2 && strcmp(argv[1], "cat") == 0) {
    for (int i = 2; i < argc; i++)
      cat(argv[i]);
    return 0;
  }
  if (argc == 3 && strcmp(argv[1], "exit") == 0)
    return atoi(argv[2]);
  if (argc == 2 && strcmp(argv[1], "segv") == 0)
    raise(SIGSEGV);
  if (argc == 2 && strcmp(argv[1], "jit") == 0)
    return jit(0);
  if (argc == 2 && strcmp(argv[1], "jit-flush") == 0)
    return jit(1);
  fprintf(stderr, "usage: emu_guest cat PATH... | exit N | segv | jit | jit-flush\n");
  return 64;
}
