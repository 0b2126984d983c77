/*
 * jitflush's QEMU user-mode TCG plugin: the emulated big.LITTLE rig
 * (docs/RIG.md, docs/ARCHITECTURE.md). This file installs the plugin,
 * parses its arguments, owns the rig's state (plugin_rig.h) and writes the report
 * at exit; plugin_instrument.c registers the execution callbacks.
 *
 *   -plugin libjitflush_plugin.so,config=PATH[,seed=N][,report=PATH]
 *           [,summary=PATH][,migrate-every=N][,check=on|off|full]
 *           [,policy=adversarial|random][,findings=PATH][,sarif=PATH]
 *           [,sarif-root=DIR][,overlay=DIR][,control=FIFO][,exec=PATH]
 *           [,checkpoint=DIR][,threads=PATH][,instrument=observing|every-block]
 *
 * overlay=DIR is the generated ROOT/sys/devices/system/cpu, which hotplug
 * events rewrite (plugin_hotplug.c); control=FIFO is the runner's way to ask
 * for the reports before QEMU is ended (control_thread); exec=PATH is where
 * an execve of an AArch64 program is noted (plugin_exec.c); checkpoint=DIR
 * keeps the findings so far while the guest runs (plugin_checkpoint.c);
 * threads=PATH receives each thread's last block when the runner asks for
 * the reports (its --timeout). The keys are in
 * rig_contract.h.
 */
#define _POSIX_C_SOURCE 200809L /* O_CLOEXEC under -std=c11 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "rig_json.h"
#include "rig_guest_syscalls.h"
#include "plugin_keep.h"
#include "model_kernel_sync.h"
#include "plugin_alias.h"
#include "plugin_checkpoint.h"
#include "plugin_decode.h"
#include "plugin_entropy.h"
#include "plugin_exec.h"
#include "report_findings_explain.h"
#include "plugin_findings.h"
#include "plugin_fork.h"
#include "plugin_hotplug.h"
#include "plugin_instrument.h"
#include "plugin_region.h"
#include "plugin_regs.h"
#include "plugin_sched.h"
#include "plugin_selfcheck.h"
#include "plugin_selfstore.h"
#include "plugin_signal.h"
#include "plugin_store.h"
#include "plugin_turns.h"
#include "rig_contract.h"
#include "plugin_vcpu.h"

/* The calls whose site the kernel's notes name (plugin_alias.c). */
#define GUEST_NR_MMAP 222
#define GUEST_NR_MPROTECT 226
#define GUEST_XREG_LR 30

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

/* The rig, for QEMU's callbacks that carry no userdata (vCPU init and
 * exit, syscalls). */
static struct plugin_rig *rig;

/* The options whose value is kept as text (paths, the reproduction
 * command), and where each is kept. */
static const struct {
  const char *key;
  size_t offset;
} text_options[] = {
    {RIG_OPT_CONFIG, offsetof(struct plugin_options, config_path)},
    {RIG_OPT_REPORT, offsetof(struct plugin_options, report_path)},
    {RIG_OPT_OVERLAY, offsetof(struct plugin_options, overlay_path)},
    {RIG_OPT_SUMMARY, offsetof(struct plugin_options, summary_path)},
    {RIG_OPT_FINDINGS, offsetof(struct plugin_options, findings_path)},
    {RIG_OPT_SARIF, offsetof(struct plugin_options, sarif_path)},
    {RIG_OPT_SARIF_ROOT, offsetof(struct plugin_options, sarif_root)},
    {RIG_OPT_CONTROL, offsetof(struct plugin_options, control_path)},
    {RIG_OPT_CHECKPOINT, offsetof(struct plugin_options, checkpoint_path)},
    {RIG_OPT_THREADS, offsetof(struct plugin_options, threads_path)},
    {RIG_OPT_FOLLOW, offsetof(struct plugin_options, follow)},
    {RIG_OPT_EXEC_OF, offsetof(struct plugin_options, exec_of_path)},
    {RIG_OPT_REPRODUCE, offsetof(struct plugin_options, reproduce)},
    {RIG_OPT_RERUN, offsetof(struct plugin_options, rerun)},
    {RIG_OPT_UNRECORDED, offsetof(struct plugin_options, unrecorded)},
    {RIG_OPT_CWD, offsetof(struct plugin_options, cwd)},
    {RIG_OPT_EXEC, offsetof(struct plugin_options, exec_path)},
};

static const char **option_text(struct plugin_options *o, size_t i)
{
  return (const char **)((char *)o + text_options[i].offset);
}

/* ---- report ---------------------------------------------------------------- */

