/*
 * jitflush's QEMU user-mode TCG plugin: the emulated big.LITTLE rig
 * (docs/RIG.md). This file installs the plugin, parses its
 * arguments and writes the report at exit; the other plugin*.c files hold
 * the scheduler, the coherence model, the decoder and the instrumentation.
 *
 *   -plugin libjitflush_plugin.so,config=PATH[,seed=N][,report=PATH]
 *           [,summary=PATH][,migrate-every=N][,check=on|off|full]
 *           [,policy=adversarial|random][,findings=PATH][,sarif=PATH]
 *           [,overlay=DIR]
 *
 * overlay=DIR is the generated ROOT/sys/devices/system/cpu, which hotplug
 * events rewrite (plugin_hotplug.c).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "emu_json.h"
#include "plugin.h"

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

GMutex jf_lock;
struct emu_config *jf_config;
struct jf_options jf_opts;
struct qemu_plugin_scoreboard *jf_score;
struct jf_model *jf_model;

/* A forked child inherits the plugin's state; only the process QEMU
 * started writes the report. */
static pid_t install_pid;

uint64_t jf_visible_ctr(unsigned cpu)
{
  if (jf_config->ctr_trap == EMU_CTR_TRAP_SANITIZE) {
    return jf_config->sanitized_ctr;
  }
  return jf_config->clusters[jf_cluster_of(cpu)].ctr;
}

struct jf_clock_counts jf_clock_totals(void)
{
  struct jf_clock_counts sum = {0, 0};
  for (int i = 0; i < qemu_plugin_num_vcpus(); i++) {
    struct jf_clock_counts c = jf_score_counts(jf_vcpu_score((unsigned)i));
    sum.insns += c.insns;
    sum.fetch_checks += c.fetch_checks;
  }
  return sum;
}

/* ---- report ---------------------------------------------------------------- */

struct totals {
  uint64_t stale_fetches, fetch_checks, migrations, ctr_reads, dc_ops, ic_ops, isb, insns;
};

#define SUM(field)                                                                                 \
  qemu_plugin_u64_sum(qemu_plugin_scoreboard_u64_in_struct(jf_score, struct jf_vcpu_score, field))

static struct totals collect_totals(void)
{
  struct jf_clock_counts counted = jf_clock_totals();
  struct totals t = {
      .stale_fetches = SUM(stale_fetches),
      .fetch_checks = counted.fetch_checks,
      .migrations = SUM(migrations),
      .ctr_reads = SUM(ctr_reads),
      .dc_ops = SUM(dc_ops),
      .ic_ops = SUM(ic_ops),
      .isb = SUM(isb),
      .insns = counted.insns,
  };
  return t;
}

/* FINDINGS: the "stale", "findings" and "ctr_read_sites" members. */
static GString *build_report(const struct totals *t, uint64_t seed, const char *findings)
{
  GString *json = g_string_new("{\n  \"config\": ");
  emu_json_string(json, jf_config->path);
  g_string_append(json, ",\n  \"soc\": ");
  emu_json_string(json, jf_config->soc_name ? jf_config->soc_name : "");
  g_string_append_printf(
      json,
      ",\n  \"seed\": %" PRIu64 ",\n  \"check\": %s,\n  \"policy\": \"%s\",\n"
      "  \"stale_fetches\": %" PRIu64 ",\n  \"fetch_checks\": %" PRIu64 ",\n"
      "  \"migrations\": %" PRIu64 ",\n  \"ctr_reads\": %" PRIu64 ",\n"
      "  \"midr_reads\": %" PRIu64 ",\n"
      "  \"dc_ops\": %" PRIu64 ",\n  \"ic_ops\": %" PRIu64 ",\n"
      "  \"isb\": %" PRIu64 ",\n  \"threads\": %u,\n  \"cores\": [",
      seed, jf_opts.check ? "true" : "false",
      emu_sched_policy_names[jf_opts.have_policy ? jf_opts.policy : jf_config->policy],
      t->stale_fetches, t->fetch_checks, t->migrations, t->ctr_reads, SUM(midr_reads), t->dc_ops,
      t->ic_ops, t->isb, jf_sched_nthreads());
  for (unsigned cpu = 0; cpu < jf_config->ncpus; cpu++) {
    const struct emu_cluster *cl = &jf_config->clusters[jf_cluster_of(cpu)];
    g_string_append_printf(json, "%s\n    {\"cpu\": %u, \"cluster\": ", cpu ? "," : "", cpu);
    emu_json_string(json, cl->name);
    g_string_append_printf(json,
                           ", \"online\": %s, \"midr\": \"0x%" PRIx64 "\", \"ctr\": \"0x%" PRIx64
                           "\", \"instructions\": %" PRIu64 "}",
                           jf_config->cpus[cpu].online ? "true" : "false", cl->midr, cl->ctr,
                           jf_sched_cpu_insns(cpu));
  }
  g_string_append(json, "\n  ]");
  g_string_append(json, findings);
  g_string_append_printf(json, ",\n  \"syscalls\": %" PRIu64, SUM(syscalls));
  g_string_append(json, ",\n  \"regions\": ");
  jf_region_report(json);
  g_string_append(json, "\n}\n");
  return json;
}

