/* What a run records so that it can be run again (runner_reproduce.c):
 * the command line that reproduces it, the line a finding prints, and the
 * environment kept beside the report. */
#ifndef JITFLUSH_EMU_RUNNER_REPRODUCE_H
#define JITFLUSH_EMU_RUNNER_REPRODUCE_H

#include <stdbool.h>

#include <glib.h>

#include "rig_config.h"
#include "runner_args.h"

/* The environment's file is the report's path with this appended. */
#define RUNNER_REPRODUCE_ENV_SUFFIX ".env"

/* The run of O and CFG as one shell-quoted jitflush-emu command line, every
 * default written out (freed with g_free). */
char *runner_reproduce_command(const struct runner_options *o, const struct rig_config *cfg);

/* "jitflush-emu --reproduce REPORT", REPORT absolute and shell quoted: the
 * rerun line of a run that REPORT records (freed with g_free). */
char *runner_reproduce_rerun_line(const char *report);

/* REPORT's environment file, REPORT.env (freed with g_free). */
char *runner_reproduce_env_path(const char *report);

/* Writes ENV (NULL-terminated NAME=VALUE strings, in their order) into
 * REPORT.env, each entry ended by a NUL byte as in /proc/PID/environ; a new
 * file of mode 0600 replaces whatever was there. */
bool runner_reproduce_env_write(const char *report, char *const *env, GError **error);

/* The environment a file written by runner_reproduce_env_write holds, in its
 * order (freed with g_strfreev), or NULL and why. */
char **runner_reproduce_env_read(const char *path, GError **error);

#endif /* JITFLUSH_EMU_RUNNER_REPRODUCE_H */