static JsonArray *report_cores(const struct plugin_rig *r)
{
  JsonArray *cores = json_array_new();
  for (unsigned cpu = 0; cpu < r->config->ncpus; cpu++) {
    const struct rig_cluster *cl = &r->config->clusters[rig_config_cluster_of(r->config, cpu)];
    JsonObject *o = json_object_new();
    json_object_set_int_member(o, "cpu", cpu);
    json_object_set_string_member(o, "cluster", cl->name);
    json_object_set_boolean_member(o, "online", r->config->cpus[cpu].online);
    rig_json_set_hex(o, "midr", cl->midr);
    rig_json_set_hex(o, "ctr", cl->ctr);
    json_object_set_int_member(o, "instructions", (gint64)plugin_sched_cpu_insns(r->sched, cpu));
    json_array_add_object_element(cores, o);
  }
  return cores;
}

/* Where one writing of the reports goes: the options' files, or the
 * checkpoint folder's (plugin_checkpoint.c). */
struct report_paths {
  const char *report;
  const char *sarif;
  const char *findings;
  const char *summary;
  const char *threads; /* each thread's last block, or NULL */
  bool live;           /* the guest still runs: the schedule stays as it is */
};

/* The findings' forms: into REPORT when there is one, the text file and
 * the SARIF log P names. Under the lock: the reports may be written while
 * guest threads still record findings (control_thread, the checkpoint). */
static void report_findings(struct plugin_rig *r, JsonObject *report, const struct report_paths *p,
                            const char *sarif_path)
{
  plugin_rig_lock(r);
  /* Code the kernel published and the program then ran: a note each, as
   * they stand now (the reports may be written more than once: a
   * checkpoint, then at exit). */
  report_findings_clear_kernel_notes(r->findings);
  const GArray *notes = model_kernel_notes(r->kernel);
  for (guint i = 0; i < notes->len; i++) {
    const struct model_kernel_note *n = &g_array_index(notes, struct model_kernel_note, i);
    if (n->fetched && n->words) {
      report_findings_kernel_note(r->findings, n->call, n->pc, n->lr, n->pages, n->words);
    }
  }
  const struct plugin_guest_image image = r->image;
  plugin_findings_report(r->findings, &image, report, p->findings, sarif_path);
  plugin_rig_unlock(r);
}

/* The JSON report (docs/RIG.md, "The JSON report"): the run, every counter of
 * rig_counters.def, the cores, the findings and the measured regions. */
static JsonObject *build_report(struct plugin_rig *r, const uint64_t counter[RIG_NCOUNTERS],
                                const struct report_paths *p)
{
  JsonObject *report = json_object_new();
  json_object_set_string_member(report, "config", r->config->path);
  json_object_set_string_member(report, "soc", r->config->soc_name ? r->config->soc_name : "");
  json_object_set_int_member(report, "seed", (gint64)plugin_rig_seed(r));
  json_object_set_boolean_member(report, "check", r->opts.check);
  json_object_set_string_member(report, "policy", rig_sched_policy_names[plugin_rig_policy(r)]);
  json_object_set_string_member(report, "exec_map_sync",
                                rig_exec_map_sync_names[plugin_rig_exec_map_sync(r)]);
  json_object_set_string_member(report, "kernel", rig_kernel_linux_names[r->config->kernel_linux]);
  json_object_set_string_member(report, "instrument",
                                r->opts.every_block ? "every-block" : "observing");
  if (r->opts.reproduce) {
    json_object_set_string_member(report, "reproduce", r->opts.reproduce);
  }
  if (r->opts.cwd) {
    /* What the run depended on besides its options, for jitflush-emu
     * --reproduce: the environment itself is never here (it may hold
     * tokens), only whether REPORT.env beside the report keeps it. */
    JsonObject *recorded = json_object_new();
    json_object_set_string_member(recorded, "cwd", r->opts.cwd);
    json_object_set_boolean_member(recorded, "environment", !r->opts.unrecorded);
    if (r->opts.unrecorded) {
      json_object_set_string_member(recorded, "unrecorded", r->opts.unrecorded);
    } else {
      json_object_set_null_member(recorded, "unrecorded");
    }
    /* The host name is not restored (no UTS namespace without
     * privileges); a rerun says when it differs, as a guest may read it. */
    struct utsname uts;
    json_object_set_string_member(recorded, "host", uname(&uts) == 0 ? uts.nodename : "");
    json_object_set_object_member(report, "recorded", recorded);
  }
  if (r->exit_status >= 0) {
    json_object_set_int_member(report, "exit_status", r->exit_status);
  } else {
    json_object_set_null_member(report, "exit_status");
  }
  for (size_t c = 0; c < RIG_NCOUNTERS; c++) {
    json_object_set_int_member(report, rig_counters[c].name, (gint64)counter[c]);
  }
  json_object_set_int_member(report, "threads", plugin_sched_nthreads(r->sched));
  plugin_turns_report(r->turns, report);
  plugin_entropy_report(r->entropy, json_object_get_object_member(report, "schedule"));
  json_object_set_array_member(report, "cores", report_cores(r));
  report_findings(r, report, p, p->sarif);
  plugin_region_report(r->region, report);
  return report;
}

