// Runs a piece of a test in a fork()ed child with a watchdog, so that a
// deadlock, a crash or an expected SIGSEGV becomes an observable outcome of
// the parent instead of a hung or killed test binary. The child reports
// through its exit status only (it must not use GoogleTest assertions:
// their failures would be recorded in the child's copy of the test).
#pragma once
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <functional>
#include <string>

namespace hardening
{

// ThreadSanitizer cannot follow a child forked from a multi-threaded parent
// that then creates threads: glibc hands the child the stacks of the
// parent's vanished threads, and TSan, whose thread registry was copied,
// stops with "dup thread with used id" (exit 66). Tests that need that run
// in the plain and ASan builds instead.
#if defined(__SANITIZE_THREAD__)
constexpr bool kThreadsInForkedChildUnsupported = true;
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
constexpr bool kThreadsInForkedChildUnsupported = true;
#else
constexpr bool kThreadsInForkedChildUnsupported = false;
#endif
#else
constexpr bool kThreadsInForkedChildUnsupported = false;
#endif
#define SKIP_IF_TSAN_CANNOT_FORK_WITH_THREADS()                                                    \
  if (::hardening::kThreadsInForkedChildUnsupported)                                               \
  GTEST_SKIP() << "ThreadSanitizer cannot follow threads created in a child forked from a "        \
                  "multi-threaded parent; this test runs in the plain and ASan builds"

struct ChildOutcome {
  bool exited = false; // exited normally (then `status` holds the code)
  int status = -1;
  int signal = 0; // the signal that killed it (SIGALRM: the watchdog)
  std::string Describe() const
  {
    if (exited)
      return "exited with status " + std::to_string(status);
    if (signal == SIGALRM)
      return "killed by the watchdog (deadlock or runaway loop)";
    return "killed by signal " + std::to_string(signal) + " (" + strsignal(signal) + ")";
  }
};

// BODY runs in the child; its return value becomes the exit status. The
// watchdog is alarm(): its default action kills the child with SIGALRM.
inline ChildOutcome RunInChild(const std::function<int()> &body, unsigned watchdog_seconds = 20)
{
  ChildOutcome out;
  pid_t pid = fork();
  if (pid < 0)
    return out;
  if (pid == 0) {
    signal(SIGALRM, SIG_DFL);
    alarm(watchdog_seconds);
    _exit(body()); // _exit: no atexit handlers, no GoogleTest teardown
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
  }
  if (WIFEXITED(status)) {
    out.exited = true;
    out.status = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    out.signal = WTERMSIG(status);
  }
  return out;
}

} // namespace hardening
