/*
 * The smallest QEMU TCG plugin: ci/install/qemu.sh builds it against the
 * qemu-plugin.h it is about to cache and loads it into the qemu-aarch64 it
 * built, so that a QEMU is cached only when a plugin compiled against its
 * header really loads into it. It prints one line and does nothing else.
 * The same source compiles against plugin API 5, 6 and 7 (docs/RIG.md,
 * "Which QEMU"): qemu_plugin_install has not changed.
 */
#include <stdio.h>

#include <qemu-plugin.h>

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info, int argc,
                                           char **argv)
{
  (void)id;
  (void)argc;
  (void)argv;
  fprintf(stderr, "jitflush-probe: loaded, built for plugin API %d, QEMU offers %d-%d\n",
          QEMU_PLUGIN_VERSION, info->version.min, info->version.cur);
  return 0;
}
