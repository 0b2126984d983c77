/*
 * A guest that execs an AArch64 program. linux-user QEMU passes
 * execve to the host kernel (do_execv in linux-user/syscall.c), which
 * either fails with ENOEXEC (no binfmt_misc entry for AArch64: the program
 * sees "Exec format error", and glibc's execvp then tries /bin/sh, the
 * host's) or starts a QEMU of its own without the plugin (a binfmt_misc
 * entry, as CI runners register). Either way the program that runs next
 * is not checked, and its results are not what hardware would give. So the
 * plugin writes the program's path, at the syscall's entry, before the
 * process can be replaced, to the runner's exec= file; the runner then
 * ends the run with its own status and names the program instead of
 * printing a summary (docs/RIG.md, "Exit statuses").
 *
 * The path is looked up as the host sees it: linux-user does not apply -L
 * to execve, and the guest's current folder is QEMU's.
 *
 * With follow= (the runner's default), the program is followed instead, as
 * Valgrind's --trace-children does: at the syscall's entry the plugin
 * writes this process's reports (no exit callback runs across an exec),
 * then replaces the process itself with the runner, given the run's
 * options (follow= lists them), --exec-of (where the new run's findings
 * join this run's) and the program with the guest's own arguments and
 * environment. The runner keeps the pid, the open files, the current
 * folder and the parent-death signal, as an exec would; the program runs
 * under a QEMU of its own, a child of that runner. What differs from a
 * plain exec: the program's argv[0] is its path, and the signal mask and
 * ignored signals of QEMU's thread, not the guest's, cross the exec.
 */
#define _GNU_SOURCE /* openat, O_CLOEXEC */
#include <errno.h>
#include <pthread.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "plugin_exec.h"
#include "rig_contract.h"

#define NR_EXECVE 221
#define NR_EXECVEAT 281
#define GUEST_AT_FDCWD (-100)
#define GUEST_PAGE UINT64_C(4096)
#define PATH_LIMIT 4096
#define EM_AARCH64 183
/* Far more than any real argv or environment. */
#define VECTOR_LIMIT 65536

/* The NUL-terminated string at ADDR in guest memory, or NULL. Read a page
 * at a time: the string may end just before an unmapped page. */
static char *guest_string(uint64_t addr)
{
  GByteArray *buf = g_byte_array_new();
  GString *s = g_string_new(NULL);
  bool ended = false;
  while (!ended && s->len < PATH_LIMIT) {
    size_t chunk = GUEST_PAGE - (addr & (GUEST_PAGE - 1));
    g_byte_array_set_size(buf, 0);
    if (!qemu_plugin_read_memory_vaddr(addr, buf, chunk)) {
      break;
    }
    size_t n = strnlen((const char *)buf->data, buf->len);
    g_string_append_len(s, (const char *)buf->data, (gssize)n);
    ended = n < buf->len;
    addr += chunk;
  }
  g_byte_array_unref(buf);
  return g_string_free(s, !ended);
}

/* Whether the file at PATH (relative to DIRFD) is an AArch64 ELF file. */
static bool is_aarch64_elf(int dirfd, const char *path)
{
  int fd = openat(dirfd, path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    return false;
  }
  unsigned char h[20];
  ssize_t n = read(fd, h, sizeof h);
  close(fd);
  /* e_ident: magic, ELFCLASS64 (2), ELFDATA2LSB (1); e_machine at 18. */
  return n == (ssize_t)sizeof h && memcmp(h, "\177ELF", 4) == 0 && h[4] == 2 && h[5] == 1 &&
         (h[18] | h[19] << 8) == EM_AARCH64;
}

