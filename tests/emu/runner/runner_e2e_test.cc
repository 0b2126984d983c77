// jitflush-emu end to end: the real plugin-enabled QEMU, the real plugin
// and a dynamically linked aarch64 guest (guest/emu_guest.c). What the
// guest reads is what a library probing the emulated SoC would read.
#include <gtest/gtest.h>

#include <cerrno>

#include <cstring>

#include <filesystem>

#include <chrono>

#include <sys/wait.h>

#include <signal.h>

#include <fcntl.h>

#include <fstream>

#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include <wordexp.h>

#include <set>
#include <string>
#include <vector>
#include <map>
#include <sstream>

#include <nlohmann/json.hpp>

#include "run_process.h"

namespace
{

const std::string kRunner = JITFLUSH_EMU_RUNNER;
const std::string kGuest = JITFLUSH_EMU_GUEST;
const std::string kConfigs = JITFLUSH_QEMU_CONFIGS_DIR;
const std::string kCpu = "/sys/devices/system/cpu/";
// The runner's default sysroot, where the guest's loader is.
const std::string kSysroot = "/usr/aarch64-linux-gnu";

ProcessResult Emu(const std::string &config, std::vector<std::string> guest_args,
                  std::vector<std::string> runner_args = {})
{
  std::vector<std::string> argv = {kRunner, "--config", kConfigs + "/" + config};
  argv.insert(argv.end(), runner_args.begin(), runner_args.end());
  argv.push_back("--");
  argv.push_back(kGuest);
  argv.insert(argv.end(), guest_args.begin(), guest_args.end());
  return RunProcess(argv);
}

// The runner started in the background on the jit-forever guest, for the
// signal tests: its stderr goes to a file, its stdout is read up to the
// guest's "running PID" line.
struct BackgroundRun {
  pid_t runner = -1;
  pid_t guest = -1; // QEMU's pid: linux-user runs the guest in its process
  pid_t child = -1; // with jit-forever-forked: the QEMU of the forked child
  std::string err_file;

