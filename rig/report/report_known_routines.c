/*
 * Well-known flush routines recognised by their code (report_known_routines.h).
 *
 * The routines that latch CTR_EL0 are mostly linked without a symbol: GCC
 * inlines a static copy of libgcc's __aarch64_sync_cache_range into every
 * object that calls __builtin___clear_cache, and in libgcc_s.so.1 the
 * routine that the exported __clear_cache branches to is local. A stripped
 * JIT (PHP's opcache, a Lisp, a JavaScript engine) then shows its flush as
 * module+offset only. Their code is small and fixed per compiler version,
 * so the rig compares the instructions around the flush with each known
 * build, masking what a link or register allocation changes
 * (report_insn_shape).
 *
 * Each entry's words (report_known_routines.def) are one build's instructions,
 * taken with
 *   aarch64-linux-gnu-objdump -d <object> [--start-address --stop-address]
 * from the Debian packages named in its `fingerprint` (Debian 12 bookworm, 13
 * trixie, and forky, testing in 2026): libgcc's
 * __aarch64_sync_cache_range from libgcc.a (sync-cache.o) and from
 * libgcc_s.so.1 (the two have the same shapes within one GCC version;
 * forky's libgcc_s.so.1 is GCC 16's and its libgcc-15-dev GCC 15's, whose
 * code differs), compiler-rt's __clear_cache
 * from libclang_rt.builtins-aarch64.a (clear_cache.c.o), and QEMU's
 * flush_idcache_range from qemu-user-static's qemu-x86_64-static.
 * A build with Branch Target Identification starts with `bti c`, which the
 * older build lacks; the entries with it come first, so that the older
 * entry, which the rest of the newer code matches, does not take it.
 */
#include "report_known_routines.h"

#include <stdbool.h>
#include <stdio.h>

/* What the routines do wrong and what to do instead (docs/FINDINGS.md,
 * "flush.routine"; the latch is libgcc's config/aarch64/sync-cache.c and
 * compiler-rt's lib/builtins/clear_cache.c; QEMU's util/cacheflush.c sets
 * its line sizes once, in a constructor). */
#define LATCHED "CTR_EL0 latched in a static on the first call"
#define LINK_DROPIN                                                                                \
  "link jitflush's drop-in __clear_cache (libjitflush_clear_cache_dropin.a after every object "    \
  "that calls it) or call jitflush_clear_cache"
#define QEMU_LATCHED                                                                               \
  "line sizes latched once at start-up, from the core that ran QEMU's constructor"
#define QEMU_ADVICE                                                                                \
  "run QEMU on a kernel that traps CTR_EL0 reads on mismatched cores (Linux 4.9 or later), or "    \
  "build it to step by the smallest line of every core"

/* Each row's words, then the table of rows (report_known_routines.def). */
#define REPORT_KNOWN_ROUTINE(id, routine, symbol, fingerprint, wrong, advice, ...)                 \
  static const uint32_t id[] = {__VA_ARGS__};
#include "report_known_routines.def"
#undef REPORT_KNOWN_ROUTINE

static const struct report_known_routine known[] = {
#define REPORT_KNOWN_ROUTINE(id, routine, symbol, fingerprint, wrong, advice, ...)                 \
  {routine, symbol, fingerprint, wrong, advice, id, sizeof(id) / sizeof((id)[0])},
#include "report_known_routines.def"
#undef REPORT_KNOWN_ROUTINE
};

#define A64_NOP 0xd503201fu

uint32_t report_insn_shape(uint32_t insn)
{
  /* System instructions (Arm ARM C4.1.66, "System"): op0..CRm..op2 name
   * the operation; Rt is the only register. */
  if ((insn & 0xffc00000u) == 0xd5000000u) {
    return insn & ~0x1fu;
  }
  /* B and BL: the opcode is bits 31:26, the rest the offset. */
  if ((insn & 0x7c000000u) == 0x14000000u) {
    return insn & 0xfc000000u;
  }
  /* ADR and ADRP: op is bit 31, immlo sits in bits 30:29. */
  if ((insn & 0x1f000000u) == 0x10000000u) {
    return insn & 0x9f000000u;
  }
  /* B.cond: the condition (bits 3:0) is the branch's meaning. */
  if ((insn & 0xff000010u) == 0x54000000u) {
    return insn & 0xff00000fu;
  }
  /* Everything else by its top byte: the instruction class, its size and
   * its opcode, without registers and immediates. */
  return insn & 0xff000000u;
}

/* Whether ENTRY, nops left out, lies in WORDS with WORDS[AT] one of its
 * instructions. */
static bool matches(const struct report_known_routine *entry, const uint32_t *words, size_t n,
                    size_t at)
{
  const uint32_t shape_at = report_insn_shape(words[at]);
  for (size_t k = 0; k < entry->nwords; k++) {
    if (entry->words[k] == A64_NOP || report_insn_shape(entry->words[k]) != shape_at) {
      continue;
    }
    /* Align entry->words[k] with words[at], then walk both ways skipping
     * nops. */
    bool ok = true;
    size_t w = at;
    for (size_t e = k; ok && e-- > 0;) {
      if (entry->words[e] == A64_NOP) {
        continue;
      }
      do {
        if (w == 0) {
          ok = false;
          break;
        }
        w--;
      } while (words[w] == A64_NOP);
      ok = ok && report_insn_shape(words[w]) == report_insn_shape(entry->words[e]);
    }
    w = at;
    for (size_t e = k + 1; ok && e < entry->nwords; e++) {
      if (entry->words[e] == A64_NOP) {
        continue;
      }
      do {
        if (++w >= n) {
          ok = false;
          break;
        }
      } while (words[w] == A64_NOP);
      ok = ok && report_insn_shape(words[w]) == report_insn_shape(entry->words[e]);
    }
    if (ok) {
      return true;
    }
  }
  return false;
}

const struct report_known_routine *report_known_routine_match(const uint32_t *words, size_t n,
                                                              size_t at)
{
  if (!words || at >= n) {
    return NULL;
  }
  for (size_t i = 0; i < sizeof known / sizeof known[0]; i++) {
    if (matches(&known[i], words, n, at)) {
      return &known[i];
    }
  }
  return NULL;
}

/* Instructions read on each side of the one a finding names: more than
 * the longest entry, with room for alignment nops. */
#define WINDOW 64

const struct report_known_routine *report_known_routine_in_file(const char *path, uint64_t offset)
{
  if (!path || offset % 4 != 0) {
    return NULL;
  }
  FILE *f = fopen(path, "rb");
  if (!f) {
    return NULL;
  }
  const uint64_t before = offset / 4 < WINDOW ? offset / 4 : WINDOW;
  uint32_t words[2 * WINDOW + 1];
  size_t n = 0;
  if (fseek(f, (long)(offset - 4 * before), SEEK_SET) == 0) {
    n = fread(words, sizeof words[0], sizeof words / sizeof words[0], f);
  }
  fclose(f);
  /* The words are the file's bytes: AArch64 instructions are little-endian
   * (Arm ARM B2.6.2), and so is the x86_64 or aarch64 host reading them. */
  return report_known_routine_match(words, n, (size_t)before);
}

const struct report_known_routine *report_known_routines(size_t *n)
{
  *n = sizeof known / sizeof known[0];
  return known;
}
