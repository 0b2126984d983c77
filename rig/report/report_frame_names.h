/*
 * What the rig knows about one guest code address: the names a developer
 * looks it up by. Filled by the symboliser (report_symbols.c), kept by the
 * findings (report_findings_names.c) and shown by their writers; a plain record
 * so that neither includes the other.
 */
#ifndef JITFLUSH_EMU_FRAME_NAMES_H
#define JITFLUSH_EMU_FRAME_NAMES_H

#include <glib.h>
#include <stdint.h>

struct report_known_routine;

/* Every string g_malloc'ed, or NULL when unknown. */
struct report_frame_names {
  char *symbol;     /* "function+0xoffset", C++ names demangled */
  char *raw_symbol; /* the same with the name as the ELF symbol table has it */
  char *location;   /* "file:line" from DWARF */
  char *module;     /* path of the mapped object holding the address */
  uint64_t offset;  /* the address's offset in that file (with MODULE) */
  /* What the binary says of itself (docs/FINDINGS.md, "Who built it"):
   * the DW_AT_producer of the compile unit covering the address, the
   * module's .comment strings (one a line; its debug file's when the
   * module has none), its DT_SONAME and the name and version its
   * .note.package gives ("name version"). */
  char *producer;
  char *comment;
  char *soname;
  char *package;
  /* A flush instruction's: the well-known routine its code is
   * (report_known_routines.h; static, not freed), or NULL. */
  const struct report_known_routine *routine;
};

/* Frees the strings of FR and forgets them (FR itself is the caller's). */
static inline void report_frame_names_clear(struct report_frame_names *fr)
{
  g_clear_pointer(&fr->symbol, g_free);
  g_clear_pointer(&fr->raw_symbol, g_free);
  g_clear_pointer(&fr->location, g_free);
  g_clear_pointer(&fr->module, g_free);
  g_clear_pointer(&fr->producer, g_free);
  g_clear_pointer(&fr->comment, g_free);
  g_clear_pointer(&fr->soname, g_free);
  g_clear_pointer(&fr->package, g_free);
}

#endif /* JITFLUSH_EMU_FRAME_NAMES_H */
