// Minimal ELF64 reader: the bytes of a named function in an executable.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

struct FunctionBytes {
  uint64_t address = 0;
  std::vector<uint8_t> code;
};

// Returns false (with *error set) when the file or symbol is missing.
bool ReadFunction(const std::string &path, const std::string &symbol, FunctionBytes *out,
                  std::string *error);
