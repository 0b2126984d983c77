/*
 * The file tree jitflush-emu hands to qemu-aarch64 with -L: the emulated
 * SoC's /sys/devices/system/cpu and links that make the aarch64 sysroot
 * (dynamic loader, libc) visible under the same prefix.
 */
#ifndef JITFLUSH_EMU_SYSFS_OVERLAY_H
#define JITFLUSH_EMU_SYSFS_OVERLAY_H

#include <stdbool.h>

#include <glib.h>

#include "rig_config.h"

/* Relative to the overlay root, without a leading slash. */
#define RIG_SYSFS_CPU_DIR "sys/devices/system/cpu"

/*
 * Writes ROOT/sys/devices/system/cpu/ for CONFIG as Linux lays it out,
 * honouring config->sysfs (nothing at all for RIG_SYSFS_NONE). ROOT must
 * exist. On failure sets *error naming the path that could not be written.
 */
bool rig_overlay_write_sysfs(const struct rig_config *config, const char *root, GError **error);

/*
 * A name for the tree rig_overlay_write_sysfs writes for CONFIG, whatever
 * ROOT: the SHA-256, in hex, of its folders, files and their contents, in
 * the order they are written. Configs that give the same tree give the
 * same key; NULL for sysfs=none (no tree). The runner keeps one shared copy
 * of each tree under its key (rig_sysfs_cache.h). Free with g_free.
 */
char *rig_overlay_sysfs_key(const struct rig_config *config);

/*
 * Applies a hotplug event to a tree rig_overlay_write_sysfs wrote: CPU_ROOT
 * (ROOT/sys/devices/system/cpu) gets ONLINE (within CPUs 0..ncpus-1) as its
 * online and offline lists, the per-CPU folders of CPUs that came online,
 * and loses those of CPUs that went offline. Each file is replaced
 * atomically.
 */
bool rig_overlay_set_online(const struct rig_config *config, const char *cpu_root,
                            const struct jf_cpuset *online, GError **error);

/*
 * QEMU's -L prefix applies to every absolute path the guest opens, the
 * ELF interpreter included, so the prefix must also show the sysroot:
 * creates ROOT/lib -> SYSROOT/lib (and lib64, usr, etc and opt where
 * SYSROOT has them; rig_sysfs_overlay.c says why those). Existing entries in ROOT are left
 * alone (for --sysfs-root trees). SYSROOT must hold lib/; a relative
 * SYSROOT is taken from the current folder (the links are absolute).
 */
bool rig_overlay_link_sysroot(const char *root, const char *sysroot, GError **error);

#endif /* JITFLUSH_EMU_SYSFS_OVERLAY_H */
