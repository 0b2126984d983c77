/*
 * Command-line numbers for the guest programs run under the rig
 * (jit_stress, patch_sync, wx_dual): one strict parser, so every program
 * rejects "-1", "12abc" and out-of-range values the same way.
 */
#ifndef JITFLUSH_SCENARIO_GUEST_ARGS_H
#define JITFLUSH_SCENARIO_GUEST_ARGS_H

#include <stdbool.h>
#include <stdint.h>

/* Parses TEXT (decimal or 0x hex, the whole string, no sign) into *OUT if
 * it lies in [LO, HI]. Otherwise prints "PROGRAM: NAME: expected a number
 * from LO to HI, got 'TEXT'" on stderr and returns false. */
bool sc_parse_number(const char *program, const char *name, const char *text, uint64_t lo,
                     uint64_t hi, uint64_t *out);

#endif
