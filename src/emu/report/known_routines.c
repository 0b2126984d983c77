/*
 * Well-known flush routines recognised by their code (known_routines.h).
 *
 * The routines that latch CTR_EL0 are mostly linked without a symbol: GCC
 * inlines a static copy of libgcc's __aarch64_sync_cache_range into every
 * object that calls __builtin___clear_cache, and in libgcc_s.so.1 the
 * routine that the exported __clear_cache branches to is local. A stripped
 * JIT (PHP's opcache, a Lisp, a JavaScript engine) then shows its flush as
 * module+offset only. Their code is small and fixed per compiler version,
 * so the rig compares the instructions around the flush with each known
 * build, masking what a link or register allocation changes
 * (emu_insn_shape).
 *
 * Each entry's words are one build's instructions, taken with
 *   aarch64-linux-gnu-objdump -d <object> [--start-address --stop-address]
 * from the Debian packages named in its `build` (Debian 12 bookworm, 13
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
#include "known_routines.h"

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

static const uint32_t libgcc_gcc16[] = {
    0xd503245f, 0xf0000125, 0xb941f8a3, 0x35000063, 0xd53b0023, 0xb901f8a3, 0x37e001c3, 0xd3504c62,
    0x52800084, 0x1ac22084, 0x51000482, 0x8a220002, 0xeb01005f, 0x540000e2, 0x93407c84, 0xd503201f,
    0xd50b7b22, 0x8b040042, 0xeb02003f, 0x54ffffa8, 0xd5033b9f, 0xb941f8a2, 0x37e801e2, 0x12000c63,
    0x52800082, 0x1ac32042, 0x51000443, 0x8a230000, 0xeb00003f, 0x540000e9, 0x93407c42, 0xd503201f,
    0xd50b7520, 0x8b020000, 0xeb00003f, 0x54ffffa8, 0xd5033b9f, 0xd5033fdf, 0xd65f03c0};

static const uint32_t libgcc_gcc15[] = {
    0xd503245f, 0x90000005, 0xb94000a3, 0x35000063, 0xd53b0023, 0xb90000a3, 0x37e001c3, 0xd3504c62,
    0x52800084, 0x1ac22084, 0x51000482, 0x8a220002, 0xeb01005f, 0x540000e2, 0x93407c84, 0xd503201f,
    0xd50b7b22, 0x8b040042, 0xeb02003f, 0x54ffffa8, 0xd5033b9f, 0xb94000a2, 0x37e801e2, 0x12000c63,
    0x52800082, 0x1ac32042, 0x51000443, 0x8a230000, 0x93407c42, 0xeb00003f, 0x540000c9, 0xd503201f,
    0xd50b7520, 0x8b020000, 0xeb00003f, 0x54ffffa8, 0xd5033b9f, 0xd5033fdf, 0xd65f03c0};

static const uint32_t libgcc_gcc14[] = {
    0xd503245f, 0x90000005, 0xb94000a4, 0x35000084, 0xd53b0022, 0x2a0203e4, 0xb90000a2, 0x37e001a4,
    0xd3504c82, 0x52800083, 0x1ac22063, 0x51000462, 0x8a220002, 0xeb01005f, 0x540000c2, 0x93407c63,
    0xd50b7b22, 0x8b030042, 0xeb02003f, 0x54ffffa8, 0xd5033b9f, 0xb94000a2, 0x37e801e2, 0x12000c84,
    0x52800082, 0x1ac42043, 0x51000462, 0x8a220000, 0x93407c62, 0xeb00003f, 0x540000c9, 0xd503201f,
    0xd50b7520, 0x8b020000, 0xeb00003f, 0x54ffffa8, 0xd5033b9f, 0xd5033fdf, 0xd65f03c0};

static const uint32_t libgcc_gcc12[] = {
    0x90000005, 0xb94000a4, 0x35000084, 0xd53b0022, 0x2a0203e4, 0xb90000a2, 0x37e001c4, 0xd3504c82,
    0x52800083, 0x1ac22063, 0x51000462, 0x8a220002, 0xeb01005f, 0x540000e2, 0x93407c63, 0xd503201f,
    0xd50b7b22, 0x8b030042, 0xeb02003f, 0x54ffffa8, 0xd5033b9f, 0xb94000a2, 0x37e801e2, 0x12000c84,
    0x52800082, 0x1ac42043, 0x51000462, 0x8a220000, 0x93407c62, 0xeb00003f, 0x540000c9, 0xd503201f,
    0xd50b7520, 0x8b020000, 0xeb00003f, 0x54ffffa8, 0xd5033b9f, 0xd5033fdf, 0xd65f03c0};

static const uint32_t compiler_rt_19[] = {
    0xd503245f, 0x90000008, 0xf9400109, 0xb4000069, 0x36e000a9, 0x1400000f, 0xd53b0029, 0xf9000109,
    0x37e00189, 0x53104d29, 0x5280008a, 0x1ac92149, 0xcb0903ea, 0x8a00014a, 0xeb01015f, 0x540000a2,
    0xd50b7b2a, 0x8b09014a, 0xeb01015f, 0x54ffffa3, 0xd5033b9f, 0xf9400108, 0x37e801a8, 0x12000d08,
    0x52800089, 0x1ac82128, 0xcb0803e9, 0x8a000129, 0xeb01013f, 0x540000a2, 0xd50b7529, 0x8b080129,
    0xeb01013f, 0x54ffffa3, 0xd5033b9f, 0xd5033fdf, 0xd65f03c0};

static const uint32_t compiler_rt_14[] = {
    0x90000008, 0xf9400109, 0xb4000069, 0x36e000a9, 0x1400000f, 0xd53b0029, 0xf9000109, 0x37e00189,
    0x53104d29, 0x5280008a, 0x1ac92149, 0xcb0903ea, 0x8a00014a, 0xeb01015f, 0x540000a2, 0xd50b7b2a,
    0x8b09014a, 0xeb01015f, 0x54ffffa3, 0xd5033b9f, 0xf9400108, 0x37e801a8, 0x12000d08, 0x52800089,
    0x1ac82128, 0xcb0803e9, 0x8a000129, 0xeb01013f, 0x540000a2, 0xd50b7529, 0x8b080129, 0xeb01013f,
    0x54ffffa3, 0xd5033b9f, 0xd5033fdf, 0xd65f03c0};

static const uint32_t qemu_7_2[] = {
    0xf00039c3, 0x91222065, 0xf9444467, 0xb94008a4, 0x37e00187, 0xb98010a6, 0x8b020025, 0xcb0603e3,
    0x8a010061, 0xeb05003f, 0x540000c2, 0xd503201f, 0xd50b7b21, 0x8b060021, 0xeb05003f, 0x54ffffa3,
    0xd5033b9f, 0x37e80187, 0x93407c83, 0x8b000042, 0xcb0303e1, 0x8a000020, 0xeb02001f, 0x540000a2,
    0xd50b7520, 0x8b030000, 0xeb02001f, 0x54ffffa3, 0xd5033b9f, 0xd5033fdf, 0xd65f03c0};

#define WORDS(a) a, sizeof(a) / sizeof((a)[0])

static const struct emu_known_routine known[] = {
    {"libgcc's __clear_cache", "__aarch64_sync_cache_range", "GCC 16 (Debian forky)", LATCHED,
     LINK_DROPIN, WORDS(libgcc_gcc16)},
    {"libgcc's __clear_cache", "__aarch64_sync_cache_range", "GCC 15 (Debian forky)", LATCHED,
     LINK_DROPIN, WORDS(libgcc_gcc15)},
    {"libgcc's __clear_cache", "__aarch64_sync_cache_range", "GCC 14 (Debian 13)", LATCHED,
     LINK_DROPIN, WORDS(libgcc_gcc14)},
    {"libgcc's __clear_cache", "__aarch64_sync_cache_range", "GCC 12 (Debian 12)", LATCHED,
     LINK_DROPIN, WORDS(libgcc_gcc12)},
    {"compiler-rt's __clear_cache", "__clear_cache", "LLVM 19, 21 (Debian 13, forky)", LATCHED,
     LINK_DROPIN, WORDS(compiler_rt_19)},
    {"compiler-rt's __clear_cache", "__clear_cache", "LLVM 14 (Debian 12)", LATCHED, LINK_DROPIN,
     WORDS(compiler_rt_14)},
    {"QEMU's flush_idcache_range", "flush_idcache_range", "QEMU 7.2 (Debian 12)", QEMU_LATCHED,
     QEMU_ADVICE, WORDS(qemu_7_2)},
};

#define A64_NOP 0xd503201fu

uint32_t emu_insn_shape(uint32_t insn)
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
static bool matches(const struct emu_known_routine *entry, const uint32_t *words, size_t n,
                    size_t at)
{
  const uint32_t shape_at = emu_insn_shape(words[at]);
  for (size_t k = 0; k < entry->nwords; k++) {
    if (entry->words[k] == A64_NOP || emu_insn_shape(entry->words[k]) != shape_at) {
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
      ok = ok && emu_insn_shape(words[w]) == emu_insn_shape(entry->words[e]);
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
      ok = ok && emu_insn_shape(words[w]) == emu_insn_shape(entry->words[e]);
    }
    if (ok) {
      return true;
    }
  }
  return false;
}

const struct emu_known_routine *emu_known_routine_match(const uint32_t *words, size_t n, size_t at)
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

const struct emu_known_routine *emu_known_routine_in_file(const char *path, uint64_t offset)
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
  return emu_known_routine_match(words, n, (size_t)before);
}

const struct emu_known_routine *emu_known_routines(size_t *n)
{
  *n = sizeof known / sizeof known[0];
  return known;
}
