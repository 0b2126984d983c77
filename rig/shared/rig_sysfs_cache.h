/*
 * The runner's shared copies of generated sysfs trees (rig_sysfs_cache.c):
 * one per tree, kept across runs, so that a short test process does not
 * write and remove a hundred small files each time it starts.
 */
#ifndef JITFLUSH_EMU_SYSFS_CACHE_H
#define JITFLUSH_EMU_SYSFS_CACHE_H

#include <stdbool.h>

#include "rig_config.h"

/* How many trees one user keeps in a folder; the least recently used go
 * first beyond it (docs/RIG.md, "The sysfs overlay"). */
#define RIG_SYSFS_SHARE_KEEP 16

struct rig_sysfs_share {
  char *dir;   /* BASE/jitflush-sysfs-UID-KEY, holding sys/devices/system/cpu */
  int lock_fd; /* holds a shared lock on DIR: no run evicts it meanwhile */
};

/*
 * Finds or makes the shared copy of CONFIG's tree (rig_overlay_sysfs_key)
 * in BASE. A missing one is written in SCRATCH, a folder of this run on
 * the same file system that the caller removes, and renamed into place,
 * so that another run sees all of it or nothing. Only a folder owned by
 * this user and writable by no one else is used. Returns false when there
 * is no tree (sysfs=none) or no usable copy; the run then writes its own.
 * On success SHARE holds the copy until rig_sysfs_share_close.
 */
bool rig_sysfs_share_open(const struct rig_config *config, const char *base, const char *scratch,
                          struct rig_sysfs_share *share);

void rig_sysfs_share_close(struct rig_sysfs_share *share);

#endif /* JITFLUSH_EMU_SYSFS_CACHE_H */
