/*
 * Well-known flush routines recognised by their code (report_known_routines.c), so
 * that a finding in a stripped binary names the routine, its flaw and its
 * fix instead of a bare module+offset: libgcc's and compiler-rt's
 * __clear_cache and QEMU's flush_idcache_range, as Debian builds them.
 */
#ifndef JITFLUSH_EMU_KNOWN_ROUTINES_H
#define JITFLUSH_EMU_KNOWN_ROUTINES_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct report_known_routine {
  const char *name;   /* "libgcc's __clear_cache" */
  const char *symbol; /* the function the code is: "__aarch64_sync_cache_range" */
  /* The builds whose code this entry's words were taken from ("GCC 12
   * (Debian 12)"): what the code matches, not who built the binary that
   * holds it (the binary says that: report_findings_compiler). */
  const char *fingerprint;
  const char *flaw;      /* "CTR_EL0 latched in a static" */
  const char *advice;    /* what to do about it */
  const uint32_t *words; /* the routine's instructions, as one build has them */
  size_t nwords;
};

/* An instruction with what varies between two links or register choices of
 * the same source masked off: register numbers, immediates, branch and
 * address offsets. The system instructions (dc, ic, dsb, isb, mrs, hints)
 * keep everything but their general register. */
uint32_t report_insn_shape(uint32_t insn);

/* The known routine that the N instruction WORDS hold around WORDS[AT], the
 * maintenance instruction a finding names: the first entry whose every
 * instruction's shape matches, nops (alignment padding, which a link may
 * change) skipped on both sides, with WORDS[AT] one of its own. NULL when
 * none matches. */
const struct report_known_routine *report_known_routine_match(const uint32_t *words, size_t n,
                                                              size_t at);

/* The same for the instruction at file offset OFFSET of the ELF object PATH
 * (a frame's module and offset); NULL when the file cannot be read. */
const struct report_known_routine *report_known_routine_in_file(const char *path, uint64_t offset);

/* Every known routine, for the tests and the docs. */
const struct report_known_routine *report_known_routines(size_t *n);

#ifdef __cplusplus
}
#endif

#endif /* JITFLUSH_EMU_KNOWN_ROUTINES_H */
