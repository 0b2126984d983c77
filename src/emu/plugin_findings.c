/*
 * The plugin's side of the findings (findings.c): one collector for the
 * run, fed under jf_lock by the execution callbacks, and at exit the
 * names of the guest's code (symbols.c) and the three reports.
 */
#include <stdio.h>

#include "findings.h"
#include "plugin.h"
#include "symbols.h"

static struct emu_findings *findings;

void jf_findings_init(void)
{
  findings = emu_findings_new(jf_config);
}

void jf_findings_free(void)
{
  g_clear_pointer(&findings, emu_findings_free);
}

uint32_t jf_findings_site(uint64_t pc, uint64_t caller)
{
  return emu_findings_site(findings, pc, caller);
}

void jf_findings_record(uint64_t va, const struct jf_thread *t, const struct jf_verdict *v)
{
  emu_findings_record(findings, va, t->mt.cpu, t->mt.serial, v);
}

void jf_findings_ctr_read(uint64_t pc, unsigned cpu, uint64_t value)
{
  emu_findings_ctr_read(findings, pc, cpu, value);
}

unsigned jf_findings_count(void)
{
  return emu_findings_count(findings);
}

/* The guest's mappings, in guest addresses: QEMU's own address space holds
 * them at guest_base above (linux-user maps guest memory 1:1 plus a base),
 * which the executable's text mapping reveals. */
static struct emu_symbols *guest_symbols(void)
{
  char *host = NULL;
  if (!g_file_get_contents("/proc/self/maps", &host, NULL, NULL)) {
    return emu_symbols_new("");
  }
  uint64_t base =
      emu_symbols_guest_base(host, qemu_plugin_path_to_binary(), qemu_plugin_start_code());
  char *guest = emu_symbols_guest_maps(host, base);
  struct emu_symbols *s = emu_symbols_new(guest);
  g_free(guest);
  g_free(host);
  return s;
}

/* Reads the mappings only when a PC needs a name: when QEMU gave up before
 * the guest ran, it has no executable to ask about. */
struct lazy_symbols {
  struct emu_symbols *symbols;
};

static void lookup_lazily(uint64_t pc, char **symbol, char **location, void *ctx)
{
  struct lazy_symbols *lazy = ctx;
  if (!lazy->symbols) {
    lazy->symbols = guest_symbols();
  }
  emu_symbols_lookup(pc, symbol, location, lazy->symbols);
}

void jf_findings_report(GString *json, const char *text_path, const char *sarif_path)
{
  struct lazy_symbols lazy = {NULL};
  emu_findings_resolve(findings, lookup_lazily, &lazy);
  emu_symbols_free(lazy.symbols);
  if (json) {
    emu_findings_json(findings, json);
  }
  if (text_path) {
    GString *text = emu_findings_text(findings);
    jf_write_file(text_path, text);
    g_string_free(text, true);
  }
  if (sarif_path) {
    GString *sarif = emu_findings_sarif(findings);
    jf_write_file(sarif_path, sarif);
    g_string_free(sarif, true);
  }
}
