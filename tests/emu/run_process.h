// Runs a program with extra environment variables and collects its exit
// status and output, for the runner tests.
#ifndef JITFLUSH_TESTS_EMU_RUN_PROCESS_H
#define JITFLUSH_TESTS_EMU_RUN_PROCESS_H

#include <map>
#include <string>
#include <vector>

struct ProcessResult {
  int status = -1;  // exit status, or 128+signal
  std::string out;
  std::string err;
  // The last non-empty line of stderr (the runner's summary line).
  std::string LastErrLine() const;
};

// env: variables to set (a value of "\x01unset" removes the variable);
// cwd: the folder to run it in (empty: this process's own).
ProcessResult RunProcess(const std::vector<std::string>& argv,
                         const std::map<std::string, std::string>& env = {},
                         const std::string& cwd = "");

std::string ReadFileOrEmpty(const std::string& path);
void WriteFile(const std::string& path, const std::string& text);
bool PathExists(const std::string& path);

// A fresh folder under $TMPDIR, removed with its contents at destruction.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }
  std::string operator/(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

inline const char kUnset[] = "\x01unset";

#endif
