// The translation-time decoder (rig/plugin/plugin_decode.c): which
// instructions publish a thread's earlier stores (release stores, release
// atomics, DMBs that order stores). The adversary ends a turn there after
// a store to code (plugin_turns.c), so a miss here hides a JIT that
// publishes new code before its flush completes, and a false match costs a
// hand-over.
#include <cstdint>
#include <vector>

#include <gtest/gtest.h>

#include "plugin_decode.h"

namespace
{

class Decode : public ::testing::Test
{
protected:
  void SetUp() override
  {
    GError *error = nullptr;
    d_ = plugin_decoder_open(&error);
    ASSERT_NE(d_, nullptr) << (error ? error->message : "");
  }
  void TearDown() override
  {
    if (d_)
      plugin_decoder_close(d_);
  }
  bool Publishes(uint32_t word)
  {
    return plugin_decode(d_, word).publishes;
  }
  plugin_decoder *d_ = nullptr;
};

// Encodings from the Arm ARM's A64 tables (checked against
// aarch64-linux-gnu-objdump -d).
TEST_F(Decode, ReleaseStoresAndAtomicsPublish)
{
  EXPECT_TRUE(Publishes(0xc89ffc20)); // stlr x0, [x1]
  EXPECT_TRUE(Publishes(0x889ffc20)); // stlr w0, [x1]
  EXPECT_TRUE(Publishes(0x089ffc20)); // stlrb w0, [x1]
  EXPECT_TRUE(Publishes(0xc89f7c20)); // stllr x0, [x1]
  EXPECT_TRUE(Publishes(0xc802fc20)); // stlxr w2, x0, [x1]
  EXPECT_TRUE(Publishes(0xc8228c20)); // stlxp w2, x0, x3, [x1]
  EXPECT_TRUE(Publishes(0xc8a2fc20)); // casl x2, x0, [x1]
  EXPECT_TRUE(Publishes(0xc8e2fc20)); // casal x2, x0, [x1]
  EXPECT_TRUE(Publishes(0x4822fc20)); // caspl x2, x3, x0, x1, [x1]
  EXPECT_TRUE(Publishes(0xf8620020)); // ldaddl x2, x0, [x1]
  EXPECT_TRUE(Publishes(0xf8e28020)); // swpal x2, x0, [x1]
  EXPECT_TRUE(Publishes(0xf862003f)); // staddl x2, [x1]
  EXPECT_TRUE(Publishes(0xd9000020)); // stlur x0, [x1]
  EXPECT_TRUE(Publishes(0xd5033bbf)); // dmb ish
  EXPECT_TRUE(Publishes(0xd5033abf)); // dmb ishst
  EXPECT_TRUE(Publishes(0xd5033fbf)); // dmb sy
}

TEST_F(Decode, PlainStoresLoadsAcquiresAndOtherBarriersDoNot)
{
  EXPECT_FALSE(Publishes(0xf9000020)); // str x0, [x1]
  EXPECT_FALSE(Publishes(0xa9000420)); // stp x0, x1, [x1]
  EXPECT_FALSE(Publishes(0xc8027c20)); // stxr w2, x0, [x1]
  EXPECT_FALSE(Publishes(0xc8a27c20)); // cas x2, x0, [x1]
  EXPECT_FALSE(Publishes(0xc8e27c20)); // casa x2, x0, [x1]
  EXPECT_FALSE(Publishes(0xf8220020)); // ldadd x2, x0, [x1]
  EXPECT_FALSE(Publishes(0xf8a20020)); // ldadda x2, x0, [x1]
  EXPECT_FALSE(Publishes(0xc8dffc20)); // ldar x0, [x1]
  EXPECT_FALSE(Publishes(0xc85ffc20)); // ldaxr x0, [x1]
  EXPECT_FALSE(Publishes(0xf8bfc020)); // ldapr x0, [x1]
  EXPECT_FALSE(Publishes(0xd9400020)); // ldapur x0, [x1]
  EXPECT_FALSE(Publishes(0xd50339bf)); // dmb ishld
  EXPECT_FALSE(Publishes(0xd5033b9f)); // dsb ish
  EXPECT_FALSE(Publishes(0xd5033fdf)); // isb
  EXPECT_FALSE(
      Publishes(0x19010440)); // cpyfp [x0]!, [x1]!, x2! (FEAT_MOPS: a store, not a release)
}

// A dc's address register is ordered after a load in its block when it
// depends on the load (herd7: MP.RF+dmb.st+addr-cachesyncisb and
// ...+pickaddr-... forbidden) or the load read the address itself
// (2SM.B+cachesync-isb forbidden), not when only a dmb ld stands between
// (MP.RF+dmb.st+dmb.ld-dc-dsb-ic-dsb-isb allowed) or the value was reloaded
// from the stack. A load-acquire orders nothing here either (herd7:
// jf.MP.RF+dmb.st+acq-dc-dsb-ic-dsb-isb is allowed).
TEST(DecodeAfterLoad, DependenciesAndTheSameAddressOrderADc)
{
  constexpr uint32_t kDcX1 = 0xd50b7b21, kDcX5 = 0xd50b7b25;
  struct Case {
    const char *what;
    std::vector<uint32_t> block; // the last word is the dc
    bool ordered;
  } cases[] = {
      {"ldr x1, [x3]; dc x1 (address from the load)", {0xf9400061, kDcX1}, true},
      {"ldr w2, [x3]; dmb ld; dc x1", {0xb9400062, 0xd5033dbf, kDcX1}, false},
      {"ldr w2, [x1]; dc x1 (same address)", {0xb9400022, kDcX1}, true},
      {"ldr w2, [x3]; eor w4, w2, w2; add x5, x1, w4, sxtw; dc x5",
       {0xb9400062, 0x4a020044, 0x8b24c025, kDcX5},
       true},
      {"ldr w2, [x3]; cmp w2, #1; csel x5, x1, x6, eq; dc x5",
       {0xb9400062, 0x7100045f, 0x9a860025, kDcX5},
       true},
      {"ldp x0, x1, [sp], #16; dc x1 (a spill)", {0xa8c107e0, kDcX1}, false},
      {"ldr x1, [x3]; ldp x0, x1, [sp], #16; dc x1", {0xf9400061, 0xa8c107e0, kDcX1}, false},
      {"str x1, [x3]; dc x1 (a store)", {0xf9000061, kDcX1}, false},
      {"ldr x1, <literal>; dc x1", {0x58000001, kDcX1}, true},
      {"casa x2, x0, [x1]; dc x2 (the old value lands in Rs)", {0xc8e27c20, 0xd50b7b22}, true},
      {"mov x1, x9; dc x1", {0xaa0903e1, kDcX1}, false},
      {"ldar w0, [x3]; dc x1 (an acquire, no dependency)", {0x88dffc60, kDcX1}, false},
  };
  for (const Case &c : cases)
    EXPECT_EQ(plugin_decode_after_load(c.block.data(), c.block.size() - 1, c.block.back() & 31),
              c.ordered)
        << c.what;
}

} // namespace
