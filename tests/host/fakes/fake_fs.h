// A fake filesystem behind the fs seam (lib/fs.h), in the manner
// of google/cpu_features: tests fill it with the files they want to exist.
// Unlike a plain map it notices misuse: a descriptor left open at the end of
// a test, read after close, or closed twice fails that test (through
// fake_fs_gtest.cc; a fuzzer checks TakeProblems() itself).
#pragma once
#include <string>
#include <vector>

namespace fakefs
{
void Reset();
void CreateFile(const std::string &path, const std::string &content);
// Creates the usual sysfs files of one CPU's L1 caches.
void CreateL1(unsigned cpu, unsigned iline, unsigned dline);
void CreateMidr(unsigned cpu, unsigned long long midr);
// Every misuse since the last call or Reset(), one message each: a
// descriptor still open (named by its path; then forgotten), a read after
// close, a double close, an unknown descriptor.
std::vector<std::string> TakeProblems();
// GoogleTest binaries (fake_fs_gtest.cc): adds one failure per problem.
// Runs by itself at the end of every test, so the test that leaked a
// descriptor is the one that fails.
void ExpectNoMisuse();
} // namespace fakefs
