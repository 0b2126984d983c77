/*
 * Command lines of the guest programs run under the rig (jit_stress,
 * flush_bench, jit_loop, patch_sync, wx_dual): one strict number parser, so
 * every program rejects "-1", "12abc" and out-of-range values the same way,
 * one option loop over a table of the program's options, and the exit
 * statuses they share.
 */
#ifndef JITFLUSH_SCENARIO_GUEST_ARGS_H
#define JITFLUSH_SCENARIO_GUEST_ARGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* The exit statuses the guest programs share, which their tests read:
 * 1, a generated function returned a wrong result (what the scenarios are
 * there to catch); 2, a usage error (what sc_parse_options returns); 3, the
 * environment refused what the program needs (mmap, threads, a CPU). */
enum { EXIT_WRONG_RESULT = 1, EXIT_USAGE = 2, EXIT_ENVIRONMENT = 3 };

/* Parses TEXT (decimal or 0x hex, the whole string, no sign) into *OUT if
 * it lies in [LO, HI]. Otherwise prints "PROGRAM: NAME: expected a number
 * from LO to HI, got 'TEXT'" on stderr and returns false. */
bool sc_parse_number(const char *program, const char *name, const char *text, uint64_t lo,
                     uint64_t hi, uint64_t *out);

/* One option: "--name=N" (a number in [lo, hi]), "--name=TEXT" (kept for
 * the program to judge) or "--name" alone (a flag). Written with the
 * macros below, which take the field to fill: a number goes into an
 * unsigned integer (or an int) of 4 or 8 bytes, a text into a const char *,
 * a flag into a bool. A field keeps its value when the option is absent. */
struct sc_option {
  const char *name;
  enum { SC_OPT_NUMBER, SC_OPT_TEXT, SC_OPT_FLAG } kind;
  uint64_t lo, hi;
  void *field;
  size_t size;
};
#define SC_NUMBER(name, lo, hi, field)                                                             \
  {                                                                                                \
    name, SC_OPT_NUMBER, lo, hi, &(field), sizeof(field)                                           \
  }
#define SC_TEXT(name, field)                                                                       \
  {                                                                                                \
    name, SC_OPT_TEXT, 0, 0, &(field), sizeof(field)                                               \
  }
#define SC_FLAG(name, field)                                                                       \
  {                                                                                                \
    name, SC_OPT_FLAG, 0, 0, &(field), sizeof(field)                                               \
  }

/* Fills the options' fields from ARGV. Returns 0; -1 for --help, after
 * printing USAGE to stdout; or 2 (a usage error) after printing
 * "PROGRAM: ..." and, for an option it does not know, USAGE to stderr. */
int sc_parse_options(const char *program, int argc, char **argv, const struct sc_option *options,
                     size_t count, void (*usage)(FILE *out));

#endif
