/*
 * Names for guest code addresses: "function+0xoffset" from the ELF symbol
 * tables and "file:line" from DWARF, through elfutils' libdwfl, for every
 * file the guest had mapped (its executable, the dynamic loader, every
 * shared object). No QEMU here: the plugin hands over the mappings in
 * /proc/PID/maps form, already in guest addresses.
 */
#ifndef JITFLUSH_EMU_SYMBOLS_H
#define JITFLUSH_EMU_SYMBOLS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct emu_symbols;

/* MAPS is /proc/PID/maps text whose addresses are guest addresses. Lines
 * of files that are not AArch64 ELF objects are ignored. Never NULL: with
 * nothing usable, every lookup finds nothing. */
struct emu_symbols *emu_symbols_new(const char *maps);
void emu_symbols_free(struct emu_symbols *s);

/* An emu_symbolize_fn (findings.h): CTX is the struct emu_symbols. */
void emu_symbols_lookup(uint64_t pc, char **symbol, char **location, void *ctx);

/* Rewrites the host's /proc/self/maps text (QEMU's own address space) into
 * guest addresses: keeps the lines of AArch64 ELF files and subtracts
 * GUEST_BASE (QEMU's guest_base: host address = guest address + base).
 * Returns a g_malloc'ed string. */
char *emu_symbols_guest_maps(const char *host_maps, uint64_t guest_base);

/* QEMU's guest_base, found from where the host maps the executable's text
 * (PATH) and the guest address of that text (START_CODE); 0 when the text
 * is not in HOST_MAPS. */
uint64_t emu_symbols_guest_base(const char *host_maps, const char *path, uint64_t start_code);

#ifdef __cplusplus
}
#endif

#endif /* JITFLUSH_EMU_SYMBOLS_H */