  // OWN_GROUP: the runner leads a process group of its own, which the test
  // can kill whole (kill(-runner, ...)) as a harness that kills a job does.
  BackgroundRun(const std::string &dir, std::vector<std::string> runner_args,
                const std::string &mode = "jit-forever", bool own_group = false)
  {
    err_file = dir + "/stderr";
    std::vector<std::string> args = {kRunner, "--config", kConfigs + "/exynos8890.conf"};
    args.insert(args.end(), runner_args.begin(), runner_args.end());
    args.insert(args.end(), {"--", kGuest, mode});
    int out[2];
    if (pipe(out) != 0)
      return;
    runner = fork();
    if (runner == 0) {
      if (own_group)
        setpgid(0, 0);
      int err = open(err_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      dup2(out[1], STDOUT_FILENO);
      dup2(err, STDERR_FILENO);
      close(out[0]);
      std::vector<char *> argv;
      for (auto &a : args)
        argv.push_back(a.data());
      argv.push_back(nullptr);
      execv(argv[0], argv.data());
      _exit(127);
    }
    close(out[1]);
    std::string line;
    char c;
    while (read(out[0], &c, 1) == 1 && c != '\n')
      line += c;
    close(out[0]);
    if (line.rfind("running ", 0) == 0) {
      size_t next = 0;
      guest = std::stoi(line.substr(8), &next);
      if (8 + next < line.size())
        child = std::stoi(line.substr(8 + next));
    }
  }

  int Wait()
  {
    int wstatus = 0;
    while (waitpid(runner, &wstatus, 0) < 0 && errno == EINTR) {
    }
    return WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : 128 + WTERMSIG(wstatus);
  }
};

// Whether PID has ended: gone, or a zombie (it runs nothing; an orphan's
// zombie lasts until the init process reaps it, which may take seconds).
bool Ended(pid_t pid)
{
  if (kill(pid, 0) != 0 && errno == ESRCH)
    return true;
  const std::string stat = ReadFileOrEmpty("/proc/" + std::to_string(pid) + "/stat");
  const size_t paren = stat.rfind(')');
  return paren != std::string::npos && paren + 2 < stat.size() && stat[paren + 2] == 'Z';
}

bool Gone(pid_t pid, std::chrono::seconds within)
{
  const auto end = std::chrono::steady_clock::now() + within;
  while (std::chrono::steady_clock::now() < end) {
    if (Ended(pid))
      return true;
    usleep(20000);
  }
  return false;
}

bool Has(const std::string &text, const std::string &line)
{
  return text.find(line + "\n") != std::string::npos;
}

TEST(RunnerEndToEnd, GuestSeesTheEmulatedSysfs)
{
  ProcessResult r = Emu("exynos8890.conf", {"cat", kCpu + "possible", kCpu + "online",
                                            kCpu + "cpu5/cache/index1/coherency_line_size",
                                            kCpu + "cpu1/regs/identification/midr_el1"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(Has(r.out, kCpu + "possible: 0-7")) << r.out;
  EXPECT_TRUE(Has(r.out, kCpu + "online: 0-7")) << r.out;
  EXPECT_TRUE(Has(r.out, kCpu + "cpu5/cache/index1/coherency_line_size: 128")) << r.out;
  EXPECT_TRUE(Has(r.out, kCpu + "cpu1/regs/identification/midr_el1: 0x00000000410fd034")) << r.out;
  EXPECT_EQ(r.LastErrLine().rfind("jitflush-emu: stale_fetches=0 fetch_checks=", 0), 0u) << r.err;
}

TEST(RunnerEndToEnd, OfflineCpusAndLeftOutFilesAreMissingNotTheHosts)
{
  // cpu1's cache/index0/size exists on most hosts; the overlay has none.
  ProcessResult r =
      Emu("exynos8890-hotplug.conf",
          {"cat", kCpu, kCpu + "online", kCpu + "cpu4/online", kCpu + "cpu1/cache/index0/size"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(Has(r.out, kCpu + "/: cpu0 cpu1 cpu2 cpu3 kernel_max offline online possible "
                                "present"))
      << r.out;
  EXPECT_TRUE(Has(r.out, kCpu + "online: 0-3")) << r.out;
  EXPECT_TRUE(Has(r.out, kCpu + "cpu4/online: missing")) << r.out;
  EXPECT_TRUE(Has(r.out, kCpu + "cpu1/cache/index0/size: missing")) << r.out;
}

TEST(RunnerEndToEnd, SysfsNoneShowsNoCpuFiles)
{
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

TEST(RunnerEndToEnd, ExitStatusAndSignalPassThrough)
{
  ProcessResult r = Emu("apple-m1.conf", {"exit", "42"});
  EXPECT_EQ(r.status, 42) << r.err;
  EXPECT_EQ(r.LastErrLine().rfind("jitflush-emu: stale_fetches=0 fetch_checks=", 0), 0u) << r.err;
  r = Emu("apple-m1.conf", {"segv"});
  EXPECT_EQ(r.status, 128 + 11) << r.err;
  EXPECT_EQ(r.LastErrLine().rfind("jitflush-emu: stale_fetches=0 ", 0), 0u) << r.err;
}

// A QEMU whose plugin API misreads registers (QEMU 11.0's bool read as
// API 5's byte count made every register 0) still runs the guest; the rig
// must refuse instead of printing verdicts computed from zeros: status 10,
// one line naming QEMU's version and what failed, and the guest never ran
// (it would have exited 42).
TEST(RunnerEndToEnd, RefusesToRunWhenRegisterReadsAreBroken)
{
  std::vector<std::string> argv = {kRunner, "--config", kConfigs + "/exynos8890.conf", "--", kGuest,
                                   "exit",  "42"};
  ProcessResult r = RunProcess(argv, {{"JITFLUSH_PLUGIN", JITFLUSH_EMU_MUTANT_PLUGIN}});
  EXPECT_EQ(r.status, 10) << r.Describe();
  EXPECT_EQ(r.LastErrLine().rfind("jitflush-emu: qemu-aarch64 version ", 0), 0u) << r.err;
  EXPECT_NE(r.LastErrLine().find(" cannot run the rig: reading PC (qemu_plugin_read_register) "
                                 "failed; nothing of the program ran"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(r.err.find("stale_fetches="), std::string::npos) << "no summary: " << r.err;
}

// The plugin refuses a wrong name for an enum option wherever it stands in
// its argument, after a valid one too: QEMU then refuses to load it, and
// the guest, which exits 42 with the valid options alone, never runs.
// (QEMU is run here without the runner, which checks the names itself.)
TEST(RunnerEndToEnd, ThePluginRefusesAWrongNameAfterAValidOne)
{
  auto run = [](const std::string &opts) {
    std::string plugin =
        std::string(JITFLUSH_EMU_PLUGIN) + ",config=" + kConfigs + "/exynos8890.conf," + opts;
    // -L: the runner's default sysroot (RUNNER_DEFAULT_SYSROOT), Debian's cross libc.
    return RunProcess({JITFLUSH_EMU_QEMU, "-L", "/usr/aarch64-linux-gnu", "-plugin", plugin, kGuest,
                       "exit", "42"});
  };
  ProcessResult valid = run("policy=random,exec-map-sync=linux");
  ASSERT_EQ(valid.status, 42) << valid.Describe();
  for (const std::string &opts : {std::string("policy=random,policy=bogus"),
                                  std::string("exec-map-sync=linux,exec-map-sync=bogus")}) {
    ProcessResult r = run(opts);
    EXPECT_NE(r.status, 42) << opts << ": " << r.Describe();
    EXPECT_NE(r.err.find("got 'bogus'"), std::string::npos) << opts << ": " << r.err;
  }
}

// The same QEMU with the real plugin passes the self-check: the guest runs
// and its status comes through.
TEST(RunnerEndToEnd, TheSelfCheckPassesOnTheQemuTheRigWasBuiltFor)
{
  ProcessResult r = Emu("exynos8890.conf", {"exit", "42"});
  EXPECT_EQ(r.status, 42) << r.Describe();
  EXPECT_EQ(r.err.find("refusing"), std::string::npos) << r.err;
}

TEST(RunnerEndToEnd, UnflushedCodeIsStaleAndExits86)
{
  TempDir dir;
  ProcessResult r = Emu("exynos8890.conf", {"jit"}, {"--report", dir / "r.json"});
  EXPECT_EQ(r.status, 86) << r.err;
  EXPECT_EQ(r.LastErrLine().rfind("jitflush-emu: stale_fetches=", 0), 0u) << r.err;
  EXPECT_EQ(r.LastErrLine().find("stale_fetches=0 "), std::string::npos) << r.err;
  EXPECT_NE(ReadFileOrEmpty(dir / "r.json").find("\"stale_fetches\""), std::string::npos);
}

// BEAM died of SIGSEGV running stale code, and nothing said so.
// The crash is named (signal, thread, block) and tied to the finding whose
// stale words the thread fetched last; a normal exit has no crash.
TEST(RunnerEndToEnd, ACrashInStaleCodeNamesItsSignalThreadAndFinding)
{
  TempDir dir;
  ProcessResult r = Emu("exynos8890.conf", {"jit-crash"}, {"--report", dir / "r.json"});
  EXPECT_EQ(r.status, 86) << "stale fetches decide the status, as before: " << r.err;
  EXPECT_NE(r.err.find("\n==jitflush-emu== the program died of signal 11 (Segmentation fault)\n"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("\n==jitflush-emu== CRASH: the program died of a signal (it never called "
                       "exit_group) in thread 0, in the block at 0x"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find(", was of finding #1 (not-cleaned), "), std::string::npos) << r.err;
  const nlohmann::json report = nlohmann::json::parse(ReadFileOrEmpty(dir / "r.json"));
  const auto &crash = report["crash"];
  ASSERT_TRUE(crash.is_object()) << report.dump();
  EXPECT_EQ(crash["thread"], 0);
  EXPECT_EQ(crash["last_stale"]["finding"], 1);
  EXPECT_EQ(crash["last_stale"]["kind"], "not-cleaned");
  // The stale word it fetched last is the load that faulted, in the block
  // the thread was running: JIT code, mapped by no object.
  const uint64_t block = std::stoull(crash["block"]["pc"].get<std::string>(), nullptr, 16);
  const uint64_t last = std::stoull(crash["last_stale"]["addr"].get<std::string>(), nullptr, 16);
  EXPECT_GE(last, block);
  EXPECT_LT(last, block + 12);
  EXPECT_TRUE(crash["block"]["module"].is_null());

  r = Emu("exynos8890.conf", {"jit"}, {"--report", dir / "r.json"});
  EXPECT_EQ(r.status, 86) << r.err;
  EXPECT_EQ(r.err.find("CRASH"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("died of signal"), std::string::npos) << r.err;
  EXPECT_TRUE(nlohmann::json::parse(ReadFileOrEmpty(dir / "r.json"))["crash"].is_null());
}

// With several threads creating threads at once, a new thread
// got the affinity of another creator (150 of 600 ran outside their
// creator's mask). Six creators, each pinned to its own CPU, start 100
// threads each; every child must see exactly its creator's CPU.
TEST(RunnerEndToEnd, NewThreadsTakeTheirCreatorsAffinityUnderConcurrentCreation)
{
  ProcessResult r = Emu("exynos8890.conf", {"affinity-race", "6", "100"});
  EXPECT_EQ(r.out, "children: 600 wrong: 0\n") << r.err;
  EXPECT_EQ(r.status, 0) << r.err;
}

// --report and --sarif replaced a symlink (or, as root, a device
// node such as /dev/null) with a regular file. What the path names is
// written in place.
TEST(RunnerEndToEnd, ReportAndSarifThroughASymlinkKeepTheLink)
{
  TempDir dir;
  const std::string report_target = dir / "real-report.json";
  const std::string sarif_target = dir / "real.sarif";
  ASSERT_EQ(symlink(report_target.c_str(), (dir / "r.json").c_str()), 0);
  ASSERT_EQ(symlink(sarif_target.c_str(), (dir / "f.sarif").c_str()), 0);
  {
    std::ofstream(report_target) << "old";
    std::ofstream(sarif_target) << "old";
  }
  ProcessResult r =
      Emu("exynos8890.conf", {"jit"}, {"--report", dir / "r.json", "--sarif", dir / "f.sarif"});
  EXPECT_EQ(r.status, 86) << r.err;
  struct stat st;
  ASSERT_EQ(lstat((dir / "r.json").c_str(), &st), 0);
  EXPECT_TRUE(S_ISLNK(st.st_mode)) << "the report's symlink was replaced";
  ASSERT_EQ(lstat((dir / "f.sarif").c_str(), &st), 0);
  EXPECT_TRUE(S_ISLNK(st.st_mode)) << "the SARIF symlink was replaced";
  EXPECT_NE(ReadFileOrEmpty(report_target).find("\"stale_fetches\""), std::string::npos);
  EXPECT_NE(ReadFileOrEmpty(sarif_target).find("\"version\": \"2.1.0\""), std::string::npos);
}

// The device half of the same bullet: a character device given as
// --report and --sarif (a node like /dev/null, made in a scratch folder so
// that a regression replaces nothing of the system's) is written in place
// and stays a device. Making a node needs root.
TEST(RunnerEndToEnd, ReportAndSarifToADeviceNodeStayDevices)
{
  TempDir dir;
  const std::string report = dir / "null-report", sarif = dir / "null-sarif";
  if (mknod(report.c_str(), S_IFCHR | 0666, makedev(1, 3)) != 0 ||
      mknod(sarif.c_str(), S_IFCHR | 0666, makedev(1, 3)) != 0)
    GTEST_SKIP() << "cannot make a device node here (not root): " << strerror(errno);
  ProcessResult r = Emu("exynos8890.conf", {"fork-jit"}, {"--report", report, "--sarif", sarif});
  EXPECT_EQ(r.status, 86) << r.err;
  EXPECT_EQ(r.LastErrLine().rfind("jitflush-emu: stale_fetches=2 ", 0), 0u) << r.err;
  // The forked child's findings cannot be merged into a device, and that
  // is no error.
  EXPECT_EQ(r.err.find("cannot join"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("CRITICAL"), std::string::npos) << r.err;
  for (const std::string &path : {report, sarif}) {
    struct stat st;
    ASSERT_EQ(lstat(path.c_str(), &st), 0);
    EXPECT_TRUE(S_ISCHR(st.st_mode)) << path << " was replaced";
  }
}

// Sends SIG to RUN's runner (TO_RUNNER) or to its QEMU, once the guest is
// running; RUN writes its report and SARIF log into DIR. Expects exit
// STATUS with the guest's one finding kept in the stderr summary, the
// report and the SARIF log. Returns stderr.
std::string KillKeepingTheFinding(BackgroundRun &run, const TempDir &dir, bool to_runner, int sig,
                                  int status)
{
  if (run.guest <= 0) {
    ADD_FAILURE() << "the guest did not start: " << ReadFileOrEmpty(run.err_file);
    return "";
  }
  if (kill(to_runner ? run.runner : run.guest, sig) != 0) {
    ADD_FAILURE() << "kill: " << strerror(errno);
    return "";
  }
  EXPECT_EQ(run.Wait(), status) << ReadFileOrEmpty(run.err_file);
  const std::string err = ReadFileOrEmpty(run.err_file);
  EXPECT_NE(err.find("SUMMARY: jitflush-emu: 1 finding"), std::string::npos) << err;
  EXPECT_NE(ReadFileOrEmpty(dir / "r.json").find("\"not-cleaned\""), std::string::npos);
  EXPECT_NE(ReadFileOrEmpty(dir / "f.sarif").find("\"ruleId\""), std::string::npos);
  return err;
}

// SIGINT, SIGTERM or SIGHUP to the runner lost every finding
// (QEMU dies of it without its exit callbacks; status 5, "the plugin wrote
// no usable summary"). The runner asks the plugin for its reports first,
// then ends QEMU, and exits 128+N.
TEST(RunnerEndToEnd, ASignalToTheRunnerKeepsTheFindingsSoFarAndExits128PlusN)
{
  for (int sig : {SIGTERM, SIGINT, SIGHUP}) {
    TempDir dir;
    BackgroundRun run(dir.path(), {"--report", dir / "r.json", "--sarif", dir / "f.sarif"});
    const std::string err = KillKeepingTheFinding(run, dir, true, sig, 128 + sig);
    EXPECT_NE(err.find("jitflush-emu: stale_fetches="), std::string::npos) << err;
    EXPECT_NE(err.find("jitflush-emu: interrupted by " + std::string(strsignal(sig)) +
                       ": the findings above are those gathered so far"),
              std::string::npos)
        << err;
    EXPECT_TRUE(Gone(run.guest, std::chrono::seconds(5))) << "QEMU outlived the run";
  }
}

// The run's scratch folders in DIR whose runner was RUNNER.
int FoldersLeft(const std::string &dir, pid_t runner)
{
  const std::string left = "jitflush-emu-" + std::to_string(runner) + "-";
  int n = 0;
  for (const auto &e : std::filesystem::directory_iterator(dir))
    n += e.path().filename().string().rfind(left, 0) == 0;
  return n;
}

// A SIGKILL of the runner left QEMU running (the processes the guest
// forked, whose parent is QEMU, not the runner) and its scratch folder
// with the overlay behind until the next run. Within a second of the kill
// no QEMU of the run is left, nor its folder.
TEST(RunnerEndToEnd, AKilledRunnerLeavesNoQemuAndNoFolderWithinASecond)
{
  TempDir dir, scratch;
  setenv("TMPDIR", scratch.path().c_str(), 1);
  BackgroundRun run(dir.path(), {}, "jit-forever-forked");
  unsetenv("TMPDIR");
  ASSERT_GT(run.guest, 0) << ReadFileOrEmpty(run.err_file);
  ASSERT_GT(run.child, 0) << ReadFileOrEmpty(run.err_file);
  ASSERT_EQ(FoldersLeft(scratch.path(), run.runner), 1);
  ASSERT_EQ(kill(run.runner, SIGKILL), 0);
  run.Wait();
  EXPECT_TRUE(Gone(run.guest, std::chrono::seconds(1))) << "QEMU was orphaned";
  EXPECT_TRUE(Gone(run.child, std::chrono::seconds(1))) << "the forked guest's QEMU was orphaned";
  const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(1);
  while (FoldersLeft(scratch.path(), run.runner) > 0 && std::chrono::steady_clock::now() < end)
    usleep(20000);
  EXPECT_EQ(FoldersLeft(scratch.path(), run.runner), 0) << "the killed run's scratch folder";
  // Nothing waits for the killed run's processes to be gone any longer.
  kill(run.guest, SIGKILL);
  kill(run.child, SIGKILL);
}

// The environment a run keeps beside its report (REPORT.env) is a secret;
// a runner killed with SIGKILL before any report came left it behind. The
// cleaner removes it with the folder, and only it: the report's own name is
// free and nothing else in the folder is touched.
TEST(RunnerEndToEnd, AKilledRunnerLeavesNoEnvironmentWithoutAReport)
{
  TempDir dir, scratch, out;
  const std::string report = out.path() + "/r.json";
  const std::string other = out.path() + "/other.json.env";
  WriteFile(other, "KEEP=1");
  setenv("TMPDIR", scratch.path().c_str(), 1);
  BackgroundRun run(dir.path(), {"--report", report}, "jit-forever");
  unsetenv("TMPDIR");
  ASSERT_GT(run.guest, 0) << ReadFileOrEmpty(run.err_file);
  ASSERT_TRUE(std::filesystem::exists(report + ".env")) << "the run recorded no environment";
  ASSERT_EQ(kill(run.runner, SIGKILL), 0);
  run.Wait();
  const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(2);
  while (std::filesystem::exists(report + ".env") && std::chrono::steady_clock::now() < end)
    usleep(20000);
  EXPECT_FALSE(std::filesystem::exists(report + ".env")) << "the killed run's environment was left";
  EXPECT_FALSE(std::filesystem::exists(report));
  EXPECT_TRUE(std::filesystem::exists(other));
  kill(run.guest, SIGKILL);
}

// A harness that kills the runner's whole process group (its cleaner with
// it) still leaves no QEMU, and the next run removes the folder.
TEST(RunnerEndToEnd, QemuDiesWithAKilledRunnerAndItsFolderIsReclaimed)
{
  TempDir dir, scratch;
  setenv("TMPDIR", scratch.path().c_str(), 1);
  BackgroundRun run(dir.path(), {}, "jit-forever", true);
  unsetenv("TMPDIR");
  ASSERT_GT(run.guest, 0) << ReadFileOrEmpty(run.err_file);
  ASSERT_EQ(kill(-run.runner, SIGKILL), 0);
  run.Wait();
  EXPECT_TRUE(Gone(run.guest, std::chrono::seconds(5))) << "QEMU was orphaned";
  EXPECT_EQ(FoldersLeft(scratch.path(), run.runner), 1) << "the killed run's scratch folder";
  setenv("TMPDIR", scratch.path().c_str(), 1);
  ProcessResult again = Emu("apple-m1.conf", {"exit", "0"});
  unsetenv("TMPDIR");
  EXPECT_EQ(again.status, 0) << again.err;
  EXPECT_EQ(FoldersLeft(scratch.path(), run.runner), 0) << "a later run did not reclaim it";
}

// QEMU killed with SIGKILL (a harness's timeout, `timeout -s KILL`) ended
// the run with status 5 and every finding lost. The guest printed its line
// after its stale fetch, so the finding was kept before it: it is in the
// stderr blocks, the report and the SARIF log, the summary line ends
// stderr, and the status is the guest's own 128+9.
TEST(RunnerEndToEnd, QemuKilledWithSigkillKeepsItsFindingsAndExits137)
{
  TempDir dir;
  BackgroundRun run(dir.path(), {"--report", dir / "r.json", "--sarif", dir / "f.sarif"});
  const std::string err = KillKeepingTheFinding(run, dir, false, SIGKILL, 128 + SIGKILL);
  EXPECT_NE(err.find("==jitflush-emu== the program died of signal 9 (Killed)\n"), std::string::npos)
      << err;
  const size_t last = err.rfind('\n', err.size() - 2);
  const std::string last_line = err.substr(last == std::string::npos ? 0 : last + 1);
  EXPECT_EQ(last_line.rfind("jitflush-emu: stale_fetches=", 0), 0u) << err;
  EXPECT_EQ(last_line.find("stale_fetches=0 "), std::string::npos) << err;
  EXPECT_NE(last_line.find(" findings=1"), std::string::npos) << err;
}

// --timeout: the runner stops a program that runs on, reports the
// findings so far, names the last block of each thread, and exits 124;
// JITFLUSH_EMU_TIMEOUT stands in for it.
TEST(RunnerEndToEnd, TimeoutStopsTheProgramNamesEachThreadsLastBlockAndExits124)
{
  TempDir dir;
  std::vector<std::string> argv = {kRunner,        "--config", kConfigs + "/exynos8890.conf",
                                   "--timeout",    "1.5",      "--report",
                                   dir / "r.json", "--",       kGuest,
                                   "jit-forever"};
  const auto start = std::chrono::steady_clock::now();
  ProcessResult r = RunProcess(argv);
  const auto took = std::chrono::steady_clock::now() - start;
  EXPECT_EQ(r.status, 124) << r.Describe();
  EXPECT_GE(took, std::chrono::milliseconds(1500));
  EXPECT_LT(took, std::chrono::seconds(30));
  EXPECT_NE(r.out.find("running "), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("SUMMARY: jitflush-emu: 1 finding"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("\n==jitflush-emu== at the timeout, thread 0 on cpu "), std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find(": in the block at 0x"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("\njitflush-emu: stale_fetches="), std::string::npos) << r.err;
  EXPECT_EQ(r.LastErrLine(), "jitflush-emu: timed out after 1.5 s (--timeout): the program was "
                             "stopped; the findings above are those gathered so far")
      << r.err;
  EXPECT_NE(ReadFileOrEmpty(dir / "r.json").find("\"not-cleaned\""), std::string::npos);

  argv = {kRunner, "--config", kConfigs + "/exynos8890.conf", "--", kGuest, "jit-forever"};
  r = RunProcess(argv, {{"JITFLUSH_EMU_TIMEOUT", "0.5"}});
  EXPECT_EQ(r.status, 124) << r.Describe();
  EXPECT_EQ(r.LastErrLine().rfind("jitflush-emu: timed out after 0.5 s", 0), 0u) << r.err;

  // A program that ends in time is not affected.
  r = RunProcess({kRunner, "--config", kConfigs + "/apple-m1.conf", "--timeout", "60", "--", kGuest,
                  "exit", "42"});
  EXPECT_EQ(r.status, 42) << r.Describe();
}

// The report carries the command line that reproduces the run,
// with the seed and policy written out and absolute paths; run again, it
// gives the same findings and counts. The finding's rerun line points at
// the report, which records the rest (docs/FINDINGS.md, "Reruns").
TEST(RunnerEndToEnd, TheReportsReproducingCommandGivesTheSameRun)
{
  TempDir dir;
  ProcessResult r = Emu("exynos8890.conf", {"jit"}, {"--report", dir / "r.json"});
  ASSERT_EQ(r.status, 86) << r.err;
  const nlohmann::json report = nlohmann::json::parse(ReadFileOrEmpty(dir / "r.json"));
  const std::string cmd = report["reproduce"];
  EXPECT_EQ(cmd, "jitflush-emu --config " + kConfigs +
                     "/exynos8890.conf --seed 1 --policy adversarial --schedule turns --quantum "
                     "20000 -- " +
                     kGuest + " jit");
  EXPECT_NE(r.err.find("    rerun   jitflush-emu --reproduce " + dir / "r.json" + "\n"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(report["recorded"]["cwd"], std::filesystem::current_path().string());
  EXPECT_EQ(report["recorded"]["environment"], true);
  // Without a report, the line is the command itself, and it says what
  // it cannot restore.
  ProcessResult bare = Emu("exynos8890.conf", {"jit"});
  ASSERT_EQ(bare.status, 86) << bare.err;
  EXPECT_NE(bare.err.find("    rerun   " + cmd +
                          "\n            not restored by it: the environment and the working "
                          "folder (nothing records them without --report FILE; jitflush-emu "
                          "--reproduce FILE restores them)\n"),
            std::string::npos)
      << bare.err;
  // The same words, split as a POSIX shell would, with this build's runner
  // for the name and a report path, in the same environment (the guest's
  // instruction counts depend on it: docs/RIG.md): the same report, byte
  // for byte (findings, counts, migrations, hand-overs), for a
  // single-threaded and a multi-threaded guest.
  const std::vector<std::vector<std::string>> guests = {{"jit"}, {"publish", "2", "40"}};
  for (const std::vector<std::string> &guest : guests) {
    SCOPED_TRACE(guest[0]);
    ProcessResult first = Emu("exynos8890.conf", guest, {"--report", dir / "first.json"});
    ASSERT_EQ(first.status, 86) << first.err;
    const std::string rerun =
        nlohmann::json::parse(ReadFileOrEmpty(dir / "first.json"))["reproduce"];
    wordexp_t words;
    ASSERT_EQ(wordexp(rerun.c_str(), &words, WRDE_NOCMD | WRDE_UNDEF), 0) << rerun;
    std::vector<std::string> argv = {kRunner, "--report", dir / "again.json"};
    argv.insert(argv.end(), words.we_wordv + 1, words.we_wordv + words.we_wordc);
    wordfree(&words);
    ProcessResult again = RunProcess(argv);
    EXPECT_EQ(again.status, 86) << again.err;
    // The same blocks but for the report each rerun line points at.
    std::string expected = first.err;
    for (size_t at = 0; (at = expected.find(dir / "first.json", at)) != std::string::npos;)
      expected.replace(at, (dir / "first.json").size(), dir / "again.json");
    EXPECT_EQ(again.err, expected);
    EXPECT_EQ(ReadFileOrEmpty(dir / "again.json"), ReadFileOrEmpty(dir / "first.json"));
  }
}

// ---------------------------------------------------------------------------
// Reruns (docs/FINDINGS.md, "Reruns"): emu_guest env-jit reaches libgcc's
// latched flush (CTR_EL0 read once on the Exynos M1: stride 128 over
// 64-byte lines) only when EMU_GUEST_FLUSH=libgcc is in its environment,
// as a Python program reaches its JIT only with its PYTHONPATH.

const std::string kLatched = "EMU_GUEST_FLUSH=libgcc";

ProcessResult EnvJit(const std::vector<std::string> &runner_args,
                     const std::map<std::string, std::string> &env)
{
  std::vector<std::string> argv = {kRunner, "--config", kConfigs + "/exynos8890.conf"};
  argv.insert(argv.end(), runner_args.begin(), runner_args.end());
  argv.insert(argv.end(), {"--", kGuest, "env-jit"});
  return RunProcess(argv, env);
}

// The words of a rerun line's command, with this build's runner for its name.
std::vector<std::string> RunnerWords(const std::string &command)
{
  wordexp_t words;
  if (wordexp(command.c_str(), &words, WRDE_NOCMD | WRDE_UNDEF) != 0)
    return {};
  std::vector<std::string> argv(words.we_wordv, words.we_wordv + words.we_wordc);
  wordfree(&words);
  argv[0] = kRunner;
  return argv;
}

// The command of the rerun line in stderr ERR ("" when there is none).
std::string RerunLine(const std::string &err)
{
  const std::string tag = "    rerun   ";
  const size_t at = err.find(tag);
  if (at == std::string::npos)
    return "";
  return err.substr(at + tag.size(), err.find('\n', at) - at - tag.size());
}

bool HasSummaryLine(const std::string &err)
{
  return err.rfind("jitflush-emu: stale_fetches=", 0) == 0 ||
         err.find("\njitflush-emu: stale_fetches=") != std::string::npos;
}

// The run needs EMU_GUEST_FLUSH to reach its stale code; its rerun line,
// pasted in another folder by someone without the variable, restores it:
// the same finding, the same report byte for byte. The plain command in
// this environment finds nothing: the environment is what the rerun gave.
TEST(RunnerEndToEnd, AGuestThatNeedsItsEnvironmentGivesTheSameFindingOnItsRerun)
{
  ASSERT_EQ(getenv("EMU_GUEST_FLUSH"), nullptr);
  TempDir dir;
  ProcessResult run = EnvJit({"--report", dir / "r.json"}, {{"EMU_GUEST_FLUSH", "libgcc"}});
  ASSERT_EQ(run.status, 86) << run.err;
  const nlohmann::json report = nlohmann::json::parse(ReadFileOrEmpty(dir / "r.json"));
  ASSERT_EQ(report["findings"].size(), 1u) << report.dump(1);
  EXPECT_EQ(report["findings"][0]["kind"], "not-invalidated-in-geometry");
  EXPECT_EQ(report["findings"][0]["stride"], 128);
  const std::string line = RerunLine(run.err);
  ASSERT_EQ(line, "jitflush-emu --reproduce " + dir / "r.json") << run.err;

  std::vector<std::string> argv = RunnerWords(line);
  argv.insert(argv.end(), {"--report", dir / "again.json"});
  ProcessResult rerun = RunProcess(argv, {}, 600, "/");
  EXPECT_EQ(rerun.status, 86) << rerun.err;
  EXPECT_NE(rerun.err.find("==jitflush-emu== RERUN of " + dir / "r.json" +
                           ": the same 1 finding with the same stale fetches\n"),
            std::string::npos)
      << rerun.err;
  EXPECT_EQ(rerun.err.find("cannot restore"), std::string::npos) << rerun.err;
  EXPECT_EQ(rerun.LastErrLine(), run.LastErrLine());
  EXPECT_EQ(ReadFileOrEmpty(dir / "again.json"), ReadFileOrEmpty(dir / "r.json"));

  ProcessResult plain = RunProcess(RunnerWords(report["reproduce"]));
  EXPECT_EQ(plain.status, 0) << plain.err;
  EXPECT_EQ(plain.LastErrLine().rfind("jitflush-emu: stale_fetches=0 ", 0), 0u) << plain.err;
}

// A token in the environment reaches the program and REPORT.env, a new
// file for its owner alone (whatever was at its name before: here a
// symlink to a world-readable file, which stays as it was), and nothing
// that is shown or uploaded: the report, the SARIF log, stderr; neither in
// the run nor in its rerun.
TEST(RunnerEndToEnd, TheEnvironmentStaysOutOfTheReportTheSarifLogAndStderr)
{
  TempDir dir;
  const std::string token = "ghp_jitflushRerunTestToken0123456789abcdef";
  WriteFile(dir / "elsewhere", "kept\n");
  ASSERT_EQ(chmod((dir / "elsewhere").c_str(), 0644), 0);
  ASSERT_EQ(symlink((dir / "elsewhere").c_str(), (dir / "r.json.env").c_str()), 0);
  ProcessResult run = EnvJit({"--report", dir / "r.json", "--sarif", dir / "r.sarif"},
                             {{"EMU_GUEST_FLUSH", "libgcc"}, {"GITHUB_TOKEN", token}});
  ASSERT_EQ(run.status, 86) << run.err;
  ProcessResult rerun = RunProcess({kRunner, "--reproduce", dir / "r.json", "--report",
                                    dir / "again.json", "--sarif", dir / "again.sarif"});
  EXPECT_EQ(rerun.status, 86) << rerun.err;
  for (const std::string &shown :
       {run.err, rerun.err, ReadFileOrEmpty(dir / "r.json"), ReadFileOrEmpty(dir / "r.sarif"),
        ReadFileOrEmpty(dir / "again.json"), ReadFileOrEmpty(dir / "again.sarif"),
        run.out + rerun.out}) {
    EXPECT_EQ(shown.find(token), std::string::npos) << shown;
    EXPECT_EQ(shown.find("GITHUB_TOKEN"), std::string::npos) << shown;
  }
  EXPECT_NE(ReadFileOrEmpty(dir / "again.sarif").find("not-invalidated-in-geometry"),
            std::string::npos);
  for (const char *name : {"r.json.env", "again.json.env"}) {
    SCOPED_TRACE(name);
    struct stat st;
    ASSERT_EQ(lstat((dir / name).c_str(), &st), 0);
    EXPECT_TRUE(S_ISREG(st.st_mode));
    EXPECT_EQ(st.st_mode & 07777, 0600u);
    const std::string env = ReadFileOrEmpty(dir / name);
    EXPECT_NE(env.find("GITHUB_TOKEN=" + token + '\0'), std::string::npos);
    EXPECT_NE(env.find(kLatched + '\0'), std::string::npos);
  }
  EXPECT_EQ(ReadFileOrEmpty(dir / "elsewhere"), "kept\n");
}

// --no-record-env (or JITFLUSH_EMU_NO_RECORD_ENV=1): no REPORT.env, and
// the rerun line says it cannot restore the environment. The rerun says so
// before it starts, finds nothing without the variable, and says it did
// not reproduce the run instead of ending with a clean summary line.
TEST(RunnerEndToEnd, ARerunWithoutTheEnvironmentSaysWhatItCannotRestoreAndIsNotClean)
{
  TempDir dir;
  const std::string why = "the environment (the run was recorded with --no-record-env)";
  ProcessResult run =
      EnvJit({"--no-record-env", "--report", dir / "r.json"}, {{"EMU_GUEST_FLUSH", "libgcc"}});
  ASSERT_EQ(run.status, 86) << run.err;
  EXPECT_FALSE(PathExists(dir / "r.json.env"));
  EXPECT_NE(run.err.find("    rerun   jitflush-emu --reproduce " + dir / "r.json" +
                         "\n            not restored by it: " + why + "\n"),
            std::string::npos)
      << run.err;
  const nlohmann::json report = nlohmann::json::parse(ReadFileOrEmpty(dir / "r.json"));
  EXPECT_EQ(report["recorded"]["environment"], false);
  EXPECT_EQ(report["recorded"]["unrecorded"], why);

  ProcessResult rerun = RunProcess({kRunner, "--reproduce", dir / "r.json"});
  EXPECT_EQ(rerun.status, 11) << rerun.err;
  EXPECT_EQ(rerun.err.rfind("jitflush-emu: --reproduce: cannot restore " + why, 0), 0u)
      << rerun.err;
  EXPECT_NE(rerun.err.find("    missing not-invalidated-in-geometry (flush "
                           "__aarch64_sync_cache_range+0x80, called from main+"),
            std::string::npos)
      << rerun.err;
  EXPECT_NE(rerun.err.find("    not restored: " + why + "\n"), std::string::npos) << rerun.err;
  EXPECT_FALSE(HasSummaryLine(rerun.err)) << rerun.err;
  EXPECT_EQ(rerun.LastErrLine(), "jitflush-emu: the rerun did not reproduce the run recorded in " +
                                     dir / "r.json" +
                                     ": 1 finding missing, 0 new, 0 with other stale fetches");

  // The variable does the same for a suite, which gives no options.
  ProcessResult suite = EnvJit({"--report", dir / "s.json"}, {{"EMU_GUEST_FLUSH", "libgcc"},
                                                              {"JITFLUSH_EMU_NO_RECORD_ENV", "1"}});
  EXPECT_EQ(suite.status, 86) << suite.err;
  EXPECT_TRUE(PathExists(dir / "s.json"));
  EXPECT_FALSE(PathExists(dir / "s.json.env"));
}

// The report keeps the status the program gave exit_group and the host it
// ran on. A rerun whose program ends otherwise (a rerun that fails early
// finds nothing and exits otherwise) did not reproduce the run, however
// its findings compare; one on another host says so, as the host name
// cannot be restored and a guest may read it.
TEST(RunnerEndToEnd, ARerunComparesTheExitStatusAndNamesAnotherHost)
{
  TempDir dir;
  ProcessResult three = RunProcess({kRunner, "--config", kConfigs + "/apple-m1.conf", "--report",
                                    dir / "three.json", "--", kGuest, "exit", "3"});
  ASSERT_EQ(three.status, 3) << three.err;
  nlohmann::json report = nlohmann::json::parse(ReadFileOrEmpty(dir / "three.json"));
  EXPECT_EQ(report["exit_status"], 3) << report.dump(1);
  struct utsname uts;
  ASSERT_EQ(uname(&uts), 0);
  EXPECT_EQ(report["recorded"]["host"], uts.nodename);

  ASSERT_EQ(EnvJit({"--report", dir / "r.json"}, {}).status, 0);
  report = nlohmann::json::parse(ReadFileOrEmpty(dir / "r.json"));
  ASSERT_EQ(report["exit_status"], 0);
  report["exit_status"] = 3;
  WriteFile(dir / "r.json", report.dump());
  ProcessResult exited = RunProcess({kRunner, "--reproduce", dir / "r.json"});
  EXPECT_EQ(exited.status, 11) << exited.err;
  EXPECT_NE(exited.err.find("    exit    the program exited with status 3 in the run, with "
                            "status 0 in the rerun\n"),
            std::string::npos)
      << exited.err;
  EXPECT_FALSE(HasSummaryLine(exited.err)) << exited.err;
  EXPECT_EQ(exited.LastErrLine(), "jitflush-emu: the rerun did not reproduce the run recorded in " +
                                      dir / "r.json" +
                                      ": 0 findings missing, 0 new, 0 with other stale fetches, "
                                      "the program's exit status differs");

  report["exit_status"] = 0;
  report["recorded"]["host"] = "elsewhere.invalid";
  WriteFile(dir / "r.json", report.dump());
  ProcessResult moved = RunProcess({kRunner, "--reproduce", dir / "r.json"});
  EXPECT_EQ(moved.status, 0) << moved.err;
  EXPECT_NE(moved.err.find("the host name elsewhere.invalid (this host is " +
                           std::string(uts.nodename) + ")"),
            std::string::npos)
      << moved.err;
}

// A rerun whose findings are not the run's exits 11 and names each
// difference: a finding missing (its environment edited), new, or with
// other stale fetches (the report edited).
TEST(RunnerEndToEnd, ARerunWhoseFindingsDifferExits11NamingThem)
{
  TempDir dir;
  ASSERT_EQ(EnvJit({"--report", dir / "stale.json"}, {{"EMU_GUEST_FLUSH", "libgcc"}}).status, 86);
  ASSERT_EQ(EnvJit({"--report", dir / "clean.json"}, {}).status, 0);
  const std::string latched = kLatched + '\0';
  std::string env = ReadFileOrEmpty(dir / "stale.json.env");
  const size_t at = env.find(latched);
  ASSERT_NE(at, std::string::npos);
  WriteFile(dir / "stale.json.env", env.erase(at, latched.size()));
  WriteFile(dir / "clean.json.env", ReadFileOrEmpty(dir / "clean.json.env") + latched);

  ProcessResult missing = RunProcess({kRunner, "--reproduce", dir / "stale.json"});
  EXPECT_EQ(missing.status, 11) << missing.err;
  EXPECT_NE(missing.err.find("==jitflush-emu== RERUN DIFFERS from the run recorded in " +
                             dir / "stale.json" +
                             ": 1 finding there, 0 in this rerun\n"
                             "    missing not-invalidated-in-geometry"),
            std::string::npos)
      << missing.err;
  EXPECT_NE(missing.err.find("16 stale fetches in the run, none in the rerun\n"), std::string::npos)
      << missing.err;
  EXPECT_NE(missing.err.find("    rerun's counts: stale_fetches=0 "), std::string::npos);
  EXPECT_FALSE(HasSummaryLine(missing.err)) << missing.err;

  ProcessResult added = RunProcess({kRunner, "--reproduce", dir / "clean.json"});
  EXPECT_EQ(added.status, 11) << added.err;
  EXPECT_NE(added.err.find("    new     not-invalidated-in-geometry (flush "
                           "__aarch64_sync_cache_range+0x80, called from main+"),
            std::string::npos)
      << added.err;
  EXPECT_EQ(added.LastErrLine(), "jitflush-emu: the rerun did not reproduce the run recorded in " +
                                     dir / "clean.json" +
                                     ": 0 findings missing, 1 new, 0 with other stale fetches");

  // The run said 17 stale fetches where the same seed gives 16.
  ASSERT_EQ(EnvJit({"--report", dir / "more.json"}, {{"EMU_GUEST_FLUSH", "libgcc"}}).status, 86);
  nlohmann::json more = nlohmann::json::parse(ReadFileOrEmpty(dir / "more.json"));
  ASSERT_EQ(more["findings"][0]["count"], 16);
  more["findings"][0]["count"] = 17;
  WriteFile(dir / "more.json", more.dump());
  ProcessResult counts = RunProcess({kRunner, "--reproduce", dir / "more.json"});
  EXPECT_EQ(counts.status, 11) << counts.err;
  EXPECT_NE(counts.err.find("    count   not-invalidated-in-geometry (flush "), std::string::npos)
      << counts.err;
  EXPECT_NE(counts.err.find(": 17 stale fetches in the run, 16 in the rerun\n"), std::string::npos)
      << counts.err;
}

// Every host CPU kept busy by as many spinning processes again, for as
// long as the object lives: the host's scheduler then interleaves QEMU's
// threads unlike on an idle machine.
class HostLoad
{
public:
  HostLoad()
  {
    long n = 2 * sysconf(_SC_NPROCESSORS_ONLN);
    for (long i = 0; i < n; i++) {
      pid_t pid = fork();
      if (pid == 0) {
        for (volatile unsigned long spin = 0;; spin++) {
        }
      }
      if (pid > 0)
        spinners_.push_back(pid);
    }
  }
  ~HostLoad()
  {
    for (pid_t pid : spinners_) {
      kill(pid, SIGKILL);
      waitpid(pid, nullptr, 0);
    }
  }
  size_t Size() const
  {
    return spinners_.size();
  }

private:
  std::vector<pid_t> spinners_;
};

size_t FirstDifference(const std::string &a, const std::string &b)
{
  size_t i = 0;
  while (i < a.size() && i < b.size() && a[i] == b[i])
    i++;
  return i;
}

// One seed, one run. The complete report (findings, counts,
// migrations, hand-overs) of a single-threaded and a multi-threaded guest
// is the same byte for byte, idle or with every host CPU loaded.
TEST(RunnerEndToEnd, OneSeedGivesTheSameReportUnderAnyHostLoad)
{
  TempDir dir;
  struct Guest {
    std::vector<std::string> args;
    int status;
  };
  // A single thread; four threads publishing code, with spins, pipes,
  // barriers and yields; 600 threads made by six creators at once, whose
  // sixteenth live vCPU makes QEMU grow the plugin's scoreboards in an
  // exclusive section (with threads waiting inside the execution loop at
  // that moment, an "escape").
  const Guest guests[] = {
      {{"jit"}, 86}, {{"publish", "3", "120"}, 86}, {{"affinity-race", "6", "100"}, 0}};
  for (const Guest &guest : guests) {
    const std::string name = guest.args[0];
    ProcessResult idle =
        Emu("exynos8890.conf", guest.args, {"--seed", "5", "--report", dir / "idle.json"});
    ASSERT_EQ(idle.status, guest.status) << idle.err;
    const std::string expected = ReadFileOrEmpty(dir / "idle.json");
    const nlohmann::json report = nlohmann::json::parse(expected);
    EXPECT_EQ(report["schedule"]["mode"], "turns") << name;
    EXPECT_EQ(report["schedule"]["reproducible"], true) << name;
    if (name == "publish") {
      EXPECT_GT(report["schedule"]["handovers"].get<int>(), 100) << expected;
      EXPECT_EQ(report["threads"], 4) << expected;
    }
    HostLoad load;
    ASSERT_GT(load.Size(), 0u);
    for (int run = 0; run < 3; run++) {
      std::string path = dir / ("loaded" + std::to_string(run) + ".json");
      ProcessResult loaded = Emu("exynos8890.conf", guest.args, {"--seed", "5", "--report", path});
      EXPECT_EQ(loaded.status, guest.status) << loaded.err;
      EXPECT_EQ(loaded.LastErrLine(), idle.LastErrLine()) << name << " run " << run;
      const std::string got = ReadFileOrEmpty(path);
      EXPECT_TRUE(got == expected) << name << " run " << run << ": the report differs from "
                                   << "the idle run's at byte " << FirstDifference(got, expected);
    }
  }
}

// The guest's entropy comes from the seed: getrandom, a read and a readv
// of /dev/urandom, and the AT_RANDOM bytes. The guest prints them and
// writes as much unflushed code as they say, so that both its output and
// the report's counts depend on them. Two runs of one seed print the same
// bytes and write the same report byte for byte: a source the seed did not
// reach would print other bytes on the second run. Another seed gives
// other bytes from every source.
TEST(RunnerEndToEnd, OneSeedGivesTheGuestTheSameEntropy)
{
  TempDir dir;
  ProcessResult first =
      Emu("exynos8890.conf", {"entropy"}, {"--seed", "5", "--report", dir / "first.json"});
  ASSERT_EQ(first.status, 86) << first.err; // the unflushed code: a finding
  ProcessResult second =
      Emu("exynos8890.conf", {"entropy"}, {"--seed", "5", "--report", dir / "second.json"});
  ASSERT_EQ(second.status, 86) << second.err;
  ProcessResult other =
      Emu("exynos8890.conf", {"entropy"}, {"--seed", "6", "--report", dir / "other.json"});
  ASSERT_EQ(other.status, 86) << other.err;

  // "getrandom G read R readv V AT_RANDOM A", one word per source.
  auto words = [](const std::string &out) {
    std::map<std::string, std::string> w;
    std::istringstream in(out);
    std::string key, value;
    while (in >> key >> value)
      w[key] = value;
    return w;
  };
  const auto a = words(first.out), b = words(second.out), c = words(other.out);
  for (const char *source : {"getrandom", "read", "readv", "AT_RANDOM"}) {
    ASSERT_EQ(a.count(source), 1u) << first.out;
    EXPECT_EQ(b.at(source), a.at(source)) << source << " escaped the seed";
    EXPECT_NE(c.at(source), a.at(source)) << source << " is the same under another seed";
  }
  const std::string expected = ReadFileOrEmpty(dir / "first.json");
  const std::string got = ReadFileOrEmpty(dir / "second.json");
  EXPECT_TRUE(got == expected) << "the report differs at byte " << FirstDifference(got, expected);
  const nlohmann::json report = nlohmann::json::parse(expected);
  const nlohmann::json &schedule = report["schedule"];
  EXPECT_EQ(schedule["reproducible"], true) << schedule;
  EXPECT_GE(schedule["entropy"]["getrandom_calls"].get<int>(), 1) << schedule;
  EXPECT_EQ(schedule["entropy"]["device_reads"], 2) << schedule; // the read and the readv
  EXPECT_FALSE(schedule["entropy"].contains("outside_seed")) << schedule;
  // The bytes chose the code's length: another seed, other counts.
  const nlohmann::json o = nlohmann::json::parse(ReadFileOrEmpty(dir / "other.json"));
  EXPECT_NE(o["insns"], report["insns"]);
}

// Random bytes the guest moves without reading them into its memory
// (splice from /dev/urandom into a pipe), and the clock, are outside the
// seed's reach: the report says so and does not call the run reproducible.
TEST(RunnerEndToEnd, EntropyOutsideTheSeedIsNamed)
{
  TempDir dir;
  ProcessResult r =
      Emu("exynos8890.conf", {"entropy-splice"}, {"--seed", "5", "--report", dir / "r.json"});
  ASSERT_EQ(r.status, 0) << r.err;
  const nlohmann::json schedule =
      nlohmann::json::parse(ReadFileOrEmpty(dir / "r.json"))["schedule"];
  EXPECT_EQ(schedule["reproducible"], false) << schedule;
  EXPECT_EQ(schedule["entropy"]["outside_seed"], nlohmann::json::array({"splice of /dev/urandom"}))
      << schedule;
  // The clock is the host's: a guest that reads it is not called
  // reproducible either.
  ProcessResult c = Emu("exynos8890.conf", {"clock"}, {"--seed", "5", "--report", dir / "c.json"});
  ASSERT_EQ(c.status, 0) << c.err;
  EXPECT_EQ(c.out, "clock forward\n");
  const nlohmann::json clock = nlohmann::json::parse(ReadFileOrEmpty(dir / "c.json"))["schedule"];
  EXPECT_EQ(clock["reproducible"], false) << clock;
  EXPECT_EQ(clock["entropy"]["clock_reads"], 2) << clock;
  EXPECT_EQ(clock["entropy"]["outside_seed"],
            nlohmann::json::array({"the host's clock (clock_gettime)"}))
      << clock;
}

// The report without the process ids (a fork's child has a new one on
// every run): everything else must not change.
nlohmann::json WithoutPids(nlohmann::json j)
{
  if (j.is_object()) {
    j.erase("pid");
    j.erase("parent");
    for (auto &item : j.items())
      item.value() = WithoutPids(item.value());
  } else if (j.is_array()) {
    for (auto &e : j)
      e = WithoutPids(e);
  }
  return j;
}

// An exclusive section of QEMU's (a fork's here) waits for every
// thread that runs guest code, and a thread waiting for its turn inside
// the execution loop counts as running. No thread is drawn to run while
// the fork goes on: the forking thread is out of the draw until it returns. Such threads are let go
// when QEMU's own count says a section waits for them (rig/plugin/plugin_qemu_exclusive.c), not
// after a time without progress that a loaded host can fake: the same threads go, in the same
// order, on every run, idle or loaded. A stripped QEMU has no such count: its report names the
// guess, and a run that let threads go on a guess is not called reproducible.
TEST(RunnerEndToEnd, AnExclusiveSectionLetsTheSameThreadsGoOnEveryRun)
{
  TempDir dir;
  const std::vector<std::string> guest = {"fork-with-threads", "3"};
  ProcessResult idle =
      Emu("exynos8890.conf", guest, {"--seed", "1", "--report", dir / "idle.json"});
  ASSERT_EQ(idle.status, 0) << idle.err;
  // Merging the forked process's report into this one dropped the report
  // twice (json-glib's critical on stderr, a freed object touched).
  EXPECT_EQ(idle.err.find("CRITICAL"), std::string::npos) << idle.err;
  const nlohmann::json expected =
      WithoutPids(nlohmann::json::parse(ReadFileOrEmpty(dir / "idle.json")));
  const nlohmann::json &schedule = expected["schedule"];
  // All three spinners wait inside the execution loop when the fork comes,
  // and each is let go once. Before, the schedule took the forking thread
  // for asleep in its call whenever the host's fork slept, and drew a
  // spinner to run during the fork: one left by itself, and whether the
  // draw came during the fork or after it (the forking thread then in it)
  // was the host's timing; 2 escapes on most runs, 3 on a few.
  EXPECT_EQ(schedule["escapes"], 3) << schedule;
  EXPECT_EQ(schedule["reproducible"], true) << schedule;
  EXPECT_FALSE(schedule.contains("exclusive_sections_guessed")) << schedule;
  {
    HostLoad load;
    for (int run = 0; run < 3; run++) {
      const std::string path = dir / ("loaded" + std::to_string(run) + ".json");
      ProcessResult loaded = Emu("exynos8890.conf", guest, {"--seed", "1", "--report", path});
      EXPECT_EQ(loaded.status, 0) << loaded.err;
      EXPECT_EQ(WithoutPids(nlohmann::json::parse(ReadFileOrEmpty(path))), expected)
          << "run " << run;
    }
  }
  const std::string stripped = dir / "qemu-aarch64";
  ProcessResult strip = RunProcess({JITFLUSH_STRIP, "-o", stripped, JITFLUSH_EMU_QEMU});
  ASSERT_EQ(strip.status, 0) << strip.err;
  ProcessResult guessed =
      Emu("exynos8890.conf", guest,
          {"--seed", "1", "--qemu", stripped, "--report", dir / "guessed.json"});
  ASSERT_EQ(guessed.status, 0) << guessed.err;
  const nlohmann::json g = nlohmann::json::parse(ReadFileOrEmpty(dir / "guessed.json"))["schedule"];
  EXPECT_EQ(g["exclusive_sections_guessed"],
            "the executable has no symbol table (a stripped build?)")
      << g;
  EXPECT_GT(g["escapes"].get<int>(), 0) << g;
  EXPECT_EQ(g["reproducible"], false) << g;
}

// A fork while other threads spin: QEMU stops every other thread for it,
// and the forking thread's locks must not stay held in the child
// (plugin.c, before_fork). The run ends, the child's status comes back.
TEST(RunnerEndToEnd, ForkWhileOtherThreadsSpinEndsUnderTheTurns)
{
  for (const char *spinners : {"1", "3"}) {
    ProcessResult r = Emu("exynos8890.conf", {"fork-with-threads", spinners});
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("fork-with-threads: child exited 7"), std::string::npos) << r.out;
  }
}

// The adversary chooses hand-overs too. A writer that publishes
// new code with a release store before its flush (dc, dsb, ic, dsb) to a
// reader that synchronises correctly: stale only when the reader runs
// between the two. With turns of thousands of instructions the writer
// nearly always flushes first, so policy=random misses it on seeds 1-5;
// the adversary ends the writer's turn at the release store after its
// store to code, and catches it on every seed. Publishing after the flush
// stays clean under the adversary (no false positive from the hand-over).
TEST(RunnerEndToEnd, TheAdversaryHandsTheTurnOverWhereCodeIsPublishedBeforeItsFlush)
{
  TempDir dir;
  for (const char *seed : {"1", "2", "3", "4", "5"}) {
    ProcessResult early = Emu("exynos8890.conf", {"publish-order", "early", "50"},
                              {"--seed", seed, "--report", dir / "early.json"});
    EXPECT_EQ(early.status, 86) << "seed " << seed << ": " << early.err;
    EXPECT_NE(early.err.find("invalidate-not-completed"), std::string::npos) << early.err;
    const nlohmann::json report = nlohmann::json::parse(ReadFileOrEmpty(dir / "early.json"));
    EXPECT_GT(report["schedule"]["adversary_handovers"].get<int>(), 0) << report["schedule"];

    ProcessResult late = Emu("exynos8890.conf", {"publish-order", "late", "50"}, {"--seed", seed});
    EXPECT_EQ(late.status, 0) << "seed " << seed << ": " << late.err;
    EXPECT_EQ(late.out, "publish-order: late rounds=50 wrong=0\n");

    ProcessResult random = Emu("exynos8890.conf", {"publish-order", "early", "50"},
                               {"--seed", seed, "--policy", "random", "--report", dir / "r.json"});
    EXPECT_EQ(random.status, 0) << "seed " << seed << ": " << random.err;
    const nlohmann::json rr = nlohmann::json::parse(ReadFileOrEmpty(dir / "r.json"));
    EXPECT_EQ(rr["schedule"]["adversary_handovers"], 0) << rr["schedule"];
  }
}

// Entering a signal handler is a context synchronisation (the
// kernel delivers on the return to user space, an exception return). A
// thread pinned to one CPU that never executes an isb runs code another
// thread cleaned, invalidated and completed: from the handler of a signal
// sent after the flush it is fresh; calling the same handler itself
// straight after a flag it spins on (no system call, no isb, no migration
// since the flush) it is not synchronised, and the call is no delivery.
// Before the rig recognised deliveries, both were stale.
// Both checkers (the fast path and --check full), on several seeds.
TEST(RunnerEndToEnd, ASignalDeliverySynchronisesTheThreadThatRunsItsHandler)
{
  TempDir dir;
  const std::vector<std::vector<std::string>> checks = {{}, {"--check", "full"}};
  for (const auto &check : checks) {
    for (const char *seed : {"1", "2", "3"}) {
      const std::string what = std::string("seed ") + seed + (check.empty() ? "" : " --check full");
      std::vector<std::string> args = {"--seed", seed, "--report", dir / "signal.json"};
      args.insert(args.end(), check.begin(), check.end());
      ProcessResult signal = Emu("exynos8890.conf", {"run-flushed", "signal"}, args);
      EXPECT_EQ(signal.status, 0) << what << "\n" << signal.err;
      EXPECT_EQ(signal.out, "run-flushed: signal result=42\n") << what;
      EXPECT_EQ(signal.LastErrLine().rfind("jitflush-emu: stale_fetches=0 fetch_checks=", 0), 0u)
          << what << "\n"
          << signal.err;
      const nlohmann::json sr = nlohmann::json::parse(ReadFileOrEmpty(dir / "signal.json"));
      EXPECT_EQ(sr["findings"].size(), 0u) << what << "\n" << sr["findings"].dump();
      EXPECT_EQ(sr["signal_deliveries"], 1) << what;

      args[3] = dir / "flag.json";
      ProcessResult flag = Emu("exynos8890.conf", {"run-flushed", "flag"}, args);
      EXPECT_EQ(flag.status, 86) << what << "\n" << flag.err;
      EXPECT_EQ(flag.out, "run-flushed: flag result=42\n") << what;
      const nlohmann::json fr = nlohmann::json::parse(ReadFileOrEmpty(dir / "flag.json"));
      ASSERT_EQ(fr["findings"].size(), 1u) << what << "\n" << fr["findings"].dump();
      EXPECT_EQ(fr["findings"][0]["kind"], "not-synchronised") << what;
      EXPECT_EQ(fr["findings"][0]["words"], 2) << what;
      EXPECT_EQ(fr["signal_deliveries"], 0) << what;
    }
  }
}

// The parallel schedule stays for speed on many cores, and says it is not
// reproducible.
TEST(RunnerEndToEnd, TheParallelScheduleSaysItIsNotReproducible)
{
  TempDir dir;
  ProcessResult r = Emu("exynos8890.conf", {"publish", "2", "40"},
                        {"--schedule", "parallel", "--report", dir / "r.json"});
  ASSERT_EQ(r.status, 86) << r.err;
  const nlohmann::json report = nlohmann::json::parse(ReadFileOrEmpty(dir / "r.json"));
  EXPECT_EQ(report["schedule"]["mode"], "parallel");
  EXPECT_EQ(report["schedule"]["reproducible"], false);
  EXPECT_EQ(report["schedule"]["handovers"], 0);
}

// A JIT that emitted seven words with a store in a loop and a ret with
// another store, into a fresh page, got all eight attributed to the
// second: the page's summary kept one writer. Each word names its own
// store, in one block or two, with either check mode.
TEST(RunnerEndToEnd, WritersAreExactPerWordWhicheverStorePathRecordedThem)
{
  for (const char *shape : {"two-blocks", "one-block"}) {
    for (const char *mode : {"on", "full"}) {
      SCOPED_TRACE(std::string(shape) + " --check " + mode);
      TempDir dir;
      ProcessResult r =
          Emu("exynos8890.conf", {"writers", shape}, {"--report", dir / "r.json", "--check", mode});
      EXPECT_EQ(r.status, 86) << r.err;
      const auto report = nlohmann::json::parse(ReadFileOrEmpty(dir / "r.json"));
      ASSERT_EQ(report["findings"].size(), 1u) << report.dump();
      const auto &f = report["findings"][0];
      const bool two = std::string(shape) == "two-blocks";
      EXPECT_EQ(f["words"], two ? 8 : 2) << f.dump(1);
      ASSERT_EQ(f["writers"].size(), 2u) << f.dump(1);
      EXPECT_EQ(f["writers"][0]["words"], two ? 7 : 1) << f.dump(1);
      EXPECT_EQ(f["writers"][1]["words"], 1) << f.dump(1);
      EXPECT_NE(f["writers"][0]["pc"], f["writers"][1]["pc"]) << f.dump(1);
      // The first word's writer: the loop's store, or the block's first
      // (of two one-word writers the lower address is listed first).
      EXPECT_EQ(f["writer"]["pc"], f["writers"][0]["pc"]) << f.dump(1);
      EXPECT_NE(f["writer"]["symbol"].get<std::string>().find("writers"), std::string::npos)
          << f.dump(1);
    }
  }
}

// [start, end) of FUNCTION in the aarch64 program FILE, from its symbol
// table (aarch64-linux-gnu-nm -S); {0, 0} without it.
std::pair<uint64_t, uint64_t> NmRange(const std::string &file, const std::string &function)
{
  ProcessResult r = RunProcess({JITFLUSH_AARCH64_BINUTILS "nm", "-S", file});
  std::istringstream lines(r.out);
  std::string line;
  while (std::getline(lines, line)) {
    unsigned long long addr, size;
    char type, name[256];
    if (sscanf(line.c_str(), "%llx %llx %c %255s", &addr, &size, &type, name) == 4 &&
        function == name)
      return {addr, addr + size};
  }
  return {0, 0};
}

// The file offset of FRAME (a report's frame) as a number.
uint64_t FrameOffset(const nlohmann::json &frame)
{
  return frame.contains("offset") && frame["offset"].is_string()
             ? std::stoull(frame["offset"].get<std::string>(), nullptr, 16)
             : 0;
}

// A stripped program whose flush routine calls a helper before its loops:
// at its dc and ic, x30 returns into the routine itself, and no symbol is
// left to say so. The unwind tables (.eh_frame, which strip keeps) say
// where the prologue saved the return address, and every finding names
// the real caller, nonleaf_caller. Without the unwind tables the caller
// falls back to x30, inside the routine: what the tables change.
TEST(RunnerEndToEnd, AStrippedNonLeafFlushRoutineNamesItsRealCaller)
{
  const auto caller = NmRange(kGuest, "nonleaf_caller");
  const auto routine = NmRange(kGuest, "nonleaf_flush");
  ASSERT_NE(caller.first, 0u) << "no nonleaf_caller in " << kGuest;
  ASSERT_NE(routine.first, 0u);
  TempDir dir;
  const std::string stripped = dir / "stripped", bare = dir / "no-unwind-tables";
  ASSERT_EQ(RunProcess({JITFLUSH_AARCH64_BINUTILS "strip", "-o", stripped, kGuest}).status, 0);
  ASSERT_EQ(RunProcess({JITFLUSH_AARCH64_BINUTILS "objcopy", "--remove-section", ".eh_frame",
                        "--remove-section", ".eh_frame_hdr", stripped, bare})
                .status,
            0);
  ASSERT_EQ(NmRange(stripped, "nonleaf_caller").first, 0u) << "strip left the symbol";
  struct Case {
    std::string program;
    std::pair<uint64_t, uint64_t> expected;
  } const cases[] = {{stripped, caller}, {bare, routine}};
  for (const Case &c : cases) {
    ProcessResult r = RunProcess({kRunner, "--config", kConfigs + "/exynos8890.conf", "--report",
                                  dir / "r.json", "--", c.program, "nonleaf-flush"});
    ASSERT_EQ(r.status, 86) << r.err;
    const nlohmann::json report = nlohmann::json::parse(ReadFileOrEmpty(dir / "r.json"));
    ASSERT_FALSE(report["findings"].empty()) << r.err;
    for (const nlohmann::json &f : report["findings"]) {
      ASSERT_TRUE(f["flush"].is_object()) << f.dump(1);
      const uint64_t flush = FrameOffset(f["flush"]);
      EXPECT_GE(flush, routine.first) << f.dump(1);
      EXPECT_LT(flush, routine.second) << f.dump(1);
      const nlohmann::json &called = f["flush"]["caller"];
      ASSERT_TRUE(called.is_object()) << f.dump(1);
      EXPECT_TRUE(called["symbol"].is_null()) << "stripped: " << called.dump();
      EXPECT_GE(FrameOffset(called), c.expected.first) << c.program << "\n" << f.dump(1);
      EXPECT_LT(FrameOffset(called), c.expected.second) << c.program << "\n" << f.dump(1);
      for (const nlohmann::json &one : f["flush"]["callers"])
        EXPECT_EQ(FrameOffset(one), FrameOffset(called)) << "one caller: " << f.dump(1);
    }
  }
}

// Quiet blocks (docs/RIG.md, "What the rig instruments") run without the
// migration clock; --instrument every-block counts every block, as before
// that rule. The verdicts are the same either way, and the default counts
// fewer instructions: the rule did make blocks quiet.
TEST(RunnerEndToEnd, EveryBlockAndObservingGiveTheSameVerdicts)
{
  struct Case {
    const char *config;
    std::vector<std::string> args;
    int status;
  };
  const Case cases[] = {{"exynos8890.conf", {"jit"}, 86},
                        {"apple-m1.conf", {"jit-flush"}, 42},
                        {"exynos8890.conf", {"jit-crash"}, 86}};
  for (const Case &c : cases) {
    TempDir dir;
    ProcessResult quiet = Emu(c.config, c.args, {"--report", dir / "q.json"});
    ProcessResult every =
        Emu(c.config, c.args, {"--report", dir / "e.json", "--instrument", "every-block"});
    EXPECT_EQ(quiet.status, c.status) << c.args[0] << ": " << quiet.err;
    EXPECT_EQ(every.status, c.status) << c.args[0] << ": " << every.err;
    const nlohmann::json q = nlohmann::json::parse(ReadFileOrEmpty(dir / "q.json"));
    const nlohmann::json e = nlohmann::json::parse(ReadFileOrEmpty(dir / "e.json"));
    EXPECT_EQ(q["instrument"], "observing");
    EXPECT_EQ(e["instrument"], "every-block");
    auto kinds = [](const nlohmann::json &report) {
      std::multiset<std::string> k;
      for (const auto &f : report["findings"])
        k.insert(f["kind"].get<std::string>());
      return k;
    };
    EXPECT_EQ(kinds(q), kinds(e)) << c.args[0];
    EXPECT_EQ(q["stale_fetches"].get<uint64_t>() > 0, e["stale_fetches"].get<uint64_t>() > 0)
        << c.args[0];
    EXPECT_EQ(q["crash"].is_null(), e["crash"].is_null()) << c.args[0];
    EXPECT_GT(q["insns"].get<uint64_t>(), 0u) << c.args[0];
    EXPECT_LT(q["insns"].get<uint64_t>(), e["insns"].get<uint64_t>()) << c.args[0];
  }
  ProcessResult bad = Emu("exynos8890.conf", {"exit", "0"}, {"--instrument", "some"});
  EXPECT_EQ(bad.status, 2) << bad.err;
  EXPECT_NE(bad.err.find("expected observing or every-block, got 'some'"), std::string::npos)
      << bad.err;
}

// A program whose first block is quiet (a load, nothing the SoC shows) and
// faults there: the first block is on the clock, so the run is the
// program's death by its signal, never "the guest never ran" (status 7).
TEST(RunnerEndToEnd, AGuestThatDiesInItsFirstQuietBlockRan)
{
  TempDir dir;
  const std::string source = dir / "first.S", program = dir / "first";
  {
    std::ofstream out(source);
    out << ".globl _start\n_start:\n  mov x0, #0\n  add x1, x0, #8\n  ldr x2, [x1]\n  udf #0\n";
  }
  ASSERT_EQ(
      RunProcess({JITFLUSH_AARCH64_BINUTILS "gcc", "-nostdlib", "-static", "-o", program, source})
          .status,
      0);
  ProcessResult r = RunProcess({kRunner, "--config", kConfigs + "/exynos8890.conf", "--report",
                                dir / "r.json", "--", program});
  EXPECT_EQ(r.status, 128 + SIGSEGV) << r.err;
  EXPECT_NE(r.err.find("\n==jitflush-emu== the program died of signal 11 (Segmentation fault)\n"),
            std::string::npos)
      << r.err;
  const nlohmann::json report = nlohmann::json::parse(ReadFileOrEmpty(dir / "r.json"));
  EXPECT_EQ(report["insns"], 4) << report.dump(); // the block: mov, add, ldr, udf
}

TEST(RunnerEndToEnd, FlushedCodeRunsClean)
{
  ProcessResult r = Emu("apple-m1.conf", {"jit-flush"});
  EXPECT_EQ(r.status, 42) << r.err;
  EXPECT_EQ(r.LastErrLine().rfind("jitflush-emu: stale_fetches=0 ", 0), 0u) << r.err;
}

// The guest's MODE (remap-churn, shm-churn) maps and drops its code 3,000
// times: it prints OUT, no fetch is stale, and the model's page records
// stay bounded.
void ExpectChurnKeepsRecordsBounded(const char *mode, const std::string &out)
{
  TempDir dir;
  ProcessResult r = Emu("exynos8890.conf", {mode, "3000"}, {"--report", dir / "r.json"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, out);
  EXPECT_EQ(r.LastErrLine().rfind("jitflush-emu: stale_fetches=0 ", 0), 0u) << r.err;
  const nlohmann::json report = nlohmann::json::parse(ReadFileOrEmpty(dir / "r.json"));
  ASSERT_TRUE(report.contains("model_pages_peak")) << report.dump();
  EXPECT_GT(report["model_pages_peak"].get<int>(), 0);
  EXPECT_LT(report["model_pages_peak"].get<int>(), 100) << report.dump();
}

// A JIT that maps its code at a new address each time grew the
// rig by gigabytes, one model page record per page ever mapped; the model
// now forgets unmapped memory (munmap, MAP_FIXED over old pages, mremap).
// 3,000 mappings held at most 22 records here; before, one per mapping.
TEST(RunnerEndToEnd, MapUnmapChurnKeepsTheModelsPageRecordsBounded)
{
  ExpectChurnKeepsRecordsBounded("remap-churn", "remapped: 3000 wrong: 0\n");
}

// The same while another thread waits in read() all along: records of
// unmapped pages are freed once no thread can still hold one, and a thread
// in a syscall holds none, so the waiter does not keep them alive.
TEST(RunnerEndToEnd, MapUnmapChurnFreesRecordsWhileAThreadWaitsInASyscall)
{
  TempDir dir;
  ProcessResult r =
      Emu("exynos8890.conf", {"remap-churn", "3000", "waiter"}, {"--report", dir / "r.json"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "remapped: 3000 wrong: 0\n");
  const nlohmann::json report = nlohmann::json::parse(ReadFileOrEmpty(dir / "r.json"));
  EXPECT_LT(report["model_pages_peak"].get<int>(), 100) << report.dump();
}

// PHP's opcache JIT, whose buffer is shared anonymous memory flipped
// between RW and RX, showed fetch_checks=0, which looked as if shared
// memory went unchecked. It is checked like private memory (the PHP runs
// had no JIT code: see tests/realjit/php_check.sh). The same pattern,
// unflushed and flushed. Unflushed, the buffer's page is a new shmem page
// stored to and then made executable by its first mprotect, which syncs it
// on Linux (docs/COHERENCE-MODEL.md, "What Linux does for you"): fresh,
// with a note; stale without the kernel's help.
TEST(RunnerEndToEnd, CodeInSharedAnonymousMemoryIsChecked)
{
  TempDir dir;
  ProcessResult r = Emu("exynos8890.conf", {"jit-shared"}, {"--report", dir / "r.json"});
  EXPECT_EQ(r.status, 42) << r.err;
  EXPECT_EQ(r.LastErrLine().rfind("jitflush-emu: stale_fetches=0 fetch_checks=2 ", 0), 0u) << r.err;
  nlohmann::json report = nlohmann::json::parse(ReadFileOrEmpty(dir / "r.json"));
  EXPECT_EQ(report["kernel_sync_notes"].size(), 1u) << report.dump();
  r = Emu("exynos8890.conf", {"jit-shared"},
          {"--report", dir / "r.json", "--exec-map-sync", "none"});
  EXPECT_EQ(r.status, 86) << r.err;
  EXPECT_EQ(r.LastErrLine().rfind("jitflush-emu: stale_fetches=2 fetch_checks=2 ", 0), 0u) << r.err;
  report = nlohmann::json::parse(ReadFileOrEmpty(dir / "r.json"));
  ASSERT_EQ(report["findings"].size(), 1u) << report.dump();
  EXPECT_EQ(report["findings"][0]["kind"], "kernel-sync-assumed");
  r = Emu("exynos8890.conf", {"jit-shared-flush"});
  EXPECT_EQ(r.status, 42) << r.err;
  EXPECT_EQ(r.LastErrLine().rfind("jitflush-emu: stale_fetches=0 fetch_checks=2 ", 0), 0u) << r.err;
}

// Memory released without munmap kept its records, so code the
// kernel put there afterwards was judged by a store the program made to
// the old contents. Each mode stores "return 7" without a flush, releases
// the page (MADV_DONTNEED on private memory, a brk shrink, shmdt), gets
// the same address back holding "return 42" placed by the kernel, and
// calls it: fresh. Before, each of them was reported stale (86). In
// dontneed-file-ran the old code was flushed and run before the madvise:
// QEMU kept its translation and ran "return 7" (plain QEMU still does),
// where Linux maps the file's page again; the rig makes QEMU translate it
// anew.
TEST(RunnerEndToEnd, MemoryReleasedWithoutMunmapStartsAfresh)
{
  for (const char *mode : {"dontneed", "dontneed-file", "dontneed-file-ran", "brk", "shmdt"}) {
    TempDir dir;
    ProcessResult r = Emu("exynos8890.conf", {"release", mode}, {"--report", dir / "r.json"});
    EXPECT_EQ(r.status, 42) << mode << "\n" << r.err;
    EXPECT_EQ(r.LastErrLine().rfind("jitflush-emu: stale_fetches=0 ", 0), 0u) << mode << "\n"
                                                                              << r.err;
    EXPECT_EQ(nlohmann::json::parse(ReadFileOrEmpty(dir / "r.json"))["findings"].size(), 0u)
        << mode;
  }
}

// The other side: memory that keeps its bytes keeps its records. Shared
// memory after MADV_DONTNEED maps the same page again; MADV_FREE and
// MADV_REMOVE change nothing under QEMU 10.2 (it returns 0 without telling
// the host); mremap moves the page with its cache state, and the kernel's
// move does no maintenance. The unflushed "return 7" is stale in each
// (mremap was judged fresh before, as if the page were new); flushed
// before the move, it is fresh.
TEST(RunnerEndToEnd, MemoryThatKeepsItsBytesKeepsItsStaleStore)
{
  for (const char *mode : {"dontneed-shared", "free", "remove", "mremap"}) {
    TempDir dir;
    ProcessResult r = Emu("exynos8890.conf", {"release", mode}, {"--report", dir / "r.json"});
    EXPECT_EQ(r.status, 86) << mode << "\n" << r.err;
    const nlohmann::json report = nlohmann::json::parse(ReadFileOrEmpty(dir / "r.json"));
    ASSERT_EQ(report["findings"].size(), 1u) << mode << "\n" << report.dump();
    EXPECT_EQ(report["findings"][0]["kind"], "not-cleaned") << mode;
    EXPECT_EQ(report["findings"][0]["words"], 2) << mode;
  }
  ProcessResult r = Emu("exynos8890.conf", {"release", "mremap-flushed"});
  EXPECT_EQ(r.status, 7) << r.err;
  EXPECT_EQ(r.LastErrLine().rfind("jitflush-emu: stale_fetches=0 fetch_checks=2 ", 0), 0u) << r.err;
}

// System V segments attached at a new address each time: a detached
// segment's records are freed like an unmapped page's (the peak was 3,022
// before the rig saw shmdt).
TEST(RunnerEndToEnd, ShmAttachDetachChurnKeepsTheModelsPageRecordsBounded)
{
  ExpectChurnKeepsRecordsBounded("shm-churn", "attached: 3000 wrong: 0\n");
}

// A program that execs another AArch64 program got "Exec format
// error" from the host kernel (QEMU user mode passes execve on), and the
// run still ended with an ordinary summary line. With --no-follow-exec it
// ends with status 8 and a line naming the program, never a summary.
TEST(RunnerEndToEnd, ExecOfAnAarch64ProgramExits8AndNamesIt)
{
  ProcessResult r = Emu("exynos8890.conf", {"exec", kGuest, "exit", "3"}, {"--no-follow-exec"});
  EXPECT_EQ(r.status, 8) << r.err;
  EXPECT_EQ(r.LastErrLine(),
            "jitflush-emu: the program executed " + kGuest +
                ", an AArch64 program that QEMU user mode cannot run under the rig (it fails with "
                "\"Exec format error\", or binfmt_misc starts it outside the rig): what it did was "
                "not checked")
      << r.err;
  EXPECT_EQ(r.err.find("stale_fetches="), std::string::npos) << r.err;
}

// The same from a forked child (posix_spawn, system()): the child's exec
// is what went unchecked.
TEST(RunnerEndToEnd, AChildsExecOfAnAarch64ProgramExits8)
{
  ProcessResult r = Emu("exynos8890.conf", {"spawn", kGuest, "exit", "3"}, {"--no-follow-exec"});
  EXPECT_EQ(r.status, 8) << r.err;
  EXPECT_NE(r.LastErrLine().find("executed " + kGuest + ", an AArch64 program"), std::string::npos)
      << r.err;
}

// By default an exec'd AArch64 program is followed (it stopped the run with
// status 8): it runs on the rig with the run's options, its status is the
// run's, and its stale fetch is in the run's stderr, report and SARIF log,
// naming its process as executed by the one that called exec.
TEST(RunnerEndToEnd, AnExecdProgramRunsOnTheRigAndItsFindingsJoinTheReport)
{
  TempDir dir;
  ProcessResult r = Emu("exynos8890.conf", {"exec", kGuest, "exit", "3"});
  EXPECT_EQ(r.status, 3) << r.err;
  EXPECT_EQ(r.LastErrLine().rfind("jitflush-emu: stale_fetches=0 ", 0), 0u) << r.err;

  r = Emu("exynos8890.conf", {"exec", kGuest, "jit"},
          {"--report", dir / "r.json", "--sarif", dir / "f.sarif"});
  EXPECT_EQ(r.status, 86) << r.err;
  EXPECT_NE(r.err.find("jitflush-emu: in process "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(" (executed by "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("SUMMARY: jitflush-emu: 1 finding"), std::string::npos) << r.err;
  EXPECT_EQ(r.LastErrLine().rfind("jitflush-emu: stale_fetches=", 0), 0u) << r.err;
  EXPECT_NE(r.LastErrLine().find(" findings=1"), std::string::npos) << r.err;
  const nlohmann::json report = nlohmann::json::parse(ReadFileOrEmpty(dir / "r.json"));
  ASSERT_EQ(report["findings"].size(), 1u) << report.dump();
  EXPECT_EQ(report["findings"][0]["kind"], "not-cleaned") << report.dump();
  EXPECT_EQ(report["processes"].size(), 2u) << report.dump();
  EXPECT_NE(ReadFileOrEmpty(dir / "f.sarif").find("\"ruleId\""), std::string::npos);

  // From a forked child too: the child's exec is followed, and its status
  // reaches the parent that waits for it.
  r = Emu("exynos8890.conf", {"spawn", kGuest, "exit", "3"});
  EXPECT_EQ(r.status, 3) << r.err;
  EXPECT_EQ(r.LastErrLine().rfind("jitflush-emu: stale_fetches=0 ", 0), 0u) << r.err;
}

// A child that execs a host program (a shell, as system() does) runs
// nothing the rig could check: the run ends as usual.
TEST(RunnerEndToEnd, AChildsExecOfAHostProgramEndsWithTheSummary)
{
  ProcessResult r = Emu("exynos8890.conf", {"spawn", "/bin/sh", "-c", "exit 4"});
  EXPECT_EQ(r.status, 4) << r.err;
  EXPECT_EQ(r.LastErrLine().rfind("jitflush-emu: stale_fetches=0 ", 0), 0u) << r.err;
}

// A forked child that ran unflushed code was not checked
// (stale_fetches=0). The child runs under its copy of the model, with the
// parent's cache state at the fork (here: code written, never cleaned), and
// its findings reach the one report, each naming its process.
TEST(RunnerEndToEnd, AForkedChildsStaleFetchReachesTheReportNamingItsProcess)
{
  TempDir dir;
  ProcessResult r = Emu("exynos8890.conf", {"fork-jit"}, {"--report", dir / "r.json"});
  EXPECT_EQ(r.status, 86) << r.err;
  ASSERT_EQ(r.out.rfind("child ", 0), 0u) << r.out;
  const int child = std::stoi(r.out.substr(6));
  EXPECT_EQ(r.out, "child " + std::to_string(child) + " status 42\n");
  EXPECT_NE(r.err.find("jitflush-emu: in process " + std::to_string(child) + " (forked by "),
            std::string::npos)
      << r.err;
  EXPECT_EQ(r.LastErrLine().rfind("jitflush-emu: stale_fetches=2 ", 0), 0u) << r.err;
  EXPECT_NE(r.LastErrLine().find(" findings=1"), std::string::npos) << r.err;
  const nlohmann::json report = nlohmann::json::parse(ReadFileOrEmpty(dir / "r.json"));
  ASSERT_EQ(report["findings"].size(), 1u) << report.dump();
  EXPECT_EQ(report["findings"][0]["kind"], "not-cleaned");
  EXPECT_EQ(report["findings"][0]["process"], child);
  EXPECT_EQ(report["stale_fetches"], 2);
  ASSERT_EQ(report["processes"].size(), 2u) << report.dump();
  EXPECT_EQ(report["processes"][1]["pid"], child);
  EXPECT_EQ(report["processes"][1]["parent"], report["processes"][0]["pid"]);
}

// The forked child's finding reached the JSON report but not the
// SARIF log, which held the first process's results only (none here).
TEST(RunnerEndToEnd, AForkedChildsFindingReachesTheSarifLogNamingItsProcess)
{
  TempDir dir;
  ProcessResult r = Emu("exynos8890.conf", {"fork-jit"},
                        {"--report", dir / "r.json", "--sarif", dir / "r.sarif"});
  EXPECT_EQ(r.status, 86) << r.err;
  ASSERT_EQ(r.out.rfind("child ", 0), 0u) << r.out;
  const int child = std::stoi(r.out.substr(6));
  const nlohmann::json report = nlohmann::json::parse(ReadFileOrEmpty(dir / "r.json"));
  const nlohmann::json sarif = nlohmann::json::parse(ReadFileOrEmpty(dir / "r.sarif"));
  ASSERT_EQ(sarif["runs"].size(), 1u);
  const nlohmann::json &results = sarif["runs"][0]["results"];
  ASSERT_EQ(results.size(), 1u) << sarif.dump();
  EXPECT_EQ(results[0]["ruleId"], "not-cleaned");
  EXPECT_EQ(results[0]["properties"]["process"], child);
  EXPECT_EQ(results[0]["properties"]["parent"], report["processes"][0]["pid"]);
  EXPECT_EQ(results[0]["properties"]["count"], 2);
  EXPECT_EQ(results[0]["message"]["text"],
            report["findings"][0]["message"].get<std::string>() + " (in process " +
                std::to_string(child) + ", forked by " +
                std::to_string(report["processes"][0]["pid"].get<int>()) + ")");
  // The one log: the child's own file stays in the scratch folder.
  EXPECT_EQ(ReadFileOrEmpty(dir / ("process-" + std::to_string(child) + ".sarif")), "");
}

// The control: flushed before the fork, the child inherits clean caches.
TEST(RunnerEndToEnd, AForkedChildInheritsTheParentsFlush)
{
  ProcessResult r = Emu("exynos8890.conf", {"fork-jit-flushed"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.LastErrLine().rfind("jitflush-emu: stale_fetches=0 ", 0), 0u) << r.err;
  EXPECT_NE(r.LastErrLine().find(" fetch_checks=4 "), std::string::npos) << r.err;
}

// QEMU kept its translation of the RX view of double-mapped code
// when the program wrote through the RW view and made the code visible
// correctly, so a W^X program that rewrote a function in place got the old
// function's result with no finding to explain it: invalidating through
// RW on the PIPT Tegra186, and with no ic at all (DIC) on n1-idc-dic. Now
// QEMU runs the new instruction wherever the model says the fetch is
// fresh: the correct program (ic through RX; through RW where the I-cache
// is PIPT) computes the right results on every shipped SoC.
TEST(RunnerEndToEnd, ACorrectWxProgramRewritingInPlaceComputesRightOnEverySoc)
{
  std::vector<std::string> configs;
  for (const auto &e : std::filesystem::directory_iterator(kConfigs))
    if (e.path().extension() == ".conf")
      configs.push_back(e.path().filename());
  ASSERT_GE(configs.size(), 10u);
  std::vector<std::pair<std::string, std::string>> runs;
  for (const auto &c : configs)
    runs.emplace_back(c, "rx");
  runs.emplace_back("tegra186.conf", "rw");   // PIPT: ic through RW is enough
  runs.emplace_back("n1-idc-dic.conf", "rw"); // DIC: no ic at all
  for (const auto &[config, view] : runs) {
    ProcessResult r = Emu(config, {"wx-reuse", "20", view});
    EXPECT_EQ(r.status, 0) << config << " " << view << "\n" << r.out << r.err;
    EXPECT_EQ(r.out, "wx-reuse: 20 wrong: 0\n") << config << " " << view;
    EXPECT_EQ(r.LastErrLine().rfind("jitflush-emu: stale_fetches=0 ", 0), 0u)
        << config << " " << view << "\n"
        << r.err;
  }
}

// The same page mapped RW, RX1 and RX2; the code is cleaned
// through RW, invalidated through RX1 only and run through RX2. A VIPT
// I-cache (both clusters of the Exynos 8890) is indexed by the fetching
// VA, so the invalidate through RX1 never reaches the lines RX2 fetched:
// the guest computes wrong results on the phone, and the rig used to call
// the run clean. On the PIPT Tegra186 the same sequence is correct, and
// QEMU must then run the new code through RX2 (the rig re-writes RX2's
// lines, plugin_alias.c). In both check modes.
TEST(RunnerEndToEnd, AnInvalidateThroughAnotherExecutableViewIsStaleOnlyOnVipt)
{
  for (const std::vector<std::string> &mode :
       {std::vector<std::string>{}, std::vector<std::string>{"--check", "full"}}) {
    const std::string label = mode.empty() ? "default" : "full";
    TempDir dir;
    std::vector<std::string> args = mode;
    args.insert(args.end(), {"--report", dir / "r.json"});
    ProcessResult r = Emu("exynos8890.conf", {"wx-views", "20", "rx1"}, args);
    EXPECT_EQ(r.status, 86) << label << "\n" << r.err;
    EXPECT_EQ(r.out, "wx-views: 20 wrong: 0\n") << label;
    const nlohmann::json report = nlohmann::json::parse(ReadFileOrEmpty(dir / "r.json"));
    ASSERT_FALSE(report["findings"].empty()) << label << " " << report.dump();
    for (const auto &f : report["findings"]) {
      EXPECT_EQ(f["kind"], "invalidated-via-other-exec-view") << label << " " << f.dump();
      EXPECT_EQ(f["line_cache"], "I") << label;
    }
    for (const auto &s : report["stale"]) {
      EXPECT_EQ(s["reason"], "invalidated through another executable view") << label;
    }

    r = Emu("tegra186.conf", {"wx-views", "20", "rx1"}, mode);
    EXPECT_EQ(r.status, 0) << label << "\n" << r.out << r.err;
    EXPECT_EQ(r.out, "wx-views: 20 wrong: 0\n") << label;
    EXPECT_EQ(r.LastErrLine().rfind("jitflush-emu: stale_fetches=0 ", 0), 0u) << label << "\n"
                                                                              << r.err;
  }
}

// The correct programs of the case above: invalidating through the view that runs
// the code, alone or with the other executable view, is clean and computes
// the right results on every shipped SoC, in both check modes on the two
// whose I-caches differ.
TEST(RunnerEndToEnd, InvalidatingThroughTheRunningViewIsCleanOnEverySoc)
{
  std::vector<std::pair<std::string, std::vector<std::string>>> runs;
  for (const auto &e : std::filesystem::directory_iterator(kConfigs))
    if (e.path().extension() == ".conf")
      runs.push_back({e.path().filename(), {}});
  ASSERT_GE(runs.size(), 10u);
  runs.push_back({"exynos8890.conf", {"--check", "full"}});
  runs.push_back({"tegra186.conf", {"--check", "full"}});
  for (const auto &[config, mode] : runs) {
    for (const char *view : {"rx2", "both"}) {
      const std::string label = config + " " + view + (mode.empty() ? "" : " full");
      ProcessResult r = Emu(config, {"wx-views", "20", view}, mode);
      EXPECT_EQ(r.status, 0) << label << "\n" << r.out << r.err;
      EXPECT_EQ(r.out, "wx-views: 20 wrong: 0\n") << label;
      EXPECT_EQ(r.LastErrLine().rfind("jitflush-emu: stale_fetches=0 ", 0), 0u) << label << "\n"
                                                                                << r.err;
    }
  }
}

// PHP 8.2's opcache JIT made QEMU die with "QEMU internal
// SIGSEGV" in some runs with the checker on. The cause: linux-user QEMU
// shared one address space between the guest and itself, the guest's
// /proc/self/maps shows only the guest's mappings, and opcache maps its
// shared memory with MAP_FIXED over a range it sees free, replacing QEMU's
// or the plugin's memory. The guest here does the same just below its
// libraries (4 x 2 GiB); it crashed QEMU in 6 of 6 runs before the runner
// gave the guest an address space of its own (-R).
TEST(RunnerEndToEnd, AGuestMapFixedOverARangeItSeesFreeLeavesTheRigIntact)
{
  ProcessResult r = Emu("exynos8890.conf", {"map-below-libs", "2048"});
  EXPECT_EQ(r.status, 42) << r.err;
  EXPECT_EQ(r.LastErrLine().rfind("jitflush-emu: stale_fetches=0 ", 0), 0u) << r.err;
  EXPECT_EQ(r.err.find("internal SIG"), std::string::npos) << r.err;
}

// "--sysroot sysroot" (relative) used to make QEMU fail with
// "Could not open '/lib/ld-linux-aarch64.so.1'" behind a clean-looking
// summary. The guest is dynamically linked.
TEST(RunnerEndToEnd, RelativeSysrootRunsADynamicProgram)
{
  TempDir dir;
  ASSERT_EQ(mkdir((dir / "sysroot").c_str(), 0755), 0);
  ASSERT_EQ(symlink((kSysroot + "/lib").c_str(), (dir / "sysroot/lib").c_str()), 0);
  ProcessResult r = RunProcess({kRunner, "--config", kConfigs + "/apple-m1.conf", "--sysroot",
                                "sysroot", "--", kGuest, "exit", "42"},
                               {}, 600, dir.path());
  EXPECT_EQ(r.status, 42) << r.err;
  EXPECT_EQ(r.LastErrLine().rfind("jitflush-emu: stale_fetches=0 fetch_checks=", 0), 0u) << r.err;
}

// The same, with every path relative: config, program, sysroot, report.
TEST(RunnerEndToEnd, RelativePathsEverywhere)
{
  TempDir dir;
  ASSERT_EQ(mkdir((dir / "sysroot").c_str(), 0755), 0);
  ASSERT_EQ(symlink((kSysroot + "/lib").c_str(), (dir / "sysroot/lib").c_str()), 0);
  WriteFile(dir / "m1.conf", ReadFileOrEmpty(kConfigs + "/apple-m1.conf"));
  WriteFile(dir / "guest", ReadFileOrEmpty(kGuest));
  ASSERT_EQ(chmod((dir / "guest").c_str(), 0755), 0);
  ProcessResult r = RunProcess({kRunner, "--config", "m1.conf", "--sysroot", "sysroot", "--report",
                                "r.json", "--", "guest", "exit", "3"},
                               {}, 600, dir.path());
  EXPECT_EQ(r.status, 3) << r.err;
  EXPECT_EQ(r.LastErrLine().rfind("jitflush-emu: stale_fetches=0 fetch_checks=", 0), 0u) << r.err;
  EXPECT_NE(ReadFileOrEmpty(dir / "r.json").find("\"config\": \"" + dir.path() + "/m1.conf\""),
            std::string::npos)
      << ReadFileOrEmpty(dir / "r.json");
}

TEST(RunnerEndToEnd, LoaderMissingFromTheSysrootExit6)
{
  TempDir dir;
  ASSERT_EQ(mkdir((dir / "lib").c_str(), 0755), 0);
  ProcessResult r = Emu("apple-m1.conf", {"exit", "0"}, {"--sysroot", dir.path()});
  EXPECT_EQ(r.status, 6) << r.err;
  EXPECT_EQ(r.LastErrLine(), "jitflush-emu: cannot run " + kGuest +
                                 " on the rig: its loader /lib/ld-linux-aarch64.so.1 is not in "
                                 "the sysroot " +
                                 dir.path() + " (no " + dir.path() + "/lib/ld-linux-aarch64.so.1)");
}

#if defined(__x86_64__)
// "The same happens with an x86 binary": the runner itself is one.
TEST(RunnerEndToEnd, AnX86ProgramExit6)
{
  ProcessResult r = RunProcess({kRunner, "--config", kConfigs + "/apple-m1.conf", "--", kRunner});
  EXPECT_EQ(r.status, 6) << r.err;
  EXPECT_EQ(r.LastErrLine(), "jitflush-emu: cannot run " + kRunner +
                                 " on the rig: an ELF program for x86-64, not AArch64");
}
#endif

// A real way to make QEMU give up before the guest's first instruction:
// an ISA model it does not know. Its plugin exit callback still runs.
TEST(RunnerEndToEnd, QemuThatCannotStartTheGuestExit7)
{
  TempDir dir;
  std::string conf = ReadFileOrEmpty(kConfigs + "/exynos8890.conf");
  conf.replace(conf.find("qemu-cpu=cortex-a53"), 19, "qemu-cpu=no-such-cpu");
  WriteFile(dir / "bad-cpu.conf", conf);
  ProcessResult r =
      RunProcess({kRunner, "--config", dir / "bad-cpu.conf", "--", kGuest, "exit", "0"});
  EXPECT_EQ(r.status, 7) << r.err;
  EXPECT_EQ(r.LastErrLine(),
            "jitflush-emu: QEMU exited with status 1 before the program's first instruction: "
            "qemu-aarch64: unable to find CPU model 'no-such-cpu'");
  EXPECT_EQ(r.err.find("stale_fetches="), std::string::npos) << r.err;
}

// The loader is there but is not one: QEMU fails loading it (status 255,
// the failure the issue saw), and the runner says so.
TEST(RunnerEndToEnd, BrokenLoaderExit7)
{
  TempDir dir;
  ASSERT_EQ(mkdir((dir / "lib").c_str(), 0755), 0);
  WriteFile(dir / "lib/ld-linux-aarch64.so.1", "");
  ProcessResult r = Emu("apple-m1.conf", {"exit", "0"}, {"--sysroot", dir.path()});
  EXPECT_EQ(r.status, 7) << r.err;
  EXPECT_EQ(r.LastErrLine(),
            "jitflush-emu: QEMU exited with status 255 before the program's first instruction: "
            "qemu-aarch64: /lib/ld-linux-aarch64.so.1: Incomplete read of file header");
}

// json-glib is loaded only when a JSON document is written or
// read (rig/lazy/lazy_lib.h). Here the parent is asked for no report, so
// the first JSON of the run is the forked child's record, built after the
// fork in the child's own QEMU, and the runner's merge of it: the child's
// stale fetches reach the summary line and the status only if both loaded
// json-glib then.
TEST(RunnerEndToEnd, AForkedChildsRecordIsWrittenAndMergedWithNoReportAsked)
{
  ProcessResult r = Emu("exynos8890.conf", {"fork-jit"});
  EXPECT_EQ(r.status, 86) << r.err;
  ASSERT_EQ(r.out.rfind("child ", 0), 0u) << r.out;
  const int child = std::stoi(r.out.substr(6));
  EXPECT_NE(r.err.find("jitflush-emu: in process " + std::to_string(child) + " (forked by "),
            std::string::npos)
      << r.err;
  EXPECT_EQ(r.LastErrLine().rfind("jitflush-emu: stale_fetches=2 ", 0), 0u) << r.err;
  EXPECT_EQ(r.err.find("cannot load"), std::string::npos) << r.err;
}

// With --sarif alone no JSON report is built, and the SARIF log
// is the run's only JSON; at a signal it is written from the plugin's
// control thread while the guest still runs, the first use of json-glib
// in that process.
TEST(RunnerEndToEnd, ASignalToTheRunnerWritesTheSarifLogAloneWhenNoReportIsAsked)
{
  TempDir dir;
  BackgroundRun run(dir.path(), {"--sarif", dir / "f.sarif"});
  ASSERT_GT(run.guest, 0) << ReadFileOrEmpty(run.err_file);
  ASSERT_EQ(kill(run.runner, SIGTERM), 0);
  EXPECT_EQ(run.Wait(), 128 + SIGTERM) << ReadFileOrEmpty(run.err_file);
  const nlohmann::json sarif = nlohmann::json::parse(ReadFileOrEmpty(dir / "f.sarif"));
  ASSERT_EQ(sarif["runs"].size(), 1u) << sarif.dump();
  ASSERT_EQ(sarif["runs"][0]["results"].size(), 1u) << sarif.dump();
  EXPECT_EQ(sarif["runs"][0]["results"][0]["ruleId"], "not-cleaned") << sarif.dump();
  EXPECT_EQ(ReadFileOrEmpty(run.err_file).find("cannot load"), std::string::npos);
}

// Start-up: in a suite store, a process that found nothing and
// forked nothing writes no JSON report and no SARIF log (report-when=
// findings), so it never loads json-glib; its record names the run instead
// (config, SoC, seed, policy), and the merge lists it like the others. A
// stale process, and one that forked (its children's findings are merged
// into its report), still write both.
TEST(RunnerEndToEnd, ACleanProcessAddsOnlyItsRecordToTheStore)
{
  TempDir dir;
  const std::string store = dir / "store";
  EXPECT_EQ(Emu("exynos8890.conf", {"jit-flush"}, {"--store", store, "--seed", "3"}).status, 42);
  EXPECT_EQ(Emu("exynos8890.conf", {"jit"}, {"--store", store}).status, 86);
  EXPECT_EQ(Emu("exynos8890.conf", {"fork-jit-flushed"}, {"--store", store}).status, 0);
  std::vector<nlohmann::json> records;
  int reports = 0, logs = 0;
  for (const auto &entry : std::filesystem::directory_iterator(store)) {
    const std::string name = entry.path().filename();
    reports += name.size() > 5 && name.compare(name.size() - 5, 5, ".json") == 0;
    logs += name.size() > 6 && name.compare(name.size() - 6, 6, ".sarif") == 0;
    if (name.size() > 4 && name.compare(name.size() - 4, 4, ".run") == 0)
      records.push_back(nlohmann::json::parse(ReadFileOrEmpty(entry.path())));
  }
  ASSERT_EQ(records.size(), 3u);
  EXPECT_EQ(reports, 2) << "the stale process and the one that forked";
  EXPECT_EQ(logs, 2);
  const nlohmann::json *clean = nullptr;
  for (const auto &rec : records)
    if (rec["status"] == 42)
      clean = &rec;
  ASSERT_NE(clean, nullptr);
  EXPECT_TRUE((*clean)["report"].is_null()) << clean->dump();
  EXPECT_TRUE((*clean)["sarif"].is_null()) << clean->dump();
  EXPECT_EQ((*clean)["seed"], 3);
  EXPECT_EQ((*clean)["policy"], "adversarial");
  EXPECT_EQ((*clean)["soc"], "Samsung Exynos 8890 (Galaxy S7)");
  EXPECT_EQ((*clean)["config"], kConfigs + "/exynos8890.conf");

  ProcessResult m = RunProcess({kRunner, "--merge", "--report", dir / "suite.json", store});
  ASSERT_EQ(m.status, 86) << m.err;
  const nlohmann::json suite = nlohmann::json::parse(ReadFileOrEmpty(dir / "suite.json"));
  ASSERT_EQ(suite["runs"].size(), 3u) << suite.dump();
  int seeds_named = 0;
  for (const auto &run : suite["runs"]) {
    EXPECT_EQ(run["soc"], "Samsung Exynos 8890 (Galaxy S7)") << run.dump();
    seeds_named += run["seed"].is_number();
    if (run["status"] == 42) {
      EXPECT_EQ(run["seed"], 3);
      EXPECT_EQ(run["stale_fetches"], 0);
      EXPECT_EQ(run["findings"], 0);
    }
  }
  EXPECT_EQ(seeds_named, 3);
  EXPECT_EQ(suite["findings"].size(), 1u);
}

} // namespace
