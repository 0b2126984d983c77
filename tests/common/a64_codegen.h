// A tiny AArch64 code generator for tests: functions that compute a known
// value, so that running stale or half-written code gives a wrong answer.
// The encoders themselves are tests/common/a64_encode.h (shared with C).
#pragma once
#include <cstddef>
#include <cstdint>

#include "a64_encode.h"

namespace a64
{
// Writes a function of exactly `words` instructions (>= 2) at `out` that
// returns a value depending on `seed`; returns that value.
inline uint64_t WriteSum(uint32_t *out, size_t words, uint32_t seed)
{
  uint64_t value = seed & 0xffff;
  out[0] = a64_movz_x0(seed);
  for (size_t i = 1; i + 1 < words; i++) {
    uint32_t imm = (seed * 2654435761u + static_cast<uint32_t>(i) * 40503u) & 0xfff;
    out[i] = a64_add_x0(imm, 0);
    value += imm;
  }
  out[words - 1] = A64_RET;
  return value;
}
} // namespace a64