void jf_write_file(const char *path, const GString *text)
{
  GError *err = NULL;
  if (!g_file_set_contents(path, text->str, (gssize)text->len, &err)) {
    fprintf(stderr, "jitflush plugin: cannot write %s: %s\n", path, err->message);
    g_error_free(err);
  }
}

/* ---- callbacks ---------------------------------------------------------------- */

static void on_vcpu_init(qemu_plugin_id_t id, unsigned int vcpu)
{
  (void)id;
  jf_instrument_vcpu_init(vcpu);
  jf_sched_vcpu_init(vcpu);
}

static void on_vcpu_exit(qemu_plugin_id_t id, unsigned int vcpu)
{
  (void)id;
  jf_sched_vcpu_exit(vcpu);
}

static void on_syscall(qemu_plugin_id_t id, unsigned int vcpu, int64_t num, uint64_t a1,
                       uint64_t a2, uint64_t a3, uint64_t a4, uint64_t a5, uint64_t a6, uint64_t a7,
                       uint64_t a8)
{
  (void)id;
  (void)a7;
  (void)a8;
  const uint64_t args[6] = {a1, a2, a3, a4, a5, a6};
  jf_vcpu_score(vcpu)->syscalls++;
  jf_alias_syscall(num, args);
  jf_sched_syscall(vcpu, num, a1, a2, a3);
}

static void on_syscall_ret(qemu_plugin_id_t id, unsigned int vcpu, int64_t num, int64_t ret)
{
  (void)id;
  jf_alias_syscall_ret(num, ret);
  jf_sched_syscall_ret(vcpu, num, ret);
}

static void on_exit(qemu_plugin_id_t id, void *udata)
{
  (void)id;
  (void)udata;
  if (getpid() == install_pid) {
    jf_sched_credit_all();
    struct totals t = collect_totals();
    uint64_t seed = jf_opts.have_seed ? jf_opts.seed : jf_config->seed;
    /* Symbolises the guest's code once for the three forms. */
    GString *members = g_string_new(NULL);
    jf_findings_report(members, jf_opts.findings_path, jf_opts.sarif_path);
    if (jf_opts.report_path) {
      GString *json = build_report(&t, seed, members->str);
      jf_write_file(jf_opts.report_path, json);
      g_string_free(json, true);
    }
    if (jf_opts.summary_path) {
      /* insns tells the runner whether the guest ran at all: QEMU also
       * calls this when it gives up before the first guest instruction
       * (no loader, a bad -cpu), and all-zero counters must not pass for
       * a clean run. */
      GString *line = g_string_new(NULL);
      g_string_printf(line,
                      "stale_fetches=%" PRIu64 " fetch_checks=%" PRIu64 " migrations=%" PRIu64
                      " ctr_reads=%" PRIu64 " dc_ops=%" PRIu64 " ic_ops=%" PRIu64 " isb=%" PRIu64
                      " insns=%" PRIu64 " findings=%u\n",
                      t.stale_fetches, t.fetch_checks, t.migrations, t.ctr_reads, t.dc_ops,
                      t.ic_ops, t.isb, t.insns, jf_findings_count());
      jf_write_file(jf_opts.summary_path, line);
      g_string_free(line, true);
    }
    g_string_free(members, true);
  }
  jf_instrument_free();
  jf_store_free();
  jf_region_free();
  jf_findings_free();
  g_clear_pointer(&jf_model, jf_model_free);
  jf_alias_free();
  jf_hotplug_free();
  jf_sched_free();
  jf_decoder_close();
  qemu_plugin_scoreboard_free(jf_score);
  emu_config_free(jf_config);
  jf_config = NULL;
}

/* ---- install ------------------------------------------------------------------- */

static uint64_t view_canon(uint64_t va, void *ctx)
{
  (void)ctx;
  return jf_alias_canon(va);
}

static bool view_nonexec(uint64_t va, void *ctx)
{
  (void)ctx;
  return jf_alias_nonexec_view(va);
}

/* The coherence model of this config's clusters, over plugin_alias.c's
 * view of double-mapped code. */
