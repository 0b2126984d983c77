/*
 * The plugin's side of the findings: the run's one collector
 * (report_findings.h, rig->findings) is fed under the rig's lock by the execution
 * callbacks; at exit this unit names the guest's code (report_symbols.c) and
 * writes the three reports.
 */
#ifndef JITFLUSH_EMU_PLUGIN_FINDINGS_H
#define JITFLUSH_EMU_PLUGIN_FINDINGS_H

#include <stdint.h>

#include <json-glib/json-glib.h>

#include "report_findings.h"
#include "plugin_rig.h"
#include "report_symbols.h"

/* At exit, without the lock: names the guest's code once, adds the
 * report's "stale", "findings" and "ctr_read_sites" members to REPORT
 * (when not NULL), writes the sanitizer-style text to TEXT_PATH and SARIF
 * to SARIF_PATH when set. */
void plugin_findings_report(struct report_findings *f, const struct plugin_guest_image *image,
                            JsonObject *report, const char *text_path, const char *sarif_path);

/* A guest system call NUM: exit_group is a normal end (not a crash). */
void plugin_findings_syscall(struct plugin_rig *rig, int64_t num);
/* At QEMU's exit, on the host thread that ends the process (for a fatal
 * signal, the one that took it): notes that thread and its last block. */
void plugin_findings_at_exit(struct plugin_rig *rig);

/* One line per guest thread alive: its CPU and the start of the last block
 * it ran, named (module+offset, symbol), for a run the runner stopped
 * (its --timeout). Takes the rig's lock. */
GString *plugin_findings_threads(struct plugin_rig *rig);

/*
 * Where the return address into a flush routine's caller is at one of its
 * maintenance instructions, decided once per instruction at its
 * translation from the unwind tables of the guest's module
 * (report_symbols_return_rule), so that the execution callback reads just
 * that register or word (docs/FINDINGS.md, "flush.caller").
 */
struct plugin_unwind *plugin_unwind_new(void);
void plugin_unwind_free(struct plugin_unwind *u);
/* The rule for the instruction at guest address PC, from the guest's
 * mappings as they are at its first translation. Thread-safe; takes
 * neither of the rig's locks. */
struct report_return_rule plugin_findings_return_rule(struct plugin_rig *rig, uint64_t pc);

/* Writes TEXT to PATH, or says on stderr why it could not. */
void plugin_write_file(const char *path, const GString *text);

#endif /* JITFLUSH_EMU_PLUGIN_FINDINGS_H */
