// Invariant checks for the fuzz targets: a violated invariant aborts with a
// message, which libFuzzer records as a crash with the input that caused it.
#pragma once
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#define FUZZ_CHECK(cond)                                                                           \
  do {                                                                                             \
    if (!(cond)) {                                                                                 \
      std::fprintf(stderr, "%s:%d: invariant failed: %s\n", __FILE__, __LINE__, #cond);            \
      std::abort();                                                                                \
    }                                                                                              \
  } while (0)

namespace fuzz
{
inline bool PowerOfTwo(uint64_t v)
{
  return v != 0 && (v & (v - 1)) == 0;
}
// A stride CTR_EL0 can encode: 4 << (0..15) bytes (Arm ARM D19.2.34).
inline bool EncodableLine(uint64_t v)
{
  return PowerOfTwo(v) && v >= 4 && v <= (4u << 15);
}
} // namespace fuzz
