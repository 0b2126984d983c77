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
#define RIG_OPT_CONFIG "config"
#define RIG_OPT_SEED "seed"
#define RIG_OPT_REPORT "report"
#define RIG_OPT_SUMMARY "summary"
#define RIG_OPT_MIGRATE_EVERY "migrate-every"
#define RIG_OPT_CHECK "check"
#define RIG_OPT_POLICY "policy"
#define RIG_OPT_EXEC_MAP_SYNC "exec-map-sync"
#define RIG_OPT_INSTRUMENT "instrument"
#define RIG_OPT_FINDINGS "findings"
#define RIG_OPT_SARIF "sarif"
#define RIG_OPT_SARIF_ROOT "sarif-root"
#define RIG_OPT_OVERLAY "overlay"
#define RIG_OPT_CONTROL "control"
#define RIG_OPT_REPRODUCE "reproduce"
#define RIG_OPT_RERUN "rerun"
#define RIG_OPT_UNRECORDED "unrecorded"
#define RIG_OPT_CWD "cwd"
#define RIG_OPT_EXEC "exec"
#define RIG_OPT_SCHEDULE "schedule"
#define RIG_OPT_QUANTUM "quantum"
#define RIG_OPT_REPORT_WHEN "report-when"
#define RIG_OPT_CHECKPOINT "checkpoint"
#define RIG_OPT_THREADS "threads"
#define RIG_OPT_FOLLOW "follow"
#define RIG_OPT_EXEC_OF "exec-of"

/* follow=RUNNER<sep>ARG<sep>...: the command that runs a program the guest
 * executes on the rig, before its "-- PROGRAM ARGS" (plugin_exec.c). */
#define RIG_FOLLOW_SEPARATOR "\x1f"

/* checkpoint=DIR: while the guest runs, the plugin keeps there the
 * summary, the findings' text and (when asked for) the JSON report and the
 * SARIF log of the findings so far, each file replaced whole, the summary
 * last; the runner uses them when QEMU dies without its exit callbacks
 * (a SIGKILL: plugin_checkpoint.c, docs/RIG.md "Exit statuses"). */
#define RIG_CHECKPOINT_SUMMARY "summary"
#define RIG_CHECKPOINT_FINDINGS "findings"
#define RIG_CHECKPOINT_REPORT "report.json"
#define RIG_CHECKPOINT_SARIF "report.sarif"

/* schedule= and quantum= when not given: the plugin's defaults, which the
 * runner writes out in a run's reproducing command. */
#define RIG_SCHEDULE_DEFAULT "turns"
#define RIG_QUANTUM_DEFAULT 20000

/* A process the guest forked writes PREFIX<pid>.json and PREFIX<pid>.findings
 * next to the summary at its exit, for the runner to merge (plugin_fork.c,
 * runner_fork.c). */
#define RIG_PROCESS_FILE_PREFIX "process-"

enum rig_counter_source { RIG_SOURCE_VCPU, RIG_SOURCE_CLOCK, RIG_SOURCE_MODEL };
/* Where a counter is shown, from the most places to the fewest. */
enum rig_counter_shown { RIG_SHOWN_STDERR, RIG_SHOWN_SUMMARY, RIG_SHOWN_REPORT };

enum rig_counter {
#define RIG_COUNTER(name, source, shown, description) RIG_COUNTER_##name,
#include "rig_counters.def"
#undef RIG_COUNTER
  RIG_NCOUNTERS
};

struct rig_counter_info {
  const char *name;
  enum rig_counter_source source;
  enum rig_counter_shown shown;
  const char *description;
};
extern const struct rig_counter_info rig_counters[RIG_NCOUNTERS];

/* The summary: every counter shown at SUMMARY or more, then the number of
 * findings, as "key=N" pairs separated by spaces, e.g. "stale_fetches=0
 * fetch_checks=1200 ... insns=52000 findings=0". */
struct rig_summary {
  uint64_t counter[RIG_NCOUNTERS]; /* 0 for the REPORT-only ones */
  uint64_t findings;               /* stale fetches grouped by root cause */
};

/* The plugin refuses to run because QEMU's plugin API does not do what
 * the rig relies on (plugin_qemu_api.h, plugin_selfcheck.h): instead of a
 * summary, the file then holds this prefix and the reason on one line,
 * and the runner exits with its own status (docs/RIG.md). */
#define RIG_SUMMARY_REFUSED "refused: "

/* Appends the "key=N" pairs of every counter shown at SHOWN or more, then
 * "findings=N", to OUT (no newline). */
void rig_summary_format(GString *out, const struct rig_summary *s, enum rig_counter_shown shown);

/* Parses a summary line (order free, unknown keys ignored; every field of
 * the summary is required, so that an all-zero line from a QEMU that never
 * started the guest cannot pass for a clean run). Returns false and sets
 * *ERROR when the text is not one. */
bool rig_summary_parse(const char *text, struct rig_summary *out, GError **error);

#ifdef __cplusplus
}
#endif

#endif /* JITFLUSH_EMU_RIG_CONTRACT_H */
