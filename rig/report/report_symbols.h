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

#include "report_frame_names.h"

#ifdef __cplusplus
extern "C" {
#endif

struct report_symbols;

/* MAPS is /proc/PID/maps text whose addresses are guest addresses. Lines
 * of files that are not AArch64 ELF objects are ignored. Never NULL: with
 * nothing usable, every lookup finds nothing. */
struct report_symbols *report_symbols_new(const char *maps);
void report_symbols_free(struct report_symbols *s);

/* An report_symbolize_fn (report_findings_names.h): CTX is the struct report_symbols. OUT
 * zeroed by the caller. Separate debug information is found the standard
 * ways (build-id and .gnu_debuglink under /usr/lib/debug) and, for an
 * object in a sysroot, in that sysroot's usr/lib/debug/.build-id/. */
void report_symbols_lookup(uint64_t pc, struct report_frame_names *out, void *ctx);

/*
 * Where the return address into the caller of the function holding PC
 * is while PC runs, from the call frame information of PC's module
 * (.eh_frame, else .debug_frame, through libdw): in a register
 * (REPORT_RETURN_IN_REG: x30 in a leaf, or where the prologue copied it), or
 * in memory at X[REG] + OFFSET (REPORT_RETURN_AT: the slot the prologue
 * saved it in, addressed from the register that defines the CFA; REG 31
 * is sp). Registers are DWARF's AArch64 numbers, which are the X
 * register numbers. REPORT_RETURN_UNKNOWN without CFI for PC or with a rule
 * other than these.
 */
enum report_return_kind { REPORT_RETURN_UNKNOWN, REPORT_RETURN_IN_REG, REPORT_RETURN_AT };
struct report_return_rule {
  enum report_return_kind kind;
  unsigned reg;
  int64_t offset;
};
struct report_return_rule report_symbols_return_rule(struct report_symbols *s, uint64_t pc);

/* Calls FN for every ELF object of the mappings, in address order: its
 * path, its lowest and highest guest address, its load base (guest address
 * = ELF address + LOAD_BASE) and its GNU build ID in hex (NULL without). */
typedef void (*report_module_fn)(const char *path, uint64_t start, uint64_t end, uint64_t load_base,
                                 const char *build_id, void *ctx);
void report_symbols_each_module(struct report_symbols *s, report_module_fn fn, void *ctx);

/* Rewrites the host's /proc/self/maps text (QEMU's own address space) into
 * guest addresses: keeps the lines of AArch64 ELF files and subtracts
 * GUEST_BASE (QEMU's guest_base: host address = guest address + base).
 * Returns a g_malloc'ed string. */
char *report_symbols_guest_maps(const char *host_maps, uint64_t guest_base);

/* QEMU's guest_base, found from where the host maps the executable's text
 * (PATH) and the guest address of that text (START_CODE); 0 when the text
 * is not in HOST_MAPS. */
uint64_t report_symbols_guest_base(const char *host_maps, const char *path, uint64_t start_code);

#ifdef __cplusplus
}
#endif

#endif /* JITFLUSH_EMU_SYMBOLS_H */
