/*
 * The flush routines jit_stress can run: jitflush itself and one model of
 * each way other projects flush AArch64 code (docs/BACKGROUND.md#the-problem).
 * Each model lives in its own impl_*.c and says whom it models and how that
 * one fails on a mismatched big.LITTLE system.
 */
#ifndef JITFLUSH_SCENARIO_FLUSH_IMPLS_H
#define JITFLUSH_SCENARIO_FLUSH_IMPLS_H

#include <stdio.h>

/* Same contract as __builtin___clear_cache: make [begin, end) fetchable. */
typedef void (*sc_flush_fn)(void *begin, void *end);

/* The routines of flush_impls.def. */
#define SC_IMPL(name, function, safe) void function(void *begin, void *end);
#include "flush_impls.def"
#undef SC_IMPL

/* The routines by the names --impl takes (jit_stress, flush_bench); the
 * first is jitflush, the default. */
struct sc_impl {
  const char *name;
  sc_flush_fn flush;
};
extern const struct sc_impl sc_impls[];
extern const unsigned sc_nimpls;

/* The --impl line of a usage text: the option and every routine's name. */
void sc_print_impl_usage(FILE *out);

/* The routine called NAME (--impl=NAME of PROGRAM); NULL after printing
 * "PROGRAM: --impl: unknown routine 'NAME'" and USAGE on stderr. */
const struct sc_impl *sc_impl_option(const char *program, const char *name,
                                     void (*usage)(FILE *out));

#endif