/* The counters and the number of findings now. LIVE: guest threads still
 * run, and a thread counts its stale fetch just after recording it (
 * plugin_instrument.c, on_fetch): the findings' own count, taken under the
 * same lock as the findings, is never behind them. */
static void current_summary(struct plugin_rig *r, struct rig_summary *summary, bool live)
{
  plugin_vcpu_counter_totals(r, summary->counter);
  plugin_rig_lock(r);
  if (live) {
    plugin_instrument_count_pending(summary->counter);
  }
  report_findings_count(r->findings); /* settles */
  summary->findings = report_findings_root_causes(r->findings);
  uint64_t recorded = report_findings_stale_total(r->findings);
  plugin_rig_unlock(r);
  uint64_t *stale = &summary->counter[RIG_COUNTER_stale_fetches];
  if (live && recorded > *stale) {
    *stale = recorded;
  }
}

static void write_reports(struct plugin_rig *r, const struct report_paths *p)
{
  if (!p->live) {
    plugin_sched_credit_all(r);
  }
  struct rig_summary summary;
  current_summary(r, &summary, p->live);
  /* Names the guest's code once for the three forms of the findings. The
   * JSON report is built only when it is asked for: most runs of a test
   * suite write the summary and the findings' text alone, and then never
   * load json-glib (lazy_json_glib.c). A suite store's entry asks for the
   * report and the SARIF log only when there is something in them
   * (report-when=findings): the summary line, which the runner keeps in the
   * entry's record, says all there is of a clean run, and json-glib is a
   * millisecond of every test process's start-up (docs/BENCHMARKS.md). A
   * process that forked writes them whatever it found: the runner merges
   * its children's findings into them (runner_fork.c). */
  plugin_rig_lock(r);
  bool forked = r->forked;
  plugin_rig_unlock(r);
  bool quiet = r->opts.report_only_findings && !forked &&
               summary.counter[RIG_COUNTER_stale_fetches] == 0 && summary.findings == 0;
  if (p->report && !quiet) {
    GString *json = rig_json_write_object(build_report(r, summary.counter, p));
    plugin_write_file(p->report, json);
    g_string_free(json, true);
  } else {
    report_findings(r, NULL, p, quiet ? NULL : p->sarif);
  }
  /* Naming the code for the reports may have joined findings (a function
   * that published code without a flush, through several stores). */
  plugin_rig_lock(r);
  summary.findings = report_findings_root_causes(r->findings);
  plugin_rig_unlock(r);
  if (p->threads) {
    GString *threads = plugin_findings_threads(r);
    plugin_write_file(p->threads, threads);
    g_string_free(threads, true);
  }
  if (p->summary) {
    /* insns tells the runner whether the guest ran at all: QEMU also
     * calls this when it gives up before the first guest instruction
     * (no loader, a bad -cpu), and all-zero counters must not pass for
     * a clean run. Written last: a checkpoint's summary vouches for the
     * files written before it. */
    GString *line = g_string_new(NULL);
    rig_summary_format(line, &summary, RIG_SHOWN_SUMMARY);
    g_string_append_c(line, '\n');
    plugin_write_file(p->summary, line);
    g_string_free(line, true);
  }
}

/* Writes the reports unless they were written already. THREADS: name each
 * thread's last block too (the runner asked for the reports). */
static void report_once(struct plugin_rig *r, bool threads)
{
  const struct report_paths p = {
      .report = r->opts.report_path,
      .sarif = r->opts.sarif_path,
      .findings = r->opts.findings_path,
      .summary = r->opts.summary_path,
      .threads = threads ? r->opts.threads_path : NULL,
  };
  g_mutex_lock(&r->report_lock);
  if (!r->reported) {
    r->reported = true;
    write_reports(r, &p);
  }
  g_mutex_unlock(&r->report_lock);
}

