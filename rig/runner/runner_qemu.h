/* Whether a qemu-aarch64 can load TCG plugins, read from its ELF file (or
 * asked with -h when the file does not tell), and which version it is
 * (runner_qemu.c). */
#ifndef JITFLUSH_EMU_RUNNER_QEMU_H
#define JITFLUSH_EMU_RUNNER_QEMU_H

#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

enum runner_plugin_support {
  RUNNER_PLUGINS_YES,     /* it exports QEMU's plugin API */
  RUNNER_PLUGINS_NO,      /* a dynamic ELF program without it */
  RUNNER_PLUGINS_UNKNOWN, /* not a dynamic x86-64 ELF program (a script, a
                          static build): ask QEMU itself */
};

enum runner_plugin_support runner_qemu_plugin_support(const char *path);

/* The first line "qemu-aarch64 --version" prints ("qemu-aarch64 version
 * 10.2.2"), or "the QEMU at PATH" when it prints none (g_free). For
 * messages: it starts QEMU once more. */
char *runner_qemu_version(const char *path);
/* Whether the QEMU at PATH loads TCG plugins: runner_qemu_plugin_support,
 * else QEMU's own "-h" (which starts it once more). */
bool runner_qemu_has_plugins(const char *path);

#ifdef __cplusplus
}
#endif

#endif /* JITFLUSH_EMU_RUNNER_QEMU_H */
