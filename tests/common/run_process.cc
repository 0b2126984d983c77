#include "run_process.h"

#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

extern char **environ;

std::string ReadFileOrEmpty(const std::string &path)
{
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void WriteFile(const std::string &path, const std::string &text)
{
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  if (!out)
    throw std::runtime_error("cannot write " + path);
}

bool PathExists(const std::string &path)
{
  struct stat st;
  return lstat(path.c_str(), &st) == 0;
}

std::string ProcessResult::LastErrLine() const
{
  size_t end = err.find_last_not_of('\n');
  if (end == std::string::npos)
    return "";
  size_t start = err.rfind('\n', end);
  start = start == std::string::npos ? 0 : start + 1;
  return err.substr(start, end + 1 - start);
}

std::string ProcessResult::Describe() const
{
  return "status " + std::to_string(status) + (timed_out ? " (timed out)" : "") +
         "\n--- stdout ---\n" + out + "\n--- stderr ---\n" + err;
}

TempDir::TempDir()
{
  const char *base = getenv("TMPDIR");
  std::string tmpl = std::string(base && *base ? base : "/tmp") + "/jitflush-test-XXXXXX";
  std::vector<char> buf(tmpl.begin(), tmpl.end());
  buf.push_back('\0');
  if (!mkdtemp(buf.data()))
    throw std::runtime_error("mkdtemp failed");
  path_ = buf.data();
}

static int RemoveEntry(const char *path, const struct stat *, int, struct FTW *)
{
  return remove(path);
}

TempDir::~TempDir()
{
  nftw(path_.c_str(), RemoveEntry, 16, FTW_DEPTH | FTW_PHYS);
}

// This process's environment with env applied, as "KEY=VALUE" strings.
static std::vector<std::string> MergedEnvironment(const std::map<std::string, std::string> &env)
{
  std::map<std::string, std::string> merged;
  for (char **e = environ; *e; e++) {
    const char *eq = strchr(*e, '=');
    if (eq)
      merged[std::string(*e, static_cast<size_t>(eq - *e))] = eq + 1;
  }
  for (const auto &[k, v] : env) {
    if (v == kUnset)
      merged.erase(k);
    else
      merged[k] = v;
  }
  std::vector<std::string> out;
  for (const auto &[k, v] : merged)
    out.push_back(k + "=" + v);
  return out;
}

ProcessResult RunProcess(const std::vector<std::string> &argv,
                         const std::map<std::string, std::string> &env, int timeout_seconds,
                         const std::string &cwd)
{
  ProcessResult r;
  if (argv.empty())
    return r;
  // Output goes to files, not pipes: no reader to keep up, no size limit.
  TempDir tmp;
  const std::string out_path = tmp / "out", err_path = tmp / "err";

  std::vector<std::string> env_strings = MergedEnvironment(env), argv_copy = argv;
  std::vector<char *> envp, args;
  for (auto &s : env_strings)
    envp.push_back(s.data());
  envp.push_back(nullptr);
  for (auto &s : argv_copy)
    args.push_back(s.data());
  args.push_back(nullptr);

  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 1, out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&fa, 2, err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  // glibc >= 2.29; after the opens above, so relative outputs stay put.
  if (!cwd.empty())
    posix_spawn_file_actions_addchdir_np(&fa, cwd.c_str());
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&attr, 0); // its own group, led by itself
  pid_t pid = 0;
  int rc = posix_spawn(&pid, args[0], &fa, &attr, args.data(), envp.data());
  posix_spawnattr_destroy(&attr);
  posix_spawn_file_actions_destroy(&fa);
  if (rc != 0) {
    r.err = "cannot start " + argv[0] + ": " + strerror(rc);
    return r;
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeout_seconds);
  int ws = 0;
  for (;;) {
    const pid_t done = waitpid(pid, &ws, WNOHANG);
    if (done == pid)
      break;
    if (done < 0 && errno != EINTR) {
      r.err = std::string("waitpid: ") + strerror(errno);
      return r;
    }
    if (!r.timed_out && std::chrono::steady_clock::now() > deadline) {
      r.timed_out = true;
      kill(-pid, SIGKILL);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  r.status = WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws);
  r.out = ReadFileOrEmpty(out_path);
  r.err = ReadFileOrEmpty(err_path);
  return r;
}