/* The checkpoint (plugin_checkpoint.c): the reports into the checkpoint
 * folder when the counters or the findings changed since the last time,
 * and never once the real ones are written. */
static void write_checkpoint(void *ctx)
{
  struct plugin_rig *r = ctx;
  const char *dir = r->opts.checkpoint_path;
  char *report = g_build_filename(dir, RIG_CHECKPOINT_REPORT, NULL);
  char *sarif = g_build_filename(dir, RIG_CHECKPOINT_SARIF, NULL);
  char *findings = g_build_filename(dir, RIG_CHECKPOINT_FINDINGS, NULL);
  char *summary_path = g_build_filename(dir, RIG_CHECKPOINT_SUMMARY, NULL);
  const struct report_paths p = {
      .report = r->opts.report_path ? report : NULL,
      .sarif = r->opts.sarif_path ? sarif : NULL,
      .findings = findings,
      .summary = summary_path,
      .live = true,
  };
  g_mutex_lock(&r->report_lock);
  if (!r->reported) {
    struct rig_summary summary;
    current_summary(r, &summary, true);
    GString *line = g_string_new(NULL);
    rig_summary_format(line, &summary, RIG_SHOWN_SUMMARY);
    if (g_strcmp0(line->str, r->checkpoint_line) != 0) {
      write_reports(r, &p);
      g_free(r->checkpoint_line);
      r->checkpoint_line = g_string_free(line, false);
    } else {
      g_string_free(line, true);
    }
  }
  g_mutex_unlock(&r->report_lock);
  g_free(report);
  g_free(sarif);
  g_free(findings);
  g_free(summary_path);
}

/*
 * The runner's control FIFO (control=PATH). QEMU user mode dies at once of a
 * SIGTERM, SIGHUP or SIGINT the guest does not handle, without the exit
 * callbacks, so every finding would be lost with it. The runner instead
 * catches the signal, writes a byte here, waits until the summary appears
 * and then ends QEMU. The runner keeps the FIFO open for writing, so the
 * open does not block; end of file (the runner is gone) ends the thread.
 *
 * The reports are written from this thread while guest threads run: the
 * model and findings under the lock, the counters read as any other thread
 * reads them (plugin_vcpu.h). What it cannot order against is QEMU growing its
 * scoreboards for a new vCPU at that very moment; the window is that of one
 * thread creation while the run is being interrupted.
 */
static gpointer control_thread(gpointer data)
{
  struct plugin_rig *r = data;
  int fd = open(r->opts.control_path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    fprintf(stderr, "jitflush plugin: cannot open %s: %s\n", r->opts.control_path,
            g_strerror(errno));
    return NULL;
  }
  char byte;
  ssize_t n;
  do {
    n = read(fd, &byte, 1);
  } while (n < 0 && errno == EINTR);
  close(fd);
  if (n == 1) {
    report_once(r, true);
    if (r->opts.exec_of_path) {
      plugin_fork_report(r); /* what the run that executed this one merges */
    }
  }
  return NULL;
}

/* ---- the rig's life ------------------------------------------------------------ */

static void rig_free(struct plugin_rig *r)
{
  plugin_instrument_attach(NULL);
  /* In the reverse of rig_start's order: a service goes before those it
   * was built on (the checkpoint's writer before the findings it writes,
   * the store before the model and the views it feeds). */
  plugin_checkpoint_free(r->checkpoint);
  g_free(r->checkpoint_line);
  plugin_fork_free(r);
  plugin_entropy_free(r->entropy);
  plugin_signals_free(r->signals);
  plugin_region_free(r->region);
  report_findings_free(r->findings);
  plugin_unwind_free(r->unwind);
  plugin_store_free(r->store);
  g_clear_pointer(&r->kernel, model_kernel_free);
  g_clear_pointer(&r->model, model_free);
  plugin_alias_free(r->alias);
  plugin_hotplug_free(r->hotplug);
  g_clear_pointer(&r->repeat_logs, g_ptr_array_unref); /* the logs are kept */
  plugin_keep_free(r->keep);
  plugin_regs_free(r->regs);
  g_clear_pointer(&r->vcpus, qemu_plugin_scoreboard_free);
  plugin_turns_free(r->turns);
  plugin_sched_free(r->sched);
  plugin_decoder_close(r->decoder);
  g_clear_pointer(&r->config, rig_config_free);
  g_mutex_clear(&r->report_lock);
  g_free(r->image.path);
  for (size_t i = 0; i < G_N_ELEMENTS(text_options); i++) {
    g_free((char *)*option_text(&r->opts, i));
  }
  g_mutex_clear(&r->lock);
  g_aligned_free(r);
}

