/*
 * jitflush-emu as the kernel's handler of AArch64 programs.
 *
 * CMake hands its emulator only to tests registered as
 * add_test(NAME n COMMAND target); the old add_test(n command) form, the
 * programs a test script starts (PCRE2's RunTest), and an execve inside a
 * guest all go to the host kernel, which cannot run an AArch64 ELF file.
 * binfmt_misc (Documentation/admin-guide/binfmt-misc.rst) makes the kernel
 * run a registered interpreter instead, with the program's path and
 * arguments: the same mechanism qemu-user-static and
 * docker/setup-qemu-action use on CI runners. The interpreter gets nothing
 * else, so the rig's options come from the environment (docs/RIG.md).
 *
 * Flag F opens the interpreter when it is registered, so it is found from
 * any mount namespace and chroot later (the rig's QEMU runs in one of its
 * own). Since Linux 6.7 each user namespace may mount a binfmt_misc of its
 * own; runner_binfmt_run uses that to register the rig for one command only.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <glib.h>

#include "runner_exit_statuses.h"
#include "runner_args.h"
#include "runner_binfmt.h"
#include "runner_fail.h"

#define BINFMT_DIR "/proc/sys/fs/binfmt_misc"

/* An ELF64 little-endian executable (e_type 2, EXEC) or position-
 * independent one (3, DYN: the mask's 0xfe takes both) for EM_AARCH64
 * (183, 0xb7), any OS ABI (byte 7 masked out), as QEMU's own
 * scripts/qemu-binfmt-conf.sh matches it. */
#define AARCH64_MAGIC                                                                              \
  "\\x7fELF\\x02\\x01\\x01\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x02\\x00\\xb7\\x00"
#define AARCH64_MASK                                                                               \
  "\\xff\\xff\\xff\\xff\\xff\\xff\\xff\\x00\\xff\\xff\\xff\\xff\\xff\\xff\\xff\\xff\\xfe\\xff\\xf" \
  "f\\xff"

static bool set_errno_error(GError **error, int e, const char *what)
{
  g_set_error(error, G_FILE_ERROR, g_file_error_from_errno(e), "%s: %s", what, g_strerror(e));
  return false;
}

static bool write_text(const char *path, const char *text, GError **error)
{
  int fd = open(path, O_WRONLY | O_CLOEXEC);
  if (fd < 0) {
    return set_errno_error(error, errno, path);
  }
  ssize_t n = write(fd, text, strlen(text));
  int e = errno;
  close(fd);
  if (n != (ssize_t)strlen(text)) {
    return set_errno_error(error, n < 0 ? e : EIO, path);
  }
  return true;
}

/* binfmt_misc is mounted here when its register file exists. */
static bool ensure_mounted(GError **error)
{
  if (access(BINFMT_DIR "/register", F_OK) == 0) {
    return true;
  }
  if (mount("binfmt_misc", BINFMT_DIR, "binfmt_misc", 0, NULL) != 0) {
    return set_errno_error(error, errno, "cannot mount binfmt_misc on " BINFMT_DIR);
  }
  return true;
}

bool runner_binfmt_register(const char *interpreter, GError **error)
{
  if (!g_path_is_absolute(interpreter) || access(interpreter, X_OK) != 0) {
    g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_NOENT,
                "the interpreter %s is not an executable file (the build links it next to "
                "jitflush-emu)",
                interpreter);
    return false;
  }
  if (!ensure_mounted(error)) {
    return false;
  }
  if (access(BINFMT_DIR "/" RUNNER_BINFMT_NAME, F_OK) == 0) {
    g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_EXIST,
                "%s/%s is already registered (jitflush-emu --binfmt-unregister removes it)",
                BINFMT_DIR, RUNNER_BINFMT_NAME);
    return false;
  }
  char *line = g_strdup_printf(":%s:M::%s:%s:%s:F", RUNNER_BINFMT_NAME, AARCH64_MAGIC, AARCH64_MASK,
                               interpreter);
  bool ok = write_text(BINFMT_DIR "/register", line, error);
  g_free(line);
  return ok;
}

bool runner_binfmt_unregister(GError **error)
{
  const char *entry = BINFMT_DIR "/" RUNNER_BINFMT_NAME;
  if (access(entry, F_OK) != 0) {
    g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_NOENT, "%s is not registered", entry);
    return false;
  }
  return write_text(entry, "-1", error);
}

/* Maps this process's user and group to root of the new user namespace,
 * as unshare --map-root-user does: one id each, which a process may map
 * for itself without privileges (user_namespaces(7)). */
