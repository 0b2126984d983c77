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
 */
#define _GNU_SOURCE /* openat, O_CLOEXEC */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "plugin_exec.h"

#define NR_EXECVE 221
#define NR_EXECVEAT 281
#define GUEST_AT_FDCWD (-100)
#define GUEST_PAGE UINT64_C(4096)
#define PATH_LIMIT 4096
#define EM_AARCH64 183

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

static void note_exec(const struct jf_rig *rig, const char *path)
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

void jf_exec_syscall(struct jf_rig *rig, int64_t num, const uint64_t args[6])
{
  int dirfd = AT_FDCWD;
  uint64_t path_addr = args[0];
  if (num == NR_EXECVEAT) {
    /* Only the current folder: a guest fd names a host folder too, but
     * the AT_EMPTY_PATH form (fexecve) names the file by its fd. */
    if ((int)args[0] != GUEST_AT_FDCWD) {
      dirfd = (int)args[0];
    }
    path_addr = args[1];
  } else if (num != NR_EXECVE) {
    return;
  }
  char *path = guest_string(path_addr);
  if (path && *path && is_aarch64_elf(dirfd, path)) {
    note_exec(rig, path);
  }
  g_free(path);
}