static uint64_t view_canon(uint64_t va, void *ctx)
{
  const struct plugin_rig *r = ctx;
  return plugin_alias_canon(r->alias, va);
}

static bool view_nonexec(uint64_t va, void *ctx)
{
  const struct plugin_rig *r = ctx;
  return plugin_alias_nonexec_view(r->alias, va);
}

static void view_store(void *ctx, uint64_t va, unsigned bytes, uint64_t writer_pc)
{
  plugin_alias_note_store(ctx, va, bytes, writer_pc);
}

/* The coherence model of this config's clusters, over plugin_alias.c's
 * view of double-mapped code. */
static struct model *new_model(struct plugin_rig *r)
{
  unsigned n = r->config->nclusters;
  uint64_t *ctr = g_new0(uint64_t, n);
  for (unsigned c = 0; c < n; c++) {
    ctr[c] = r->config->clusters[c].ctr;
  }
  const struct model_views views = {view_canon, view_nonexec, r};
  struct model *m = model_new(ctr, n, &views);
  g_free(ctr);
  return m;
}

/* Creates every unit of the rig from its options, or says why not. */
static bool rig_start(struct plugin_rig *r, GError **error)
{
  r->config = rig_config_load(r->opts.config_path, error);
  if (!r->config) {
    return false;
  }
  r->decoder = plugin_decoder_open(error);
  if (!r->decoder) {
    return false;
  }
  r->sched = plugin_sched_new(r, error);
  if (!r->sched) {
    return false;
  }
  r->turns = plugin_turns_new(plugin_rig_seed(r), r->opts.quantum, !r->opts.parallel);
  r->vcpus = qemu_plugin_scoreboard_new(sizeof(struct plugin_vcpu));
  r->regs = plugin_regs_new();
  r->keep = plugin_keep_new();
  r->hotplug = plugin_hotplug_new(r->config);
  r->alias = plugin_alias_new();
  r->model = new_model(r);
  r->kernel = model_kernel_new(r->model, plugin_rig_exec_map_sync(r) == RIG_EXEC_MAP_SYNC_NONE
                                             ? MODEL_KERNEL_SYNC_NONE
                                             : MODEL_KERNEL_SYNC_LINUX);
  model_kernel_set_version(r->kernel, r->config->kernel_linux == RIG_KERNEL_LINUX_ANON_SKIP
                                          ? MODEL_KERNEL_ANON_SKIP
                                          : MODEL_KERNEL_6X);
  r->store = plugin_store_new(r);
  plugin_store_watch(r->store, view_store, r);
  plugin_store_after_locked(r->store, plugin_selfstore_on_store);
  r->findings = report_findings_new(r->config);
  report_findings_set_reproduce(r->findings, r->opts.reproduce);
  report_findings_set_rerun(r->findings, r->opts.rerun, r->opts.unrecorded);
  report_findings_set_sarif_root(r->findings, r->opts.sarif_root);
  r->unwind = plugin_unwind_new();
  r->region = plugin_region_new();
  r->signals = plugin_signals_new();
  r->entropy = plugin_entropy_new(plugin_rig_seed(r));
  return true;
}

/* ---- callbacks ---------------------------------------------------------------- */

static void on_vcpu_init(unsigned int vcpu)
{
  plugin_rig_lock(rig);
  if (!rig->image.path) {
    /* QEMU answers these only on a vCPU thread (plugin_guest_image). */
    rig->image.path = g_strdup(qemu_plugin_path_to_binary());
    rig->image.start_code = qemu_plugin_start_code();
    /* The guest starts: from now on a killed QEMU ends a run that ran. */
    plugin_checkpoint_wake(rig->checkpoint);
  }
  plugin_rig_unlock(rig);
  plugin_regs_vcpu_init(rig->regs);
  /* A new thread may take the index, and the flag, of one that exited in
   * its exit syscall. */
  plugin_store_syscall(rig->store, vcpu, false);
  plugin_sched_vcpu_init(rig, vcpu);
  /* Waiting for its first turn, the thread holds no model record, as in a
   * system call: memory other threads unmap meanwhile may be freed. */
  plugin_store_syscall(rig->store, vcpu, true);
  plugin_turns_thread_start(rig, vcpu);
  plugin_store_syscall(rig->store, vcpu, false);
}

static void on_vcpu_exit(unsigned int vcpu)
{
  plugin_rig_lock(rig);
  plugin_instrument_vcpu_exit(vcpu);
  plugin_rig_unlock(rig);
  plugin_sched_vcpu_exit(rig, vcpu);
  plugin_turns_thread_exit(rig, vcpu);
}

