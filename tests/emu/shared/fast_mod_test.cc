// rig_fast_mod (rig/shared/rig_fast_mod.h) must give exactly x % d: the rig's
// migration points come from it, and a seed must keep naming the same ones.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "rig_fast_mod.h"

namespace
{

uint64_t Splitmix(uint64_t *state)
{
  uint64_t z = (*state += UINT64_C(0x9e3779b97f4a7c15));
  z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
  z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
  return z ^ (z >> 31);
}

TEST(FastMod, EqualsTheRemainderForEveryKindOfDivisor)
{
  // 599: 2 * migrate-every - 1 for the shipped configs; small CPU counts;
  // powers of two and their neighbours; the largest 2 * UINT_MAX - 1 a
  // config allows; and divisors near 2^64, where a 64-bit reciprocal fails.
  std::vector<uint64_t> divisors = {1,
                                    2,
                                    3,
                                    7,
                                    599,
                                    1000,
                                    (UINT64_C(1) << 32) - 1,
                                    UINT64_C(1) << 32,
                                    (UINT64_C(1) << 32) + 1,
                                    UINT64_C(2) * UINT32_MAX - 1,
                                    UINT64_C(1) << 63,
                                    (UINT64_C(1) << 63) + 1,
                                    UINT64_MAX - 1,
                                    UINT64_MAX};
  uint64_t rng = 1;
  for (int i = 0; i < 64; i++) {
    divisors.push_back(Splitmix(&rng) >> (i % 64));
  }
  for (uint64_t d : divisors) {
    if (d == 0) {
      continue;
    }
    const rig_fast_mod f = rig_fast_mod_for(d);
    std::vector<uint64_t> xs = {0,
                                1,
                                d - 1,
                                d,
                                d + 1,
                                UINT64_MAX,
                                UINT64_MAX - 1,
                                UINT64_MAX / d * d,
                                UINT64_MAX / d * d - 1};
    for (int i = 0; i < 2000; i++) {
      xs.push_back(Splitmix(&rng));
    }
    for (uint64_t x : xs) {
      ASSERT_EQ(rig_fast_remainder(x, &f), x % d) << "x=" << x << " d=" << d;
    }
  }
}

} // namespace
