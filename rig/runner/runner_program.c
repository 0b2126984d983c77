/*
 * Can qemu-aarch64 run this program? Checked before QEMU starts, because
 * QEMU's own answers come too late and too quietly: for an x86 program it
 * prints "Invalid ELF image for this architecture", for a missing loader
 * "Could not open '/lib/ld-linux-aarch64.so.1'", exits 1 or 255 (statuses
 * a program could return too), and the plugin's exit callback still runs,
 * so the run used to end with an all-zero summary that looked clean.
 *
 * What linux-user accepts (QEMU 10.2, linux-user/linuxload.c and elfload.c):
 * a regular file with an execute bit, starting with the ELF magic, of the
 * target's class, byte order and machine (ELFCLASS64, ELFDATA2LSB,
 * EM_AARCH64 for qemu-aarch64), of type ET_EXEC or ET_DYN; a PT_INTERP
 * names the loader, which QEMU opens under the -L prefix.
 */
#define _GNU_SOURCE
#include "runner_program.h"

#include <stdbool.h>
#include <stdint.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib.h>

#define RUNNER_PROGRAM_ERROR (g_quark_from_static_string("emu-program-error"))

/* The machines a program given to the rig by mistake is most likely for;
 * the values are from <elf.h> (the System V gABI's registry). */
static const struct {
  uint16_t machine;
  const char *name;
} machines[] = {
    {EM_X86_64, "x86-64"},
    {EM_386, "x86 (i386)"},
    {EM_ARM, "32-bit Arm"},
    {EM_RISCV, "RISC-V"},
    {EM_PPC64, "64-bit PowerPC"},
    {EM_PPC, "PowerPC"},
    {EM_S390, "s390"},
    {EM_MIPS, "MIPS"},
    {EM_SPARCV9, "SPARC V9"},
    {EM_LOONGARCH, "LoongArch"},
};

static char *machine_name(uint16_t machine)
{
  for (size_t i = 0; i < G_N_ELEMENTS(machines); i++) {
    if (machines[i].machine == machine) {
      return g_strdup(machines[i].name);
    }
  }
  return g_strdup_printf("machine %u", machine);
}

static uint16_t get16(const unsigned char *p, bool big)
{
  return big ? (uint16_t)(p[0] << 8 | p[1]) : (uint16_t)(p[1] << 8 | p[0]);
}

bool runner_read_at(int fd, void *buf, size_t len, off_t at)
{
  ssize_t n;
  do {
    n = pread(fd, buf, len, at);
  } while (n < 0 && errno == EINTR);
  return n == (ssize_t)len;
}

/* Class, byte order, machine and type, in the order QEMU checks them.
 * Returns NULL when it is an LP64 little-endian AArch64 program. */
static char *header_problem(const unsigned char *id, size_t len)
{
  if (len < SELFMAG || memcmp(id, ELFMAG, SELFMAG) != 0) {
    if (len >= 2 && id[0] == '#' && id[1] == '!') {
      return g_strdup("a script (#!), not an ELF program; QEMU runs ELF programs only");
    }
    return g_strdup("not an ELF program");
  }
  size_t need =
      len > EI_CLASS && id[EI_CLASS] == ELFCLASS32 ? sizeof(Elf32_Ehdr) : sizeof(Elf64_Ehdr);
  if (len < need) {
    return g_strdup("a truncated ELF file");
  }
  bool big = id[EI_DATA] == ELFDATA2MSB;
  /* e_machine and e_type sit at the same offsets in both classes. */
  uint16_t type = get16(id + offsetof(Elf64_Ehdr, e_type), big);
  uint16_t machine = get16(id + offsetof(Elf64_Ehdr, e_machine), big);
  if (machine != EM_AARCH64) {
    char *name = machine_name(machine);
    char *why = g_strdup_printf("an ELF program for %s, not AArch64", name);
    g_free(name);
    return why;
  }
  if (id[EI_CLASS] != ELFCLASS64) {
    return g_strdup("a 32-bit (ILP32) AArch64 ELF; qemu-aarch64 runs 64-bit programs");
  }
  if (big) {
    return g_strdup("a big-endian AArch64 ELF; qemu-aarch64 runs little-endian programs");
  }
  if (type != ET_EXEC && type != ET_DYN) {
    return g_strdup(type == ET_REL    ? "an ELF object file (.o), not a program"
                    : type == ET_CORE ? "an ELF core dump, not a program"
                                      : "an ELF file that is not a program");
  }
  return NULL;
}

/* Finds PT_INTERP. Returns NULL with *interp set (NULL for a static
 * program), or the problem. The header is little-endian by now and read
 * as it lies: the rig's hosts (x86-64) are little-endian too. */
static char *find_interp(int fd, const Elf64_Ehdr *eh, char **interp)
{
  *interp = NULL;
  if (eh->e_phnum == 0) {
    return NULL;
  }
  if (eh->e_phentsize != sizeof(Elf64_Phdr)) {
    return g_strdup("a malformed ELF (program headers)");
  }
  for (unsigned i = 0; i < eh->e_phnum; i++) {
    Elf64_Phdr ph;
    if (!runner_read_at(fd, &ph, sizeof ph, (off_t)(eh->e_phoff + (uint64_t)i * sizeof ph))) {
      return g_strdup("a truncated ELF file (program headers)");
    }
    if (ph.p_type != PT_INTERP) {
      continue;
    }
    if (ph.p_filesz < 2 || ph.p_filesz > PATH_MAX) {
      return g_strdup("a malformed ELF (PT_INTERP)");
    }
    char *path = g_malloc(ph.p_filesz);
    if (!runner_read_at(fd, path, ph.p_filesz, (off_t)ph.p_offset) ||
        path[ph.p_filesz - 1] != '\0' || strlen(path) + 1 != ph.p_filesz) {
      g_free(path);
      return g_strdup("a malformed ELF (PT_INTERP)");
    }
    *interp = path;
    return NULL;
  }
  return NULL;
}

/* Why the program at PATH cannot run (newly allocated), or NULL. */
static char *program_problem(const char *path, char **interp)
{
  *interp = NULL;
  struct stat st;
  if (stat(path, &st) != 0) {
    return g_strdup_printf("cannot read it: %s", g_strerror(errno));
  }
  /* linux-user's prepare_binprm refuses a file without any x bit; access()
   * also tells a non-root user that the bits are not theirs. */
  if ((st.st_mode & 0111) == 0 || access(path, X_OK) != 0) {
    return g_strdup("not executable (no x permission)");
  }
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    return g_strdup_printf("cannot read it: %s", g_strerror(errno));
  }
  Elf64_Ehdr eh;
  memset(&eh, 0, sizeof eh);
  ssize_t got;
  do {
    got = pread(fd, &eh, sizeof eh, 0);
  } while (got < 0 && errno == EINTR);
  char *problem = got < 0 ? g_strdup_printf("cannot read it: %s", g_strerror(errno))
                          : header_problem((const unsigned char *)&eh, (size_t)got);
  if (!problem) {
    problem = find_interp(fd, &eh, interp);
  }
  close(fd);
  return problem;
}

bool runner_program_check(const char *path, char **interp, GError **error)
{
  char *problem = program_problem(path, interp);
  if (!problem) {
    return true;
  }
  g_set_error_literal(error, RUNNER_PROGRAM_ERROR, 1, problem);
  g_free(problem);
  return false;
}