static void process_reports(struct plugin_rig *r);

/* An exec replaces the process (plugin_exec.c): no exit callback runs, so
 * its reports are written first, as at a normal exit; a failed exec lets
 * them be written again at the real one. */
static void reports_before_exec(struct plugin_rig *r, bool undo)
{
  if (undo) {
    g_mutex_lock(&r->report_lock);
    r->reported = false;
    g_mutex_unlock(&r->report_lock);
    return;
  }
  plugin_rig_lock(r);
  report_findings_note_exit(r->findings);
  plugin_rig_unlock(r);
  process_reports(r);
}

static void on_syscall(qemu_plugin_id_t id, unsigned int vcpu, int64_t num, uint64_t a1,
                       uint64_t a2, uint64_t a3, uint64_t a4, uint64_t a5, uint64_t a6, uint64_t a7,
                       uint64_t a8)
{
  (void)id;
  (void)a7;
  (void)a8;
  const uint64_t args[6] = {a1, a2, a3, a4, a5, a6};
  /* This thread's stale repeats go into the findings first: the call may
   * hand the turn over. Then, before anything the call may show outside
   * the guest, the findings so far are kept (plugin_checkpoint.c). */
  plugin_instrument_fold_own();
  plugin_checkpoint_sync(rig->checkpoint);
  plugin_vcpu(rig, vcpu)->counts.syscalls++;
  if (num == RIG_GUEST_NR_CLONE && !rig_guest_clone_is_thread(a1)) {
    plugin_rig_lock(rig);
    rig->forked = true;
    plugin_rig_unlock(rig);
  }
  plugin_store_syscall(rig->store, vcpu, true);
  plugin_findings_syscall(rig, num);
  if (num == GUEST_NR_MMAP || num == GUEST_NR_MPROTECT) {
    /* QEMU's pc is past the svc by now. A syscall callback takes no flags
     * argument, so it may read registers (qemu-plugin.h). */
    uint64_t pc = 0;
    bool have_pc = plugin_regs_read(rig->regs, PLUGIN_REG_PC, &pc) && pc >= 4;
    plugin_alias_syscall_site(have_pc ? pc - 4 : 0, plugin_regs_read_x(rig->regs, GUEST_XREG_LR));
  }
  plugin_alias_syscall(rig, num, args);
  plugin_exec_syscall(rig, num, args, reports_before_exec);
  plugin_signals_syscall(rig, num, args);
  plugin_entropy_syscall(rig->entropy, vcpu, num, args);
  plugin_hotplug_poll(rig, vcpu);
  plugin_sched_syscall(rig, vcpu, num, a1, a2, a3);
  if (plugin_turns_syscall(rig, vcpu, num, a1, a2)) {
    /* exit_group: the reports are written while the other threads still
     * wait for their turn, so that nothing they would run while QEMU
     * stops them changes a count (plugin_turns.c); then they go. */
    if (getpid() == rig->install_pid) {
      rig->exit_status = (int)(a1 & 0xff); /* what the parent's wait sees */
      report_once(rig, false);
    }
    plugin_store_parallel(rig->store);
    plugin_turns_finish(rig->turns);
  }
}

static void on_syscall_ret(qemu_plugin_id_t id, unsigned int vcpu, int64_t num, int64_t ret)
{
  (void)id;
  /* First: a thread back from a call that gave its turn up waits for its
   * next before it does anything else. */
  plugin_turns_syscall_ret(rig, vcpu, num, ret);
  plugin_fork_syscall_ret(rig, vcpu, num, ret);
  plugin_alias_syscall_ret(rig, num, ret);
  plugin_sched_syscall_ret(rig, vcpu, num, ret);
  plugin_turns_await_child(rig, vcpu, num, ret);
  plugin_entropy_syscall_ret(rig->entropy, vcpu, num, ret);
  plugin_store_syscall(rig->store, vcpu, false);
  /* A syscall's return synchronises the context (plugin_alias.c). */
  plugin_alias_refresh_views(rig);
}

/* The reports of the process that ends: the run's (the process QEMU
 * started), or its own for the runner to merge (a process the guest forked;
 * and, with exec-of=, the process QEMU started too: plugin_fork.c). */
static void process_reports(struct plugin_rig *r)
{
  if (getpid() == r->install_pid) {
    plugin_findings_at_exit(r);
    report_once(r, false);
    if (r->opts.exec_of_path) {
      plugin_fork_report(r);
    }
  } else if (plugin_fork_is_child(r)) {
    plugin_fork_report(r);
  }
}

