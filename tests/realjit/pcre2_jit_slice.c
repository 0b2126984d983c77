/*
 * PCRE2's own JIT regression test (src/pcre2_jit_test.c, unchanged) on
 * chosen ranges of its cases, so that a run under the rig takes seconds
 * instead of the whole program's five minutes (docs/RUNNING-YOUR-JIT.md):
 *
 *   pcre2_jit_slice [--utf8] FIRST-LAST...
 *
 * runs the regression cases in the given inclusive index ranges, in that
 * order, with PCRE2's checks; with --utf8 its invalid-UTF-8 cases after
 * them. Exit status: 0 when every case passed, 1 when one failed, 2 on a
 * usage error. A few groups of cases match long subjects for seconds under
 * plain QEMU (a minute under the rig) while compiling no more code than the
 * others, which is why a run picks ranges.
 *
 * The test file is included, not copied: its case table and its checks are
 * PCRE2's. Its main() is renamed out of the way; the table is a writable
 * static array ending in a NULL pattern, so the chosen cases are gathered
 * at its front and terminated there.
 */
#define main pcre2_jit_test_main
#include "pcre2_jit_test.c"
#undef main

#include <stdlib.h>

static size_t case_count(void)
{
  size_t n = 0;
  while (regression_test_cases[n].pattern)
    n++;
  return n;
}

/* "FIRST-LAST", both decimal, FIRST <= LAST. */
static int parse_range(const char *s, size_t *first, size_t *last)
{
  char *end;
  if (*s < '0' || *s > '9')
    return -1;
  *first = strtoul(s, &end, 10);
  if (*end != '-' || end[1] < '0' || end[1] > '9')
    return -1;
  *last = strtoul(end + 1, &end, 10);
  return *end == '\0' && *first <= *last ? 0 : -1;
}

int main(int argc, char **argv)
{
  size_t total = case_count(), kept = 0;
  int utf8 = 0;
  int arg = 1;
  if (arg < argc && strcmp(argv[arg], "--utf8") == 0) {
    utf8 = 1;
    arg++;
  }
  if (arg == argc) {
    fprintf(stderr, "usage: pcre2_jit_slice [--utf8] FIRST-LAST...\n");
    return 2;
  }
  /* Ranges come in increasing order, so a case is never moved over one
     that a later range still needs. */
  size_t next_allowed = 0;
  for (; arg < argc; arg++) {
    size_t first, last;
    if (parse_range(argv[arg], &first, &last) != 0 || first < next_allowed) {
      fprintf(stderr, "pcre2_jit_slice: '%s' is not a FIRST-LAST range after the previous one\n",
              argv[arg]);
      return 2;
    }
    if (last >= total) {
      fprintf(stderr, "pcre2_jit_slice: range %s ends past the last case (%zu)\n", argv[arg],
              total - 1);
      return 2;
    }
    size_t n = last - first + 1;
    memmove(regression_test_cases + kept, regression_test_cases + first,
            n * sizeof regression_test_cases[0]);
    kept += n;
    next_allowed = last + 1;
  }
  regression_test_cases[kept].pattern = NULL;
  printf("pcre2_jit_slice: %zu of %zu cases\n", kept, total);

  int status = regression_tests();
#if defined SUPPORT_UNICODE && defined SUPPORT_PCRE2_8
  if (utf8)
    status |= invalid_utf8_regression_tests();
#endif
  return status ? 1 : 0;
}
