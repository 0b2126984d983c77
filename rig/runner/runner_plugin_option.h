/* The plugin's option string (runner_plugin_option.c). */
#ifndef JITFLUSH_EMU_RUNNER_PLUGIN_OPTION_H
#define JITFLUSH_EMU_RUNNER_PLUGIN_OPTION_H

#include <glib.h>

#include "rig_config.h"
#include "runner_args.h"
#include "runner_record.h"

/* The -plugin argument: PLUGIN, then the run of O and CFG as the plugin's
 * options (RIG_OPT_*), with ROOT the overlay QEMU gets with -L, the files
 * SUMMARY, FINDINGS and CONTROL in SCRATCH, QEMU for the follow= command,
 * and what REC records (freed with g_string_free). */
GString *runner_plugin_option(const struct runner_options *o, const struct rig_config *cfg,
                              const char *plugin, const char *root, const char *summary,
                              const char *findings, const char *control, const char *scratch,
                              const char *qemu, const struct runner_record *rec);

#endif /* JITFLUSH_EMU_RUNNER_PLUGIN_OPTION_H */
