/*
 * Does this QEMU load TCG plugins? The runner used to ask it with
 * "qemu-aarch64 -h" and look for -plugin, which starts QEMU once more
 * before every run: about a third of what the runner adds to a short
 * program's start (docs/BENCHMARKS.md, "Start-up"). A test suite starts
 * hundreds of short programs, so the answer now comes from the file.
 *
 * Plugins call QEMU's API (qemu_plugin_register_vcpu_tb_trans_cb and the
 * rest, include/qemu/qemu-plugin.h) as symbols of the executable: a build
 * with --enable-plugins exports them through its dynamic symbol table
 * (plugins/meson.build links with a --dynamic-list of the API), and a build
 * without plugins has no such functions at all. So their names in the
 * .dynsym's string table answer the question for a dynamic ELF program.
 * Anything else (a wrapper script, a static build, an unreadable file) is
 * left to "-h", which is slower but always right.
 */
#define _GNU_SOURCE
#include "runner_qemu.h"
#include "runner_program.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <string.h>
#include <unistd.h>

#include <glib.h>

/* One function of the API every plugin registers through. */
#define PLUGIN_API_SYMBOL "qemu_plugin_register_vcpu_tb_trans_cb"
/* Larger string tables are not QEMU's: ask QEMU instead. */
#define MAX_DYNSTR (16u << 20)

/* The .dynsym's string table of the ELF64 little-endian file FD, or NULL
 * (with *size 0) when it has none or cannot be read. */
static char *dynamic_strings(int fd, size_t *size)
{
  *size = 0;
  Elf64_Ehdr eh;
  if (!runner_read_at(fd, &eh, sizeof eh, 0) || memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 ||
      eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_ident[EI_DATA] != ELFDATA2LSB ||
      eh.e_shentsize != sizeof(Elf64_Shdr) || eh.e_shnum == 0 || eh.e_shnum >= SHN_LORESERVE) {
    return NULL;
  }
  Elf64_Shdr *sh = g_new(Elf64_Shdr, eh.e_shnum);
  char *strings = NULL;
  if (runner_read_at(fd, sh, sizeof *sh * eh.e_shnum, (off_t)eh.e_shoff)) {
    for (unsigned i = 0; i < eh.e_shnum && !strings; i++) {
      if (sh[i].sh_type != SHT_DYNSYM || sh[i].sh_link >= eh.e_shnum) {
        continue;
      }
      const Elf64_Shdr *str = &sh[sh[i].sh_link];
      if (str->sh_type != SHT_STRTAB || str->sh_size == 0 || str->sh_size > MAX_DYNSTR) {
        break;
      }
      strings = g_malloc(str->sh_size + 1);
      if (!runner_read_at(fd, strings, str->sh_size, (off_t)str->sh_offset)) {
        g_clear_pointer(&strings, g_free);
        break;
      }
      strings[str->sh_size] = '\0';
      *size = str->sh_size;
    }
  }
  g_free(sh);
  return strings;
}

enum runner_plugin_support runner_qemu_plugin_support(const char *path)
{
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    return RUNNER_PLUGINS_UNKNOWN;
  }
  size_t size = 0;
  char *strings = dynamic_strings(fd, &size);
  close(fd);
  if (!strings) {
    return RUNNER_PLUGINS_UNKNOWN;
  }
  /* The table is NUL-separated names; a name is found whole. */
  bool found = false;
  for (size_t at = 0; at < size && !found; at += strlen(strings + at) + 1) {
    found = strcmp(strings + at, PLUGIN_API_SYMBOL) == 0;
  }
  g_free(strings);
  return found ? RUNNER_PLUGINS_YES : RUNNER_PLUGINS_NO;
}

char *runner_qemu_version(const char *path)
{
  char *argv[] = {(char *)path, "--version", NULL};
  char *out = NULL;
  char *line = NULL;
  if (g_spawn_sync(NULL, argv, NULL, G_SPAWN_STDERR_TO_DEV_NULL, NULL, NULL, &out, NULL, NULL,
                   NULL) &&
      out) {
    char *end = strchr(out, '\n');
    if (end) {
      *end = '\0';
    }
    if (*g_strstrip(out)) {
      line = g_strdup(out);
    }
  }
  g_free(out);
  return line ? line : g_strdup_printf("the QEMU at %s", path);
}

/* QEMU built without plugins does not export their API (above), nor list
 * -plugin in its help, which is asked only when the file does not tell. */
bool runner_qemu_has_plugins(const char *qemu)
{
  enum runner_plugin_support known = runner_qemu_plugin_support(qemu);
  if (known != RUNNER_PLUGINS_UNKNOWN) {
    return known == RUNNER_PLUGINS_YES;
  }
  char *argv[] = {(char *)qemu, "-h", NULL};
  char *out = NULL;
  gint status = 0;
  bool ok = g_spawn_sync(NULL, argv, NULL, G_SPAWN_STDERR_TO_DEV_NULL, NULL, NULL, &out, NULL,
                         &status, NULL);
  ok = ok && out && strstr(out, "-plugin") != NULL;
  g_free(out);
  return ok;
}