static void note_exec(const struct plugin_rig *rig, const char *path)
{
  const char *file = rig->opts.exec_path;
  if (!file) {
    fprintf(stderr,
            "jitflush plugin: the program executes %s, an AArch64 program the rig "
            "cannot follow\n",
            path);
    return;
  }
  int fd = open(file, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
  if (fd < 0) {
    fprintf(stderr, "jitflush plugin: cannot open %s: %s\n", file, g_strerror(errno));
    return;
  }
  GString *line = g_string_new(path);
  g_string_append_c(line, '\n');
  /* One write with O_APPEND: lines of several processes do not mix. */
  if (write(fd, line->str, line->len) != (ssize_t)line->len) {
    fprintf(stderr, "jitflush plugin: cannot write %s: %s\n", file, g_strerror(errno));
  }
  g_string_free(line, true);
  close(fd);
}

/* The guest's NULL-terminated vector of strings at ADDR (argv, envp) as
 * host strings, appended to OUT; false when it cannot be read. A NULL
 * vector is empty, as Linux takes it. */
static bool guest_vector(uint64_t addr, GPtrArray *out)
{
  GByteArray *buf = g_byte_array_new();
  bool ok = true;
  for (unsigned i = 0; addr && ok && i < VECTOR_LIMIT; i++) {
    g_byte_array_set_size(buf, 0);
    ok = qemu_plugin_read_memory_vaddr(addr + 8 * (uint64_t)i, buf, 8) && buf->len == 8;
    uint64_t ptr = 0;
    if (ok) {
      memcpy(&ptr, buf->data, 8); /* the guest is little-endian, as the host */
    }
    if (!ok || !ptr) {
      break;
    }
    char *s = guest_string(ptr);
    ok = s != NULL;
    if (ok) {
      g_ptr_array_add(out, s);
    }
  }
  g_byte_array_unref(buf);
  return ok;
}

/* Replaces the process with the runner on PATH (see the top of the file).
 * Returns only when that is impossible. */
static void follow_exec(struct plugin_rig *rig, const char *path, uint64_t argv_addr,
                        uint64_t envp_addr, plugin_exec_reports_fn *reports)
{
  GPtrArray *argv = g_ptr_array_new_with_free_func(g_free);
  GPtrArray *envp = g_ptr_array_new_with_free_func(g_free);
  g_auto(GStrv) runner = g_strsplit(rig->opts.follow, RIG_FOLLOW_SEPARATOR, -1);
  for (char **a = runner; *a; a++) {
    g_ptr_array_add(argv, g_strdup(*a));
  }
  g_ptr_array_add(argv, g_strdup("--"));
  g_ptr_array_add(argv, g_strdup(path));
  GPtrArray *guest_args = g_ptr_array_new_with_free_func(g_free);
  bool ok = guest_vector(argv_addr, guest_args) && guest_vector(envp_addr, envp);
  for (guint i = 1; ok && i < guest_args->len; i++) { /* argv[0]: the path */
    g_ptr_array_add(argv, g_strdup(guest_args->pdata[i]));
  }
  g_ptr_array_unref(guest_args);
  g_ptr_array_add(argv, NULL);
  g_ptr_array_add(envp, NULL);
  if (ok) {
    reports(rig, false);
    /* The runner handles INT, TERM and HUP; QEMU's thread may block them. */
    sigset_t none;
    sigemptyset(&none);
    pthread_sigmask(SIG_SETMASK, &none, NULL);
    execve(argv->pdata[0], (char **)argv->pdata, (char **)envp->pdata);
    fprintf(stderr, "jitflush plugin: cannot run %s to follow the exec of %s: %s\n",
            (char *)argv->pdata[0], path, g_strerror(errno));
    reports(rig, true);
  } else {
    fprintf(stderr, "jitflush plugin: cannot read the arguments of the exec of %s\n", path);
  }
  g_ptr_array_unref(argv);
  g_ptr_array_unref(envp);
}

void plugin_exec_syscall(struct plugin_rig *rig, int64_t num, const uint64_t args[6],
                         plugin_exec_reports_fn *reports)
{
  int dirfd = AT_FDCWD;
  uint64_t path_addr = args[0];
  uint64_t argv_addr = args[1], envp_addr = args[2];
  if (num == NR_EXECVEAT) {
    /* Only the current folder: a guest fd names a host folder too, but
     * the AT_EMPTY_PATH form (fexecve) names the file by its fd. */
    if ((int)args[0] != GUEST_AT_FDCWD) {
      dirfd = (int)args[0];
    }
    path_addr = args[1];
    argv_addr = args[2];
    envp_addr = args[3];
  } else if (num != NR_EXECVE) {
    return;
  }
  char *path = guest_string(path_addr);
  if (path && *path && is_aarch64_elf(dirfd, path)) {
    if (rig->opts.follow && dirfd == AT_FDCWD) {
      follow_exec(rig, path, argv_addr, envp_addr, reports);
    }
    note_exec(rig, path);
  }
  g_free(path);
}
