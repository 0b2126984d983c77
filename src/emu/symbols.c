/*
 * Guest symbolisation with libdwfl (symbols.h). libdwfl reads the
 * mappings the way it reads a live process's (dwfl_linux_proc_maps_report),
 * so load biases of position-independent objects come out right, and it
 * finds separate debug information the standard way (build-id and
 * .gnu_debuglink, dwfl_standard_find_debuginfo).
 */
#define _GNU_SOURCE /* fmemopen */
#include <elf.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <elfutils/libdwfl.h>
#include <glib.h>

#include "symbols.h"

struct emu_symbols {
  Dwfl *dwfl; /* NULL when nothing could be reported */
};

static char *debuginfo_path;

static const Dwfl_Callbacks callbacks = {
    .find_elf = dwfl_linux_proc_find_elf,
    .find_debuginfo = dwfl_standard_find_debuginfo,
    .debuginfo_path = &debuginfo_path,
};

struct emu_symbols *emu_symbols_new(const char *maps)
{
  struct emu_symbols *s = g_new0(struct emu_symbols, 1);
  FILE *f = fmemopen((void *)maps, strlen(maps), "r");
  if (!f) {
    return s;
  }
  s->dwfl = dwfl_begin(&callbacks);
  if (s->dwfl) {
    dwfl_report_begin(s->dwfl);
    if (dwfl_linux_proc_maps_report(s->dwfl, f) != 0) {
      /* Whatever was reported before the problem is still usable. */
    }
    dwfl_report_end(s->dwfl, NULL, NULL);
  }
  fclose(f);
  return s;
}

void emu_symbols_free(struct emu_symbols *s)
{
  if (s) {
    if (s->dwfl) {
      dwfl_end(s->dwfl);
    }
    g_free(s);
  }
}

void emu_symbols_lookup(uint64_t pc, char **symbol, char **location, void *ctx)
{
  struct emu_symbols *s = ctx;
  *symbol = NULL;
  *location = NULL;
  Dwfl_Module *mod = s->dwfl ? dwfl_addrmodule(s->dwfl, pc) : NULL;
  if (!mod) {
    return;
  }
  GElf_Off offset = 0;
  GElf_Sym sym;
  const char *name = dwfl_module_addrinfo(mod, pc, &offset, &sym, NULL, NULL, NULL);
  if (name) {
    *symbol = g_strdup_printf("%s+0x%" PRIx64, name, (uint64_t)offset);
  }
  Dwfl_Line *line = dwfl_module_getsrc(mod, pc);
  int lineno = 0;
  const char *file = line ? dwfl_lineinfo(line, NULL, &lineno, NULL, NULL, NULL) : NULL;
  if (file && lineno > 0) {
    *location = g_strdup_printf("%s:%d", file, lineno);
  }
}

/* Whether PATH is an ELF file for AArch64 (EM_AARCH64): QEMU's own
 * mappings (its binary, the host's libraries) are not the guest's. */
static bool is_aarch64_elf(const char *path)
{
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    return false;
  }
  unsigned char h[EI_NIDENT + 4];
  bool ok = read(fd, h, sizeof(h)) == (ssize_t)sizeof(h) && memcmp(h, ELFMAG, SELFMAG) == 0 &&
            h[EI_DATA] == ELFDATA2LSB && (h[EI_NIDENT + 2] | (h[EI_NIDENT + 3] << 8)) == EM_AARCH64;
  close(fd);
  return ok;
}

/* One maps line: "start-end perms offset dev inode   path". */
struct maps_line {
  uint64_t start, end;
  char perms[8];
  const char *rest; /* from the offset on */
  const char *path; /* NULL when none */
};

static bool parse_line(const char *line, struct maps_line *out)
{
  int consumed = 0;
  if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %7s %n", &out->start, &out->end, out->perms,
             &consumed) != 3) {
    return false;
  }
  out->rest = line + consumed;
  const char *slash = strchr(out->rest, '/');
  out->path = slash;
  return true;
}

char *emu_symbols_guest_maps(const char *host_maps, uint64_t guest_base)
{
  GString *out = g_string_new(NULL);
  GHashTable *checked = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
  gchar **lines = g_strsplit(host_maps, "\n", -1);
  for (gchar **l = lines; *l; l++) {
    struct maps_line m;
    if (!parse_line(*l, &m) || !m.path || m.start < guest_base) {
      continue;
    }
    gpointer verdict = NULL;
    if (!g_hash_table_lookup_extended(checked, m.path, NULL, &verdict)) {
      verdict = GINT_TO_POINTER(is_aarch64_elf(m.path) ? 2 : 1);
      g_hash_table_insert(checked, g_strdup(m.path), verdict);
    }
    if (GPOINTER_TO_INT(verdict) != 2) {
      continue;
    }
    g_string_append_printf(out, "%" PRIx64 "-%" PRIx64 " %s %s\n", m.start - guest_base,
                           m.end - guest_base, m.perms, m.rest);
  }
  g_strfreev(lines);
  g_hash_table_destroy(checked);
  return g_string_free(out, false);
}

uint64_t emu_symbols_guest_base(const char *host_maps, const char *path, uint64_t start_code)
{
  uint64_t base = 0;
  if (!path) {
    return 0;
  }
  char *real = realpath(path, NULL);
  gchar **lines = g_strsplit(host_maps, "\n", -1);
  for (gchar **l = lines; *l; l++) {
    struct maps_line m;
    if (!parse_line(*l, &m) || !m.path || strchr(m.perms, 'x') == NULL) {
      continue;
    }
    if (strcmp(m.path, path) == 0 || (real && strcmp(m.path, real) == 0)) {
      /* The text mapping begins on the page holding start_code. */
      base = m.start - (start_code & ~UINT64_C(0xfff));
      break;
    }
  }
  g_strfreev(lines);
  free(real);
  return base;
}
