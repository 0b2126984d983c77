// The translation-time decoder (src/emu/plugin_decode.c): which
// instructions publish a thread's earlier stores (release stores, release
// atomics, DMBs that order stores). The adversary ends a turn there after
// a store to code (plugin_turns.c), so a miss here hides a JIT that
// publishes new code before its flush completes, and a false match costs a
// hand-over.
#include <cstdint>

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
    d_ = jf_decoder_open(&error);
    ASSERT_NE(d_, nullptr) << (error ? error->message : "");
  }
  void TearDown() override
  {
    if (d_)
      jf_decoder_close(d_);
  }
  bool Publishes(uint32_t word)
  {
    return jf_decode(d_, word).publishes;
  }
  jf_decoder *d_ = nullptr;
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

} // namespace
