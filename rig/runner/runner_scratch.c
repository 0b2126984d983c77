/* The run's scratch folder, the sysfs overlay and the sysroot in the tree
 * QEMU gets with -L (runner_scratch.h). */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <glib.h>

#include "rig_config.h"
#include "runner_exit_statuses.h"
#include "runner_args.h"
#include "runner_exec.h"
#include "runner_fail.h"
#include "runner_scratch.h"
#include "rig_sysfs_cache.h"
#include "rig_sysfs_overlay.h"

/* statfs(2)'s f_type of a tmpfs (linux/magic.h, not included for one
 * constant). */
#define SCRATCH_TMPFS_MAGIC 0x01021994
#define SCRATCH_SHM "/dev/shm"

/*
 * The run's scratch folder: the sysfs overlay (a few hundred small files
 * on an 8-CPU config), the plugin's summary and findings. Where the user
 * set TMPDIR, there. Otherwise in /dev/shm when it is a writable tmpfs, and
 * else in /tmp: creating and removing the overlay on a disk file system
 * (ext4 journals every inode) costs a measurable part of a short guest's
 * run (docs/BENCHMARKS.md, "The rig's own speed").
 */
/* Empties the folder FD (closed here) by the types its entries report:
 * one unlinkat per entry, where nftw and remove() took an lstat, an unlink
 * that fails on a folder, then an rmdir (docs/BENCHMARKS.md, "Start-up").
 * Links are removed, never followed: the overlay links to the sysroot and
 * to --sysfs-root trees. */
static void empty_dir(int fd)
{
  DIR *d = fdopendir(fd);
  if (!d) {
    close(fd);
    return;
  }
  struct dirent *e;
  while ((e = readdir(d))) {
    if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) {
      continue;
    }
    bool dir = e->d_type == DT_DIR;
    if (e->d_type == DT_UNKNOWN) {
      struct stat st;
      dir = fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode);
    }
    if (dir) {
      int sub = openat(dirfd(d), e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
      if (sub >= 0) {
        empty_dir(sub);
      }
    }
    unlinkat(dirfd(d), e->d_name, dir ? AT_REMOVEDIR : 0);
  }
  closedir(d);
}

void runner_scratch_remove(const char *dir)
{
  int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd >= 0) {
    empty_dir(fd);
  }
  rmdir(dir);
}

/* Removes the scratch folders in DIR of runs whose runner is gone (killed
 * with SIGKILL, say): they are named jitflush-emu-PID-XXXXXX, and a PID that
 * no longer exists cannot come back for its folder. */
static void reclaim_scratch(const char *dir)
{
  GDir *d = g_dir_open(dir, 0, NULL);
  if (!d) {
    return;
  }
  const char *name;
  while ((name = g_dir_read_name(d))) {
    unsigned long pid = 0;
    char rest[16];
    if (sscanf(name, "jitflush-emu-%lu-%15s", &pid, rest) != 2 || pid == 0 ||
        pid == (unsigned long)getpid() || kill((pid_t)pid, 0) == 0 || errno != ESRCH) {
      continue;
    }
    char *path = g_build_filename(dir, name, NULL);
    runner_scratch_remove(path);
    g_free(path);
  }
  g_dir_close(d);
}

char *runner_scratch_make(GError **err)
{
  const char *set = getenv("TMPDIR");
  char *template = g_strdup_printf("jitflush-emu-%ld-XXXXXX", (long)getpid());
  struct statfs fs;
  char *path = NULL;
  if ((!set || !*set) && statfs(SCRATCH_SHM, &fs) == 0 && fs.f_type == SCRATCH_TMPFS_MAGIC &&
      access(SCRATCH_SHM, W_OK | X_OK) == 0) {
    reclaim_scratch(SCRATCH_SHM);
    path = g_build_filename(SCRATCH_SHM, template, NULL);
    if (!g_mkdtemp(path)) {
      g_clear_pointer(&path, g_free); /* full or refused: fall back to /tmp */
    }
  }
  if (!path) {
    reclaim_scratch(g_get_tmp_dir());
    path = g_dir_make_tmp(template, err);
  }
  g_free(template);
  return path;
}
/* In QEMU's child, when the shared tree cannot be made read-only: the run
 * gets its own tree in place of the link to it (runner_exec.h). */
static const char *write_own_tree(void *ctx)
{
  struct runner_overlay *ov = ctx;
  char *link = g_build_filename(ov->root, "sys", NULL);
  GError *err = NULL;
  bool ok = unlink(link) == 0 && rig_overlay_write_sysfs(ov->cfg, ov->root, &err);
  if (err) {
    fprintf(stderr, "jitflush-emu: sysfs overlay: %s\n", err->message);
    g_error_free(err);
  }
  g_free(link);
  return ok ? ov->own_cpu_dir : NULL;
}

/* The generated tree, shared with other runs of the same tree when its
 * content never changes during the run (no hotplug events): ROOT/sys links
 * to it. Otherwise written under ROOT, as the plugin rewrites it. */
