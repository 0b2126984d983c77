/*
 * libdw (elfutils' libdwfl, with libelf behind it), loaded when the rig
 * first names a guest frame (lazy_lib.h): only a run with a finding, a
 * crash or a measured region needs guest symbols, and a run whose code
 * executes a dc cvau or ic ivau its unwind rule (plugin_findings.c,
 * plugin_findings_return_rule). The list is every
 * function report_symbols.c calls; dwfl_linux_proc_find_elf and
 * dwfl_standard_find_debuginfo are also libdwfl callbacks, and their
 * wrappers serve as such unchanged. The libelf functions at the end (libdw's
 * own dependency, which the loader's lookup reaches through it) also serve
 * plugin_qemu_exclusive.c, which reads QEMU's symbol table.
 */
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <gelf.h>

#include "lazy_lib.h"

/* dwfl_getmodules' and dwfl_report_end's callbacks. */
typedef int lazy_dwfl_each_fn(Dwfl_Module *, void **, const char *, Dwarf_Addr, void *);
typedef int lazy_dwfl_removed_fn(Dwfl_Module *, void *, const char *, Dwarf_Addr, void *);

#define LIBDW_FUNCTIONS(FN, VOID_FN)                                                               \
  FN(Dwfl_Module *, dwfl_addrmodule, (Dwfl * d, Dwarf_Addr a), (d, a))                             \
  FN(Dwarf_Die *, dwfl_module_addrdie, (Dwfl_Module * m, Dwarf_Addr a, Dwarf_Addr * bias),         \
     (m, a, bias))                                                                                 \
  FN(Dwarf *, dwfl_module_getdwarf, (Dwfl_Module * m, Dwarf_Addr * bias), (m, bias))               \
  FN(Dwarf_CFI *, dwfl_module_eh_cfi, (Dwfl_Module * m, Dwarf_Addr * bias), (m, bias))             \
  FN(Dwarf_CFI *, dwfl_module_dwarf_cfi, (Dwfl_Module * m, Dwarf_Addr * bias), (m, bias))          \
  FN(int, dwarf_cfi_addrframe, (Dwarf_CFI * c, Dwarf_Addr a, Dwarf_Frame * *f), (c, a, f))         \
  FN(int, dwarf_frame_cfa, (Dwarf_Frame * f, Dwarf_Op * *ops, size_t * n), (f, ops, n))            \
  FN(int, dwarf_frame_register,                                                                    \
     (Dwarf_Frame * f, int reg, Dwarf_Op mem[3], Dwarf_Op **ops, size_t *n),                       \
     (f, reg, mem, ops, n))                                                                        \
  FN(Dwarf_Attribute *, dwarf_attr, (Dwarf_Die * die, unsigned int name, Dwarf_Attribute *a),      \
     (die, name, a))                                                                               \
  FN(const char *, dwarf_formstring, (Dwarf_Attribute * a), (a))                                   \
  FN(Elf *, dwarf_getelf, (Dwarf * d), (d))                                                        \
  FN(Dwfl *, dwfl_begin, (const Dwfl_Callbacks *c), (c))                                           \
  VOID_FN(dwfl_end, (Dwfl * d), (d))                                                               \
  FN(ptrdiff_t, dwfl_getmodules, (Dwfl * d, lazy_dwfl_each_fn * f, void *arg, ptrdiff_t off),      \
     (d, f, arg, off))                                                                             \
  FN(const char *, dwfl_lineinfo,                                                                  \
     (Dwfl_Line * l, Dwarf_Addr * a, int *line, int *col, Dwarf_Word *mtime, Dwarf_Word *len),     \
     (l, a, line, col, mtime, len))                                                                \
  FN(int, dwfl_linux_proc_find_elf,                                                                \
     (Dwfl_Module * m, void **u, const char *name, Dwarf_Addr base, char **file, Elf **elf),       \
     (m, u, name, base, file, elf))                                                                \
  FN(int, dwfl_linux_proc_maps_report, (Dwfl * d, FILE * f), (d, f))                               \
  FN(const char *, dwfl_module_addrinfo,                                                           \
     (Dwfl_Module * m, GElf_Addr a, GElf_Off * off, GElf_Sym * sym, GElf_Word * shndx, Elf * *elf, \
      Dwarf_Addr * bias),                                                                          \
     (m, a, off, sym, shndx, elf, bias))                                                           \
  FN(int, dwfl_module_build_id, (Dwfl_Module * m, const unsigned char **bits, GElf_Addr *vaddr),   \
     (m, bits, vaddr))                                                                             \
  FN(Elf *, dwfl_module_getelf, (Dwfl_Module * m, GElf_Addr * bias), (m, bias))                    \
  FN(Dwfl_Line *, dwfl_module_getsrc, (Dwfl_Module * m, Dwarf_Addr a), (m, a))                     \
  FN(const char *, dwfl_module_info,                                                               \
     (Dwfl_Module * m, void ***u, Dwarf_Addr *start, Dwarf_Addr *end, Dwarf_Addr *dwbias,          \
      Dwarf_Addr *symbias, const char **mainfile, const char **debugfile),                         \
     (m, u, start, end, dwbias, symbias, mainfile, debugfile))                                     \
  VOID_FN(dwfl_report_begin, (Dwfl * d), (d))                                                      \
  FN(int, dwfl_report_end, (Dwfl * d, lazy_dwfl_removed_fn * removed, void *arg),                  \
     (d, removed, arg))                                                                            \
  FN(int, dwfl_standard_find_debuginfo,                                                            \
     (Dwfl_Module * m, void **u, const char *name, Dwarf_Addr base, const char *file,              \
      const char *debuglink, GElf_Word crc, char **debuginfo_file),                                \
     (m, u, name, base, file, debuglink, crc, debuginfo_file))                                     \
  FN(int, elf_getphdrnum, (Elf * e, size_t * n), (e, n))                                           \
  FN(GElf_Phdr *, gelf_getphdr, (Elf * e, int i, GElf_Phdr *ph), (e, i, ph))                       \
  FN(unsigned int, elf_version, (unsigned int v), (v))                                             \
  FN(Elf *, elf_begin, (int fd, Elf_Cmd cmd, Elf *ref), (fd, cmd, ref))                            \
  FN(int, elf_end, (Elf * e), (e))                                                                 \
  FN(Elf_Scn *, elf_nextscn, (Elf * e, Elf_Scn * s), (e, s))                                       \
  FN(GElf_Shdr *, gelf_getshdr, (Elf_Scn * s, GElf_Shdr * sh), (s, sh))                            \
  FN(Elf_Data *, elf_getdata, (Elf_Scn * s, Elf_Data * d), (s, d))                                 \
  FN(GElf_Sym *, gelf_getsym, (Elf_Data * d, int i, GElf_Sym *sym), (d, i, sym))                   \
  FN(char *, elf_strptr, (Elf * e, size_t section, size_t offset), (e, section, offset))           \
  FN(int, elf_getshdrstrndx, (Elf * e, size_t * n), (e, n))                                        \
  FN(GElf_Dyn *, gelf_getdyn, (Elf_Data * d, int i, GElf_Dyn *dyn), (d, i, dyn))                   \
  FN(size_t, gelf_getnote,                                                                         \
     (Elf_Data * d, size_t off, GElf_Nhdr * nh, size_t * name_off, size_t * desc_off),             \
     (d, off, nh, name_off, desc_off))

LAZY_LIBRARY("libdw.so.1", "to name guest code (module, function, source line) in a finding",
             LIBDW_FUNCTIONS)
