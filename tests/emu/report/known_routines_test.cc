// Well-known flush routines recognised by their code
// (rig/report/report_known_routines.c): each known build is told from the
// others, a link's changes (offsets, registers, alignment nops) do not hide
// it, and code that is not one of them stays unnamed.
#include <gtest/gtest.h>

#include <string>
#include <vector>

extern "C" {
#include "report_known_routines.h"
}

namespace
{

constexpr uint32_t kNop = 0xd503201f;
constexpr uint32_t kDcCvauMask = 0xffffffe0, kDcCvau = 0xd50b7b20; // dc cvau, Xt
constexpr uint32_t kIcIvau = 0xd50b7520;                           // ic ivau, Xt

std::vector<uint32_t> Words(const report_known_routine &r)
{
  return std::vector<uint32_t>(r.words, r.words + r.nwords);
}

size_t Find(const std::vector<uint32_t> &w, uint32_t op)
{
  for (size_t i = 0; i < w.size(); i++)
    if ((w[i] & kDcCvauMask) == op)
      return i;
  return w.size();
}

TEST(KnownRoutines, EachBuildIsRecognisedAtItsCleanAndItsInvalidate)
{
  size_t n = 0;
  const report_known_routine *all = report_known_routines(&n);
  ASSERT_EQ(n, 7u);
  for (size_t i = 0; i < n; i++) {
    std::vector<uint32_t> w = Words(all[i]);
    // Surrounded by other code, as in a linked binary.
    w.insert(w.begin(), {0xa9bf7bfd, 0x910003fd, kNop});
    w.insert(w.end(), {kNop, 0xd2800000, 0xd65f03c0});
    for (uint32_t op : {kDcCvau, kIcIvau}) {
      const size_t at = Find(w, op);
      ASSERT_LT(at, w.size()) << all[i].name << " " << all[i].fingerprint;
      const report_known_routine *got = report_known_routine_match(w.data(), w.size(), at);
      ASSERT_NE(got, nullptr) << all[i].name << " " << all[i].fingerprint;
      EXPECT_EQ(got, &all[i]) << "taken for " << got->name << " " << got->fingerprint;
    }
  }
}

TEST(KnownRoutines, TheNamesAndAdviceAreTheOnesDocumented)
{
  size_t n = 0;
  const report_known_routine *all = report_known_routines(&n);
  std::vector<std::string> got;
  for (size_t i = 0; i < n; i++)
    got.push_back(std::string(all[i].name) + " / " + all[i].symbol + " / " + all[i].fingerprint);
  EXPECT_EQ(got, (std::vector<std::string>{
                     "libgcc's __clear_cache / __aarch64_sync_cache_range / GCC 16 (Debian forky)",
                     "libgcc's __clear_cache / __aarch64_sync_cache_range / GCC 15 (Debian forky)",
                     "libgcc's __clear_cache / __aarch64_sync_cache_range / GCC 14 (Debian 13)",
                     "libgcc's __clear_cache / __aarch64_sync_cache_range / GCC 12 (Debian 12)",
                     "compiler-rt's __clear_cache / __clear_cache / LLVM 19, 21 (Debian 13, forky)",
                     "compiler-rt's __clear_cache / __clear_cache / LLVM 14 (Debian 12)",
                     "QEMU's flush_idcache_range / flush_idcache_range / QEMU 7.2 (Debian 12)"}));
  EXPECT_EQ(std::string(all[0].flaw), "CTR_EL0 latched in a static on the first call");
  EXPECT_EQ(std::string(all[0].advice).rfind("link jitflush's drop-in __clear_cache", 0), 0u);
}

// Another link of the same code: other immediates, other registers, other
// branch offsets and alignment padding in another place.
TEST(KnownRoutines, ALinksChangesDoNotHideTheRoutine)
{
  size_t n = 0;
  const report_known_routine *gcc12 = &report_known_routines(&n)[3];
  uint32_t w[64];
  size_t len = 0;
  for (size_t i = 0; i < gcc12->nwords; i++) {
    uint32_t insn = gcc12->words[i];
    if (insn == kNop)
      continue; // the padding moves
    if ((insn & 0x9f000000) == 0x90000000)
      insn = 0xd0000145; // adrp x5 of another page
    else if ((insn & 0xffc00000) == 0xb9400000)
      insn = 0xb941c8a4; // ldr w4, [x5, #456]
    else if (insn == 0x8b030042)
      insn = 0x8b0a0129; // add x9, x9, x10: other registers
    else if (insn == 0x540000e2)
      insn = 0x54000142; // b.cs, another offset
    w[len++] = insn;
    if (len == 3)
      w[len++] = kNop; // padding where the build had none
  }
  size_t at = 0;
  while (at < len && (w[at] & kDcCvauMask) != kIcIvau)
    at++;
  ASSERT_LT(at, len);
  EXPECT_EQ(report_known_routine_match(w, len, at), gcc12);
}

TEST(KnownRoutines, OtherCodeStaysUnnamed)
{
  size_t n = 0;
  const report_known_routine *gcc12 = &report_known_routines(&n)[3];
  std::vector<uint32_t> w = Words(*gcc12);
  const size_t at = Find(w, kDcCvau);
  // The routine cut short at the end of what was read.
  EXPECT_EQ(report_known_routine_match(w.data(), at + 4, at), nullptr);
  EXPECT_EQ(report_known_routine_match(w.data(), w.size(), w.size()), nullptr);
  ASSERT_EQ(report_known_routine_match(w.data(), w.size(), at), gcc12);
  // One instruction of another kind: the dsb between the loops as dmb.
  for (uint32_t &insn : w)
    if (insn == 0xd5033b9f) {
      insn = 0xd5033bbf; // dmb ish
      break;
    }
  EXPECT_EQ(report_known_routine_match(w.data(), w.size(), at), nullptr);
  // A flush loop of its own: one dc cvau, a fixed 64-byte step.
  const std::vector<uint32_t> own = {0xd50b7b20, 0x91010000, 0xeb01001f,
                                     0x54ffffc3, 0xd5033b9f, 0xd65f03c0};
  EXPECT_EQ(report_known_routine_match(own.data(), own.size(), 0), nullptr);
}

TEST(KnownRoutines, ShapesKeepTheOperationAndDropOperands)
{
  EXPECT_EQ(report_insn_shape(0xd50b7b22), report_insn_shape(0xd50b7b2a)) << "dc cvau, x2 / x10";
  EXPECT_NE(report_insn_shape(0xd50b7b22), report_insn_shape(0xd50b7e22)) << "dc cvau / dc civac";
  EXPECT_EQ(report_insn_shape(0x90000005), report_insn_shape(0xf00039c3)) << "adrp of any page";
  EXPECT_NE(report_insn_shape(0x90000005), report_insn_shape(0x10000005)) << "adrp / adr";
  EXPECT_EQ(report_insn_shape(0x14000000), report_insn_shape(0x17ffffff)) << "b, any offset";
  EXPECT_NE(report_insn_shape(0x54ffffa8), report_insn_shape(0x54ffffa3)) << "b.hi / b.cc";
  EXPECT_EQ(report_insn_shape(0x54ffffa8), report_insn_shape(0x540000e8)) << "b.hi, any offset";
}

} // namespace