static bool map_to_root(uid_t uid, gid_t gid, GError **error)
{
  char map[64];
  g_snprintf(map, sizeof map, "0 %u 1", (unsigned)uid);
  if (!write_text("/proc/self/uid_map", map, error)) {
    return false;
  }
  if (!write_text("/proc/self/setgroups", "deny", error)) {
    return false;
  }
  g_snprintf(map, sizeof map, "0 %u 1", (unsigned)gid);
  return write_text("/proc/self/gid_map", map, error);
}

int runner_binfmt_run(const char *interpreter, char *const command[], GError **error)
{
  uid_t uid = geteuid();
  gid_t gid = getegid();
  if (unshare(CLONE_NEWUSER | CLONE_NEWNS) != 0) {
    set_errno_error(error, errno,
                    "cannot create a user and mount namespace for a private binfmt_misc "
                    "(as root, jitflush-emu --binfmt-register registers it system-wide)");
    return -1;
  }
  if (!map_to_root(uid, gid, error)) {
    return -1;
  }
  /* Mounts made from here on stay in this namespace. */
  if (mount("none", "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0) {
    set_errno_error(error, errno, "cannot make the mounts private");
    return -1;
  }
  /* A binfmt_misc of this user namespace's own (Linux >= 6.7); older
   * kernels refuse the mount in a user namespace, and the run stops here
   * rather than register with the host's, which would outlive COMMAND. */
  if (mount("binfmt_misc", BINFMT_DIR, "binfmt_misc", 0, NULL) != 0) {
    set_errno_error(error, errno,
                    "cannot mount a private binfmt_misc (Linux 6.7 or later is needed)");
    return -1;
  }
  if (!runner_binfmt_register(interpreter, error)) {
    return -1;
  }
  pid_t pid = fork();
  if (pid < 0) {
    set_errno_error(error, errno, "fork");
    return -1;
  }
  if (pid == 0) {
    execvp(command[0], command);
    fprintf(stderr, "jitflush-emu: cannot run %s: %s\n", command[0], g_strerror(errno));
    _exit(127);
  }
  /* The command's own terminal signals reach it through the process
   * group; the runner only waits. */
  signal(SIGINT, SIG_IGN);
  signal(SIGQUIT, SIG_IGN);
  int wstatus = 0;
  while (waitpid(pid, &wstatus, 0) < 0 && errno == EINTR)
    ;
  if (WIFSIGNALED(wstatus)) {
    return 128 + WTERMSIG(wstatus);
  }
  return WEXITSTATUS(wstatus);
}

/* --binfmt-register, --binfmt-unregister, --binfmt-run -- COMMAND...:
 * the rig as the handler of every AArch64 program. */
int runner_binfmt_command(int argc, char **argv, const char *interp)
{
  GError *err = NULL;
  int status = 0;
  const char *cmd = argv[1];
  if (strcmp(cmd, "--binfmt-run") == 0) {
    if (argc < 4 || strcmp(argv[2], "--") != 0) {
      status = runner_args_usage_error("--binfmt-run: give the command after '--', e.g. "
                                       "jitflush-emu --binfmt-run -- ctest");
    } else if ((status = runner_binfmt_run(interp, argv + 3, &err)) < 0) {
      status = runner_fail(RUNNER_EXIT_BINFMT, "--binfmt-run: %s", err->message);
    }
  } else if (argc != 2) {
    status = runner_args_usage_error("%s takes no arguments", cmd);
  } else if (strcmp(cmd, "--binfmt-register") == 0 ? !runner_binfmt_register(interp, &err)
                                                   : !runner_binfmt_unregister(&err)) {
    status = runner_fail(RUNNER_EXIT_BINFMT, "%s: %s", cmd, err->message);
  }
  if (err) {
    g_error_free(err);
  }
  return status;
}

/* Started by binfmt_misc as jitflush-emu-binfmt PROGRAM ARGS...: the same
 * as jitflush-emu --summary stale -- PROGRAM ARGS..., every other option
 * from the environment. The programs binfmt_misc brings here are run by
 * scripts that often compare their stderr (PCRE2's RunGrepTest), so a clean
 * run says nothing, unless JITFLUSH_EMU_SUMMARY says otherwise. */
char **runner_binfmt_argv(int *argc, char **argv)
{
  const char *summary = getenv("JITFLUSH_EMU_SUMMARY");
  bool given = summary && *summary;
  char **args = g_new0(char *, (size_t)*argc + 3);
  int n = 0;
  args[n++] = argv[0];
  if (!given) {
    args[n++] = "--summary=stale";
  }
  args[n++] = "--";
  for (int i = 1; i < *argc; i++) {
    args[n++] = argv[i];
  }
  *argc = n;
  return args;
}