static void on_exit(void)
{
  /* A forked child inherits the plugin's state; only the process QEMU
   * started writes the report, a child its own findings for the runner to
   * merge (plugin_fork.c). No other vCPU runs now (QEMU's exit is an
   * exclusive section): every thread's stale repeats go in first. */
  plugin_rig_lock(rig);
  plugin_instrument_fold_all();
  plugin_rig_unlock(rig);
  process_reports(rig);
  if (rig->control) {
    /* The control thread may still wait in read() and holds the rig: the
     * process ends right after this callback, so the rig stays. */
    return;
  }
  rig_free(rig);
  rig = NULL;
}

/*
 * A guest fork is a host fork of QEMU's thread that made it: the child has
 * only that thread, and a lock another thread held at that moment would
 * stay held forever. Threads waiting for their turn take the schedule's
 * lock as they wake (plugin_turns.c), and any callback may hold the rig's,
 * so the forking thread takes both before the fork and gives them back on
 * both sides after it.
 */
static void before_fork(void)
{
  if (rig) {
    plugin_rig_lock(rig);
    plugin_turns_lock(rig->turns);
  }
}

static void after_fork(void)
{
  if (rig) {
    plugin_turns_unlock(rig->turns);
    plugin_rig_unlock(rig);
  }
}

/* ---- install ------------------------------------------------------------------- */

/* The index of TEXT in NAMES (NULL-terminated), or -1. */
static int name_index(const char *const names[], const char *text)
{
  for (int i = 0; names[i]; i++) {
    if (g_strcmp0(text, names[i]) == 0) {
      return i;
    }
  }
  return -1;
}

/* Returns NULL when TEXT is a whole unsigned number, else the error. */
static char *parse_u64(const char *key, const char *text, uint64_t *out)
{
  char *end = NULL;
  errno = 0;
  if (*text == '\0' || *text == '-') {
    return g_strdup_printf("%s: not a number: '%s'", key, text);
  }
  *out = g_ascii_strtoull(text, &end, 0);
  if (errno != 0 || *end != '\0') {
    return g_strdup_printf("%s: not a number: '%s'", key, text);
  }
  return NULL;
}

/* One KEY=VALUE argument into O; NULL, or the error. */
static char *parse_option(struct plugin_options *o, const char *opt)
{
  g_auto(GStrv) kv = g_strsplit(opt, "=", 2);
  if (!kv[0] || !kv[1]) {
    return g_strdup_printf("expected key=value, got '%s'", opt);
  }
  const char *key = kv[0];
  const char *value = kv[1];
  for (size_t i = 0; i < G_N_ELEMENTS(text_options); i++) {
    if (g_strcmp0(key, text_options[i].key) == 0) {
      const char **path = option_text(o, i);
      g_free((char *)*path);
      *path = g_strdup(value);
      return NULL;
    }
  }
  if (g_strcmp0(key, RIG_OPT_SEED) == 0) {
    o->have_seed = true;
    return parse_u64(key, value, &o->seed);
  } else if (g_strcmp0(key, RIG_OPT_MIGRATE_EVERY) == 0) {
    o->have_migrate_every = true;
    char *err = parse_u64(key, value, &o->migrate_every);
    if (!err && o->migrate_every > (UINT64_C(1) << 40)) {
      err = g_strdup_printf("%s: too large: '%s'", key, value);
    }
    return err;
  } else if (g_strcmp0(key, RIG_OPT_POLICY) == 0) {
    int i = name_index(rig_sched_policy_names, value);
    o->have_policy = i >= 0;
    o->policy = (enum rig_sched_policy)MAX(i, 0);
    if (!o->have_policy) {
      return g_strdup_printf("policy: expected adversarial or random, got '%s'", value);
    }
  } else if (g_strcmp0(key, RIG_OPT_EXEC_MAP_SYNC) == 0) {
    int i = name_index(rig_exec_map_sync_names, value);
    o->have_exec_map_sync = i >= 0;
    o->exec_map_sync = (enum rig_exec_map_sync)MAX(i, 0);
    if (!o->have_exec_map_sync) {
      return g_strdup_printf("%s: expected linux or none, got '%s'", key, value);
    }
  } else if (g_strcmp0(key, RIG_OPT_SCHEDULE) == 0) {
    o->parallel = g_strcmp0(value, "parallel") == 0;
    if (!o->parallel && g_strcmp0(value, "turns") != 0) {
      return g_strdup_printf("schedule: expected turns or parallel, got '%s'", value);
    }
  } else if (g_strcmp0(key, RIG_OPT_QUANTUM) == 0) {
    char *err = parse_u64(key, value, &o->quantum);
    if (!err && (o->quantum == 0 || o->quantum > (UINT64_C(1) << 40))) {
      err = g_strdup_printf("%s: expected 1 to 2^40, got '%s'", key, value);
    }
    return err;
  } else if (g_strcmp0(key, RIG_OPT_REPORT_WHEN) == 0) {
    o->report_only_findings = g_strcmp0(value, "findings") == 0;
    if (!o->report_only_findings && g_strcmp0(value, "always") != 0) {
      return g_strdup_printf("%s: expected always or findings, got '%s'", key, value);
    }
  } else if (g_strcmp0(key, RIG_OPT_INSTRUMENT) == 0) {
    o->every_block = g_strcmp0(value, "every-block") == 0;
    if (!o->every_block && g_strcmp0(value, "observing") != 0) {
      return g_strdup_printf("%s: expected observing or every-block, got '%s'", key, value);
    }
  } else if (g_strcmp0(key, RIG_OPT_CHECK) == 0) {
    /* full: the model on every fetch of a checked word, no fast path */
    o->check_full = g_strcmp0(value, "full") == 0;
    if (o->check_full) {
      o->check = true;
    } else if (!qemu_plugin_bool_parse(key, value, &o->check)) {
      return g_strdup_printf("check: expected on, off or full, got '%s'", value);
    }
  } else {
    return g_strdup_printf("unknown option '%s'", key);
  }
  return NULL;
}

