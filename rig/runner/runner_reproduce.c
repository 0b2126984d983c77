/*
 * What a run records so that it can be run again exactly as it was
 * (runner_reproduce.h, docs/FINDINGS.md "Reruns"): the command line with
 * every option written out, the working folder, and the environment.
 *
 * Why the environment: QEMU hands its own environment to the guest, and a
 * program's code path can hang on it (a Python guest whose JIT module
 * comes from PYTHONPATH fails to import without it, and its rerun then
 * found nothing and read as a clean run); its size alone moves the guest's
 * instruction counts, and with them the turns and migrations (docs/RIG.md,
 * "Reproducible runs"). Why a file of its own: it holds whatever secrets
 * the caller had (CI tokens), so it stays out of the report, the SARIF log
 * and stderr, which are shown and uploaded, and only its owner may read it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <glib.h>

#include "rig_config.h"
#include "rig_contract.h"
#include "runner_args.h"
#include "runner_reproduce.h"

/* WORD for a POSIX shell: as it is when it needs no quoting. */
static void append_shell_word(GString *cmd, const char *word)
{
  bool plain = *word != '\0';
  for (const char *p = word; *p && plain; p++) {
    plain = g_ascii_isalnum(*p) || strchr("_./:=@%+,-", *p);
  }
  if (plain) {
    g_string_append_printf(cmd, " %s", word);
  } else {
    char *q = g_shell_quote(word);
    g_string_append_printf(cmd, " %s", q);
    g_free(q);
  }
}

/* The command line that reproduces this run: the same program, config,
 * sysroot and sysfs root as absolute paths, the seed, the policy and the
 * schedule (with its quantum) written out (a later default cannot change
 * them), --check, --exec-map-sync, --timeout and --no-follow-exec when
 * given; shell quoted. Reports and SARIF carry it, so that a finding seen
 * once, in CI say, can be run again exactly as it was (docs/RIG.md,
 * "Reproducible runs"). */
char *runner_reproduce_command(const struct runner_options *o, const struct rig_config *cfg)
{
  GString *cmd = g_string_new("jitflush-emu");
  char seed_text[24];
  g_snprintf(seed_text, sizeof seed_text, "%" PRIu64, o->seed_text ? o->seed : cfg->seed);
  char *config = runner_args_absolute(o->config);
  const char *policy = o->policy ? o->policy : rig_sched_policy_names[cfg->policy];
  const char *schedule = o->schedule ? o->schedule : RIG_SCHEDULE_DEFAULT;
  char quantum_text[24];
  g_snprintf(quantum_text, sizeof quantum_text, "%" PRIu64,
             o->quantum_text ? o->quantum : (uint64_t)RIG_QUANTUM_DEFAULT);
  bool turns = strcmp(schedule, "turns") == 0;
  const char *words[] = {"--config", config,       "--seed", seed_text,   "--policy",
                         policy,     "--schedule", schedule, "--quantum", quantum_text};
  /* A parallel run has no turns: no quantum. */
  for (size_t i = 0; i < G_N_ELEMENTS(words) - (turns ? 0 : 2); i++) {
    append_shell_word(cmd, words[i]);
  }
  g_free(config);
  const struct {
    const char *flag, *value;
    bool path;
  } given[] = {{"--check", o->check, false},           {"--exec-map-sync", o->exec_map_sync, false},
               {"--instrument", o->instrument, false}, {"--timeout", o->timeout_text, false},
               {"--sysroot", o->sysroot, true},        {"--sysfs-root", o->sysfs_root, true}};
  for (size_t i = 0; i < G_N_ELEMENTS(given); i++) {
    if (!given[i].value) {
      continue;
    }
    char *value = given[i].path ? runner_args_absolute(given[i].value) : g_strdup(given[i].value);
    append_shell_word(cmd, given[i].flag);
    append_shell_word(cmd, value);
    g_free(value);
  }
  if (o->no_follow_exec) {
    append_shell_word(cmd, "--no-follow-exec");
  }
  g_string_append(cmd, " --");
  for (char **a = o->program; *a; a++) {
    /* The program by absolute path when it was given by one relative to
     * here; its arguments as they were. */
    char *word = a == o->program && strchr(*a, '/') ? runner_args_absolute(*a) : g_strdup(*a);
    append_shell_word(cmd, word);
    g_free(word);
  }
  return g_string_free(cmd, FALSE);
}

char *runner_reproduce_rerun_line(const char *report)
{
  GString *cmd = g_string_new("jitflush-emu --reproduce");
  char *abs = runner_args_absolute(report);
  append_shell_word(cmd, abs);
  g_free(abs);
  return g_string_free(cmd, FALSE);
}

char *runner_reproduce_env_path(const char *report)
{
  return g_strconcat(report, RUNNER_REPRODUCE_ENV_SUFFIX, NULL);
}

bool runner_reproduce_env_write(const char *report, char *const *env, GError **error)
{
  GString *text = g_string_new(NULL);
  for (char *const *e = env; *e; e++) {
    g_string_append_len(text, *e, (gssize)strlen(*e) + 1); /* with its NUL */
  }
  char *path = runner_reproduce_env_path(report);
  /* Written beside and renamed over (CONSISTENT), so that the file is new,
   * 0600 from its creation, whatever mode or link was at PATH before. */
  bool ok = g_file_set_contents_full(path, text->str, (gssize)text->len,
                                     G_FILE_SET_CONTENTS_CONSISTENT, 0600, error);
  g_free(path);
  g_string_free(text, TRUE);
  return ok;
}

char **runner_reproduce_env_read(const char *path, GError **error)
{
  char *text = NULL;
  gsize len = 0;
  if (!g_file_get_contents(path, &text, &len, error)) {
    return NULL;
  }
  GPtrArray *env = g_ptr_array_new_with_free_func(g_free);
  bool ok = len == 0 || text[len - 1] == '\0';
  for (gsize at = 0; ok && at < len;) {
    const char *entry = text + at;
    const char *eq = strchr(entry, '=');
    ok = eq && eq != entry;
    g_ptr_array_add(env, g_strdup(entry));
    at += strlen(entry) + 1;
  }
  g_free(text);
  if (!ok) {
    g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                "%s is not an environment record (NAME=VALUE entries, each ending with a NUL "
                "byte, as in /proc/PID/environ)",
                path);
    g_ptr_array_unref(env);
    return NULL;
  }
  g_ptr_array_set_free_func(env, NULL);
  g_ptr_array_add(env, NULL);
  return (char **)g_ptr_array_free(env, FALSE);
}
