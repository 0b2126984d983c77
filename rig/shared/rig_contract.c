/* The counters' table and the summary line (rig_contract.h). */
#include "rig_contract.h"

#include <inttypes.h>
#include <string.h>

const struct rig_counter_info rig_counters[RIG_NCOUNTERS] = {
#define RIG_COUNTER(name, source, shown, description)                                              \
  {#name, RIG_SOURCE_##source, RIG_SHOWN_##shown, description},
#include "rig_counters.def"
#undef RIG_COUNTER
};

#define FINDINGS_KEY "findings"

#define RIG_SUMMARY_ERROR (g_quark_from_static_string("jf-summary-error"))

void rig_summary_format(GString *out, const struct rig_summary *s, enum rig_counter_shown shown)
{
  for (size_t c = 0; c < RIG_NCOUNTERS; c++) {
    if (rig_counters[c].shown <= shown) {
      g_string_append_printf(out, "%s=%" PRIu64 " ", rig_counters[c].name, s->counter[c]);
    }
  }
  g_string_append_printf(out, FINDINGS_KEY "=%" PRIu64, s->findings);
}

/* The field KEY names: a counter's index, RIG_NCOUNTERS for findings, or -1. */
static int field_of(const char *key)
{
  for (size_t c = 0; c < RIG_NCOUNTERS; c++) {
    if (rig_counters[c].shown <= RIG_SHOWN_SUMMARY && strcmp(key, rig_counters[c].name) == 0) {
      return (int)c;
    }
  }
  return strcmp(key, FINDINGS_KEY) == 0 ? RIG_NCOUNTERS : -1;
}

bool rig_summary_parse(const char *text, struct rig_summary *out, GError **error)
{
  bool seen[RIG_NCOUNTERS + 1] = {false};
  memset(out, 0, sizeof *out);
  g_auto(GStrv) tokens = g_strsplit_set(text ? text : "", " \t\r\n", -1);
  for (int i = 0; tokens[i]; i++) {
    if (!*tokens[i]) {
      continue;
    }
    char *eq = strchr(tokens[i], '=');
    if (!eq) {
      g_set_error(error, RIG_SUMMARY_ERROR, 1, "a field without '=': '%s'", tokens[i]);
      return false;
    }
    *eq = '\0';
    int f = field_of(tokens[i]);
    if (f < 0) {
      continue;
    }
    guint64 v = 0;
    if (seen[f]) {
      g_set_error(error, RIG_SUMMARY_ERROR, 1, "%s given twice", tokens[i]);
      return false;
    }
    if (!g_ascii_string_to_unsigned(eq + 1, 10, 0, G_MAXUINT64, &v, NULL)) {
      g_set_error(error, RIG_SUMMARY_ERROR, 1, "%s: not an unsigned decimal number: '%s'",
                  tokens[i], eq + 1);
      return false;
    }
    seen[f] = true;
    if (f == RIG_NCOUNTERS) {
      out->findings = v;
    } else {
      out->counter[f] = v;
    }
  }
  for (int f = 0; f <= RIG_NCOUNTERS; f++) {
    if (!seen[f] && (f == RIG_NCOUNTERS || rig_counters[f].shown <= RIG_SHOWN_SUMMARY)) {
      g_set_error(error, RIG_SUMMARY_ERROR, 1, "%s is missing",
                  f == RIG_NCOUNTERS ? FINDINGS_KEY : rig_counters[f].name);
      return false;
    }
  }
  return true;
}