static struct jf_model *new_model(void)
{
  unsigned n = jf_config->nclusters;
  struct jf_model_geometry *geo = g_new0(struct jf_model_geometry, n);
  for (unsigned c = 0; c < n; c++) {
    jf_model_geometry_from_ctr(jf_config->clusters[c].ctr, &geo[c]);
  }
  const struct jf_model_views views = {view_canon, view_nonexec, NULL};
  struct jf_model *m = jf_model_new(geo, n, &views);
  g_free(geo);
  return m;
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

static char *parse_option(const char *opt)
{
  g_auto(GStrv) kv = g_strsplit(opt, "=", 2);
  if (!kv[0] || !kv[1]) {
    return g_strdup_printf("expected key=value, got '%s'", opt);
  }
  const char *key = kv[0];
  const char *value = kv[1];
  if (g_strcmp0(key, "config") == 0) {
    jf_opts.config_path = g_strdup(value);
  } else if (g_strcmp0(key, "report") == 0) {
    jf_opts.report_path = g_strdup(value);
  } else if (g_strcmp0(key, "overlay") == 0) {
    jf_opts.overlay_path = g_strdup(value);
  } else if (g_strcmp0(key, "summary") == 0) {
    jf_opts.summary_path = g_strdup(value);
  } else if (g_strcmp0(key, "seed") == 0) {
    jf_opts.have_seed = true;
    return parse_u64(key, value, &jf_opts.seed);
  } else if (g_strcmp0(key, "migrate-every") == 0) {
    jf_opts.have_migrate_every = true;
    char *err = parse_u64(key, value, &jf_opts.migrate_every);
    if (!err && jf_opts.migrate_every > (UINT64_C(1) << 40)) {
      err = g_strdup_printf("%s: too large: '%s'", key, value);
    }
    return err;
  } else if (g_strcmp0(key, "findings") == 0) {
    jf_opts.findings_path = g_strdup(value);
  } else if (g_strcmp0(key, "sarif") == 0) {
    jf_opts.sarif_path = g_strdup(value);
  } else if (g_strcmp0(key, "policy") == 0) {
    for (int i = 0; emu_sched_policy_names[i]; i++) {
      if (g_strcmp0(value, emu_sched_policy_names[i]) == 0) {
        jf_opts.policy = (enum emu_sched_policy)i;
        jf_opts.have_policy = true;
      }
    }
    if (!jf_opts.have_policy) {
      return g_strdup_printf("policy: expected adversarial or random, got '%s'", value);
    }
  } else if (g_strcmp0(key, "check") == 0) {
    /* full: the model on every fetch of a checked word, no fast path */
    jf_opts.check_full = g_strcmp0(value, "full") == 0;
    if (jf_opts.check_full) {
      jf_opts.check = true;
    } else if (!qemu_plugin_bool_parse(key, value, &jf_opts.check)) {
      return g_strdup_printf("check: expected on, off or full, got '%s'", value);
    }
  } else {
    return g_strdup_printf("unknown option '%s'", key);
  }
  return NULL;
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info, int argc,
                                           char **argv)
{
  memset(&jf_opts, 0, sizeof(jf_opts));
  jf_opts.check = true;
  for (int i = 0; i < argc; i++) {
    char *err = parse_option(argv[i]);
    if (err) {
      fprintf(stderr, "jitflush plugin: option parsing failed: %s\n", err);
      g_free(err);
      return -1;
    }
  }
  if (!jf_opts.config_path) {
    fprintf(stderr, "jitflush plugin: option parsing failed: config=PATH is "
                    "required\n");
    return -1;
  }
  if (info->system_emulation || g_strcmp0(info->target_name, "aarch64") != 0) {
    fprintf(stderr, "jitflush plugin: needs qemu-aarch64 user mode, not %s%s\n", info->target_name,
            info->system_emulation ? " system" : "");
    return -1;
  }

  GError *gerr = NULL;
  jf_config = emu_config_load(jf_opts.config_path, &gerr);
  if (!jf_config) {
    fprintf(stderr, "jitflush plugin: %s\n", gerr ? gerr->message : jf_opts.config_path);
    g_clear_error(&gerr);
    return -1;
  }
  char *err = NULL;
  if (!jf_decoder_open(&err) || !jf_sched_init(&err) || !jf_hotplug_init(&err)) {
    fprintf(stderr, "jitflush plugin: %s\n", err);
    g_free(err);
    return -1;
  }
  jf_model = new_model();
  jf_store_init();
  jf_alias_init();
  jf_findings_init();
  jf_region_init();
  jf_score = qemu_plugin_scoreboard_new(sizeof(struct jf_vcpu_score));
  install_pid = getpid();

  qemu_plugin_register_vcpu_init_cb(id, on_vcpu_init);
  qemu_plugin_register_vcpu_exit_cb(id, on_vcpu_exit);
  qemu_plugin_register_vcpu_tb_trans_cb(id, jf_instrument_tb);
  qemu_plugin_register_vcpu_syscall_cb(id, on_syscall);
  qemu_plugin_register_vcpu_syscall_ret_cb(id, on_syscall_ret);
  qemu_plugin_register_atexit_cb(id, on_exit, NULL);
  return 0;
}
