// A tiny AArch64 code generator for tests: functions that compute a known
// value, so that running stale or half-written code gives a wrong answer.
#pragma once
#include <cstddef>
#include <cstdint>

namespace a64 {
// movz x0, #imm16 (Arm ARM C6.2.239)
inline uint32_t MovzX0(uint32_t imm16) { return 0xd2800000u | ((imm16 & 0xffff) << 5); }
// add x0, x0, #imm12 (C6.2.5)
inline uint32_t AddX0(uint32_t imm12) { return 0x91000000u | ((imm12 & 0xfff) << 10); }
// ret (C6.2.254)
inline uint32_t Ret() { return 0xd65f03c0u; }

// Writes a function of exactly `words` instructions (>= 2) at `out` that
// returns a value depending on `seed`; returns that value.
inline uint64_t WriteSum(uint32_t* out, size_t words, uint32_t seed) {
  uint64_t value = seed & 0xffff;
  out[0] = MovzX0(seed);
  for (size_t i = 1; i + 1 < words; i++) {
    uint32_t imm = (seed * 2654435761u + static_cast<uint32_t>(i) * 40503u) & 0xfff;
    out[i] = AddX0(imm);
    value += imm;
  }
  out[words - 1] = Ret();
  return value;
}
}  // namespace a64
