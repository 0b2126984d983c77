// jitflush-info as a user runs it: --help, --version, and the usage errors
// with their one-line message and exit status 2. Runs this build's own
// binary (JFI_INFO_EXE), so it needs no emulator.
#include <gtest/gtest.h>

#include <unistd.h>

#include <string>
#include <vector>

#include "run_process.h"

namespace
{

ProcessResult Info(const std::vector<std::string> &args)
{
  std::vector<std::string> argv = {JFI_INFO_EXE};
  argv.insert(argv.end(), args.begin(), args.end());
  return RunProcess(argv, {}, 60);
}

size_t Lines(const std::string &s)
{
  size_t n = 0;
  for (char c : s)
    n += c == '\n';
  return n;
}

TEST(InfoArgs, HelpExitsZeroAndDocumentsEveryOption)
{
  ProcessResult r = Info({"--help"});
  ASSERT_EQ(r.status, 0) << r.Describe();
  for (const char *opt : {"--json", "--selftest[=SECONDS]", "--color", "--version", "Exit status"})
    EXPECT_NE(r.out.find(opt), std::string::npos) << opt;
  EXPECT_EQ(r.err, "");
}

TEST(InfoArgs, VersionIsTheHeaderVersion)
{
  ProcessResult r = Info({"--version"});
  ASSERT_EQ(r.status, 0) << r.Describe();
  EXPECT_EQ(r.out, std::string("jitflush-info ") + JFI_EXPECTED_VERSION + "\n");
}

TEST(InfoArgs, UnknownOptionIsUsageErrorNamingIt)
{
  ProcessResult r = Info({"--frobnicate"});
  EXPECT_EQ(r.status, 2) << r.Describe();
  EXPECT_EQ(Lines(r.err), 1u) << r.err;
  EXPECT_NE(r.err.find("'--frobnicate'"), std::string::npos) << r.err;
  EXPECT_EQ(r.out, ""); // no report on a usage error
}

TEST(InfoArgs, SelftestWithNonNumberIsUsageError)
{
  ProcessResult r = Info({"--selftest=abc"});
  EXPECT_EQ(r.status, 2) << r.Describe();
  EXPECT_EQ(Lines(r.err), 1u) << r.err;
  EXPECT_NE(r.err.find("'--selftest=abc'"), std::string::npos) << r.err;
  EXPECT_EQ(r.out, "");
}

TEST(InfoArgs, StrayArgumentIsUsageError)
{
  ProcessResult r = Info({"--json", "extra"});
  EXPECT_EQ(r.status, 2) << r.Describe();
  EXPECT_NE(r.err.find("'extra'"), std::string::npos) << r.err;
}

TEST(InfoArgs, ReportOnThisHostExitsZeroAndNamesThePlatform)
{
  // On a non-ARM64 host: what it can (platform and method), status 0.
  ProcessResult r = Info({});
  ASSERT_EQ(r.status, 0) << r.Describe();
  EXPECT_NE(r.out.find("platform "), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find('\033'), std::string::npos) << "colour on a pipe";
#if defined(__x86_64__)
  EXPECT_NE(r.out.find("x86_64"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("none needed"), std::string::npos) << r.out;
#endif
}

TEST(InfoArgs, ColorAlwaysOverridesThePipe)
{
  ProcessResult forced = Info({"--color=always"});
  ASSERT_EQ(forced.status, 0) << forced.Describe();
  EXPECT_NE(forced.out.find('\033'), std::string::npos);
}

// stdout on a full device (/dev/full: every write fails with ENOSPC): a
// report that was not delivered must not exit 0, whatever the action.
ProcessResult InfoToDevFull(const std::vector<std::string> &args)
{
  std::vector<std::string> argv = {"/bin/sh", "-c", "exec \"$0\" \"$@\" >/dev/full", JFI_INFO_EXE};
  argv.insert(argv.end(), args.begin(), args.end());
  return RunProcess(argv, {}, 60);
}

TEST(InfoArgs, UnwritableStdoutExitsOneNamingTheError)
{
  if (access("/dev/full", W_OK) != 0)
    GTEST_SKIP() << "no writable /dev/full here";
  for (const std::vector<std::string> &args :
       {std::vector<std::string>{}, {"--json"}, {"--help"}, {"--version"}}) {
    std::string shown = args.empty() ? "(no options)" : args[0];
    ProcessResult r = InfoToDevFull(args);
    EXPECT_EQ(r.status, 1) << shown << "\n" << r.Describe();
    EXPECT_EQ(Lines(r.err), 1u) << shown << "\n" << r.err;
    EXPECT_NE(r.err.find("jitflush-info: writing"), std::string::npos) << shown << "\n" << r.err;
    EXPECT_NE(r.err.find("No space left on device"), std::string::npos) << shown << "\n" << r.err;
  }
}

#if defined(__x86_64__) && defined(__linux__)
TEST(InfoArgs, HostSelftestRunsFunctionsOnEveryAllowedCpu)
{
  ProcessResult r = Info({"--selftest=0.2"});
  ASSERT_EQ(r.status, 0) << r.Describe();
  EXPECT_NE(r.out.find("pinned to CPU 0"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("free to migrate"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("selftest: PASS"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(" 0 wrong"), std::string::npos) << r.out;
}
#endif

} // namespace
