// jitflush-emu's own behaviour (src/emu/runner*.c), checked against a fake
// qemu-aarch64: the command line it builds, the overlay it hands over, the
// summary line and exit statuses, and every input error's status and text.
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "run_process.h"

namespace {

const std::string kRunner = JITFLUSH_EMU_RUNNER;
const std::string kConfigs = JITFLUSH_QEMU_CONFIGS_DIR;
const std::string kExynos = kConfigs + "/exynos8890.conf";

// Stands in for qemu-aarch64: lists -plugin in its help like a plugin-enabled
// build, records its arguments and what it sees, and writes the summary the
// real plugin would, as FAKE_MODE says.
const char kFakeQemu[] = R"(#!/bin/sh
if [ "$1" = "-h" ]; then
  [ -n "$FAKE_NO_PLUGIN" ] || echo "-plugin  QEMU_PLUGIN  [file=]<file>[,<argname>=<argvalue>]"
  exit 0
fi
: > "$FAKE_DIR/args"
for a in "$@"; do printf '%s\n' "$a" >> "$FAKE_DIR/args"; done
prev=""; opt=""; root=""
for a in "$@"; do
  [ "$prev" = "-plugin" ] && opt=$a
  [ "$prev" = "-L" ] && root=$a
  prev=$a
done
cat "$root/sys/devices/system/cpu/possible" > "$FAKE_DIR/overlay_possible" 2>/dev/null
cat /sys/devices/system/cpu/possible > "$FAKE_DIR/host_possible" 2>/dev/null
readlink "$root/lib" > "$FAKE_DIR/lib_link"
summary=${opt##*,summary=}
zeros="stale_fetches=0 fetch_checks=0 migrations=0 ctr_reads=0 dc_ops=0 ic_ops=0 isb=0"
case "$FAKE_MODE" in
  stale) echo "stale_fetches=3 fetch_checks=9 migrations=1 ctr_reads=2 dc_ops=4 ic_ops=5 isb=6" > "$summary";;
  exit7) echo "$zeros" > "$summary"; echo "guest output" >&2; exit 7;;
  signal) echo "$zeros" > "$summary"; kill -SEGV $$;;
  nosummary) exit 0;;
  garbage) echo "stale_fetches=x" > "$summary";;
  *) echo "$zeros" > "$summary";;
esac
exit 0
)";

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

class RunnerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    qemu_ = fake_ / "qemu-aarch64";
    WriteFile(qemu_, kFakeQemu);
    ASSERT_EQ(chmod(qemu_.c_str(), 0755), 0);
    plugin_ = fake_ / "jitflush_plugin.so";
    WriteFile(plugin_, "not really a plugin; the fake QEMU never loads it\n");
    env_ = {{"JITFLUSH_QEMU", qemu_},
            {"JITFLUSH_PLUGIN", plugin_},
            {"FAKE_DIR", fake_.path()},
            {"FAKE_MODE", "ok"},
            {"FAKE_NO_PLUGIN", kUnset}};
  }

  ProcessResult Run(std::vector<std::string> args) {
    args.insert(args.begin(), kRunner);
    return RunProcess(args, env_);
  }
  std::vector<std::string> QemuArgs() { return Lines(ReadFileOrEmpty(fake_ / "args")); }
  std::string PluginOption() {
    std::vector<std::string> a = QemuArgs();
    for (size_t i = 0; i + 1 < a.size(); i++)
      if (a[i] == "-plugin") return a[i + 1];
    return "";
  }

  TempDir fake_;
  TempDir work_;
  std::string qemu_, plugin_;
  std::map<std::string, std::string> env_;
};

// ---------------------------------------------------------------------------
// The run itself.

TEST_F(RunnerTest, BuildsTheQemuCommandLine) {
  ProcessResult r = Run({"--config", kExynos, "--", "/bin/true", "x y", "--not-an-option"});
  ASSERT_EQ(r.status, 0) << r.err;
  std::vector<std::string> a = QemuArgs();
  ASSERT_EQ(a.size(), 9u) << ReadFileOrEmpty(fake_ / "args");  // argv[1..]
  EXPECT_EQ(a[0], "-cpu");
  EXPECT_EQ(a[1], "cortex-a53");  // [soc] qemu-cpu
  EXPECT_EQ(a[2], "-L");
  EXPECT_EQ(a[4], "-plugin");
  std::string summary = a[3].substr(0, a[3].rfind('/')) + "/summary";
  EXPECT_EQ(a[5], plugin_ + ",config=" + kExynos + ",seed=1,overlay=" + a[3] +
                      "/sys/devices/system/cpu,summary=" + summary);
  EXPECT_EQ(a[6], "/bin/true");
  EXPECT_EQ(a[7], "x y");
  EXPECT_EQ(a[8], "--not-an-option");
  // The temporary overlay is gone after the run.
  EXPECT_FALSE(PathExists(a[3]));
}

