/*
 * Guest symbolisation with libdwfl (report_symbols.h). libdwfl reads the
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
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <gelf.h>
#include <glib.h>

#include "report_demangle.h"
#include "report_symbols.h"

struct report_symbols {
  Dwfl *dwfl;        /* NULL when nothing could be reported */
  GHashTable *facts; /* Dwfl_Module * -> struct module_facts * */
};

/* What a module says of itself (report_frame_names.h), read once per module. */
struct module_facts {
  char *comment, *soname, *package;
};

static void module_facts_free(gpointer p)
{
  struct module_facts *m = p;
  g_free(m->comment);
  g_free(m->soname);
  g_free(m->package);
  g_free(m);
}

static char *debuginfo_path;

/* "ab/cdef....debug" for the build ID of MOD, or NULL without one. */
static char *build_id_name(Dwfl_Module *mod, bool debug_suffix)
{
  const unsigned char *id = NULL;
  GElf_Addr vaddr;
  int n = dwfl_module_build_id(mod, &id, &vaddr);
  if (n <= 1 || !id) {
    return NULL;
  }
  GString *out = g_string_new(NULL);
  for (int i = 0; i < n; i++) {
    g_string_append_printf(out, debug_suffix && i == 1 ? "/%02x" : "%02x", id[i]);
  }
  if (debug_suffix) {
    g_string_append(out, ".debug");
  }
  return g_string_free(out, false);
}

/*
 * The standard search first; then, for an object inside a sysroot (the
 * runner's --sysroot, where QEMU maps ROOT/usr/lib/.../libfoo.so), the
 * debug file that ROOT's own debug packages installed:
 * ROOT/usr/lib/debug/.build-id/ab/cdef....debug (Debian's -dbgsym packages
 * and elfutils' own layout). ROOT is not passed in: every directory above
 * the object is tried, so no plugin option is needed and a debug tree
 * beside any copy of the object is found.
 */
static int find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname, GElf_Addr base,
                          const char *file_name, const char *debuglink_file,
                          GElf_Word debuglink_crc, char **debuginfo_file_name)
{
  int fd = dwfl_standard_find_debuginfo(mod, userdata, modname, base, file_name, debuglink_file,
                                        debuglink_crc, debuginfo_file_name);
  if (fd >= 0 || !file_name) {
    return fd;
  }
  char *rel = build_id_name(mod, true);
  if (!rel) {
    return -1;
  }
  char *dir = g_path_get_dirname(file_name);
  fd = -1;
  while (fd < 0) {
    char *path =
        g_strconcat(dir, strcmp(dir, "/") ? "/" : "", "usr/lib/debug/.build-id/", rel, NULL);
    fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
      *debuginfo_file_name = g_steal_pointer(&path);
    }
    g_free(path);
    char *up = g_path_get_dirname(dir);
    bool top = strcmp(up, dir) == 0;
    g_free(dir);
    dir = up;
    if (top) {
      break;
    }
  }
  g_free(dir);
  g_free(rel);
  return fd;
}

static const Dwfl_Callbacks callbacks = {
    .find_elf = dwfl_linux_proc_find_elf,
    .find_debuginfo = find_debuginfo,
    .debuginfo_path = &debuginfo_path,
};

struct report_symbols *report_symbols_new(const char *maps)
{
  struct report_symbols *s = g_new0(struct report_symbols, 1);
  s->facts = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, module_facts_free);
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

void report_symbols_free(struct report_symbols *s)
{
  if (s) {
    if (s->dwfl) {
      dwfl_end(s->dwfl);
    }
    g_hash_table_destroy(s->facts);
    g_free(s);
  }
}

/* The offset in MOD's file of the ELF address VADDR: through the loadable
 * segment holding it (file offset and address differ by the segment's
 * p_vaddr - p_offset). */
static uint64_t file_offset(Dwfl_Module *mod, uint64_t vaddr)
{
  GElf_Addr bias;
  Elf *elf = dwfl_module_getelf(mod, &bias);
  size_t n = 0;
  if (elf && elf_getphdrnum(elf, &n) == 0) {
    for (size_t i = 0; i < n; i++) {
      GElf_Phdr ph;
      if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD && vaddr >= ph.p_vaddr &&
          vaddr < ph.p_vaddr + ph.p_filesz) {
        return vaddr - ph.p_vaddr + ph.p_offset;
      }
    }
  }
  return vaddr;
}

/* ---- what a module says of itself ------------------------------------------- */

/* The NUL-separated strings of a .comment section, each once, one a line
 * (the linker merges equal strings; a debug file may still repeat some). */
