/* The counters' table and the summary line (rig_contract.h). */
#include "rig_contract.h"

#include <inttypes.h>
#include <string.h>

const struct jf_counter_info jf_counters[JF_NCOUNTERS] = {
#define JF_COUNTER(name, source, shown, description)                                               \
  {#name, JF_SOURCE_##source, JF_SHOWN_##shown, description},
#include "rig_counters.def"
#undef JF_COUNTER
};

#define FINDINGS_KEY "findings"

#define JF_SUMMARY_ERROR (g_quark_from_static_string("jf-summary-error"))

void emu_summary_format(GString *out, const struct jf_summary *s, enum jf_counter_shown shown)
{
  for (size_t c = 0; c < JF_NCOUNTERS; c++) {
    if (jf_counters[c].shown <= shown) {
      g_string_append_printf(out, "%s=%" PRIu64 " ", jf_counters[c].name, s->counter[c]);
    }
  }
  g_string_append_printf(out, FINDINGS_KEY "=%" PRIu64, s->findings);
}

/* The field KEY names: a counter's index, JF_NCOUNTERS for findings, or -1. */
static int field_of(const char *key)
{
  for (size_t c = 0; c < JF_NCOUNTERS; c++) {
    if (jf_counters[c].shown <= JF_SHOWN_SUMMARY && strcmp(key, jf_counters[c].name) == 0) {
      return (int)c;
    }
  }
  return strcmp(key, FINDINGS_KEY) == 0 ? JF_NCOUNTERS : -1;
}

bool emu_summary_parse(const char *text, struct jf_summary *out, GError **error)
{
  bool seen[JF_NCOUNTERS + 1] = {false};
  memset(out, 0, sizeof *out);
  g_auto(GStrv) tokens = g_strsplit_set(text ? text : "", " \t\r\n", -1);
  for (int i = 0; tokens[i]; i++) {
    if (!*tokens[i]) {
      continue;
    }
    char *eq = strchr(tokens[i], '=');
    if (!eq) {
      g_set_error(error, JF_SUMMARY_ERROR, 1, "a field without '=': '%s'", tokens[i]);
      return false;
    }
    *eq = '\0';
    int f = field_of(tokens[i]);
    if (f < 0) {
      continue;
    }
    guint64 v = 0;
    if (seen[f]) {
      g_set_error(error, JF_SUMMARY_ERROR, 1, "%s given twice", tokens[i]);
      return false;
    }
    if (!g_ascii_string_to_unsigned(eq + 1, 10, 0, G_MAXUINT64, &v, NULL)) {
      g_set_error(error, JF_SUMMARY_ERROR, 1, "%s: not an unsigned decimal number: '%s'", tokens[i],
                  eq + 1);
      return false;
    }
    seen[f] = true;
    if (f == JF_NCOUNTERS) {
      out->findings = v;
    } else {
      out->counter[f] = v;
    }
  }
  for (int f = 0; f <= JF_NCOUNTERS; f++) {
    if (!seen[f] && (f == JF_NCOUNTERS || jf_counters[f].shown <= JF_SHOWN_SUMMARY)) {
      g_set_error(error, JF_SUMMARY_ERROR, 1, "%s is missing",
                  f == JF_NCOUNTERS ? FINDINGS_KEY : jf_counters[f].name);
      return false;
    }
  }
  return true;
}