TEST_F(RunnerTest, PassesSeedAndReport) {
  std::string report = work_ / "r.json";
  ProcessResult r = Run({"--seed", "0x10", "--report", report, "--config", kExynos, "--",
                         "/bin/true"});
  ASSERT_EQ(r.status, 0) << r.err;
  std::string opt = PluginOption();
  EXPECT_NE(opt.find(",seed=16,"), std::string::npos) << opt;
  EXPECT_NE(opt.find(",report=" + report + ","), std::string::npos) << opt;
}

// Without --check the plugin option has no check= at all (the exact
// option string is asserted in BuildsTheQemuCommandLine).
TEST_F(RunnerTest, PassesTheCheckerSwitch) {
  ProcessResult r = Run({"--check", "off", "--config", kExynos, "--", "/bin/true"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(PluginOption().find(",check=off"), std::string::npos) << PluginOption();
}

TEST_F(RunnerTest, OptionValuesMayFollowAnEqualsSign) {
  ProcessResult r = Run({"--config=" + kExynos, "--seed=99", "--", "/bin/true"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(PluginOption().find(",seed=99,"), std::string::npos) << PluginOption();
}

TEST_F(RunnerTest, DoublesCommasInPluginArguments) {
  // QEMU's -plugin option is a QemuOpts list: "," separates, ",," is a comma.
  std::string config = work_ / "odd,name.conf";
  WriteFile(config, ReadFileOrEmpty(kExynos));
  ProcessResult r = Run({"--config", config, "--", "/bin/true"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(PluginOption().find(",config=" + work_.path() + "/odd,,name.conf,seed="),
            std::string::npos)
      << PluginOption();
}

TEST_F(RunnerTest, OmitsCpuWhenTheConfigGivesNone) {
  std::string config = work_ / "plain.conf";
  WriteFile(config, "[cluster a]\ncpus=0-1\nmidr=0x410fd034\nctr=0x84448004\n");
  ProcessResult r = Run({"--config", config, "--", "/bin/true"});
  ASSERT_EQ(r.status, 0) << r.err;
  ASSERT_FALSE(QemuArgs().empty());
  EXPECT_EQ(QemuArgs()[0], "-L");
}

TEST_F(RunnerTest, StaleFetchesExit86WithTheSummaryLast) {
  env_["FAKE_MODE"] = "stale";
  ProcessResult r = Run({"--config", kExynos, "--", "/bin/true"});
  EXPECT_EQ(r.status, 86) << r.err;
  EXPECT_EQ(r.LastErrLine(),
            "jitflush-emu: stale_fetches=3 fetch_checks=9 migrations=1 ctr_reads=2 dc_ops=4 "
            "ic_ops=5");
}

TEST_F(RunnerTest, ProgramStatusPassesThrough) {
  env_["FAKE_MODE"] = "exit7";
  ProcessResult r = Run({"--config", kExynos, "--", "/bin/true"});
  EXPECT_EQ(r.status, 7);
  EXPECT_NE(r.err.find("guest output\n"), std::string::npos);
  EXPECT_EQ(r.LastErrLine(),
            "jitflush-emu: stale_fetches=0 fetch_checks=0 migrations=0 ctr_reads=0 dc_ops=0 "
            "ic_ops=0");
}

TEST_F(RunnerTest, SignalDeathIs128PlusTheSignal) {
  env_["FAKE_MODE"] = "signal";
  ProcessResult r = Run({"--config", kExynos, "--", "/bin/true"});
  EXPECT_EQ(r.status, 128 + 11) << r.err;
  EXPECT_EQ(r.LastErrLine().rfind("jitflush-emu: stale_fetches=0 ", 0), 0u) << r.err;
}

TEST_F(RunnerTest, MissingSummaryIsAnInternalFailure) {
  env_["FAKE_MODE"] = "nosummary";
  ProcessResult r = Run({"--config", kExynos, "--", "/bin/true"});
  EXPECT_EQ(r.status, 5);
  EXPECT_EQ(r.LastErrLine(),
            "jitflush-emu: the plugin wrote no usable summary (the file is missing; QEMU "
            "exited with status 0)");
}

TEST_F(RunnerTest, MalformedSummaryIsAnInternalFailure) {
  env_["FAKE_MODE"] = "garbage";
  ProcessResult r = Run({"--config", kExynos, "--", "/bin/true"});
  EXPECT_EQ(r.status, 5);
  EXPECT_NE(r.LastErrLine().find("not an unsigned decimal number"), std::string::npos) << r.err;
}

TEST_F(RunnerTest, GeneratedOverlayAndSysrootLink) {
  ProcessResult r = Run({"--config", kConfigs + "/exynos8890-hotplug.conf", "--sysroot",
                         "/usr/aarch64-linux-gnu", "--", "/bin/true"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(ReadFileOrEmpty(fake_ / "overlay_possible"), "0-7\n");
  EXPECT_EQ(ReadFileOrEmpty(fake_ / "lib_link"), "/usr/aarch64-linux-gnu/lib\n");
}

TEST_F(RunnerTest, HidesTheHostCpuFolder) {
  ProcessResult r = Run({"--config", kConfigs + "/many-cpus-300.conf", "--", "/bin/true"});
  ASSERT_EQ(r.status, 0) << r.err;
  if (r.err.find("cannot hide the host's") != std::string::npos)
    GTEST_SKIP() << "this machine allows neither mount nor user namespaces: " << r.err;
  // QEMU itself (here: the fake) sees the emulated folder, not the host's,
  // so a guest path missing from the overlay cannot fall back to the host.
  EXPECT_EQ(ReadFileOrEmpty(fake_ / "host_possible"), "0-299\n");
}

TEST_F(RunnerTest, ServesAGivenSysfsRoot) {
  std::string dump = work_ / "phone";
  ASSERT_EQ(system(("mkdir -p " + dump + "/sys/devices/system/cpu").c_str()), 0);
  WriteFile(dump + "/sys/devices/system/cpu/possible", "0-5\n");
  ProcessResult r = Run({"--config", kExynos, "--sysfs-root", dump, "--", "/bin/true"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(ReadFileOrEmpty(fake_ / "overlay_possible"), "0-5\n");
  // The dump itself is untouched by the cleanup.
  EXPECT_EQ(ReadFileOrEmpty(dump + "/sys/devices/system/cpu/possible"), "0-5\n");
}

TEST_F(RunnerTest, QemuComesFromTheOptionBeforeTheEnvironment) {
  env_["JITFLUSH_QEMU"] = "/nonexistent/qemu";
  ProcessResult r = Run({"--qemu", qemu_, "--config", kExynos, "--", "/bin/true"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_FALSE(QemuArgs().empty());
}

// ---------------------------------------------------------------------------
// Runner errors: status and message.

TEST_F(RunnerTest, HelpListsTheExitStatuses) {
  ProcessResult r = Run({"--help"});
  EXPECT_EQ(r.status, 0);
  for (const char* line : {"  86   at least one stale", "  2    usage or config error",
                           "  3    QEMU not found", "  4    the --report file",
                           "  5    the plugin is missing"})
    EXPECT_NE(r.out.find(line), std::string::npos) << line;
}

struct UsageCase {
  std::vector<std::string> args;
  std::string message;
};

TEST_F(RunnerTest, UsageErrorsExit2) {
  const UsageCase cases[] = {
      {{}, "missing '--' and the program to run"},
      {{"--config", kExynos}, "missing '--' and the program to run"},
      {{"--config", kExynos, "/bin/true"}, "'/bin/true': put '--' before the program"},
      {{"--config", kExynos, "--"}, "missing the program after '--'"},
      {{"--", "/bin/true"}, "--config FILE is required"},
      {{"--config"}, "--config needs a value"},
      {{"--config", "--", "/bin/true"}, "--config needs a value"},
      {{"--config=", "--", "/bin/true"}, "--config needs a value"},
      {{"--config", kExynos, "--config", kExynos, "--", "/bin/true"}, "--config given twice"},
      {{"--config", kExynos, "--seed", "abc", "--", "/bin/true"},
       "--seed: not an unsigned number: 'abc'"},
      {{"--config", kExynos, "--seed", "-1", "--", "/bin/true"},
       "--seed: not an unsigned number: '-1'"},
      {{"--config", kExynos, "--seed", "99999999999999999999", "--", "/bin/true"},
       "--seed: not an unsigned number"},
      {{"--config", kExynos, "--frobnicate", "--", "/bin/true"}, "unknown option '--frobnicate'"},
      {{"--config", kExynos, "--check", "maybe", "--", "/bin/true"},
       "--check: expected on or off, got 'maybe'"},
      {{"--config", kExynos, "--", "/nonexistent/prog"}, "program not found: /nonexistent/prog"},
      {{"--config", kExynos, "--sysfs-root", "/nonexistent", "--", "/bin/true"},
       "--sysfs-root /nonexistent has no sys/ folder"},
      {{"--config", kExynos, "--sysroot", "/nonexistent", "--", "/bin/true"},
       "--sysroot: sysroot /nonexistent has no lib/ folder"},
      {{"--config", "/nonexistent.conf", "--", "/bin/true"},
       "/nonexistent.conf: cannot read: "},
  };
  for (const UsageCase& c : cases) {
    ProcessResult r = Run(c.args);
    std::string shown;
    for (const auto& a : c.args) shown += a + " ";
    EXPECT_EQ(r.status, 2) << shown << "\n" << r.err;
    EXPECT_NE(r.LastErrLine().find("jitflush-emu: " + c.message), std::string::npos)
        << shown << "\n" << r.err;
    EXPECT_TRUE(QemuArgs().empty()) << shown << ": QEMU must not run";
  }
}

TEST_F(RunnerTest, BadConfigExit2NamingFileLineAndKey) {
  std::string config = work_ / "bad.conf";
  WriteFile(config, "[soc]\nname=x\n[cluster a]\ncpus=0-1\nmidr=0x410fd034\nctr=0x8444800z\n");
  ProcessResult r = Run({"--config", config, "--", "/bin/true"});
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.LastErrLine(), "jitflush-emu: " + config +
                                 ":6: [cluster a] ctr: not a number: '0x8444800z' (decimal or "
                                 "0x hex)");
}

TEST_F(RunnerTest, MissingQemuExit3) {
  env_["JITFLUSH_QEMU"] = "/nonexistent/qemu-aarch64";
  ProcessResult r = Run({"--config", kExynos, "--", "/bin/true"});
  EXPECT_EQ(r.status, 3);
  EXPECT_EQ(r.LastErrLine(),
            "jitflush-emu: QEMU not found: /nonexistent/qemu-aarch64 (from JITFLUSH_QEMU)");
}

TEST_F(RunnerTest, NonExecutableQemuExit3) {
  ASSERT_EQ(chmod(qemu_.c_str(), 0644), 0);
  // With no x bit at all, access(X_OK) fails for root too.
  ProcessResult r = Run({"--config", kExynos, "--", "/bin/true"});
  EXPECT_EQ(r.status, 3);
  EXPECT_NE(r.LastErrLine().find("QEMU is not executable: " + qemu_), std::string::npos)
      << r.err;
}

TEST_F(RunnerTest, QemuWithoutPluginSupportExit3) {
  env_["FAKE_NO_PLUGIN"] = "1";
  ProcessResult r = Run({"--config", kExynos, "--", "/bin/true"});
  EXPECT_EQ(r.status, 3);
  EXPECT_NE(r.LastErrLine().find("has no TCG plugin support (-plugin)"), std::string::npos)
      << r.err;
  EXPECT_TRUE(QemuArgs().empty());
}

TEST_F(RunnerTest, UnwritableReportExit4BeforeRunning) {
  ProcessResult r = Run({"--config", kExynos, "--report", "/nonexistent/dir/r.json", "--",
                         "/bin/true"});
  EXPECT_EQ(r.status, 4);
  EXPECT_EQ(r.LastErrLine(),
            "jitflush-emu: cannot write the report /nonexistent/dir/r.json: No such file or "
            "directory");
  EXPECT_TRUE(QemuArgs().empty());
  r = Run({"--config", kExynos, "--report", work_.path(), "--", "/bin/true"});
  EXPECT_EQ(r.status, 4);
  EXPECT_NE(r.LastErrLine().find("Is a directory"), std::string::npos) << r.err;
}

TEST_F(RunnerTest, ReportCheckLeavesNoFileBehind) {
  env_["FAKE_MODE"] = "nosummary";  // the "plugin" writes no report either
  std::string report = work_ / "r.json";
  ProcessResult r = Run({"--config", kExynos, "--report", report, "--", "/bin/true"});
  EXPECT_EQ(r.status, 5);
  EXPECT_FALSE(PathExists(report));
}

TEST_F(RunnerTest, MissingPluginExit5) {
  env_["JITFLUSH_PLUGIN"] = "/nonexistent/jitflush_plugin.so";
  ProcessResult r = Run({"--config", kExynos, "--", "/bin/true"});
  EXPECT_EQ(r.status, 5);
  EXPECT_EQ(r.LastErrLine(),
            "jitflush-emu: plugin not found: /nonexistent/jitflush_plugin.so (from "
            "JITFLUSH_PLUGIN)");
  EXPECT_TRUE(QemuArgs().empty());
}

}  // namespace
