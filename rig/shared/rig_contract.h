/*
 * What the runner (jitflush-emu) and the plugin agree on, in one place:
 * the plugin's option keys, the counters (rig_counters.def) and the
 * one-line summary the plugin writes at exit and the runner reads. No
 * QEMU here: the runner, the plugin and the tests all include it.
 */
#ifndef JITFLUSH_EMU_RIG_CONTRACT_H
#define JITFLUSH_EMU_RIG_CONTRACT_H

#include <stdbool.h>
#include <stdint.h>

#include <glib.h>

#ifdef __cplusplus
extern "C" {
#endif

/* -plugin libjitflush_plugin.so,KEY=VALUE,... (docs/RIG.md). */
#define JF_OPT_CONFIG "config"
#define JF_OPT_SEED "seed"
#define JF_OPT_REPORT "report"
#define JF_OPT_SUMMARY "summary"
#define JF_OPT_MIGRATE_EVERY "migrate-every"
#define JF_OPT_CHECK "check"
#define JF_OPT_POLICY "policy"
#define JF_OPT_EXEC_MAP_SYNC "exec-map-sync"
#define JF_OPT_FINDINGS "findings"
#define JF_OPT_SARIF "sarif"
#define JF_OPT_SARIF_ROOT "sarif-root"
#define JF_OPT_OVERLAY "overlay"
#define JF_OPT_CONTROL "control"
#define JF_OPT_REPRODUCE "reproduce"
#define JF_OPT_RERUN "rerun"
#define JF_OPT_UNRECORDED "unrecorded"
#define JF_OPT_CWD "cwd"
#define JF_OPT_EXEC "exec"
#define JF_OPT_SCHEDULE "schedule"
#define JF_OPT_QUANTUM "quantum"
#define JF_OPT_REPORT_WHEN "report-when"
#define JF_OPT_CHECKPOINT "checkpoint"
#define JF_OPT_THREADS "threads"
#define JF_OPT_FOLLOW "follow"
#define JF_OPT_EXEC_OF "exec-of"

/* follow=RUNNER<sep>ARG<sep>...: the command that runs a program the guest
 * executes on the rig, before its "-- PROGRAM ARGS" (plugin_exec.c). */
#define JF_FOLLOW_SEPARATOR "\x1f"

/* checkpoint=DIR: while the guest runs, the plugin keeps there the
 * summary, the findings' text and (when asked for) the JSON report and the
 * SARIF log of the findings so far, each file replaced whole, the summary
 * last; the runner uses them when QEMU dies without its exit callbacks
 * (a SIGKILL: plugin_checkpoint.c, docs/RIG.md "Exit statuses"). */
#define JF_CHECKPOINT_SUMMARY "summary"
#define JF_CHECKPOINT_FINDINGS "findings"
#define JF_CHECKPOINT_REPORT "report.json"
#define JF_CHECKPOINT_SARIF "report.sarif"

/* schedule= and quantum= when not given: the plugin's defaults, which the
 * runner writes out in a run's reproducing command. */
#define JF_SCHEDULE_DEFAULT "turns"
#define JF_QUANTUM_DEFAULT 20000

/* A process the guest forked writes PREFIX<pid>.json and PREFIX<pid>.findings
 * next to the summary at its exit, for the runner to merge (plugin_fork.c,
 * runner_fork.c). */
#define JF_PROCESS_FILE_PREFIX "process-"

enum jf_counter_source { JF_SOURCE_VCPU, JF_SOURCE_CLOCK, JF_SOURCE_MODEL };
/* Where a counter is shown, from the most places to the fewest. */
enum jf_counter_shown { JF_SHOWN_STDERR, JF_SHOWN_SUMMARY, JF_SHOWN_REPORT };

enum jf_counter {
#define JF_COUNTER(name, source, shown, description) JF_COUNTER_##name,
#include "rig_counters.def"
#undef JF_COUNTER
  JF_NCOUNTERS
};

struct jf_counter_info {
  const char *name;
  enum jf_counter_source source;
  enum jf_counter_shown shown;
  const char *description;
};
extern const struct jf_counter_info jf_counters[JF_NCOUNTERS];

/* The summary: every counter shown at SUMMARY or more, then the number of
 * findings, as "key=N" pairs separated by spaces, e.g. "stale_fetches=0
 * fetch_checks=1200 ... insns=52000 findings=0". */
struct jf_summary {
  uint64_t counter[JF_NCOUNTERS]; /* 0 for the REPORT-only ones */
  uint64_t findings;              /* stale fetches grouped by root cause */
};

/* The plugin refuses to run because QEMU's plugin API does not do what
 * the rig relies on (qemu_api.h, plugin_selfcheck.h): instead of a
 * summary, the file then holds this prefix and the reason on one line,
 * and the runner exits with its own status (docs/RIG.md). */
#define JF_SUMMARY_REFUSED "refused: "

/* Appends the "key=N" pairs of every counter shown at SHOWN or more, then
 * "findings=N", to OUT (no newline). */
void emu_summary_format(GString *out, const struct jf_summary *s, enum jf_counter_shown shown);

/* Parses a summary line (order free, unknown keys ignored; every field of
 * the summary is required, so that an all-zero line from a QEMU that never
 * started the guest cannot pass for a clean run). Returns false and sets
 * *ERROR when the text is not one. */
bool emu_summary_parse(const char *text, struct jf_summary *out, GError **error);

#ifdef __cplusplus
}
#endif

#endif /* JITFLUSH_EMU_RIG_CONTRACT_H */
