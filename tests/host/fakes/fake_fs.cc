#include "fake_fs.h"

#include <cstdio>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <vector>

extern "C" {
#include "fs.h"
}

namespace
{
std::mutex mu;
std::map<std::string, std::string> files;
// A descriptor is an index into this table and is never reused, so a read
// or close through a stale descriptor is noticed instead of reaching a
// file opened later.
struct Open {
  std::string path;
  std::string content;
  size_t pos;
  bool closed;
};
std::vector<Open> open_files;

// Misuse seen since the last TakeProblems(); reported there, not here, so
// that the fake needs no test framework (the fuzzers link it too).
std::vector<std::string> problems;
} // namespace

namespace fakefs
{
void Reset()
{
  std::lock_guard<std::mutex> lock(mu);
  files.clear();
  open_files.clear();
  problems.clear();
}
void CreateFile(const std::string &path, const std::string &content)
{
  std::lock_guard<std::mutex> lock(mu);
  files[path] = content;
}
void CreateL1(unsigned cpu, unsigned iline, unsigned dline)
{
  std::string base = "/sys/devices/system/cpu/cpu" + std::to_string(cpu) + "/cache/";
  CreateFile(base + "index0/level", "1\n");
  CreateFile(base + "index0/type", "Data\n");
  CreateFile(base + "index0/coherency_line_size", std::to_string(dline) + "\n");
  CreateFile(base + "index1/level", "1\n");
  CreateFile(base + "index1/type", "Instruction\n");
  CreateFile(base + "index1/coherency_line_size", std::to_string(iline) + "\n");
  CreateFile(base + "index2/level", "2\n");
  CreateFile(base + "index2/type", "Unified\n");
  CreateFile(base + "index2/coherency_line_size", "16\n"); // must be ignored: not L1
}
void CreateMidr(unsigned cpu, unsigned long long midr)
{
  char text[32];
  std::snprintf(text, sizeof text, "0x%016llx\n", midr);
  CreateFile("/sys/devices/system/cpu/cpu" + std::to_string(cpu) + "/regs/identification/midr_el1",
             text);
}
std::vector<std::string> TakeProblems()
{
  std::lock_guard<std::mutex> lock(mu);
  std::vector<std::string> out;
  out.swap(problems);
  for (Open &f : open_files) {
    if (f.closed)
      continue;
    out.push_back("fake fs: " + f.path + " was opened and never closed (jf_fs_close)");
    f.closed = true; // reported once
  }
  return out;
}
} // namespace fakefs

extern "C" int jf_fs_open(const char *path)
{
  std::lock_guard<std::mutex> lock(mu);
  auto it = files.find(path);
  if (it == files.end())
    return -1;
  open_files.push_back(Open{path, it->second, 0, false});
  return static_cast<int>(open_files.size() - 1);
}

extern "C" long jf_fs_read(int fd, void *buf, size_t len)
{
  std::lock_guard<std::mutex> lock(mu);
  if (fd < 0 || static_cast<size_t>(fd) >= open_files.size()) {
    problems.push_back("fake fs: read from descriptor " + std::to_string(fd) +
                       ", which was never opened");
    return -1;
  }
  Open &f = open_files[fd];
  if (f.closed) {
    problems.push_back("fake fs: read from " + f.path + " after jf_fs_close");
    return -1;
  }
  size_t n = std::min(len, f.content.size() - f.pos);
  std::memcpy(buf, f.content.data() + f.pos, n);
  f.pos += n;
  return static_cast<long>(n);
}

extern "C" void jf_fs_close(int fd)
{
  std::lock_guard<std::mutex> lock(mu);
  if (fd < 0 || static_cast<size_t>(fd) >= open_files.size()) {
    problems.push_back("fake fs: jf_fs_close(" + std::to_string(fd) +
                       "), a descriptor that was never opened");
    return;
  }
  Open &f = open_files[fd];
  if (f.closed) {
    problems.push_back("fake fs: " + f.path + " closed twice");
    return;
  }
  f.closed = true;
}
