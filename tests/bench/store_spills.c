/*
 * store_spills: the rig's cost per guest store, where no fetch is ever
 * checked. An interpreter-shaped loop: each step spills eight values into
 * a frame on the stack through a register offset (one store callback
 * each: a register offset cannot be grouped, model_store_groups.c), reads
 * two back, and updates two words of a heap table. Every store lands on a
 * page no code comes from, and between two migrations of the rig's
 * default config (every 300 instructions on average) the same words are
 * stored again and again (docs/BENCHMARKS.md, "Serial stores").
 *
 *   store_spills [--steps=N]
 *
 * Prints the sum of the steps and a word of the table, which depend on
 * every store. Exit status: 0, 2 usage error, 3 the environment refused
 * (calloc).
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TABLE_WORDS 1024
#define FRAME_WORDS 8

/* One step: noinline, so that it keeps a frame of its own on the stack. */
__attribute__((noinline)) static uint64_t step(uint64_t *table, uint64_t i)
{
  volatile uint64_t frame[FRAME_WORDS];
  for (int k = 0; k < FRAME_WORDS; k++) {
    frame[k] = i + (uint64_t)k;
  }
  table[i % TABLE_WORDS] = frame[3] ^ frame[5];
  table[(i * 7) % TABLE_WORDS] += frame[1];
  return frame[7];
}

int main(int argc, char **argv)
{
  uint64_t steps = 5000000;
  for (int a = 1; a < argc; a++) {
    char *end = NULL;
    if (strncmp(argv[a], "--steps=", 8) == 0 &&
        (steps = strtoull(argv[a] + 8, &end, 0), end && *end == '\0' && end != argv[a] + 8)) {
      continue;
    }
    fprintf(stderr, "usage: store_spills [--steps=N]\n");
    return 2;
  }
  uint64_t *table = calloc(TABLE_WORDS, sizeof(*table));
  if (!table) {
    perror("store_spills: calloc");
    return 3;
  }
  uint64_t sum = 0;
  for (uint64_t i = 0; i < steps; i++) {
    sum += step(table, i);
  }
  printf("store_spills: steps=%" PRIu64 " sum=%" PRIu64 " table5=%" PRIu64 "\n", steps, sum,
         table[5]);
  free(table);
  return 0;
}
