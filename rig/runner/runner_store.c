/*
 * The runner's side of the suite store (docs/RIG.md, "One report per
 * suite"). A test suite runs hundreds of rig processes, each writing its
 * own report; with --store DIR (JITFLUSH_EMU_STORE) every process adds one
 * entry to DIR instead, and jitflush-emu --merge turns the folders of a
 * suite, or of every job of a CI matrix, into one report.
 *
 * An entry is BASE (an empty marker made with mkstemp, so that concurrent
 * processes never pick the same name), BASE.json and BASE.sarif (written by
 * the plugin), and BASE.run, the runner's record, written last by rename.
 * The marker is removed once the record exists, so a marker left alone is a
 * process that was killed before it finished (the merge counts those).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <unistd.h>

#include <glib.h>

#include "json_string.h"
#include "runner_exit_statuses.h"
#include "runner_args.h"
#include "runner_fail.h"
#include "runner_reproduce.h"
#include "runner_store.h"

char *runner_store_reserve(const char *dir, GError **error)
{
  if (g_mkdir_with_parents(dir, 0777) != 0) {
    int e = errno;
    g_set_error(error, G_FILE_ERROR, g_file_error_from_errno(e), "cannot create %s: %s", dir,
                g_strerror(e));
    return NULL;
  }
  char *name = g_strdup_printf("run-%ld-XXXXXX", (long)getpid());
  char *base = g_build_filename(dir, name, NULL);
  g_free(name);
  int fd = g_mkstemp_full(base, O_CLOEXEC, 0644);
  if (fd < 0) {
    int e = errno;
    g_set_error(error, G_FILE_ERROR, g_file_error_from_errno(e), "cannot add an entry to %s: %s",
                dir, g_strerror(e));
    g_free(base);
    return NULL;
  }
  close(fd);
  return base;
}

static void put_gstring(void *sink, const char *bytes, size_t len)
{
  g_string_append_len(sink, bytes, (gssize)len);
}

/* TEXT as a JSON string (common/json_string.h), with bytes that are
 * not UTF-8 replaced, since a command line may hold any bytes and JSON may
 * not. */
static void append_json_string(GString *out, const char *text)
{
  char *valid = g_utf8_make_valid(text, -1);
  jf_json_string(valid, put_gstring, out);
  g_free(valid);
}

static void append_member(GString *out, const char *key, const char *value)
{
  g_string_append_printf(out, ",\n  \"%s\": ", key);
  if (value) {
    append_json_string(out, value);
  } else {
    g_string_append(out, "null");
  }
}

bool runner_store_complete(const char *base, const struct runner_store_record *rec, GError **error)
{
  char *cwd = g_get_current_dir();
  char *id = g_path_get_basename(base);
  GString *json = g_string_new("{\n  \"format\": \"jitflush-emu-store-run\",\n  \"version\": 1");
  append_member(json, "id", id);
  append_member(json, "test", rec->test);
  append_member(json, "cwd", cwd);
  g_string_append(json, ",\n  \"argv\": [");
  for (char *const *a = rec->argv; *a; a++) {
    if (a != rec->argv) {
      g_string_append(json, ", ");
    }
    append_json_string(json, *a);
  }
  g_string_append_c(json, ']');
  append_member(json, "reproduce", rec->reproduce);
  g_string_append_printf(json, ",\n  \"status\": %d,\n  \"ran\": %s", rec->status,
                         rec->ran ? "true" : "false");
  append_member(json, "config", rec->config);
  append_member(json, "soc", rec->soc);
  g_string_append_printf(json, ",\n  \"seed\": %" PRIu64, rec->seed);
  append_member(json, "policy", rec->policy);
  char *report = g_strconcat(id, RUNNER_STORE_REPORT, NULL);
  char *sarif = g_strconcat(id, RUNNER_STORE_SARIF, NULL);
  append_member(json, "report", rec->report ? report : NULL);
  append_member(json, "sarif", rec->sarif ? sarif : NULL);
  g_string_append(json, "\n}\n");
  char *path = g_strconcat(base, RUNNER_STORE_RECORD, NULL);
  bool ok = g_file_set_contents(path, json->str, (gssize)json->len, error);
  if (ok) {
    unlink(base);
  }
  g_free(path);
  g_free(report);
  g_free(sarif);
  g_string_free(json, TRUE);
  g_free(id);
  g_free(cwd);
  return ok;
}

/* Copies the user's --report or --sarif FILE into the store entry, when
 * it is a regular file (a device such as /dev/null holds nothing). */
bool runner_store_copy_in(const char *from, const char *base, const char *suffix)
{
  char *text = NULL;
  gsize len = 0;
  if (!g_file_test(from, G_FILE_TEST_IS_REGULAR) || !g_file_get_contents(from, &text, &len, NULL)) {
    return false;
  }
  char *to = g_strconcat(base, suffix, NULL);
  bool ok = g_file_set_contents(to, text, (gssize)len, NULL);
  g_free(to);
  g_free(text);
  return ok;
}

/* Ends the store entry at BASE with the run's record; a store that cannot
 * take it turns a clean run into status 4, so a suite never merges without
 * a process silently missing. */
int runner_store_finish(const struct runner_options *o, const struct rig_config *cfg,
                        const char *base, int status, bool ran)
{
  char *report = g_strconcat(base, RUNNER_STORE_REPORT, NULL);
  char *sarif = g_strconcat(base, RUNNER_STORE_SARIF, NULL);
  char *reproduce = runner_reproduce_command(o, cfg);
  char *config = runner_args_absolute(o->config);
  const char *test = getenv("JITFLUSH_EMU_TEST_NAME");
  const struct runner_store_record rec = {
      .test = test && *test ? test : NULL,
      .argv = o->program,
      .reproduce = reproduce,
      .status = status,
      .ran = ran,
      .report = g_file_test(report, G_FILE_TEST_IS_REGULAR),
      .sarif = g_file_test(sarif, G_FILE_TEST_IS_REGULAR),
      .config = config,
      .soc = cfg->soc_name ? cfg->soc_name : "",
      .seed = o->seed_text ? o->seed : cfg->seed,
      .policy = o->policy ? o->policy : rig_sched_policy_names[cfg->policy],
  };
  GError *err = NULL;
  if (!runner_store_complete(base, &rec, &err)) {
    int failed = runner_fail(RUNNER_EXIT_REPORT, "cannot complete the store entry %s: %s", base,
                             err->message);
    if (status == 0) {
      status = failed;
    }
    g_error_free(err);
  }
  g_free(config);
  g_free(reproduce);
  g_free(sarif);
  g_free(report);
  return status;
}
