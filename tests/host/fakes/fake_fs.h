// A fake filesystem behind the fs seam (src/internal/fs.h), in the manner
// of google/cpu_features: tests fill it with the files they want to exist.
#pragma once
#include <string>

namespace fakefs {
void Reset();
void CreateFile(const std::string& path, const std::string& content);
// Creates the usual sysfs files of one CPU's L1 caches.
void CreateL1(unsigned cpu, unsigned iline, unsigned dline);
void CreateMidr(unsigned cpu, unsigned long long midr);
}  // namespace fakefs
