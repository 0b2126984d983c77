// The range rules shared by every platform (docs/TESTING.md "Guarantees").
#include <gtest/gtest.h>

#include <cstdint>

extern "C" {
#include "range.h"
}

static const void *P(uintptr_t a)
{
  return reinterpret_cast<const void *>(a);
}

TEST(Range, NormalUnalignedRange)
{
  uintptr_t last = 0;
  ASSERT_TRUE(jf_range_last(P(0x1003), P(0x1041), &last));
  EXPECT_EQ(last, 0x1040u);
}

TEST(Range, EmptyAndReversedDoNothing)
{
  uintptr_t last = 7;
  EXPECT_FALSE(jf_range_last(P(0x1000), P(0x1000), &last));
  EXPECT_FALSE(jf_range_last(P(0x2000), P(0x1000), &last));
  EXPECT_FALSE(jf_range_last(nullptr, nullptr, &last));
  EXPECT_EQ(last, 7u);
}

TEST(Range, WrappingRangeIsTreatedAsReversed)
{
  uintptr_t last;
  EXPECT_FALSE(jf_range_last(P(UINTPTR_MAX - 0xfff), P(0x1000), &last));
}

TEST(Range, EndAtTheTopOfTheAddressSpace)
{
  uintptr_t last = 0;
  ASSERT_TRUE(jf_range_last(P(UINTPTR_MAX - 0xff), nullptr, &last));
  EXPECT_EQ(last, UINTPTR_MAX);
}

TEST(Range, NullBeginWithAnEnd)
{
  uintptr_t last = 0;
  ASSERT_TRUE(jf_range_last(nullptr, P(0x40), &last));
  EXPECT_EQ(last, 0x3fu);
}
