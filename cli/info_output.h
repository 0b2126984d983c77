/* The two renderings of a report: the table for people, JSON for programs. */
#ifndef JITFLUSH_INFO_OUTPUT_H
#define JITFLUSH_INFO_OUTPUT_H

#include <stdbool.h>
#include <stdio.h>

#include "jitflush.h"
#include "info_selftest.h"
#include "info_verdict.h"

/* SELFTEST may be NULL (no --selftest). */
void info_print_json(FILE *out, const struct jitflush_info *info,
                     const struct info_verdict *verdict,
                     const struct info_selftest_result *selftest);

void info_print_table(FILE *out, const struct jitflush_info *info,
                      const struct info_verdict *verdict, bool color);

void info_print_selftest(FILE *out, const struct info_selftest_result *selftest, bool color);

#endif
