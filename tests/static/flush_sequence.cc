#include "flush_sequence.h"

#include "capstone_compat.h"

std::vector<Insn> Disassemble(const std::vector<uint8_t> &code, uint64_t address)
{
  std::vector<Insn> out;
  csh handle;
  if (cs_open(JF_CS_ARCH_AARCH64, CS_MODE_ARM, &handle) != CS_ERR_OK)
    return out;
  cs_insn *insn = cs_malloc(handle);
  const uint8_t *bytes = code.data();
  size_t size = code.size();
  uint64_t pc = address;
  while (size >= 4) {
    if (cs_disasm_iter(handle, &bytes, &size, &pc, insn)) {
      out.push_back({insn->address, insn->mnemonic, insn->op_str});
    } else { // data or an encoding Capstone does not know: keep going
      out.push_back({pc, ".word", ""});
      bytes += 4;
      size -= 4;
      pc += 4;
    }
  }
  cs_free(insn, 1);
  cs_close(&handle);
  return out;
}

std::string MaintenanceSkeleton(const std::vector<Insn> &insns)
{
  std::string skeleton, last;
  for (const Insn &i : insns) {
    std::string kind;
    if (i.mnemonic == "dc" || i.mnemonic == "ic" || i.mnemonic == "isb")
      kind = i.mnemonic;
    else if (i.mnemonic == "dsb" || i.mnemonic == "dmb")
      kind = i.mnemonic + " " + i.operands;
    else
      continue;
    if (kind == last)
      continue;
    skeleton += (skeleton.empty() ? "" : ",") + kind;
    last = kind;
  }
  return skeleton;
}

int CountCtrReads(const std::vector<Insn> &insns)
{
  int n = 0;
  for (const Insn &i : insns)
    if (i.mnemonic == "mrs" && i.operands.find("ctr_el0") != std::string::npos)
      n++;
  return n;
}
