/* Where the rig's other parts are for this runner (runner_locate.c): the
 * installed layout beside it, else the build's. */
#ifndef JITFLUSH_EMU_RUNNER_LOCATE_H
#define JITFLUSH_EMU_RUNNER_LOCATE_H

#include <glib.h>

/* The qemu-aarch64 and the plugin a run uses when nothing names one: an
 * installed runner's own (PREFIX/lib/jitflush-rig), else the build's ("" when
 * the build has none). Freed with g_free. */
char *runner_locate_default_qemu(void);
char *runner_locate_default_plugin(void);
/* The folder a config NAME is looked up in: an installed runner's
 * PREFIX/share/jitflush-rig/configs, else the source tree's qemu-configs/.
 * Freed with g_free. */
char *runner_locate_config_dir(void);
/* The config file VALUE (--config, JITFLUSH_EMU_CONFIG) stands for: a path
 * as given when it has a '/', ends in ".conf" or is a file here; any other
 * value is a NAME, the file NAME.conf of the configs folder. NULL, with
 * *ERROR naming the folder and the names it holds, when there is no such
 * config. Freed with g_free. */
char *runner_locate_config(const char *value, GError **error);

#endif /* JITFLUSH_EMU_RUNNER_LOCATE_H */
