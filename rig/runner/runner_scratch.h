/* The run's scratch folder and the tree QEMU gets with -L: the sysfs
 * overlay and the sysroot (runner_scratch.c). */
#ifndef JITFLUSH_EMU_RUNNER_SCRATCH_H
#define JITFLUSH_EMU_RUNNER_SCRATCH_H

#include <glib.h>

#include "rig_config.h"
#include "runner_args.h"
#include "runner_exec.h"
#include "rig_sysfs_cache.h"

/* In the scratch folder: the plugin's checkpoint folder (checkpoint=,
 * plugin_checkpoint.c) and the file naming each thread's last block
 * (threads=, written when the runner asks for the reports). */
#define RUNNER_SCRATCH_CHECKPOINT "checkpoint"
#define RUNNER_SCRATCH_THREADS "threads"

/* A new scratch folder (TMPDIR, else /dev/shm, else /tmp), after removing
 * those of runs whose runner is gone; NULL with *ERR saying why. */
char *runner_scratch_make(GError **err);
/* Removes DIR and everything in it, following no link. */
void runner_scratch_remove(const char *dir);
/* The exec= file next to SUMMARY (in the scratch folder), where the plugin
 * notes every AArch64 program the guest executes (freed with g_free). */
char *runner_scratch_exec_note(const char *summary);

/* The tree QEMU gets with -L, and what hides the host's cpu folder. */
struct runner_overlay {
  char *root;                   /* TMP/root: QEMU's -L */
  struct runner_seal seal;      /* its source is owned here */
  struct rig_sysfs_share share; /* the shared tree the seal shows, if any */
  const struct rig_config *cfg;
  char *own_cpu_dir; /* ROOT/sys/devices/system/cpu */
};

void runner_scratch_overlay_free(struct runner_overlay *ov);
/* Builds the tree QEMU gets with -L under TMP/root, with SYSROOT (checked
 * by main; NULL when there is none) linked in, and what to bind over the
 * host's /sys/devices/system/cpu. Returns 0, or a status with a message
 * printed. */
int runner_scratch_overlay_build(const struct runner_options *o, const struct rig_config *cfg,
                                 const char *sysroot, const char *tmp, struct runner_overlay *ov);
/* The sysroot the overlay will show, absolute, in *out (NULL when the
 * default one does not exist: static programs need none). A --sysroot
 * without lib/ is a usage error. */
int runner_scratch_sysroot(const struct runner_options *o, char **out);

#endif /* JITFLUSH_EMU_RUNNER_SCRATCH_H */
