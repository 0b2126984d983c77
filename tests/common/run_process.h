// Runs a program as a user would and collects its exit status and output:
// the one process runner of the GoogleTest drivers (emu, cli, scenario,
// patching, bench). Linked as jitflush_test_process (tests/CMakeLists.txt).
#ifndef JITFLUSH_TESTS_COMMON_RUN_PROCESS_H
#define JITFLUSH_TESTS_COMMON_RUN_PROCESS_H

#include <map>
#include <string>
#include <vector>

struct ProcessResult {
  int status = -1;        // exit status, 128+N for signal N, -1 when not started
  bool timed_out = false; // killed (with its process group) at the deadline
  std::string out, err;
  // The last non-empty line of stderr (the runner's summary line).
  std::string LastErrLine() const;
  // Status, stdout and stderr: what a failing assertion should show.
  std::string Describe() const;
};

// A value of kUnset in RunProcess's env removes the variable.
inline const char kUnset[] = "\x01unset";

// Runs argv[0] (a path) with stdin from /dev/null, stdout and stderr
// captured, the environment of this process changed by env, in the folder
// cwd (empty: this process's own), in a process group of its own so that at
// the deadline the whole group (QEMU and its threads, say) is killed.
ProcessResult RunProcess(const std::vector<std::string> &argv,
                         const std::map<std::string, std::string> &env = {},
                         int timeout_seconds = 600, const std::string &cwd = "");

std::string ReadFileOrEmpty(const std::string &path);
void WriteFile(const std::string &path, const std::string &text);
bool PathExists(const std::string &path);

// A fresh folder under $TMPDIR, removed with its contents at destruction.
class TempDir
{
public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir &) = delete;
  TempDir &operator=(const TempDir &) = delete;
  const std::string &path() const
  {
    return path_;
  }
  std::string operator/(const std::string &name) const
  {
    return path_ + "/" + name;
  }

private:
  std::string path_;
};

#endif
