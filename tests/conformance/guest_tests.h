/* The tables gen_guest.py writes for guest_main.c: one struct ct_test per
 * described litmus test of one cache configuration. */
#ifndef JITFLUSH_CONFORMANCE_GUEST_TESTS_H
#define JITFLUSH_CONFORMANCE_GUEST_TESTS_H

#include <stdint.h>

#define CT_MAX_THREADS 4
#define CT_MAX_TURNS 16

enum ct_value_kind { V_INT, V_LABEL, V_LOC };

/* An integer or instruction encoding (NUM), the address of a label
 * (THREAD's block, offset INDEX of the test's offset table) or of a memory
 * location (INDEX). */
struct ct_value {
  int kind;
  int64_t num;
  int thread;
  int index;
};

/* Register REG of THREAD starts as VALUE; THREAD -1 ends the list. */
struct ct_init {
  int thread;
  int reg;
  struct ct_value value;
};

enum ct_expect_kind { E_END, E_REG, E_MEM, E_FETCH_OLD, E_FETCH_NEW };

/* One condition of the outcome: register REG of THREAD (E_REG), memory
 * location LOC (E_MEM) equals VALUE; or THREAD's fetch of the word at
 * WORD_THREAD's label WORD_INDEX sees the old (E_FETCH_OLD) or the new
 * instruction, which register REG shows as VALUE. */
struct ct_expect {
  int kind;
  int thread;
  int reg;
  int loc;
  int word_thread;
  int word_index;
  struct ct_value value;
};

struct ct_test {
  const char *name;
  int nthreads;
  int segments[CT_MAX_THREADS]; /* parts of each thread (gen_guest.py) */
  const unsigned char *begin[CT_MAX_THREADS];
  const unsigned char *stop[CT_MAX_THREADS];
  const uint64_t *offsets;
  const struct ct_init *init;
  int nlocs;
  const struct ct_value *mem;
  const struct ct_expect *expect;
};

extern const struct ct_test ct_tests[];
extern const int ct_ntests;

#endif
