/*
 * Shared sysfs trees. Writing the emulated SoC's /sys/devices/system/cpu
 * (about a hundred files and sixty folders for an 8-CPU config) and
 * removing it again was two thirds of the runner's own start-up cost
 * (docs/BENCHMARKS.md, "Start-up"), paid by every process of a test suite
 * although the tree depends on the config alone. So a tree is written once
 * per user and folder under the digest of its contents
 * (rig_overlay_sysfs_key) and shared by every later run that needs the
 * same one.
 *
 * What keeps a shared tree right:
 *   - it is complete or absent: written in the run's own scratch folder
 *     and renamed into place, so a concurrent run never sees half of it;
 *   - nothing a guest does reaches it: runner_exec.c binds it read-only
 *     (or gives the run a private copy when it cannot);
 *   - a tree is never removed while a run uses it: each run holds a shared
 *     flock(2) on it, and eviction takes the exclusive one without waiting,
 *     skipping a tree in use;
 *   - the name is the content, so a changed config or a changed layout
 *     gives a new tree, never a stale one.
 */
#define _GNU_SOURCE
#include "rig_sysfs_cache.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib.h>

#include "rig_sysfs_overlay.h"

#define SHARE_PREFIX "jitflush-sysfs-"

/* The prefix of this user's trees in a folder: jitflush-sysfs-UID-. */
static char *user_prefix(void)
{
  return g_strdup_printf(SHARE_PREFIX "%lu-", (unsigned long)getuid());
}

/* A tree this run may trust: a real folder (not a link), owned by this
 * user, that no one else may write to. */
static bool trusted(const struct stat *st)
{
  return S_ISDIR(st->st_mode) && st->st_uid == getuid() && (st->st_mode & (S_IWGRP | S_IWOTH)) == 0;
}

struct aged {
  char *name;
  struct timespec used;
};

static gint older_first(gconstpointer a, gconstpointer b)
{
  const struct aged *x = a, *y = b;
  if (x->used.tv_sec != y->used.tv_sec) {
    return x->used.tv_sec < y->used.tv_sec ? -1 : 1;
  }
  return x->used.tv_nsec < y->used.tv_nsec ? -1 : x->used.tv_nsec > y->used.tv_nsec;
}

/*
 * Keeps at most RIG_SYSFS_SHARE_KEEP of this user's trees in BASE, the
 * least recently used (a run touches its tree's folder) going first. An
 * evicted tree is renamed into SCRATCH, which the caller removes; one that
 * a run holds is left for later.
 */
static void evict_old(const char *base, const char *scratch, const char *keep)
{
  DIR *d = opendir(base);
  if (!d) {
    return;
  }
  char *prefix = user_prefix();
  GArray *trees = g_array_new(FALSE, FALSE, sizeof(struct aged));
  struct dirent *e;
  while ((e = readdir(d))) {
    struct stat st;
    if (strncmp(e->d_name, prefix, strlen(prefix)) != 0 || strcmp(e->d_name, keep) == 0 ||
        fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !trusted(&st)) {
      continue;
    }
    struct aged a = {g_strdup(e->d_name), st.st_mtim};
    g_array_append_val(trees, a);
  }
  g_array_sort(trees, older_first);
  /* The tree just made counts as one of those kept; a held tree is
   * skipped, and the next older one goes in its place. */
  guint excess = trees->len + 1 > RIG_SYSFS_SHARE_KEEP ? trees->len + 1 - RIG_SYSFS_SHARE_KEEP : 0;
  for (guint i = 0; i < trees->len && excess > 0; i++) {
    const char *name = g_array_index(trees, struct aged, i).name;
    int fd = openat(dirfd(d), name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
      continue;
    }
    if (flock(fd, LOCK_EX | LOCK_NB) == 0) {
      char *from = g_build_filename(base, name, NULL);
      char *to = g_build_filename(scratch, name, NULL);
      if (rename(from, to) == 0) {
        excess--;
      } else {
        fprintf(stderr, "jitflush-emu: warning: cannot evict the sysfs tree %s: %s\n", from,
                g_strerror(errno));
      }
      g_free(from);
      g_free(to);
    }
    close(fd);
  }
  for (guint i = 0; i < trees->len; i++) {
    g_free(g_array_index(trees, struct aged, i).name);
  }
  g_array_free(trees, TRUE);
  g_free(prefix);
  closedir(d);
}

/* Writes CONFIG's tree into SCRATCH and renames it to PATH. True when PATH
 * now exists, made by this run or by another one meanwhile. */
static bool make_tree(const struct rig_config *config, const char *path, const char *scratch)
{
  char *build = g_build_filename(scratch, "sysfs-share", NULL);
  GError *err = NULL;
  bool ok = mkdir(build, 0755) == 0 && rig_overlay_write_sysfs(config, build, &err);
  if (ok && rename(build, path) != 0) {
    ok = errno == EEXIST || errno == ENOTEMPTY;
  }
  g_clear_error(&err);
  g_free(build);
  return ok;
}

/* Opens PATH and takes the shared lock; -1 when PATH is not there, is not
 * trusted, or was evicted between the open and the lock. *MISSING tells
 * the first case from the others. */
static int hold(const char *path, bool *missing)
{
  *missing = false;
  int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) {
    *missing = errno == ENOENT;
    return -1;
  }
  struct stat held, now;
  if (fstat(fd, &held) != 0 || !trusted(&held) || flock(fd, LOCK_SH) != 0 ||
      lstat(path, &now) != 0 || now.st_dev != held.st_dev || now.st_ino != held.st_ino) {
    /* Evicted meanwhile: it was renamed away under the lock. */
    *missing = lstat(path, &now) != 0 && errno == ENOENT;
    close(fd);
    return -1;
  }
  /* The mtime says when a run last used the tree (evict_old). */
  futimens(fd, NULL);
  return fd;
}

bool rig_sysfs_share_open(const struct rig_config *config, const char *base, const char *scratch,
                          struct rig_sysfs_share *share)
{
  share->dir = NULL;
  share->lock_fd = -1;
  char *key = rig_overlay_sysfs_key(config);
  if (!key) {
    return false;
  }
  char *prefix = user_prefix();
  char *name = g_strconcat(prefix, key, NULL);
  char *path = g_build_filename(base, name, NULL);
  g_free(prefix);
  g_free(key);
  /* Twice at most: a tree evicted between our open and our lock is made
   * again once. */
  bool made = false;
  for (int attempt = 0; attempt < 2 && share->lock_fd < 0; attempt++) {
    bool missing;
    share->lock_fd = hold(path, &missing);
    if (share->lock_fd < 0 && missing && make_tree(config, path, scratch)) {
      made = true;
      share->lock_fd = hold(path, &missing);
    }
  }
  if (share->lock_fd < 0) {
    g_free(path);
    g_free(name);
    return false;
  }
  if (made) {
    evict_old(base, scratch, name);
  }
  g_free(name);
  share->dir = path;
  return true;
}

void rig_sysfs_share_close(struct rig_sysfs_share *share)
{
  if (share->lock_fd >= 0) {
    close(share->lock_fd);
  }
  share->lock_fd = -1;
  g_clear_pointer(&share->dir, g_free);
}
