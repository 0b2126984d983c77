/* The run's scratch folder and the tree QEMU gets with -L: the sysfs
 * overlay and the sysroot (runner_scratch.c). */
#ifndef JITFLUSH_EMU_RUNNER_SCRATCH_H
#define JITFLUSH_EMU_RUNNER_SCRATCH_H

#include <glib.h>

#include "emu_config.h"
#include "runner_args.h"
#include "runner_exec.h"
#include "sysfs_cache.h"

/* In the scratch folder: the plugin's checkpoint folder (checkpoint=,
 * plugin_checkpoint.c) and the file naming each thread's last block
 * (threads=, written when the runner asks for the reports). */
#define EMU_SCRATCH_CHECKPOINT "checkpoint"
#define EMU_SCRATCH_THREADS "threads"

/* A new scratch folder (TMPDIR, else /dev/shm, else /tmp), after removing
 * those of runs whose runner is gone; NULL with *ERR saying why. */
char *emu_scratch_make(GError **err);
/* Removes DIR and everything in it, following no link. */
void emu_scratch_remove(const char *dir);
/* The exec= file next to SUMMARY (in the scratch folder), where the plugin
 * notes every AArch64 program the guest executes (freed with g_free). */
char *emu_scratch_exec_note(const char *summary);

/* The tree QEMU gets with -L, and what hides the host's cpu folder. */
struct emu_overlay {
  char *root;                   /* TMP/root: QEMU's -L */
  struct emu_seal seal;         /* its source is owned here */
  struct emu_sysfs_share share; /* the shared tree the seal shows, if any */
  const struct emu_config *cfg;
  char *own_cpu_dir; /* ROOT/sys/devices/system/cpu */
};

void emu_scratch_overlay_free(struct emu_overlay *ov);
/* Builds the tree QEMU gets with -L under TMP/root, with SYSROOT (checked
 * by main; NULL when there is none) linked in, and what to bind over the
 * host's /sys/devices/system/cpu. Returns 0, or a status with a message
 * printed. */
int emu_scratch_overlay_build(const struct emu_options *o, const struct emu_config *cfg,
                              const char *sysroot, const char *tmp, struct emu_overlay *ov);
/* The sysroot the overlay will show, absolute, in *out (NULL when the
 * default one does not exist: static programs need none). A --sysroot
 * without lib/ is a usage error. */
int emu_scratch_sysroot(const struct emu_options *o, char **out);

#endif /* JITFLUSH_EMU_RUNNER_SCRATCH_H */
