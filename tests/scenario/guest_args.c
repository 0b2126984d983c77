#include "guest_args.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

bool sc_parse_number(const char *program, const char *name, const char *text, uint64_t lo,
                     uint64_t hi, uint64_t *out)
{
  /* strtoull accepts a sign (and negates "-1" into a huge value) and stops
   * at the first bad character: both are refused here. */
  bool ok = *text != '\0' && *text != '-' && *text != '+';
  unsigned long long v = 0;
  if (ok) {
    char *end;
    errno = 0;
    v = strtoull(text, &end, 0);
    ok = errno == 0 && *end == '\0' && v >= lo && v <= hi;
  }
  if (!ok) {
    fprintf(stderr, "%s: %s: expected a number from %" PRIu64 " to %" PRIu64 ", got '%s'\n",
            program, name, lo, hi, text);
    return false;
  }
  *out = v;
  return true;
}
