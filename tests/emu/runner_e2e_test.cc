// jitflush-emu end to end: the real plugin-enabled QEMU, the real plugin
// and a dynamically linked aarch64 guest (guest/emu_guest.c). What the
// guest reads is what a library probing the emulated SoC would read.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "run_process.h"

namespace {

const std::string kRunner = JITFLUSH_EMU_RUNNER;
const std::string kGuest = JITFLUSH_EMU_GUEST;
const std::string kConfigs = JITFLUSH_QEMU_CONFIGS_DIR;
const std::string kCpu = "/sys/devices/system/cpu/";

ProcessResult Emu(const std::string& config, std::vector<std::string> guest_args,
                  std::vector<std::string> runner_args = {}) {
  std::vector<std::string> argv = {kRunner, "--config", kConfigs + "/" + config};
  argv.insert(argv.end(), runner_args.begin(), runner_args.end());
  argv.push_back("--");
  argv.push_back(kGuest);
  argv.insert(argv.end(), guest_args.begin(), guest_args.end());
  return RunProcess(argv);
}

bool Has(const std::string& text, const std::string& line) {
  return text.find(line + "\n") != std::string::npos;
}

TEST(RunnerEndToEnd, GuestSeesTheEmulatedSysfs) {
  ProcessResult r = Emu("exynos8890.conf",
                        {"cat", kCpu + "possible", kCpu + "online",
                         kCpu + "cpu5/cache/index1/coherency_line_size",
                         kCpu + "cpu1/regs/identification/midr_el1"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(Has(r.out, kCpu + "possible: 0-7")) << r.out;
  EXPECT_TRUE(Has(r.out, kCpu + "online: 0-7")) << r.out;
  EXPECT_TRUE(Has(r.out, kCpu + "cpu5/cache/index1/coherency_line_size: 128")) << r.out;
  EXPECT_TRUE(Has(r.out, kCpu + "cpu1/regs/identification/midr_el1: 0x00000000410fd034"))
      << r.out;
  EXPECT_EQ(r.LastErrLine().rfind("jitflush-emu: stale_fetches=0 fetch_checks=", 0), 0u)
      << r.err;
}

TEST(RunnerEndToEnd, OfflineCpusAndLeftOutFilesAreMissingNotTheHosts) {
  // cpu1's cache/index0/size exists on most hosts; the overlay has none.
  ProcessResult r = Emu("exynos8890-hotplug.conf",
                        {"cat", kCpu, kCpu + "online", kCpu + "cpu4/online",
                         kCpu + "cpu1/cache/index0/size"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(Has(r.out, kCpu + "/: cpu0 cpu1 cpu2 cpu3 kernel_max offline online possible "
                                "present"))
      << r.out;
  EXPECT_TRUE(Has(r.out, kCpu + "online: 0-3")) << r.out;
  EXPECT_TRUE(Has(r.out, kCpu + "cpu4/online: missing")) << r.out;
  EXPECT_TRUE(Has(r.out, kCpu + "cpu1/cache/index0/size: missing")) << r.out;
}

TEST(RunnerEndToEnd, SysfsNoneShowsNoCpuFiles) {
  TempDir dir;
  std::string conf = ReadFileOrEmpty(kConfigs + "/exynos8890.conf");
  conf.replace(conf.find("sysfs=full"), 10, "sysfs=none");
  WriteFile(dir / "none.conf", conf);
  ProcessResult r = RunProcess({kRunner, "--config", dir / "none.conf", "--", kGuest, "cat",
                                kCpu + "possible", kCpu + "cpu0"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(Has(r.out, kCpu + "possible: missing")) << r.out;
  EXPECT_TRUE(Has(r.out, kCpu + "cpu0: missing")) << r.out;
}

TEST(RunnerEndToEnd, ExitStatusAndSignalPassThrough) {
  ProcessResult r = Emu("apple-m1.conf", {"exit", "42"});
  EXPECT_EQ(r.status, 42) << r.err;
  r = Emu("apple-m1.conf", {"segv"});
  EXPECT_EQ(r.status, 128 + 11) << r.err;
  EXPECT_EQ(r.LastErrLine().rfind("jitflush-emu: stale_fetches=0 ", 0), 0u) << r.err;
}

TEST(RunnerEndToEnd, UnflushedCodeIsStaleAndExits86) {
  TempDir dir;
  ProcessResult r = Emu("exynos8890.conf", {"jit"}, {"--report", dir / "r.json"});
  EXPECT_EQ(r.status, 86) << r.err;
  EXPECT_EQ(r.LastErrLine().rfind("jitflush-emu: stale_fetches=", 0), 0u) << r.err;
  EXPECT_EQ(r.LastErrLine().find("stale_fetches=0 "), std::string::npos) << r.err;
  EXPECT_NE(ReadFileOrEmpty(dir / "r.json").find("\"stale_fetches\""), std::string::npos);
}

TEST(RunnerEndToEnd, FlushedCodeRunsClean) {
  ProcessResult r = Emu("apple-m1.conf", {"jit-flush"});
  EXPECT_EQ(r.status, 42) << r.err;
  EXPECT_EQ(r.LastErrLine().rfind("jitflush-emu: stale_fetches=0 ", 0), 0u) << r.err;
}

}  // namespace