static char *comment_lines(const Elf_Data *d)
{
  GString *out = g_string_new(NULL);
  const char *p = d->d_buf, *end = p + d->d_size;
  while (p < end) {
    size_t len = strnlen(p, (size_t)(end - p));
    char *one = g_strndup(p, len);
    g_strstrip(one);
    char *line = g_strconcat("\n", one, "\n", NULL);
    char *have = g_strconcat("\n", out->str, "\n", NULL);
    if (*one && !strstr(have, line)) {
      g_string_append_printf(out, "%s%s", out->len ? "\n" : "", one);
    }
    g_free(have);
    g_free(line);
    g_free(one);
    p += len + 1;
  }
  return g_string_free(out, out->len == 0);
}

/* The string value of "KEY":"..." in the flat JSON object TEXT, NULL
 * without it (the package note's values carry no escapes). */
static char *json_string_value(const char *text, const char *key)
{
  char *pattern = g_strdup_printf("\"%s\"", key);
  const char *at = strstr(text, pattern);
  g_free(pattern);
  if (!at) {
    return NULL;
  }
  at = strchr(at + strlen(key) + 2, '"');
  const char *end = at ? strchr(at + 1, '"') : NULL;
  return end ? g_strndup(at + 1, (gsize)(end - at - 1)) : NULL;
}

/* The FDO package note (the ELF package metadata of systemd's
 * "Package Metadata for Core Files" spec, note type 0xcafe1a7e, owner
 * "FDO"): a JSON object with "name" and "version", which some
 * distributions' builds link in. "name version", or NULL. */
#ifndef NT_FDO_PACKAGING_METADATA
#define NT_FDO_PACKAGING_METADATA 0xcafe1a7e
#endif
static char *package_note(Elf_Data *d)
{
  GElf_Nhdr nh;
  size_t name_at, desc_at, next = 0;
  for (size_t at = 0; (next = gelf_getnote(d, at, &nh, &name_at, &desc_at)) > 0; at = next) {
    const char *owner = (const char *)d->d_buf + name_at;
    if (nh.n_type != NT_FDO_PACKAGING_METADATA || nh.n_namesz != 4 || memcmp(owner, "FDO", 4)) {
      continue;
    }
    char *json = g_strndup((const char *)d->d_buf + desc_at, nh.n_descsz);
    char *name = json_string_value(json, "name"), *version = json_string_value(json, "version");
    char *out = name ? g_strjoin(" ", name, version, NULL) : NULL;
    g_free(name);
    g_free(version);
    g_free(json);
    return out;
  }
  return NULL;
}

/* Fills what M lacks from ELF's sections: .comment, DT_SONAME and the
 * package note. */
static void read_facts(Elf *elf, struct module_facts *m)
{
  size_t shstrndx;
  if (!elf || elf_getshdrstrndx(elf, &shstrndx) != 0) {
    return;
  }
  for (Elf_Scn *scn = NULL; (scn = elf_nextscn(elf, scn)) != NULL;) {
    GElf_Shdr sh;
    if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS) {
      continue;
    }
    const char *name = elf_strptr(elf, shstrndx, sh.sh_name);
    Elf_Data *d = name ? elf_getdata(scn, NULL) : NULL;
    if (!d || !d->d_buf) {
      continue;
    }
    if (!m->comment && strcmp(name, ".comment") == 0) {
      m->comment = comment_lines(d);
    } else if (!m->soname && sh.sh_type == SHT_DYNAMIC && sh.sh_entsize) {
      for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
        GElf_Dyn dyn;
        if (gelf_getdyn(d, (int)i, &dyn) && dyn.d_tag == DT_SONAME) {
          const char *so = elf_strptr(elf, sh.sh_link, dyn.d_un.d_val);
          m->soname = so ? g_strdup(so) : NULL;
        }
      }
    } else if (!m->package && sh.sh_type == SHT_NOTE && strcmp(name, ".note.package") == 0) {
      m->package = package_note(d);
    }
  }
}

static const struct module_facts *facts_of(struct report_symbols *s, Dwfl_Module *mod)
{
  struct module_facts *m = g_hash_table_lookup(s->facts, mod);
  if (!m) {
    m = g_new0(struct module_facts, 1);
    GElf_Addr bias;
    read_facts(dwfl_module_getelf(mod, &bias), m);
    /* Distributions strip .comment from what they ship and keep it in the
     * debug file (Debian's dh_strip: --remove-section=.comment, after
     * objcopy --only-keep-debug). */
    Dwarf_Addr dwbias;
    Dwarf *dw = m->comment ? NULL : dwfl_module_getdwarf(mod, &dwbias);
    if (dw) {
      read_facts(dwarf_getelf(dw), m);
    }
    g_hash_table_insert(s->facts, mod, m);
  }
  return m;
}

