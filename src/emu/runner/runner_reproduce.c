/* The reproduce line: the command that runs a finding again exactly as it
 * was (runner_reproduce.h). */
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <glib.h>

#include "emu_config.h"
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
 * them), --check and --exec-map-sync when given; shell quoted. Reports and SARIF carry it, so
 * that a finding seen once, in CI say, can be run again exactly as it was
 * (docs/RIG.md, "Reproducible runs"). */
char *emu_reproduce_command(const struct emu_options *o, const struct emu_config *cfg)
{
  GString *cmd = g_string_new("jitflush-emu");
  char seed_text[24];
  g_snprintf(seed_text, sizeof seed_text, "%" PRIu64, o->seed_text ? o->seed : cfg->seed);
  char *config = emu_args_absolute(o->config);
  const char *policy = o->policy ? o->policy : emu_sched_policy_names[cfg->policy];
  const char *schedule = o->schedule ? o->schedule : JF_SCHEDULE_DEFAULT;
  char quantum_text[24];
  g_snprintf(quantum_text, sizeof quantum_text, "%" PRIu64,
             o->quantum_text ? o->quantum : (uint64_t)JF_QUANTUM_DEFAULT);
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
  } given[] = {{"--check", o->check, false},
               {"--exec-map-sync", o->exec_map_sync, false},
               {"--sysroot", o->sysroot, true},
               {"--sysfs-root", o->sysfs_root, true}};
  for (size_t i = 0; i < G_N_ELEMENTS(given); i++) {
    if (!given[i].value) {
      continue;
    }
    char *value = given[i].path ? emu_args_absolute(given[i].value) : g_strdup(given[i].value);
    append_shell_word(cmd, given[i].flag);
    append_shell_word(cmd, value);
    g_free(value);
  }
  g_string_append(cmd, " --");
  for (char **a = o->program; *a; a++) {
    /* The program by absolute path when it was given by one relative to
     * here; its arguments as they were. */
    char *word = a == o->program && strchr(*a, '/') ? emu_args_absolute(*a) : g_strdup(*a);
    append_shell_word(cmd, word);
    g_free(word);
  }
  return g_string_free(cmd, FALSE);
}