static bool generated_tree(struct runner_overlay *ov, const char *tmp, GError **err)
{
  char *base = g_path_get_dirname(tmp);
  bool shared = ov->cfg->nevents == 0 && rig_sysfs_share_open(ov->cfg, base, tmp, &ov->share);
  g_free(base);
  if (!shared) {
    return rig_overlay_write_sysfs(ov->cfg, ov->root, err);
  }
  char *sys = g_build_filename(ov->share.dir, "sys", NULL);
  char *link = g_build_filename(ov->root, "sys", NULL);
  bool ok = symlink(sys, link) == 0;
  if (!ok) {
    g_set_error(err, G_FILE_ERROR, g_file_error_from_errno(errno), "cannot link %s: %s", link,
                g_strerror(errno));
  }
  g_free(sys);
  g_free(link);
  if (ok) {
    ov->seal.source = g_build_filename(ov->share.dir, RIG_SYSFS_CPU_DIR, NULL);
    ov->seal.shared = true;
    ov->seal.private_copy = write_own_tree;
    ov->seal.ctx = ov;
  }
  return ok;
}

void runner_scratch_overlay_free(struct runner_overlay *ov)
{
  rig_sysfs_share_close(&ov->share);
  g_free((char *)ov->seal.source);
  g_free(ov->own_cpu_dir);
  g_free(ov->root);
}

int runner_scratch_overlay_build(const struct runner_options *o, const struct rig_config *cfg,
                                 const char *sysroot, const char *tmp, struct runner_overlay *ov)
{
  *ov = (struct runner_overlay){.cfg = cfg, .share = {.lock_fd = -1}};
  char *root = ov->root = g_build_filename(tmp, "root", NULL);
  ov->own_cpu_dir = g_build_filename(root, RIG_SYSFS_CPU_DIR, NULL);
  GError *err = NULL;
  if (mkdir(root, 0755) != 0) {
    return runner_fail(RUNNER_EXIT_INTERNAL, "cannot create %s: %s", root, g_strerror(errno));
  }
  if (o->sysfs_root) {
    char *given = runner_args_absolute(o->sysfs_root);
    char *sys = g_build_filename(given, "sys", NULL);
    char *link = g_build_filename(root, "sys", NULL);
    int status = 0;
    if (!g_file_test(sys, G_FILE_TEST_IS_DIR)) {
      status = runner_args_usage_error(
          "%s %s has no sys/ folder (expected "
          "DIR/sys/devices/system/cpu/...)",
          runner_args_origin(o, offsetof(struct runner_options, sysfs_root)), o->sysfs_root);
    } else if (symlink(sys, link) != 0) {
      status = runner_fail(RUNNER_EXIT_INTERNAL, "cannot link %s: %s", link, g_strerror(errno));
    }
    g_free(given);
    g_free(sys);
    g_free(link);
    if (status) {
      return status;
    }
  } else if (!generated_tree(ov, tmp, &err)) {
    int status = runner_fail(RUNNER_EXIT_INTERNAL, "sysfs overlay: %s", err->message);
    g_error_free(err);
    return status;
  }

  if (sysroot && !rig_overlay_link_sysroot(root, sysroot, &err)) {
    int status = runner_fail(RUNNER_EXIT_INTERNAL, "sysroot: %s", err->message);
    g_error_free(err);
    return status;
  }

  if (ov->seal.source || g_file_test(ov->own_cpu_dir, G_FILE_TEST_IS_DIR)) {
    if (!ov->seal.source) {
      ov->seal.source = g_strdup(ov->own_cpu_dir);
    }
    return 0;
  }
  /* sysfs=none (or a dump without it): hide the host's folder behind an
   * empty one, so that the guest finds no CPU files at all. */
  char *empty = g_build_filename(tmp, "empty-cpu", NULL);
  ov->seal.source = empty;
  if (mkdir(empty, 0755) != 0) {
    return runner_fail(RUNNER_EXIT_INTERNAL, "cannot create %s: %s", empty, g_strerror(errno));
  }
  return 0;
}

int runner_scratch_sysroot(const struct runner_options *o, char **out)
{
  *out = NULL;
  char *abs = g_canonicalize_filename(o->sysroot ? o->sysroot : RUNNER_DEFAULT_SYSROOT, NULL);
  char *lib = g_build_filename(abs, "lib", NULL);
  bool has_lib = g_file_test(lib, G_FILE_TEST_IS_DIR);
  g_free(lib);
  if (has_lib) {
    *out = abs;
    return 0;
  }
  g_free(abs);
  if (!o->sysroot) {
    return 0;
  }
  return runner_args_usage_error("%s: sysroot %s has no lib/ folder (expected an aarch64 sysroot "
                                 "such as " RUNNER_DEFAULT_SYSROOT ")",
                                 runner_args_origin(o, offsetof(struct runner_options, sysroot)),
                                 o->sysroot);
}

/* The exec= file next to SUMMARY, where the plugin notes every AArch64
 * program the guest executes (plugin_exec.c). */
char *runner_scratch_exec_note(const char *summary)
{
  char *dir = g_path_get_dirname(summary);
  char *path = g_build_filename(dir, "exec", NULL);
  g_free(dir);
  return path;
}