/* The DW_AT_producer of the compile unit covering PC, NULL without one. */
static char *producer_at(Dwfl_Module *mod, uint64_t pc)
{
  Dwarf_Addr bias;
  Dwarf_Die *cu = dwfl_module_addrdie(mod, pc, &bias);
  Dwarf_Attribute attr;
  const char *p = cu && dwarf_attr(cu, DW_AT_producer, &attr) ? dwarf_formstring(&attr) : NULL;
  return p && *p ? g_strdup(p) : NULL;
}

void report_symbols_lookup(uint64_t pc, struct report_frame_names *out, void *ctx)
{
  struct report_symbols *s = ctx;
  Dwfl_Module *mod = s->dwfl ? dwfl_addrmodule(s->dwfl, pc) : NULL;
  if (!mod) {
    return;
  }
  const char *modname = dwfl_module_info(mod, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
  GElf_Addr bias = 0;
  if (dwfl_module_getelf(mod, &bias)) {
    out->module = g_strdup(modname);
    out->offset = file_offset(mod, pc - bias);
  }
  GElf_Off offset = 0;
  GElf_Sym sym;
  const char *name = dwfl_module_addrinfo(mod, pc, &offset, &sym, NULL, NULL, NULL);
  if (name) {
    char *plain = report_demangle(name);
    out->symbol = g_strdup_printf("%s+0x%" PRIx64, plain ? plain : name, (uint64_t)offset);
    out->raw_symbol = g_strdup_printf("%s+0x%" PRIx64, name, (uint64_t)offset);
    g_free(plain);
  }
  Dwfl_Line *line = dwfl_module_getsrc(mod, pc);
  int lineno = 0;
  const char *file = line ? dwfl_lineinfo(line, NULL, &lineno, NULL, NULL, NULL) : NULL;
  if (file && lineno > 0) {
    out->location = g_strdup_printf("%s:%d", file, lineno);
  }
  out->producer = producer_at(mod, pc);
  const struct module_facts *m = facts_of(s, mod);
  out->comment = g_strdup(m->comment);
  out->soname = g_strdup(m->soname);
  out->package = g_strdup(m->package);
}

/* ---- the return address, from the call frame information -------------------- */

/* DW_OP_bregN OFFSET or DW_OP_bregx N OFFSET alone: a register plus an
 * offset, the CFA rules compilers emit for AArch64. */
static bool register_plus(const Dwarf_Op *ops, size_t n, unsigned *reg, int64_t *offset)
{
  if (n == 1 && ops[0].atom >= DW_OP_breg0 && ops[0].atom <= DW_OP_breg31) {
    *reg = ops[0].atom - DW_OP_breg0;
    *offset = (int64_t)ops[0].number;
    return true;
  }
  if (n == 1 && ops[0].atom == DW_OP_bregx) {
    *reg = (unsigned)ops[0].number;
    *offset = (int64_t)ops[0].number2;
    return true;
  }
  return false;
}

/* The rule in the frame of PC that CFI gives for x30, the return address
 * column of AArch64 (the ABI's CIE names it). */
static struct report_return_rule rule_in(Dwarf_CFI *cfi, Dwarf_Addr addr)
{
  struct report_return_rule rule = {REPORT_RETURN_UNKNOWN, 0, 0};
  Dwarf_Frame *frame = NULL;
  if (!cfi || dwarf_cfi_addrframe(cfi, addr, &frame) != 0) {
    return rule;
  }
  Dwarf_Op mem[3], *ops = NULL, *cfa = NULL;
  size_t n = 0, ncfa = 0;
  unsigned base;
  int64_t base_off;
  const int ra = 30;
  if (dwarf_frame_register(frame, ra, mem, &ops, &n) == 0) {
    if (n == 0 && !ops) {
      /* same_value: this frame has not touched x30 (a leaf, or before
       * the prologue saved it). */
      rule = (struct report_return_rule){REPORT_RETURN_IN_REG, ra, 0};
    } else if (n >= 1 && ops[0].atom == DW_OP_call_frame_cfa &&
               dwarf_frame_cfa(frame, &cfa, &ncfa) == 0 &&
               register_plus(cfa, ncfa, &base, &base_off)) {
      /* offset(N): saved at CFA + N, as libdw writes it
       * (DW_OP_call_frame_cfa, then DW_OP_plus_uconst N unless N is 0);
       * a trailing DW_OP_stack_value would make it a value, not a slot. */
      if (n == 1) {
        rule = (struct report_return_rule){REPORT_RETURN_AT, base, base_off};
      } else if (n == 2 && ops[1].atom == DW_OP_plus_uconst) {
        rule =
            (struct report_return_rule){REPORT_RETURN_AT, base, base_off + (int64_t)ops[1].number};
      }
    } else if (n == 1 && ops[0].atom >= DW_OP_reg0 && ops[0].atom <= DW_OP_reg31) {
      rule = (struct report_return_rule){REPORT_RETURN_IN_REG, ops[0].atom - DW_OP_reg0, 0};
    } else if (n == 1 && ops[0].atom == DW_OP_regx) {
      rule = (struct report_return_rule){REPORT_RETURN_IN_REG, (unsigned)ops[0].number, 0};
    } else if (n == 2 && ops[1].atom == DW_OP_stack_value &&
               register_plus(ops, 1, &base, &base_off) && base_off == 0) {
      /* register(R), as a value: R holds it. */
      rule = (struct report_return_rule){REPORT_RETURN_IN_REG, base, 0};
    }
  }
  free(frame);
  if (rule.kind != REPORT_RETURN_UNKNOWN && rule.reg > 31) {
    rule.kind = REPORT_RETURN_UNKNOWN;
  }
  return rule;
}

struct report_return_rule report_symbols_return_rule(struct report_symbols *s, uint64_t pc)
{
  struct report_return_rule rule = {REPORT_RETURN_UNKNOWN, 0, 0};
  Dwfl_Module *mod = s->dwfl ? dwfl_addrmodule(s->dwfl, pc) : NULL;
  if (!mod) {
    return rule;
  }
  /* .eh_frame is in the loaded text, stripped or not; .debug_frame comes
   * with the rest of the DWARF (a -fno-asynchronous-unwind-tables build, a
   * debug file). */
  Dwarf_Addr bias = 0;
  Dwarf_CFI *eh = dwfl_module_eh_cfi(mod, &bias);
  rule = rule_in(eh, pc - bias);
  if (rule.kind == REPORT_RETURN_UNKNOWN) {
    Dwarf_CFI *debug = dwfl_module_dwarf_cfi(mod, &bias);
    rule = rule_in(debug, pc - bias);
  }
  return rule;
}

struct each_module {
  report_module_fn fn;
  void *ctx;
};

static void report_module(Dwfl_Module *mod, const char *name, Dwarf_Addr start,
                          const struct each_module *each)
{
  Dwarf_Addr end = 0;
  dwfl_module_info(mod, NULL, NULL, &end, NULL, NULL, NULL, NULL);
  GElf_Addr bias = 0;
  if (dwfl_module_getelf(mod, &bias)) {
    char *id = build_id_name(mod, false);
    each->fn(name, start, end, bias, id, each->ctx);
    g_free(id);
  }
}

static gint by_start(gconstpointer a, gconstpointer b)
{
  Dwarf_Addr x, y;
  dwfl_module_info(*(Dwfl_Module *const *)a, NULL, &x, NULL, NULL, NULL, NULL, NULL);
  dwfl_module_info(*(Dwfl_Module *const *)b, NULL, &y, NULL, NULL, NULL, NULL, NULL);
  return x < y ? -1 : x > y;
}

static int collect_module(Dwfl_Module *mod, void **userdata, const char *name, Dwarf_Addr start,
                          void *arg)
{
  (void)userdata;
  (void)name;
  (void)start;
  g_ptr_array_add(arg, mod);
  return DWARF_CB_OK;
}

void report_symbols_each_module(struct report_symbols *s, report_module_fn fn, void *ctx)
{
  if (!s->dwfl) {
    return;
  }
  GPtrArray *mods = g_ptr_array_new();
  dwfl_getmodules(s->dwfl, collect_module, mods, 0);
  g_ptr_array_sort(mods, by_start);
  struct each_module each = {fn, ctx};
  for (guint i = 0; i < mods->len; i++) {
    Dwfl_Module *mod = g_ptr_array_index(mods, i);
    Dwarf_Addr start;
    const char *name = dwfl_module_info(mod, NULL, &start, NULL, NULL, NULL, NULL, NULL);
    report_module(mod, name, start, &each);
  }
  g_ptr_array_unref(mods);
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

char *report_symbols_guest_maps(const char *host_maps, uint64_t guest_base)
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

uint64_t report_symbols_guest_base(const char *host_maps, const char *path, uint64_t start_code)
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
