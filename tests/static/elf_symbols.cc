#include "elf_symbols.h"

#include <elf.h>

#include <cstring>
#include <fstream>
#include <iterator>

bool ReadFunction(const std::string &path, const std::string &symbol, FunctionBytes *out,
                  std::string *error)
{
  std::ifstream in(path, std::ios::binary);
  std::vector<uint8_t> file((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (file.size() < sizeof(Elf64_Ehdr) || std::memcmp(file.data(), ELFMAG, SELFMAG) != 0 ||
      file[EI_CLASS] != ELFCLASS64) {
    *error = path + ": not a readable ELF64 file";
    return false;
  }
  Elf64_Ehdr eh;
  std::memcpy(&eh, file.data(), sizeof eh);
  auto section = [&](unsigned i) {
    Elf64_Shdr sh;
    std::memcpy(&sh, file.data() + eh.e_shoff + i * sizeof(Elf64_Shdr), sizeof sh);
    return sh;
  };
  if (eh.e_shoff + eh.e_shnum * sizeof(Elf64_Shdr) > file.size()) {
    *error = path + ": truncated section table";
    return false;
  }
  for (unsigned i = 0; i < eh.e_shnum; i++) {
    Elf64_Shdr symtab = section(i);
    if (symtab.sh_type != SHT_SYMTAB)
      continue;
    Elf64_Shdr strtab = section(symtab.sh_link);
    for (uint64_t off = 0; off + sizeof(Elf64_Sym) <= symtab.sh_size; off += sizeof(Elf64_Sym)) {
      Elf64_Sym sym;
      std::memcpy(&sym, file.data() + symtab.sh_offset + off, sizeof sym);
      const char *name =
          reinterpret_cast<const char *>(file.data() + strtab.sh_offset + sym.st_name);
      if (symbol != name || sym.st_shndx == SHN_UNDEF || sym.st_shndx >= eh.e_shnum)
        continue;
      Elf64_Shdr text = section(sym.st_shndx);
      uint64_t start = text.sh_offset + (sym.st_value - text.sh_addr);
      if (start + sym.st_size > file.size())
        break;
      out->address = sym.st_value;
      out->code.assign(file.begin() + start, file.begin() + start + sym.st_size);
      return true;
    }
  }
  *error = path + ": no symbol " + symbol + " (stripped?)";
  return false;
}
