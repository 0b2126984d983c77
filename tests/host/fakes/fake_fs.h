// A fake filesystem behind the fs seam (src/internal/fs.h), in the manner
// of google/cpu_features: tests fill it with the files they want to exist.
// Unlike a plain map it notices misuse: a descriptor left open at the end of
// a test, read after close, or closed twice fails that test.
#pragma once
#include <string>

namespace fakefs {
void Reset();
void CreateFile(const std::string& path, const std::string& content);
// Creates the usual sysfs files of one CPU's L1 caches.
void CreateL1(unsigned cpu, unsigned iline, unsigned dline);
void CreateMidr(unsigned cpu, unsigned long long midr);
// Adds a test failure for every descriptor still open, naming its path, and
// forgets them. Runs by itself at the end of every test of a binary that
// links the fake, so a leak in the code under test fails that test.
void ExpectAllClosed();
}  // namespace fakefs
