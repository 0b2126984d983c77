// The plugin's decoder (rig/plugin/plugin_decode.c): the words it decides
// from their encoding alone, so that a short program never loads Capstone,
// must be decided exactly as Capstone's decode decides them. Every class
// of such words is compared with the Capstone path, exhaustively where the
// class is small and on a fixed sample of each field where it is not.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <sstream>

#include "plugin_decode.h"

namespace
{

std::string Show(const plugin_decoded &d)
{
  std::ostringstream s;
  s << "kind=" << d.kind << " reg=" << d.reg << " reg2=" << d.reg2
    << " dsb_completes=" << d.dsb_completes << " dmb_full=" << d.dmb_full
    << " dmb_orders_stores=" << d.dmb_orders_stores << " cmodx_safe=" << d.cmodx_safe
    << " publishes=" << d.publishes;
  return s.str();
}

class Decoder : public testing::Test
{
protected:
  void SetUp() override
  {
    d_ = plugin_decoder_open(nullptr);
    ASSERT_NE(d_, nullptr);
  }
  void TearDown() override
  {
    plugin_decoder_close(d_);
  }
  // Every word BASE | (x & MASK) for x over the whole MASK when it has at
  // most 20 bits, else over 20000 values from a fixed seed; returns how
  // many differed (each printed, the first few).
  int Compare(uint32_t base, uint32_t mask)
  {
    int differ = 0;
    auto one = [&](uint32_t word) {
      // The rig's own encodings, decided before either path: MRS of
      // CTR_EL0 and MIDR_EL1, the bench's region markers.
      if ((word & ~0x1fu) == 0xd53b0020 || (word & ~0x1fu) == 0xd5380000 || word == 0xd5032f9f ||
          word == 0xd5032fbf)
        return;
      const std::string fast = Show(plugin_decode(d_, word));
      const std::string slow = Show(plugin_decode_with_capstone(d_, word));
      if (fast != slow && differ++ < 5)
        ADD_FAILURE() << std::hex << "0x" << word << std::dec << ": by encoding " << fast
                      << ", by Capstone " << slow;
    };
    if (__builtin_popcount(mask) <= 20) {
      // All subsets of MASK's bits.
      uint32_t x = 0;
      do {
        one(base | x);
        x = (x - mask) & mask;
      } while (x != 0);
    } else {
      std::mt19937 rng(26);
      for (int i = 0; i < 20000; i++)
        one(base | (static_cast<uint32_t>(rng()) & mask));
    }
    return differ;
  }
  plugin_decoder *d_ = nullptr;
};

TEST_F(Decoder, BranchesImmediateAsCapstone)
{
  EXPECT_EQ(Compare(0x14000000, 0x83ffffff), 0); // B, BL
}

TEST_F(Decoder, ConditionalBranchesAsCapstone)
{
  EXPECT_EQ(Compare(0x54000000, 0x00ffffff), 0); // B.cond, BC.cond and bit 4
}

TEST_F(Decoder, CompareAndTestBranchesAsCapstone)
{
  EXPECT_EQ(Compare(0x34000000, 0x83ffffff), 0); // CBZ, CBNZ, TBZ, TBNZ
}

TEST_F(Decoder, RegisterBranchesAsCapstone)
{
  EXPECT_EQ(Compare(0xd6000000, 0x01ffffff), 0); // BR, BLR, RET, ERET, ...
}

TEST_F(Decoder, ExceptionGenerationAsCapstone)
{
  EXPECT_EQ(Compare(0xd4000000, 0x00ffffff), 0); // SVC, HVC, SMC, BRK, ...
}

TEST_F(Decoder, SystemRegisterMovesAsCapstone)
{
  EXPECT_EQ(Compare(0xd5100000, 0x002fffff), 0); // MSR, MRS (ctr, midr too)
}

TEST_F(Decoder, EverySysWordAsCapstone)
{
  EXPECT_EQ(Compare(0xd5080000, 0x0007ffff), 0); // DC, IC, AT, TLBI, SYS
}

TEST_F(Decoder, EveryHintAndBarrierAsCapstone)
{
  EXPECT_EQ(Compare(0xd5032000, 0x00001fff), 0); // hints, CLREX, DSB, DMB, ISB, SB
}

// And the shortcuts do take the words a short program runs: hello's
// branches, BTI, TPIDR reads, DMB ISH and DC ZVA (docs/BENCHMARKS.md).
TEST_F(Decoder, TheShortcutsDecideWhatTheyDecide)
{
  EXPECT_TRUE(plugin_decode(d_, 0x94000086).cmodx_safe);          // bl
  EXPECT_FALSE(plugin_decode(d_, 0xd503245f).cmodx_safe);         // bti c
  EXPECT_EQ(plugin_decode(d_, 0xd5033bbf).kind, PLUGIN_INSN_DMB); // dmb ish
  EXPECT_TRUE(plugin_decode(d_, 0xd5033bbf).dmb_full);
  EXPECT_EQ(plugin_decode(d_, 0xd50b7423).kind, PLUGIN_INSN_DC_ZVA); // dc zva, x3
  EXPECT_EQ(plugin_decode(d_, 0xd50b7423).reg, 3u);
  EXPECT_EQ(plugin_decode(d_, 0xd50b7b20).kind, PLUGIN_INSN_DC_CLEAN); // dc cvau, x0
  EXPECT_EQ(plugin_decode(d_, 0xd50b7520).kind, PLUGIN_INSN_IC_IVAU);  // ic ivau, x0
}

} // namespace
