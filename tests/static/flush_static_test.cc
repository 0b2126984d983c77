// A static check of the cross-compiled flush routine with Capstone: the
// barrier order of docs/BACKGROUND.md#the-problem and no CTR_EL0 read inside the loops.
#include <gtest/gtest.h>

#include <cstring>

#include "elf_symbols.h"
#include "flush_sequence.h"

#ifndef JITFLUSH_FLUSH_IMAGE
#error "JITFLUSH_FLUSH_IMAGE must name the aarch64 flush_image executable"
#endif

namespace
{
std::vector<Insn> Function(const char *symbol)
{
  FunctionBytes f;
  std::string error;
  EXPECT_TRUE(ReadFunction(JITFLUSH_FLUSH_IMAGE, symbol, &f, &error)) << error;
  return Disassemble(f.code, f.address);
}

std::vector<uint8_t> Words(std::initializer_list<uint32_t> words)
{
  std::vector<uint8_t> bytes(words.size() * 4);
  std::memcpy(bytes.data(), words.begin(), bytes.size());
  return bytes;
}
constexpr uint32_t kDcCvauX6 = 0xd50b7b26, kIcIvauX6 = 0xd50b7526, kDsbIsh = 0xd5033b9f,
                   kIsb = 0xd5033fdf, kMrsCtr = 0xd53b0020, kRet = 0xd65f03c0;
} // namespace

TEST(FlushStatic, MaintenanceOrderIsDcDsbIcDsbIsb)
{
  auto insns = Function("jf_flush_lines_aarch64");
  ASSERT_FALSE(insns.empty());
  // dc cvau and dc civac collapse into one "dc" step.
  EXPECT_EQ(MaintenanceSkeleton(insns), "dc,dsb ish,ic,dsb ish,isb");
}

TEST(FlushStatic, NoCtrReadInTheFlushLoops)
{
  auto insns = Function("jf_flush_lines_aarch64");
  ASSERT_FALSE(insns.empty());
  EXPECT_EQ(CountCtrReads(insns), 0);
}

TEST(FlushStatic, PublicEntryHasNoMaintenanceOfItsOwnAndAtMostTheGuardRead)
{
  auto insns = Function("jitflush_clear_cache");
  ASSERT_FALSE(insns.empty());
  EXPECT_EQ(MaintenanceSkeleton(insns), ""); // all of it goes through the checked routine
  EXPECT_LE(CountCtrReads(insns), 1);        // the per-call guard, outside any loop
}

// The checker itself must be able to fail.
TEST(FlushStatic, CheckerRejectsAWrongOrder)
{
  auto wrong = Disassemble(Words({kIcIvauX6, kDsbIsh, kDcCvauX6, kDsbIsh, kIsb, kRet}), 0x1000);
  EXPECT_NE(MaintenanceSkeleton(wrong), "dc,dsb ish,ic,dsb ish,isb");
  auto no_isb = Disassemble(Words({kDcCvauX6, kDsbIsh, kIcIvauX6, kDsbIsh, kRet}), 0x1000);
  EXPECT_NE(MaintenanceSkeleton(no_isb), "dc,dsb ish,ic,dsb ish,isb");
  auto right =
      Disassemble(Words({kDcCvauX6, kDcCvauX6, kDsbIsh, kIcIvauX6, kDsbIsh, kIsb, kRet}), 0x1000);
  EXPECT_EQ(MaintenanceSkeleton(right), "dc,dsb ish,ic,dsb ish,isb");
  EXPECT_EQ(CountCtrReads(Disassemble(Words({kMrsCtr, kRet}), 0)), 1);
}
