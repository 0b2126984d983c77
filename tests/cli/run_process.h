// Runs a program and captures its stdout, stderr and exit status, for the
// tests that drive jitflush-info (directly or under the rig) as a user would.
#ifndef JITFLUSH_TESTS_CLI_RUN_PROCESS_H
#define JITFLUSH_TESTS_CLI_RUN_PROCESS_H

#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <string>
#include <vector>

extern char **environ;

namespace jfi_test {

struct ProcessResult {
  int status = -1;  // exit status, 128+N for signal N, -1 when not started
  bool timed_out = false;
  std::string out, err;
  std::string Describe() const
  {
    return "status " + std::to_string(status) + (timed_out ? " (timed out)" : "") +
           "\n--- stdout ---\n" + out + "\n--- stderr ---\n" + err;
  }
};

inline ProcessResult RunProcess(const std::vector<std::string> &argv, int timeout_seconds = 600)
{
  ProcessResult r;
  int out_pipe[2], err_pipe[2];
  if (pipe(out_pipe) != 0 || pipe(err_pipe) != 0)
    return r;
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, out_pipe[1], 1);
  posix_spawn_file_actions_adddup2(&actions, err_pipe[1], 2);
  posix_spawn_file_actions_addclose(&actions, out_pipe[0]);
  posix_spawn_file_actions_addclose(&actions, err_pipe[0]);
  std::vector<char *> args;
  for (const std::string &a : argv)
    args.push_back(const_cast<char *>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid;
  int rc = posix_spawn(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  close(out_pipe[1]);
  close(err_pipe[1]);
  if (rc != 0) {
    r.err = "cannot start " + argv[0] + ": " + std::to_string(rc);
    close(out_pipe[0]);
    close(err_pipe[0]);
    return r;
  }
  struct pollfd fds[2] = {{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}};
  std::string *sinks[2] = {&r.out, &r.err};
  int open_fds = 2;
  time_t deadline = time(nullptr) + timeout_seconds;
  while (open_fds > 0) {
    int left = (int)(deadline - time(nullptr));
    if (left <= 0) {
      r.timed_out = true;
      kill(pid, SIGKILL);
      break;
    }
    int n = poll(fds, 2, left * 1000);
    if (n < 0 && errno == EINTR)
      continue;
    for (int i = 0; i < 2; i++) {
      if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR)))
        continue;
      char buf[65536];
      ssize_t got = read(fds[i].fd, buf, sizeof buf);
      if (got > 0) {
        sinks[i]->append(buf, (size_t)got);
      } else {
        close(fds[i].fd);
        fds[i].fd = -1;
        open_fds--;
      }
    }
  }
  for (int i = 0; i < 2; i++)
    if (fds[i].fd >= 0)
      close(fds[i].fd);
  int wstatus = 0;
  waitpid(pid, &wstatus, 0);
  if (WIFEXITED(wstatus))
    r.status = WEXITSTATUS(wstatus);
  else if (WIFSIGNALED(wstatus))
    r.status = 128 + WTERMSIG(wstatus);
  return r;
}

}  // namespace jfi_test

#endif
