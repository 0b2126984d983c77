/*
 * The plugin's exit summary: one line of "key=N" pairs separated by spaces,
 * e.g. "stale_fetches=0 fetch_checks=1200 migrations=3 ctr_reads=1
 * dc_ops=4 ic_ops=4 isb=1 insns=52000". Agreed with the plugin
 * (src/emu/plugin.c); the runner copies six of the fields to its last
 * stderr line, and insns=0 tells it that the guest never ran.
 */
#include "runner.h"

#include <stddef.h>
#include <string.h>

#include <glib.h>

struct field {
  const char *name;
  size_t offset;
  bool required;
};

static const struct field fields[] = {
    {"stale_fetches", offsetof(struct emu_summary, stale_fetches), true},
    {"fetch_checks", offsetof(struct emu_summary, fetch_checks), true},
    {"migrations", offsetof(struct emu_summary, migrations), true},
    {"ctr_reads", offsetof(struct emu_summary, ctr_reads), true},
    {"dc_ops", offsetof(struct emu_summary, dc_ops), true},
    {"ic_ops", offsetof(struct emu_summary, ic_ops), true},
    {"isb", offsetof(struct emu_summary, isb), false},
    {"insns", offsetof(struct emu_summary, insns), true},
    {"findings", offsetof(struct emu_summary, findings), false},
};
#define NFIELDS (sizeof fields / sizeof fields[0])

bool emu_summary_parse(const char *text, struct emu_summary *out, const char **problem)
{
  bool seen[NFIELDS] = {false};
  memset(out, 0, sizeof *out);
  char **tokens = g_strsplit_set(text ? text : "", " \t\r\n", -1);
  bool ok = true;
  *problem = NULL;
  for (int i = 0; ok && tokens[i]; i++) {
    if (!*tokens[i])
      continue;
    char *eq = strchr(tokens[i], '=');
    if (!eq) {
      ok = false;
      *problem = "a field without '='";
      break;
    }
    *eq = '\0';
    for (size_t f = 0; f < NFIELDS; f++) {
      if (strcmp(tokens[i], fields[f].name) != 0)
        continue;
      guint64 v = 0;
      if (seen[f]) {
        ok = false;
        *problem = "a field given twice";
      } else if (!g_ascii_string_to_unsigned(eq + 1, 10, 0, G_MAXUINT64, &v, NULL)) {
        ok = false;
        *problem = "a value that is not an unsigned decimal number";
      } else {
        seen[f] = true;
        *(uint64_t *)((char *)out + fields[f].offset) = v;
      }
    }
  }
  for (size_t f = 0; ok && f < NFIELDS; f++) {
    if (fields[f].required && !seen[f]) {
      ok = false;
      *problem = "a required field is missing";
    }
  }
  g_strfreev(tokens);
  return ok;
}
