#include "guest_args.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

static const struct sc_option *find_option(const struct sc_option *options, size_t count,
                                           const char *arg, size_t len)
{
  for (size_t i = 0; i < count; i++)
    if (strlen(options[i].name) == len && strncmp(options[i].name, arg, len) == 0)
      return &options[i];
  return NULL;
}

int sc_parse_options(const char *program, int argc, char **argv, const struct sc_option *options,
                     size_t count, void (*usage)(FILE *out))
{
  for (int i = 1; i < argc; i++) {
    const char *arg = argv[i];
    if (strcmp(arg, "--help") == 0) {
      usage(stdout);
      return -1;
    }
    const char *eq = strchr(arg, '=');
    const struct sc_option *o =
        find_option(options, count, arg, eq ? (size_t)(eq - arg) : strlen(arg));
    if (!o) {
      fprintf(stderr, "%s: unknown option '%s'\n", program, arg);
      usage(stderr);
      return 2;
    }
    if (o->kind == SC_OPT_FLAG && eq) {
      fprintf(stderr, "%s: %s takes no value, got '%s'\n", program, o->name, arg);
      return 2;
    }
    if (o->kind != SC_OPT_FLAG && !eq) {
      fprintf(stderr, "%s: %s needs a value: %s=...\n", program, o->name, o->name);
      return 2;
    }
    if (o->kind == SC_OPT_FLAG) {
      *(bool *)o->field = true;
    } else if (o->kind == SC_OPT_TEXT) {
      *(const char **)o->field = eq + 1;
    } else {
      uint64_t v;
      if (!sc_parse_number(program, o->name, eq + 1, o->lo, o->hi, &v))
        return 2;
      if (o->size == sizeof(uint64_t)) {
        memcpy(o->field, &v, sizeof v);
      } else if (o->size == sizeof(uint32_t) && o->hi <= INT32_MAX) {
        /* An unsigned or an int: [lo, hi] fits either. */
        const uint32_t narrow = (uint32_t)v;
        memcpy(o->field, &narrow, sizeof narrow);
      } else {
        abort(); /* a table that no field can hold */
      }
    }
  }
  return 0;
}
