/*
 * QEMU's exclusive sections, seen from the plugin (plugin_qemu_exclusive.h).
 *
 * start_exclusive (QEMU's cpus-common.c) sets its file-static
 * pending_cpus to 1 + the number of vCPUs running guest code, kicks them,
 * and sleeps until each has left its execution loop (cpu_exec_end counts
 * pending_cpus down); end_exclusive sets it to 0. Reading that counter is
 * the one way to know, at the moment it happens and on every run alike,
 * that a section waits for threads the schedule holds inside a block
 * callback. Before, the schedule guessed it from 0.2 s without progress,
 * which a loaded host could also produce (docs/RIG.md, "Reproducible
 * runs").
 *
 * The counter has no dynamic symbol: it is found in the executable's own
 * symbol table (.symtab: ci/install/qemu.sh installs the binary unstripped),
 * at its link address plus the executable's load bias. pending_cpus has
 * had that name and type since cpus-common.c began (QEMU 2.8); a QEMU
 * without it is reported, and the schedule falls back to the guess
 * (plugin_turns.c).
 */
#define _GNU_SOURCE /* dl_iterate_phdr */
#include <fcntl.h>
#include <gelf.h>
#include <link.h>
#include <string.h>
#include <unistd.h>

#include "plugin_qemu_exclusive.h"

bool plugin_elf_data_object(const char *path, const char *name, uint64_t *addr, uint64_t *size,
                            const char **why)
{
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    *why = "the executable could not be opened";
    return false;
  }
  elf_version(EV_CURRENT);
  Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
  unsigned found = 0;
  bool has_symtab = false;
  for (Elf_Scn *scn = elf ? elf_nextscn(elf, NULL) : NULL; scn; scn = elf_nextscn(elf, scn)) {
    GElf_Shdr sh;
    if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB || sh.sh_entsize == 0) {
      continue;
    }
    has_symtab = true;
    Elf_Data *data = elf_getdata(scn, NULL);
    size_t n = data ? sh.sh_size / sh.sh_entsize : 0;
    for (size_t i = 0; i < n; i++) {
      GElf_Sym sym;
      if (!gelf_getsym(data, (int)i, &sym) || GELF_ST_TYPE(sym.st_info) != STT_OBJECT) {
        continue;
      }
      const char *s = elf_strptr(elf, sh.sh_link, sym.st_name);
      if (s && strcmp(s, name) == 0) {
        found++;
        *addr = sym.st_value;
        *size = sym.st_size;
      }
    }
  }
  if (elf) {
    elf_end(elf);
  }
  close(fd);
  if (found != 1) {
    *why = !elf          ? "the executable is not an ELF file libelf can read"
           : !has_symtab ? "the executable has no symbol table (a stripped build?)"
           : found == 0  ? "the executable's symbol table has no such object"
                         : "the executable's symbol table has more than one such object";
    return false;
  }
  return true;
}

/* dl_iterate_phdr visits the main program first. */
static int first_object_bias(struct dl_phdr_info *info, size_t size, void *data)
{
  (void)size;
  *(uint64_t *)data = (uint64_t)info->dlpi_addr;
  return 1;
}

uint64_t plugin_main_executable_bias(void)
{
  uint64_t bias = 0;
  dl_iterate_phdr(first_object_bias, &bias);
  return bias;
}

const int *plugin_qemu_pending_cpus(const char **why)
{
  uint64_t addr = 0, size = 0;
  *why = NULL;
  if (!plugin_elf_data_object("/proc/self/exe", "pending_cpus", &addr, &size, why)) {
    return NULL;
  }
  if (size != sizeof(int)) {
    *why = "QEMU's pending_cpus is not an int";
    return NULL;
  }
  return (const int *)(uintptr_t)(addr + plugin_main_executable_bias());
}
