// Classifies the maintenance instructions of a disassembled routine.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

struct Insn {
  uint64_t address;
  std::string mnemonic;
  std::string operands;
};

std::vector<Insn> Disassemble(const std::vector<uint8_t> &code, uint64_t address);

// The maintenance skeleton in address order with repeats collapsed, e.g.
// "dc,dsb ish,ic,dsb ish,isb".
std::string MaintenanceSkeleton(const std::vector<Insn> &insns);

// Counts `mrs xN, ctr_el0`.
int CountCtrReads(const std::vector<Insn> &insns);