/* The options into O; NULL, or the error. */
static char *parse_options(struct plugin_options *o, int argc, char **argv)
{
  o->check = true;
  for (int i = 0; i < argc; i++) {
    char *err = parse_option(o, argv[i]);
    if (err) {
      return err;
    }
  }
  if (!o->config_path) {
    return g_strdup(RIG_OPT_CONFIG "=PATH is required");
  }
  return NULL;
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info, int argc,
                                           char **argv)
{
  /* Lines of its own: the lock and the epoch change at every event, and a
   * neighbour in the same 64-byte line that another thread writes made the
   * 3-instruction loop of docs/BENCHMARKS.md's speed table 20% slower, or
   * not, with the struct's size (#rig-layout in docs/MEASUREMENTS.md). */
  struct plugin_rig *r =
      g_aligned_alloc0(1, PLUGIN_RIG_LINES(sizeof(struct plugin_rig)), PLUGIN_RIG_LINE);
  g_mutex_init(&r->lock);
  g_mutex_init(&r->report_lock);
  char *err = parse_options(&r->opts, argc, argv);
  if (err) {
    fprintf(stderr, "jitflush plugin: option parsing failed: %s\n", err);
    g_free(err);
    rig_free(r);
    return -1;
  }
  char *mismatch = plugin_qemu_api_mismatch(info);
  if (mismatch) {
    plugin_selfcheck_refuse(&r->opts, mismatch);
    g_free(mismatch);
    rig_free(r);
    return -1;
  }
  if (info->system_emulation || g_strcmp0(info->target_name, "aarch64") != 0) {
    fprintf(stderr, "jitflush plugin: needs qemu-aarch64 user mode, not %s%s\n", info->target_name,
            info->system_emulation ? " system" : "");
    rig_free(r);
    return -1;
  }
  GError *start_err = NULL;
  if (!rig_start(r, &start_err)) {
    fprintf(stderr, "jitflush plugin: %s\n", start_err->message);
    g_error_free(start_err);
    rig_free(r);
    return -1;
  }
  r->install_pid = getpid();
  r->exit_status = -1;
  if (r->opts.exec_of_path) {
    plugin_fork_executed(r);
  }
  rig = r;
  plugin_instrument_attach(r);
  if (r->opts.control_path) {
    r->control = g_thread_new("jitflush-control", control_thread, r);
  }
  if (r->opts.checkpoint_path) {
    r->checkpoint = plugin_checkpoint_new(write_checkpoint, r);
  }

  pthread_atfork(before_fork, after_fork, after_fork);
  plugin_qemu_on_vcpu_init(id, on_vcpu_init);
  plugin_qemu_on_vcpu_exit(id, on_vcpu_exit);
  qemu_plugin_register_vcpu_tb_trans_cb(id, plugin_instrument_tb);
  qemu_plugin_register_vcpu_syscall_cb(id, on_syscall);
  qemu_plugin_register_vcpu_syscall_ret_cb(id, on_syscall_ret);
  plugin_qemu_on_exit(id, on_exit);
  return 0;
}
