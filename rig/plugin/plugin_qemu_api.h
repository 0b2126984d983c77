/*
 * QEMU's TCG plugin API across the versions the rig supports: the one
 * place that knows how they differ (docs/RIG.md, "Which QEMU"). Every
 * plugin unit includes QEMU's header through this one.
 *
 *   API 5 (QEMU 10.1, 10.2)  qemu_plugin_read_register and _write_register
 *                            return a byte count (int); the header is
 *                            include/qemu/qemu-plugin.h in QEMU's tree.
 *   API 6 (QEMU 11.0)        both return bool; the header moved to
 *                            include/plugins/qemu-plugin.h.
 *   API 7 (QEMU 11.1)        vCPU init and exit callbacks take a userdata
 *                            pointer in place of the plugin id, and the
 *                            atexit callback takes only its userdata.
 *
 * QEMU calls a plugin with the calling conventions of the API it offers
 * (qemu_info_t.version.cur), not of the one the plugin was built for, and
 * loads any plugin whose version lies between its minimum and current one:
 * a plugin built for API 5 loads into QEMU 11.0 and misreads every
 * register. plugin_qemu_api_mismatch refuses that pairing at install.
 */
#ifndef JITFLUSH_EMU_QEMU_API_H
#define JITFLUSH_EMU_QEMU_API_H

#include <stdbool.h>
#include <stddef.h>

#include <glib.h>
#include <qemu-plugin.h>

/* The plugin API versions this source builds against (CMake reads these
 * two lines to refuse any other header before compiling). */
#define PLUGIN_QEMU_API_MIN 5
#define PLUGIN_QEMU_API_MAX 7

#if !defined(QEMU_PLUGIN_VERSION) || QEMU_PLUGIN_VERSION < PLUGIN_QEMU_API_MIN ||                  \
    QEMU_PLUGIN_VERSION > PLUGIN_QEMU_API_MAX
#error "the rig's plugin supports QEMU plugin API 5 to 7 (docs/RIG.md, \"Which QEMU\")"
#endif

/* Reads the register REG of the calling vCPU into BUF (emptied first);
 * true when at least SIZE bytes came back. */
bool plugin_qemu_read_register(struct qemu_plugin_register *reg, GByteArray *buf, size_t size);
/* Writes BUF to the register REG of the calling vCPU; true on success. */
bool plugin_qemu_write_register(struct qemu_plugin_register *reg, GByteArray *buf);

/* vCPU init and exit, and the end of the run, whatever the API passes to
 * its callbacks. One callback of each kind per plugin. */
typedef void (*plugin_qemu_vcpu_cb)(unsigned int vcpu);
typedef void (*plugin_qemu_exit_cb)(void);
void plugin_qemu_on_vcpu_init(qemu_plugin_id_t id, plugin_qemu_vcpu_cb cb);
void plugin_qemu_on_vcpu_exit(qemu_plugin_id_t id, plugin_qemu_vcpu_cb cb);
void plugin_qemu_on_exit(qemu_plugin_id_t id, plugin_qemu_exit_cb cb);

/* NULL when the QEMU that loaded the plugin (INFO) calls it with the
 * conventions it was built for; else why not, in one sentence (g_free). */
char *plugin_qemu_api_mismatch(const qemu_info_t *info);

#endif /* JITFLUSH_EMU_QEMU_API_H */
