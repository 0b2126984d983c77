// jitflush-emu's own behaviour (rig/runner*.c), checked against a fake
// qemu-aarch64: the command line it builds, the overlay it hands over, the
// summary line and exit statuses, and every input error's status and text.
// The program is a minimal ELF header written by the test: the runner reads
// only the header and the loader's name before QEMU starts.
#include <gtest/gtest.h>

#include <algorithm>

#include <elf.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstddef>
#include <cstring>

#include <filesystem>
#include <iterator>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "run_process.h"
#include "rig_contract.h"
#include "runner_exit_statuses.h"

namespace
{

const std::string kRunner = JITFLUSH_EMU_RUNNER;
// Between the arguments of the plugin's follow= option (rig_contract.h).
const std::string kSep = RIG_FOLLOW_SEPARATOR;
const std::string kConfigs = JITFLUSH_QEMU_CONFIGS_DIR;
const std::string kExynos = kConfigs + "/exynos8890.conf";
const char *const kOptionVariables[] = {"JITFLUSH_EMU_CONFIG",  "JITFLUSH_EMU_SEED",
                                        "JITFLUSH_EMU_POLICY",  "JITFLUSH_EMU_CHECK",
                                        "JITFLUSH_EMU_SYSROOT", "JITFLUSH_EMU_SYSFS_ROOT",
                                        "JITFLUSH_EMU_STORE",   "JITFLUSH_EMU_SUMMARY",
                                        "JITFLUSH_EMU_TIMEOUT", "JITFLUSH_EMU_NO_RECORD_ENV"};

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
readlink "$root/sys" > "$FAKE_DIR/sys_link"
cat /proc/$$/environ > "$FAKE_DIR/environ"
pwd > "$FAKE_DIR/pwd"
summary=${opt##*,summary=}
# With FAKE_REPORTS, like the plugin, a report and a SARIF log when asked.
[ -z "$FAKE_REPORTS" ] || case "$opt" in *,report=*) report=${opt##*,report=}; report=${report%%,*}; echo '{"stale_fetches": 0}' > "$report";; esac
[ -z "$FAKE_REPORTS" ] || case "$opt" in *,sarif=*) sarif=${opt##*,sarif=}; sarif=${sarif%%,*}; echo '{"runs": []}' > "$sarif";; esac
ran="stale_fetches=0 fetch_checks=0 migrations=0 ctr_reads=0 dc_ops=0 ic_ops=0 isb=0 insns=5120 benign_stale_fetches=0 findings=0"
# What QEMU 10.2 does when it gives up before the guest's first instruction:
# it prints its reason, and the plugin's exit callback still runs.
never="stale_fetches=0 fetch_checks=0 migrations=0 ctr_reads=0 dc_ops=0 ic_ops=0 isb=0 insns=0 benign_stale_fetches=0 findings=0"
case "$FAKE_MODE" in
  stale) echo "stale_fetches=3 fetch_checks=9 migrations=1 ctr_reads=2 dc_ops=4 ic_ops=5 isb=6 insns=77 benign_stale_fetches=0 findings=0" > "$summary";;
  findings)
    findings=${opt##*,findings=}; findings=${findings%%,*}
    printf '==jitflush-emu== STALE FETCH #1 not-cleaned: 3 stale fetches\nSUMMARY: jitflush-emu: 1 finding, 3 stale fetches\n' > "$findings"
    echo "stale_fetches=3 fetch_checks=9 migrations=1 ctr_reads=2 dc_ops=4 ic_ops=5 isb=6 insns=77 benign_stale_fetches=0 findings=1" > "$summary";;
  exit7) echo "$ran" > "$summary"; echo "guest output" >&2; exit 7;;
  signal) echo "$ran" > "$summary"; kill -SEGV $$;;
  nosummary) exit 0;;
  garbage) echo "stale_fetches=x" > "$summary";;
  noinsns) echo "stale_fetches=0 fetch_checks=0 migrations=0 ctr_reads=0 dc_ops=0 ic_ops=0 isb=0" > "$summary";;
  noguest)
    echo "$never" > "$summary"
    echo "qemu-aarch64: Could not open '/lib/ld-linux-aarch64.so.1': No such file or directory" >&2
    exit 255;;
  noguest2)
    echo "$never" > "$summary"
    printf 'jitflush plugin: a note\n\nqemu-aarch64: first\nqemu-aarch64: second\nqemu-aarch64: third\n' >&2
    exit 1;;
  noguestkill) echo "$never" > "$summary"; kill -KILL $$;;
  noplugin)
    echo "qemu-aarch64: Could not load plugin $opt: undefined symbol: qemu_plugin_foo" >&2
    exit 1;;
  writesys|writesys-L)
    # A guest (as root, here) that writes the CPU list, by -L's path and
    # (writesys, only where the host's folder is hidden) by the host's.
    (echo 0-1 > "$root/sys/devices/system/cpu/possible") 2>/dev/null && echo wrote >> "$FAKE_DIR/writes"
    [ "$FAKE_MODE" = writesys-L ] ||
      { (echo 0-1 > /sys/devices/system/cpu/possible) 2>/dev/null && echo wrote >> "$FAKE_DIR/writes"; }
    echo "$ran" > "$summary";;
  *) echo "$ran" > "$summary";;
esac
exit 0
)";

// A program as far as the runner looks: an ELF header, and a PT_INTERP
// naming INTERP when it is not empty.
struct ElfSpec {
  unsigned char elf_class = ELFCLASS64;
  unsigned char data = ELFDATA2LSB;
  uint16_t type = ET_DYN;
  uint16_t machine = EM_AARCH64;
  std::string interp;
};

void WriteElf(const std::string &path, const ElfSpec &spec, mode_t mode = 0755)
{
  Elf64_Ehdr eh{};
  memcpy(eh.e_ident, ELFMAG, SELFMAG);
  eh.e_ident[EI_CLASS] = spec.elf_class;
  eh.e_ident[EI_DATA] = spec.data;
  eh.e_ident[EI_VERSION] = EV_CURRENT;
  bool big = spec.data == ELFDATA2MSB;
  auto order = [big](uint16_t v) { return big ? static_cast<uint16_t>(v >> 8 | v << 8) : v; };
  eh.e_type = order(spec.type);
  eh.e_machine = order(spec.machine);
  eh.e_version = EV_CURRENT;
  eh.e_ehsize = sizeof eh;
  std::string bytes;
  if (!spec.interp.empty()) {
    eh.e_phoff = sizeof eh;
    eh.e_phentsize = sizeof(Elf64_Phdr);
    eh.e_phnum = 1;
    Elf64_Phdr ph{};
    ph.p_type = PT_INTERP;
    ph.p_offset = sizeof eh + sizeof ph;
    ph.p_filesz = ph.p_memsz = spec.interp.size() + 1;
    bytes.append(reinterpret_cast<const char *>(&eh), sizeof eh);
    bytes.append(reinterpret_cast<const char *>(&ph), sizeof ph);
    bytes.append(spec.interp.c_str(), spec.interp.size() + 1);
  } else {
    bytes.append(reinterpret_cast<const char *>(&eh), sizeof eh);
  }
  WriteFile(path, bytes);
  if (chmod(path.c_str(), mode) != 0)
    throw std::runtime_error("chmod " + path);
}

std::vector<std::string> Lines(const std::string &text)
{
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    out.push_back(line);
  return out;
}

class RunnerTest : public ::testing::Test
{
protected:
  void SetUp() override
  {
    qemu_ = fake_ / "qemu-aarch64";
    WriteFile(qemu_, kFakeQemu);
    ASSERT_EQ(chmod(qemu_.c_str(), 0755), 0);
    plugin_ = fake_ / "jitflush_plugin.so";
    WriteFile(plugin_, "not really a plugin; the fake QEMU never loads it\n");
    prog_ = work_ / "prog";
    WriteElf(prog_, ElfSpec{}); // a static AArch64 program
    env_ = {{"JITFLUSH_QEMU", qemu_}, {"JITFLUSH_PLUGIN", plugin_}, {"FAKE_DIR", fake_.path()},
            {"FAKE_MODE", "ok"},      {"FAKE_NO_PLUGIN", kUnset},   {"FAKE_REPORTS", kUnset}};
    // The variables that stand in for options (docs/RIG.md#environment):
    // unset unless a test sets them, whatever the caller's environment.
    for (const char *v : kOptionVariables)
      env_[v] = kUnset;
    env_["JITFLUSH_EMU_TEST_NAME"] = kUnset;
  }

  ProcessResult Run(std::vector<std::string> args)
  {
    args.insert(args.begin(), kRunner);
    return RunProcess(args, env_);
  }
  // The usual run: the Exynos 8890 config, PROGRAM, and the fake QEMU in
  // FAKE_MODE MODE.
  ProcessResult RunAs(const std::string &mode, const std::string &program = "")
  {
    env_["FAKE_MODE"] = mode;
    return Run({"--config", kExynos, "--", program.empty() ? prog_ : program});
  }
  // PROGRAM is refused before QEMU starts: status 6, saying WHY.
  void ExpectCannotRun(const std::string &program, const std::string &why)
  {
    ProcessResult r = RunAs("ok", program);
    EXPECT_EQ(r.status, 6) << why << "\n" << r.err;
    EXPECT_EQ(r.LastErrLine(), "jitflush-emu: cannot run " + program + " on the rig: " + why);
    EXPECT_TRUE(QemuArgs().empty()) << why << ": QEMU must not run";
  }
  std::vector<std::string> QemuArgs()
  {
    return Lines(ReadFileOrEmpty(fake_ / "args"));
  }
  std::string PluginOption()
  {
    std::vector<std::string> a = QemuArgs();
    for (size_t i = 0; i + 1 < a.size(); i++)
      if (a[i] == "-plugin")
        return a[i + 1];
    return "";
  }

  TempDir fake_;
  TempDir work_;
  std::string qemu_, plugin_, prog_;
  std::map<std::string, std::string> env_;
};

// ---------------------------------------------------------------------------
// The run itself.

TEST_F(RunnerTest, BuildsTheQemuCommandLine)
{
  ProcessResult r = Run({"--config", kExynos, "--", prog_, "x y", "--not-an-option"});
  ASSERT_EQ(r.status, 0) << r.err;
  std::vector<std::string> a = QemuArgs();
  ASSERT_EQ(a.size(), 13u) << ReadFileOrEmpty(fake_ / "args"); // argv[1..]
  EXPECT_EQ(a[0], "-cpu");
  EXPECT_EQ(a[1], "cortex-a53"); // [soc] qemu-cpu
  EXPECT_EQ(a[2], "-L");
  EXPECT_EQ(a[4], "-plugin");
  const std::string tmp = a[3].substr(0, a[3].rfind('/'));
  // No overlay=: the Exynos config has no hotplug events, so its tree never
  // changes and is the shared one (SharesOneSysfsTreeAcrossRuns).
  EXPECT_EQ(a[5],
            plugin_ + ",config=" + kExynos + ",seed=1,reproduce=jitflush-emu --config " + kExynos +
                " --seed 1 --policy adversarial --schedule turns --quantum 20000 -- " + prog_ +
                " 'x y' --not-an-option,unrecorded=the environment and the working folder "
                "(nothing records them without --report FILE; jitflush-emu --reproduce FILE "
                "restores them),cwd=" +
                std::filesystem::current_path().string() + ",control=" + tmp +
                "/control,findings=" + tmp + "/findings,exec=" + tmp + "/exec,checkpoint=" + tmp +
                "/checkpoint,threads=" + tmp + "/threads,follow=" + kRunner + kSep + "--config" +
                kSep + kExynos + kSep + "--seed" + kSep + "1" + kSep + "--qemu" + kSep + qemu_ +
                kSep + "--exec-of" + kSep + tmp + "/,summary=" + tmp + "/summary");
  // The guest's address space apart from QEMU's memory, where QEMU alone
  // places its mappings (docs/RIG.md, "Reproducible runs").
  EXPECT_EQ(a[6], "-R");
  EXPECT_EQ(a[7], "0x10000000000");
  // QEMU's own guest randomness (AT_RANDOM, pointer authentication keys,
  // RNDR) from the run's seed (docs/RIG.md, "Reproducible runs").
  EXPECT_EQ(a[8], "-seed");
  EXPECT_EQ(a[9], "1");
  EXPECT_EQ(a[10], prog_);
  EXPECT_EQ(a[11], "x y");
  EXPECT_EQ(a[12], "--not-an-option");
  // The temporary overlay is gone after the run.
  EXPECT_FALSE(PathExists(a[3]));
}

TEST_F(RunnerTest, PassesSeedAndReport)
{
  std::string report = work_ / "r.json";
  ProcessResult r = Run({"--seed", "0x10", "--report", report, "--config", kExynos, "--", prog_});
  ASSERT_EQ(r.status, 0) << r.err;
  std::string opt = PluginOption();
  EXPECT_NE(opt.find(",seed=16,"), std::string::npos) << opt;
  EXPECT_NE(opt.find(",report=" + report + ","), std::string::npos) << opt;
}

// Without --check the plugin option has no check= at all (the exact
// option string is asserted in BuildsTheQemuCommandLine).
TEST_F(RunnerTest, PassesTheCheckerSwitch)
{
  ProcessResult r = Run({"--check", "off", "--config", kExynos, "--", prog_});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(PluginOption().find(",check=off"), std::string::npos) << PluginOption();
}

TEST_F(RunnerTest, PassesThePolicyAndTheSarifPath)
{
  ProcessResult r =
      Run({"--policy", "random", "--sarif", "out.sarif", "--config", kExynos, "--", prog_});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(PluginOption().find(",policy=random,"), std::string::npos) << PluginOption();
  EXPECT_NE(PluginOption().find(",sarif=/"), std::string::npos)
      << "made absolute: " << PluginOption();
  EXPECT_NE(PluginOption().find("/out.sarif,"), std::string::npos) << PluginOption();
}

TEST_F(RunnerTest, PassesTheSarifRootAsARealPath)
{
  ProcessResult r =
      Run({"--sarif", "out.sarif", "--sarif-root", "/tmp/", "--config", kExynos, "--", prog_});
  ASSERT_EQ(r.status, 0) << r.err;
  char *real = realpath("/tmp", nullptr);
  EXPECT_NE(PluginOption().find(std::string(",sarif-root=") + real + ","), std::string::npos)
      << PluginOption();
  free(real);
}

TEST_F(RunnerTest, PassesTheScheduleAndQuantum)
{
  ProcessResult r =
      Run({"--schedule", "parallel", "--quantum", "500", "--config", kExynos, "--", prog_});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(PluginOption().find(",schedule=parallel,"), std::string::npos) << PluginOption();
  EXPECT_NE(PluginOption().find(",quantum=500,"), std::string::npos) << PluginOption();
  // The schedule is part of the run's reproduction; a parallel run has no
  // turns, so no quantum.
  EXPECT_NE(PluginOption().find(" --schedule parallel -- "), std::string::npos) << PluginOption();
  r = Run({"--quantum", "500", "--config", kExynos, "--", prog_});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(PluginOption().find(" --schedule turns --quantum 500 -- "), std::string::npos)
      << PluginOption();
  r = Run({"--config", kExynos, "--", prog_});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(PluginOption().find("schedule="), std::string::npos) << "turns is the plugin's default";
  // Written out even when not given: a later default cannot change a rerun.
  EXPECT_NE(PluginOption().find(" --schedule turns --quantum 20000 -- "), std::string::npos)
      << PluginOption();
}

TEST_F(RunnerTest, RejectsAnUnknownPolicy)
{
  ProcessResult r = Run({"--policy", "nice", "--config", kExynos, "--", prog_});
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.LastErrLine(), "jitflush-emu: --policy: expected adversarial or random, got 'nice'");
}

TEST_F(RunnerTest, PrintsTheFindingBlocksBeforeTheSummaryLine)
{
  ProcessResult r = RunAs("findings");
  EXPECT_EQ(r.status, 86);
  const std::string block =
      "==jitflush-emu== STALE FETCH #1 not-cleaned: 3 stale fetches\n"
      "SUMMARY: jitflush-emu: 1 finding, 3 stale fetches\n"
      "jitflush-emu: stale_fetches=3 fetch_checks=9 migrations=1 ctr_reads=2 dc_ops=4 "
      "ic_ops=5 findings=1\n";
  EXPECT_NE(r.err.find(block), std::string::npos) << r.err;
}

TEST_F(RunnerTest, OptionValuesMayFollowAnEqualsSign)
{
  ProcessResult r = Run({"--config=" + kExynos, "--seed=99", "--", prog_});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(PluginOption().find(",seed=99,"), std::string::npos) << PluginOption();
}

TEST_F(RunnerTest, DoublesCommasInPluginArguments)
{
  // QEMU's -plugin option is a QemuOpts list: "," separates, ",," is a comma.
  std::string config = work_ / "odd,name.conf";
  WriteFile(config, ReadFileOrEmpty(kExynos));
  ProcessResult r = Run({"--config", config, "--", prog_});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(PluginOption().find(",config=" + work_.path() + "/odd,,name.conf,seed="),
            std::string::npos)
      << PluginOption();
}

TEST_F(RunnerTest, OmitsCpuWhenTheConfigGivesNone)
{
  std::string config = work_ / "plain.conf";
  WriteFile(config, "[cluster a]\ncpus=0-1\nmidr=0x410fd034\nctr=0x84448004\n");
  ProcessResult r = Run({"--config", config, "--", prog_});
  ASSERT_EQ(r.status, 0) << r.err;
  ASSERT_FALSE(QemuArgs().empty());
  EXPECT_EQ(QemuArgs()[0], "-L");
}

// How the fake QEMU ends the run (FAKE_MODE), the runner's status, its
// last line, and what else stderr must hold ("": nothing).
struct Ending {
  const char *mode;
  int status;
  std::string last_line;
  std::string also_in_err;
};

TEST_F(RunnerTest, EachEndingHasItsStatusAndLastLine)
{
  const std::string clean = "jitflush-emu: stale_fetches=0 fetch_checks=0 migrations=0 "
                            "ctr_reads=0 dc_ops=0 ic_ops=0 findings=0";
  const Ending endings[] = {
      // Stale fetches: 86, with the summary last.
      {"stale", 86,
       "jitflush-emu: stale_fetches=3 fetch_checks=9 migrations=1 ctr_reads=2 dc_ops=4 ic_ops=5 "
       "findings=0",
       ""},
      // The program's own status passes through, the summary after it.
      {"exit7", 7, clean, "guest output\n"},
      // No summary, or one without insns (which cannot tell a clean run
      // from one that never started): the plugin failed (5).
      {"nosummary", 5,
       "jitflush-emu: the plugin wrote no usable summary (the file is missing; QEMU exited with "
       "status 0)",
       ""},
      {"noinsns", 5,
       "jitflush-emu: the plugin wrote no usable summary (insns is missing; QEMU "
       "exited with status 0)",
       ""},
      // A guest that never ran: 7 with QEMU's last three lines, or its death.
      {"noguest2", 7,
       "jitflush-emu: QEMU exited with status 1 before the program's first instruction: "
       "qemu-aarch64: first; qemu-aarch64: second; qemu-aarch64: third",
       ""},
      {"noguestkill", 7,
       "jitflush-emu: QEMU was killed by signal 9 before the program's first instruction (QEMU "
       "printed nothing)",
       ""},
  };
  for (const Ending &e : endings) {
    ProcessResult r = RunAs(e.mode);
    EXPECT_EQ(r.status, e.status) << e.mode << "\n" << r.err;
    EXPECT_EQ(r.LastErrLine(), e.last_line) << e.mode;
    EXPECT_NE(r.err.find(e.also_in_err), std::string::npos) << e.mode << "\n" << r.err;
  }
}

TEST_F(RunnerTest, SignalDeathIs128PlusTheSignal)
{
  ProcessResult r = RunAs("signal");
  EXPECT_EQ(r.status, 128 + 11) << r.err;
  EXPECT_EQ(r.LastErrLine().rfind("jitflush-emu: stale_fetches=0 ", 0), 0u) << r.err;
}

// QEMU that could not load the plugin writes no summary: the plugin's
// failure (5), whether or not the guest ran, with QEMU's last line.
TEST_F(RunnerTest, PluginQemuCannotLoadIsAnInternalFailureQuotingQemu)
{
  ProcessResult r = RunAs("noplugin");
  EXPECT_EQ(r.status, 5);
  EXPECT_EQ(r.LastErrLine(),
            "jitflush-emu: the plugin wrote no usable summary (the file is missing; QEMU exited "
            "with status 1); stderr ended with: qemu-aarch64: Could not load plugin " +
                PluginOption() + ": undefined symbol: qemu_plugin_foo");
}

// ---------------------------------------------------------------------------
// A guest that never ran: status 7 with QEMU's words, never a summary.

TEST_F(RunnerTest, QemuEndingBeforeTheGuestExit7WithItsMessage)
{
  ProcessResult r = RunAs("noguest");
  EXPECT_EQ(r.status, 7);
  const std::string said =
      "qemu-aarch64: Could not open '/lib/ld-linux-aarch64.so.1': No such file or directory";
  EXPECT_EQ(r.LastErrLine(),
            "jitflush-emu: QEMU exited with status 255 before the program's first instruction: " +
                said);
  // QEMU's own line still reaches the user as it came, just above.
  EXPECT_NE(r.err.find(said + "\n"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("stale_fetches="), std::string::npos) << r.err;
}

// Passing QEMU's stderr through a pipe must not cut a long output short.
TEST_F(RunnerTest, LongStderrPassesThroughWhole)
{
  std::string fake = ReadFileOrEmpty(qemu_);
  fake.replace(fake.find("  exit7)"), 0,
               "  long) echo \"$ran\" > \"$summary\"; seq 1 100000 >&2; exit 3;;\n");
  WriteFile(qemu_, fake);
  ProcessResult r = RunAs("long");
  EXPECT_EQ(r.status, 3);
  std::string want;
  for (int i = 1; i <= 100000; i++)
    want += std::to_string(i) + "\n";
  EXPECT_EQ(r.err.substr(0, want.size()), want);
  EXPECT_EQ(r.err.substr(want.size()),
            "jitflush-emu: stale_fetches=0 fetch_checks=0 migrations=0 ctr_reads=0 dc_ops=0 "
            "ic_ops=0 findings=0\n");
}

// ---------------------------------------------------------------------------
// A program QEMU cannot run: status 6 before QEMU starts.

struct ProgramCase {
  const char *name;
  ElfSpec spec;
  std::string why;
};

TEST_F(RunnerTest, ProgramsTheRigCannotRunExit6)
{
  const ProgramCase cases[] = {
      {"x86-64",
       {ELFCLASS64, ELFDATA2LSB, ET_DYN, EM_X86_64, "/lib64/ld-linux-x86-64.so.2"},
       "an ELF program for x86-64, not AArch64"},
      {"i386",
       {ELFCLASS32, ELFDATA2LSB, ET_EXEC, EM_386, ""},
       "an ELF program for x86 (i386), not AArch64"},
      {"arm32",
       {ELFCLASS32, ELFDATA2LSB, ET_EXEC, EM_ARM, ""},
       "an ELF program for 32-bit Arm, not AArch64"},
      {"riscv",
       {ELFCLASS64, ELFDATA2LSB, ET_EXEC, EM_RISCV, ""},
       "an ELF program for RISC-V, not AArch64"},
      {"m4711",
       {ELFCLASS64, ELFDATA2LSB, ET_EXEC, 4711, ""},
       "an ELF program for machine 4711, not AArch64"},
      {"ilp32",
       {ELFCLASS32, ELFDATA2LSB, ET_EXEC, EM_AARCH64, ""},
       "a 32-bit (ILP32) AArch64 ELF; qemu-aarch64 runs 64-bit programs"},
      {"be",
       {ELFCLASS64, ELFDATA2MSB, ET_EXEC, EM_AARCH64, ""},
       "a big-endian AArch64 ELF; qemu-aarch64 runs little-endian programs"},
      {"object.o",
       {ELFCLASS64, ELFDATA2LSB, ET_REL, EM_AARCH64, ""},
       "an ELF object file (.o), not a program"},
      {"core",
       {ELFCLASS64, ELFDATA2LSB, ET_CORE, EM_AARCH64, ""},
       "an ELF core dump, not a program"},
  };
  for (const ProgramCase &c : cases) {
    std::string prog = work_ / c.name;
    WriteElf(prog, c.spec);
    ExpectCannotRun(prog, c.why);
  }
}

TEST_F(RunnerTest, NonElfFilesExit6)
{
  const std::pair<std::string, std::string> cases[] = {
      {"#!/bin/sh\nexit 0\n", "a script (#!), not an ELF program; QEMU runs ELF programs only"},
      {"just text\n", "not an ELF program"},
      {"", "not an ELF program"},
      {"\x7f"
       "ELF\x02\x01",
       "a truncated ELF file"},
  };
  for (const auto &[text, why] : cases) {
    std::string prog = work_ / "file";
    WriteFile(prog, text);
    ASSERT_EQ(chmod(prog.c_str(), 0755), 0);
    ExpectCannotRun(prog, why);
  }
}

TEST_F(RunnerTest, NonExecutableProgramExit6)
{
  std::string prog = work_ / "noexec";
  WriteElf(prog, ElfSpec{}, 0644);
  ExpectCannotRun(prog, "not executable (no x permission)");
}

TEST_F(RunnerTest, LoaderMissingFromTheGivenSysrootExit6)
{
  std::string sysroot = work_ / "sysroot";
  ASSERT_EQ(mkdir(sysroot.c_str(), 0755), 0);
  ASSERT_EQ(mkdir((sysroot + "/lib").c_str(), 0755), 0);
  std::string prog = work_ / "dynamic";
  ElfSpec spec;
  spec.interp = "/lib/ld-linux-aarch64.so.1";
  WriteElf(prog, spec);
  ProcessResult r = Run({"--config", kExynos, "--sysroot", sysroot, "--", prog});
  EXPECT_EQ(r.status, 6) << r.err;
  EXPECT_EQ(r.LastErrLine(), "jitflush-emu: cannot run " + prog +
                                 " on the rig: its loader /lib/ld-linux-aarch64.so.1 is not in "
                                 "the sysroot " +
                                 sysroot + " (no " + sysroot + "/lib/ld-linux-aarch64.so.1)");
  EXPECT_TRUE(QemuArgs().empty());

  // With the loader there, the same program starts.
  WriteFile(sysroot + "/lib/ld-linux-aarch64.so.1", "the fake QEMU never reads it\n");
  r = Run({"--config", kExynos, "--sysroot", sysroot, "--", prog});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(ReadFileOrEmpty(fake_ / "lib_link"), sysroot + "/lib\n");
}

TEST_F(RunnerTest, LoaderMissingFromTheDefaultSysrootExit6)
{
  std::string prog = work_ / "dynamic";
  ElfSpec spec;
  spec.interp = "/lib/ld-jitflush-nonexistent.so.1";
  WriteElf(prog, spec);
  ExpectCannotRun(prog, "its loader /lib/ld-jitflush-nonexistent.so.1 is not in the default "
                        "sysroot /usr/aarch64-linux-gnu (no "
                        "/usr/aarch64-linux-gnu/lib/ld-jitflush-nonexistent.so.1); give one with "
                        "--sysroot DIR");
}

// ---------------------------------------------------------------------------
// Every path may be relative to the current folder.

TEST_F(RunnerTest, RelativePathsInEveryOption)
{
  const std::string &dir = work_.path();
  ASSERT_EQ(system(("mkdir -p " + dir + "/phone/sys/devices/system/cpu " + dir + "/sysroot/lib " +
                    dir + "/bin")
                       .c_str()),
            0);
  WriteFile(dir + "/phone/sys/devices/system/cpu/possible", "0-5\n");
  WriteFile(dir + "/sysroot/lib/ld-linux-aarch64.so.1", "the fake QEMU never reads it\n");
  WriteFile(dir + "/soc.conf", ReadFileOrEmpty(kExynos));
  WriteFile(dir + "/bin/qemu", ReadFileOrEmpty(qemu_));
  ASSERT_EQ(chmod((dir + "/bin/qemu").c_str(), 0755), 0);
  ElfSpec spec;
  spec.interp = "/lib/ld-linux-aarch64.so.1";
  WriteElf(dir + "/bin/jit", spec);
  env_["JITFLUSH_QEMU"] = "/nonexistent/qemu-aarch64"; // only --qemu can make it run

  ProcessResult r =
      RunProcess({kRunner, "--config", "soc.conf", "--report", "r.json", "--sysfs-root", "phone",
                  "--sysroot", "sysroot", "--qemu", "bin/qemu", "--", "bin/jit"},
                 env_, 600, dir);
  ASSERT_EQ(r.status, 0) << r.err;
  std::vector<std::string> a = QemuArgs();
  ASSERT_EQ(a.size(), 11u) << ReadFileOrEmpty(fake_ / "args");
  const std::string tmp = a[3].substr(0, a[3].rfind('/'));
  EXPECT_EQ(
      a[5],
      plugin_ + ",config=" + dir + "/soc.conf,seed=1,report=" + dir +
          "/r.json,reproduce=jitflush-emu --config " + dir +
          "/soc.conf --seed 1 --policy adversarial --schedule turns --quantum 20000 --sysroot " +
          dir + "/sysroot --sysfs-root " + dir + "/phone -- " + dir +
          "/bin/jit,rerun=jitflush-emu --reproduce " + dir + "/r.json,cwd=" + dir + ",control=" +
          tmp + "/control,findings=" + tmp + "/findings,exec=" + tmp + "/exec,checkpoint=" + tmp +
          "/checkpoint,threads=" + tmp + "/threads,follow=" + kRunner + kSep + "--config" + kSep +
          dir + "/soc.conf" + kSep + "--seed" + kSep + "1" + kSep + "--sysroot" + kSep + dir +
          "/sysroot" + kSep + "--sysfs-root" + kSep + dir + "/phone" + kSep + "--qemu" + kSep +
          dir + "/bin/qemu" + kSep + "--exec-of" + kSep + tmp + "/,summary=" + tmp + "/summary");
  EXPECT_EQ(a[10], "bin/jit"); // QEMU runs in the same folder
  EXPECT_EQ(ReadFileOrEmpty(fake_ / "overlay_possible"), "0-5\n");
  EXPECT_EQ(ReadFileOrEmpty(fake_ / "lib_link"), dir + "/sysroot/lib\n");

  // A bare name that is a file in the current folder is that file.
  r = RunProcess({kRunner, "--config", "../soc.conf", "--sysroot", "../sysroot", "--qemu", "qemu",
                  "--", "jit"},
                 env_, 600, dir + "/bin");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(ReadFileOrEmpty(fake_ / "lib_link"), dir + "/sysroot/lib\n");
}

TEST_F(RunnerTest, MalformedSummaryIsAnInternalFailure)
{
  ProcessResult r = RunAs("garbage");
  EXPECT_EQ(r.status, 5);
  EXPECT_NE(r.LastErrLine().find("not an unsigned decimal number"), std::string::npos) << r.err;
}

TEST_F(RunnerTest, GeneratedOverlayAndSysrootLink)
{
  ProcessResult r = Run({"--config", kConfigs + "/exynos8890-hotplug.conf", "--sysroot",
                         "/usr/aarch64-linux-gnu", "--", prog_});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(ReadFileOrEmpty(fake_ / "overlay_possible"), "0-7\n");
  EXPECT_EQ(ReadFileOrEmpty(fake_ / "lib_link"), "/usr/aarch64-linux-gnu/lib\n");
}

TEST_F(RunnerTest, HidesTheHostCpuFolder)
{
  ProcessResult r = Run({"--config", kConfigs + "/many-cpus-300.conf", "--", prog_});
  ASSERT_EQ(r.status, 0) << r.err;
  if (r.err.find("cannot hide the host's") != std::string::npos)
    GTEST_SKIP() << "this machine allows neither mount nor user namespaces: " << r.err;
  // QEMU itself (here: the fake) sees the emulated folder, not the host's,
  // so a guest path missing from the overlay cannot fall back to the host.
  EXPECT_EQ(ReadFileOrEmpty(fake_ / "host_possible"), "0-299\n");
}

// The generated tree of a config without hotplug events is written once and
// shared: every run links -L's sys to the same complete tree, named by the
// digest of its content, which outlives the runs (rig_sysfs_cache.c).
TEST_F(RunnerTest, SharesOneSysfsTreeAcrossRuns)
{
  const std::string base = work_ / "tmp";
  ASSERT_EQ(mkdir(base.c_str(), 0755), 0);
  env_["TMPDIR"] = base;
  ProcessResult r = Run({"--config", kExynos, "--", prog_});
  ASSERT_EQ(r.status, 0) << r.err;
  const std::string link = ReadFileOrEmpty(fake_ / "sys_link");
  const std::string prefix = base + "/jitflush-sysfs-" + std::to_string(getuid()) + "-";
  ASSERT_EQ(link.rfind(prefix, 0), 0u) << link;
  EXPECT_EQ(link.size(), prefix.size() + 64 + strlen("/sys\n")) << link; // a SHA-256 in hex
  EXPECT_EQ(ReadFileOrEmpty(fake_ / "overlay_possible"), "0-7\n");
  const std::string tree = link.substr(0, link.size() - 1);
  EXPECT_EQ(ReadFileOrEmpty(tree + "/devices/system/cpu/cpu4/cache/index1/coherency_line_size"),
            "128\n");
  struct stat first;
  ASSERT_EQ(stat(tree.c_str(), &first), 0) << "the tree is gone after the run";

  r = Run({"--config", kExynos, "--seed", "2", "--", prog_});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(ReadFileOrEmpty(fake_ / "sys_link"), link) << "a second tree for the same config";
  struct stat again;
  ASSERT_EQ(stat(tree.c_str(), &again), 0);
  EXPECT_EQ(again.st_ino, first.st_ino) << "the tree was written again";

  // Another config, another tree; only the shared trees stay behind.
  r = Run({"--config", kConfigs + "/apple-m1.conf", "--", prog_});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(ReadFileOrEmpty(fake_ / "sys_link"), link);
  int left = 0;
  for (const auto &e : std::filesystem::directory_iterator(base)) {
    EXPECT_EQ(e.path().string().rfind(prefix, 0), 0u) << e.path() << " left behind";
    left++;
  }
  EXPECT_EQ(left, 2);
}

// A config with hotplug events gets its own tree, which the plugin rewrites
// (overlay=), never the shared one.
TEST_F(RunnerTest, AHotplugConfigGetsItsOwnTree)
{
  ProcessResult r = Run({"--config", kConfigs + "/exynos8890-s7-hotplug.conf", "--", prog_});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(ReadFileOrEmpty(fake_ / "sys_link"), "");
  std::vector<std::string> a = QemuArgs();
  ASSERT_GE(a.size(), 6u);
  EXPECT_NE(a[5].find(",overlay=" + a[3] + "/sys/devices/system/cpu,"), std::string::npos) << a[5];
}

// What the guest may not do to a tree other runs read: write to it, by -L's
// path or by the host's.
TEST_F(RunnerTest, TheGuestCannotWriteTheSharedTree)
{
  const std::string base = work_ / "tmp";
  ASSERT_EQ(mkdir(base.c_str(), 0755), 0);
  env_["TMPDIR"] = base;
  ProcessResult r = RunAs("writesys");
  ASSERT_EQ(r.status, 0) << r.err;
  if (r.err.find("cannot hide the host's") != std::string::npos)
    GTEST_SKIP() << "this machine allows neither mount nor user namespaces: " << r.err;
  EXPECT_EQ(ReadFileOrEmpty(fake_ / "writes"), "");
  const std::string link = ReadFileOrEmpty(fake_ / "sys_link");
  ASSERT_FALSE(link.empty());
  EXPECT_EQ(ReadFileOrEmpty(link.substr(0, link.size() - 1) + "/devices/system/cpu/possible"),
            "0-7\n");
}

// Where the run cannot make the shared tree read-only (no mount namespace:
// here unshare is refused, as a container's seccomp profile does), it
// writes its own tree, as before there was a shared one, and says so.
TEST_F(RunnerTest, WithoutANamespaceTheRunWritesItsOwnTree)
{
  const std::string base = work_ / "tmp";
  ASSERT_EQ(mkdir(base.c_str(), 0755), 0);
  env_["TMPDIR"] = base;
  env_["FAKE_MODE"] = "writesys-L";
  ProcessResult r = RunProcess(
      {JITFLUSH_SECCOMP_RUN, "--deny", "unshare", "--", kRunner, "--config", kExynos, "--", prog_},
      env_);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find("jitflush-emu: warning: cannot hide the host's /sys/devices/system/cpu "
                       "(unshare: "),
            std::string::npos)
      << r.err;
  EXPECT_EQ(ReadFileOrEmpty(fake_ / "sys_link"), "") << "the run used the shared tree";
  EXPECT_EQ(ReadFileOrEmpty(fake_ / "overlay_possible"), "0-7\n");
  // The guest wrote to its own copy only: the shared tree, made by the
  // runner before QEMU started, is as it was.
  EXPECT_EQ(ReadFileOrEmpty(fake_ / "writes"), "wrote\n");
  int shared = 0;
  for (const auto &e : std::filesystem::directory_iterator(base)) {
    shared++;
    EXPECT_EQ(ReadFileOrEmpty(e.path() / "sys/devices/system/cpu/possible"), "0-7\n") << e.path();
  }
  EXPECT_EQ(shared, 1);
}

TEST_F(RunnerTest, ServesAGivenSysfsRoot)
{
  std::string dump = work_ / "phone";
  ASSERT_EQ(system(("mkdir -p " + dump + "/sys/devices/system/cpu").c_str()), 0);
  WriteFile(dump + "/sys/devices/system/cpu/possible", "0-5\n");
  ProcessResult r = Run({"--config", kExynos, "--sysfs-root", dump, "--", prog_});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(ReadFileOrEmpty(fake_ / "overlay_possible"), "0-5\n");
  // The dump itself is untouched by the cleanup.
  EXPECT_EQ(ReadFileOrEmpty(dump + "/sys/devices/system/cpu/possible"), "0-5\n");
}

TEST_F(RunnerTest, QemuComesFromTheOptionBeforeTheEnvironment)
{
  env_["JITFLUSH_QEMU"] = "/nonexistent/qemu";
  ProcessResult r = Run({"--qemu", qemu_, "--config", kExynos, "--", prog_});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_FALSE(QemuArgs().empty());
}

// ---------------------------------------------------------------------------
// Options from the environment (a test runner's emulator setting, binfmt_misc).

TEST_F(RunnerTest, EnvironmentStandsInForEveryOptionTheCommandLineLeavesOut)
{
  env_["JITFLUSH_EMU_CONFIG"] = kExynos;
  env_["JITFLUSH_EMU_SEED"] = "0x7";
  env_["JITFLUSH_EMU_POLICY"] = "random";
  env_["JITFLUSH_EMU_CHECK"] = "off";
  env_["JITFLUSH_EMU_SYSROOT"] = "/usr/aarch64-linux-gnu";
  ProcessResult r = Run({"--", prog_});
  ASSERT_EQ(r.status, 0) << r.err;
  std::string opt = PluginOption();
  EXPECT_NE(opt.find(",config=" + kExynos + ",seed=7,"), std::string::npos) << opt;
  EXPECT_NE(opt.find(",check=off,policy=random,"), std::string::npos) << opt;
  EXPECT_EQ(ReadFileOrEmpty(fake_ / "lib_link"), "/usr/aarch64-linux-gnu/lib\n");
}

TEST_F(RunnerTest, CommandLineWinsOverTheEnvironment)
{
  env_["JITFLUSH_EMU_CONFIG"] = "/nonexistent.conf";
  env_["JITFLUSH_EMU_SEED"] = "7";
  env_["JITFLUSH_EMU_POLICY"] = "bogus";
  ProcessResult r =
      Run({"--config", kExynos, "--seed", "3", "--policy", "adversarial", "--", prog_});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(PluginOption().find(",seed=3,"), std::string::npos) << PluginOption();
  EXPECT_NE(PluginOption().find(",policy=adversarial,"), std::string::npos) << PluginOption();
}

TEST_F(RunnerTest, BadEnvironmentValuesExit2NamingTheVariable)
{
  const std::pair<std::pair<const char *, std::string>, std::string> cases[] = {
      {{"JITFLUSH_EMU_SEED", "x"}, "JITFLUSH_EMU_SEED: not an unsigned number: 'x'"},
      {{"JITFLUSH_EMU_POLICY", "nice"},
       "JITFLUSH_EMU_POLICY: expected adversarial or random, got 'nice'"},
      {{"JITFLUSH_EMU_CHECK", "maybe"},
       "JITFLUSH_EMU_CHECK: expected on, off or full, got 'maybe'"},
      {{"JITFLUSH_EMU_SYSROOT", "/nonexistent"},
       "JITFLUSH_EMU_SYSROOT: sysroot /nonexistent has no lib/ folder"},
      {{"JITFLUSH_EMU_CONFIG", "/nonexistent.conf"},
       "JITFLUSH_EMU_CONFIG: /nonexistent.conf: cannot read: "},
  };
  for (const auto &c : cases) {
    env_["JITFLUSH_EMU_CONFIG"] = kExynos;
    env_[c.first.first] = c.first.second;
    ProcessResult r = Run({"--", prog_});
    EXPECT_EQ(r.status, 2) << c.first.first << "\n" << r.err;
    EXPECT_NE(r.LastErrLine().find("jitflush-emu: " + c.second), std::string::npos)
        << r.LastErrLine();
    EXPECT_TRUE(QemuArgs().empty()) << c.first.first << ": QEMU must not run";
    env_[c.first.first] = kUnset;
  }
}

TEST_F(RunnerTest, WithoutConfigTheBuildsExynos8890IsTheDefault)
{
  env_["JITFLUSH_EMU_CONFIG"] = ""; // empty: unset
  ProcessResult r = Run({"--", prog_});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(PluginOption().find(",config=" + kExynos + ","), std::string::npos) << PluginOption();
  EXPECT_NE(PluginOption().find("reproduce=jitflush-emu --config " + kExynos + " "),
            std::string::npos)
      << PluginOption();
}

// binfmt_misc starts the interpreter as "INTERPRETER PROGRAM ARGS...":
// under the name jitflush-emu-binfmt the runner takes that as
// "-- PROGRAM ARGS...", its options from the environment.
TEST_F(RunnerTest, UnderItsBinfmtNameTheArgumentsAreTheProgram)
{
  std::string link = work_ / "jitflush-emu-binfmt";
  ASSERT_EQ(symlink(kRunner.c_str(), link.c_str()), 0);
  env_["JITFLUSH_EMU_CONFIG"] = kExynos;
  env_["JITFLUSH_EMU_SEED"] = "5";
  ProcessResult r = RunProcess({link, prog_, "--not-an-option", "x"}, env_);
  ASSERT_EQ(r.status, 0) << r.err;
  std::vector<std::string> a = QemuArgs();
  ASSERT_GE(a.size(), 3u);
  EXPECT_EQ(std::vector<std::string>(a.end() - 3, a.end()),
            (std::vector<std::string>{prog_, "--not-an-option", "x"}));
  EXPECT_NE(PluginOption().find(",seed=5,"), std::string::npos) << PluginOption();
}

// In a suite a clean test's stderr must stay its own (scripts compare it);
// a stale one still ends with the blocks and the summary line.
TEST_F(RunnerTest, SummaryStaleLeavesACleanRunsStderrAsTheProgramWroteIt)
{
  env_["FAKE_MODE"] = "exit7"; // writes "guest output" to stderr, exits 7
  ProcessResult r = Run({"--summary", "stale", "--config", kExynos, "--", prog_});
  EXPECT_EQ(r.status, 7);
  EXPECT_EQ(r.err, "guest output\n");
  env_["FAKE_MODE"] = "findings";
  env_["JITFLUSH_EMU_SUMMARY"] = "stale";
  r = Run({"--config", kExynos, "--", prog_});
  EXPECT_EQ(r.status, 86);
  EXPECT_EQ(r.LastErrLine(), "jitflush-emu: stale_fetches=3 fetch_checks=9 migrations=1 "
                             "ctr_reads=2 dc_ops=4 ic_ops=5 findings=1");
  EXPECT_NE(r.err.find("STALE FETCH #1"), std::string::npos) << r.err;
  env_["JITFLUSH_EMU_SUMMARY"] = "sometimes";
  r = Run({"--config", kExynos, "--", prog_});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.LastErrLine().find("JITFLUSH_EMU_SUMMARY: expected always or stale, got 'sometimes'"),
            std::string::npos)
      << r.err;
}

TEST_F(RunnerTest, UnderItsBinfmtNameACleanRunIsSilentUnlessAskedOtherwise)
{
  std::string link = work_ / "jitflush-emu-binfmt";
  ASSERT_EQ(symlink(kRunner.c_str(), link.c_str()), 0);
  env_["JITFLUSH_EMU_CONFIG"] = kExynos;
  ProcessResult r = RunProcess({link, prog_}, env_);
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(r.err, "");
  env_["JITFLUSH_EMU_SUMMARY"] = "always";
  r = RunProcess({link, prog_}, env_);
  EXPECT_EQ(r.LastErrLine().rfind("jitflush-emu: stale_fetches=0 ", 0), 0u) << r.err;
}

// --binfmt-register and --binfmt-unregister, in a user namespace of the
// test's own with a binfmt_misc of its own (Linux >= 6.7), so that the
// host's registrations are never touched: registered, an AArch64 program
// started by a shell runs through the runner (here: into the fake QEMU);
// unregistered, the kernel refuses it again. Each command refuses to do
// twice what it did (status 9).
TEST_F(RunnerTest, BinfmtRegisterAndUnregisterInAPrivateNamespace)
{
  env_["JITFLUSH_EMU_CONFIG"] = kExynos;
  const std::string script =
      "mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc || exit 77\n"
      "R=" +
      kRunner + "; P=" + prog_ +
      "\n"
      "$R --binfmt-register || exit 1\n"
      "$R --binfmt-register 2>/dev/null; [ $? = 9 ] || exit 2\n"
      "\"$P\" from-binfmt || exit 3\n"
      "$R --binfmt-unregister || exit 4\n"
      "$R --binfmt-unregister 2>/dev/null; [ $? = 9 ] || exit 5\n"
      "\"$P\" 2>/dev/null; [ $? = 126 ] || exit 6\n";
  ProcessResult r = RunProcess(
      {"/usr/bin/unshare", "--user", "--map-root-user", "--mount", "/bin/sh", "-c", script}, env_);
  if (r.status == 77 || (r.status == 1 && r.err.find("unshare") != std::string::npos))
    GTEST_SKIP() << "no private binfmt_misc here: " << r.err;
  ASSERT_EQ(r.status, 0) << r.Describe();
  std::vector<std::string> a = QemuArgs();
  ASSERT_GE(a.size(), 2u);
  EXPECT_EQ(std::vector<std::string>(a.end() - 2, a.end()),
            (std::vector<std::string>{prog_, "from-binfmt"}));
}

// --help and docs/RIG.md list every status the runner exits with
// (runner_exit_statuses.def), and the interrupted 128+N: whichever a user
// reads explains the status they got.
TEST_F(RunnerTest, HelpAndRigDocListEveryExitStatus)
{
  ProcessResult r = Run({"--help"});
  const size_t at = r.out.find("\nExit status:\n");
  ASSERT_NE(at, std::string::npos) << r.out;
  const std::string help = r.out.substr(at);
  const std::string rig = ReadFileOrEmpty(std::string(JITFLUSH_DOCS_DIR) + "/RIG.md");
  ASSERT_FALSE(rig.empty());
  const int statuses[] = {
#define RUNNER_EXIT(name, status, text) RUNNER_EXIT_##name,
#define RUNNER_EXIT_OTHER(label, doc_label, text)
#include "runner_exit_statuses.def"
#undef RUNNER_EXIT
#undef RUNNER_EXIT_OTHER
  };
  EXPECT_GE(std::size(statuses), 13u);
  for (int status : statuses) {
    const std::string n = std::to_string(status);
    EXPECT_NE(help.find("\n  " + n + " "), std::string::npos) << n << " missing from --help";
    EXPECT_NE(rig.find("\n| " + n + " |"), std::string::npos) << n << " missing from RIG.md";
  }
  EXPECT_NE(help.find("\n  128+S "), std::string::npos);
  EXPECT_NE(rig.find("\n| `128 + N` |"), std::string::npos);
}

// --reproduce REPORT takes the recorded run's options and nothing the
// environment says (JITFLUSH_EMU_*), gives QEMU exactly the recorded
// environment, in its order, and runs in the recorded folder
// (docs/FINDINGS.md, "Reruns").
TEST_F(RunnerTest, ReproduceGivesQemuTheRecordedOptionsEnvironmentAndFolder)
{
  env_["FAKE_REPORTS"] = "1";
  const std::string folder = work_ / "recorded";
  ASSERT_EQ(mkdir(folder.c_str(), 0755), 0);
  WriteFile(work_ / "r.json", "{\"reproduce\": \"jitflush-emu --config " + kExynos +
                                  " --seed 5 -- " + prog_ + " 'a b'\", \"recorded\": {\"cwd\": \"" +
                                  folder + "\", \"environment\": true, \"unrecorded\": null}}");
  const std::string recorded = "ZZ_FIRST=1\nwith a newline" + std::string(1, '\0') +
                               "FAKE_DIR=" + fake_.path() + '\0' + "FAKE_MODE=ok" + '\0' +
                               "FAKE_REPORTS=1" + '\0' + "JITFLUSH_EMU_SEED=9" + '\0' +
                               "JITFLUSH_PLUGIN=" + plugin_ + '\0';
  WriteFile(work_ / "r.json.env", recorded);
  env_["JITFLUSH_EMU_CHECK"] = "off"; // stands in for nothing in a rerun
  env_["JITFLUSH_EMU_STORE"] = work_ / "store";
  ProcessResult r = RunProcess({kRunner, "--reproduce", "r.json", "--report", "again.json"}, env_,
                               600, work_.path());
  ASSERT_EQ(r.status, 0) << r.Describe();
  std::vector<std::string> a = QemuArgs();
  ASSERT_GE(a.size(), 2u);
  EXPECT_EQ(std::vector<std::string>(a.end() - 2, a.end()),
            (std::vector<std::string>{prog_, "a b"}));
  EXPECT_NE(std::find(a.begin(), a.end(), "5"), a.end()) << "-seed 5";
  EXPECT_EQ(PluginOption().find(",check="), std::string::npos) << PluginOption();
  EXPECT_NE(PluginOption().find(",report=" + work_ / "again.json,"), std::string::npos)
      << "made absolute before the rerun moves to the recorded folder: " << PluginOption();
  EXPECT_NE(PluginOption().find(",cwd=" + folder + ","), std::string::npos) << PluginOption();
  EXPECT_EQ(ReadFileOrEmpty(fake_ / "environ"), recorded);
  EXPECT_EQ(ReadFileOrEmpty(fake_ / "pwd"), folder + "\n");
  EXPECT_FALSE(PathExists(work_ / "store"));
  // The rerun's report records the environment it ran with.
  EXPECT_EQ(ReadFileOrEmpty(work_ / "again.json.env"), recorded);
  EXPECT_NE(
      r.err.find("==jitflush-emu== RERUN of " + work_ / "r.json" + ": no finding, as in the run\n"),
      std::string::npos)
      << r.err;
}

// What a rerun cannot take: options that would change the run, a program,
// a report that records no run; and a variable that is not 1 or 0.
TEST_F(RunnerTest, ReproduceRefusesWhatARerunCannotChangeOrRead)
{
  WriteFile(work_ / "empty.json", "{}");
  WriteFile(work_ / "r.json",
            "{\"reproduce\": \"jitflush-emu --config " + kExynos + " -- " + prog_ + "\"}");
  const struct {
    std::vector<std::string> args;
    std::string says;
  } cases[] = {
      {{"--reproduce"}, "jitflush-emu: --reproduce needs a value: the JSON report of the run"},
      {{"--reproduce", work_ / "none.json"},
       "jitflush-emu: --reproduce: cannot read the report " + work_ / "none.json"},
      {{"--reproduce", work_ / "empty.json"},
       "jitflush-emu: --reproduce: " + work_ / "empty.json" + " records no run"},
      {{"--reproduce", work_ / "r.json", "--seed", "3"},
       "jitflush-emu: --reproduce: '--seed' is not for a rerun to change"},
      {{"--reproduce", work_ / "r.json", "--check=off"},
       "jitflush-emu: --reproduce: '--check=off' is not for a rerun to change"},
      {{"--reproduce", work_ / "r.json", "--", prog_},
       "jitflush-emu: --reproduce runs the recorded program: give no '--' and no program"},
      {{"--reproduce", work_ / "r.json", "--reproduce", work_ / "r.json"},
       "jitflush-emu: --reproduce given twice"},
  };
  for (const auto &c : cases) {
    ProcessResult r = Run(c.args);
    EXPECT_EQ(r.status, 2) << r.Describe();
    EXPECT_EQ(r.LastErrLine().rfind(c.says, 0), 0u) << r.err;
  }
  EXPECT_TRUE(QemuArgs().empty());
  env_["JITFLUSH_EMU_NO_RECORD_ENV"] = "yes";
  ProcessResult r = RunAs("ok");
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.LastErrLine(),
            "jitflush-emu: JITFLUSH_EMU_NO_RECORD_ENV: expected 1 or 0, got 'yes'");
}

TEST_F(RunnerTest, HelpAndRigDocListEveryVariable)
{
  ProcessResult r = Run({"--help"});
  std::string rig = ReadFileOrEmpty(std::string(JITFLUSH_DOCS_DIR) + "/RIG.md");
  for (const char *v : kOptionVariables) {
    EXPECT_NE(r.out.find(v), std::string::npos) << v << " missing from --help";
    EXPECT_NE(rig.find(std::string("`") + v + "`"), std::string::npos)
        << v << " missing from RIG.md";
  }
}

// ---------------------------------------------------------------------------
// The suite store (--store, JITFLUSH_EMU_STORE).

// The store's entries: name -> content.
std::map<std::string, std::string> StoreFiles(const std::string &dir)
{
  std::map<std::string, std::string> files;
  ProcessResult ls = RunProcess({"/bin/ls", "-A", dir});
  for (const std::string &name : Lines(ls.out))
    files[name] = ReadFileOrEmpty(dir + "/" + name);
  return files;
}

TEST_F(RunnerTest, EachProcessAddsOneCompleteEntryToTheStore)
{
  env_["FAKE_REPORTS"] = "1";
  std::string store = work_ / "suite/store"; // created, parents too
  env_["JITFLUSH_EMU_STORE"] = store;
  env_["JITFLUSH_EMU_CONFIG"] = kExynos;
  env_["JITFLUSH_EMU_TEST_NAME"] = "jit \"basic\"";
  ASSERT_EQ(Run({"--", prog_, "a b"}).status, 0);
  // The entry's report and SARIF log are the store's alone: the plugin
  // writes them only when it found something (report-when=findings).
  EXPECT_NE(PluginOption().find(",report-when=findings,"), std::string::npos) << PluginOption();
  env_["FAKE_MODE"] = "stale";
  env_["JITFLUSH_EMU_TEST_NAME"] = kUnset;
  ASSERT_EQ(Run({"--seed", "2", "--", prog_}).status, 86);
  std::map<std::string, std::string> files = StoreFiles(store);
  ASSERT_EQ(files.size(), 8u) << "two entries of .run, .json, .json.env and .sarif, no marker left";
  std::vector<std::string> records;
  for (const auto &f : files) {
    const std::string &name = f.first;
    std::string id = name.substr(0, name.find('.'));
    EXPECT_EQ(name.rfind("run-", 0), 0u) << name;
    EXPECT_TRUE(files.count(id + ".run") && files.count(id + ".json") &&
                files.count(id + ".json.env") && files.count(id + ".sarif"))
        << name;
    if (name.size() > 4 && name.compare(name.size() - 4, 4, ".run") == 0)
      records.push_back(f.second);
    // Each report's environment beside it, for its owner alone
    // (docs/FINDINGS.md, "Reruns").
    if (name.size() > 4 && name.compare(name.size() - 4, 4, ".env") == 0) {
      struct stat st;
      ASSERT_EQ(stat((store + "/" + name).c_str(), &st), 0);
      EXPECT_EQ(st.st_mode & 0777, 0600u) << name;
      EXPECT_NE(f.second.find(std::string("JITFLUSH_EMU_STORE=") + store + '\0'),
                std::string::npos);
    }
  }
  ASSERT_EQ(records.size(), 2u);
  std::string clean =
      records[0].find("\"status\": 0") != std::string::npos ? records[0] : records[1];
  std::string stale =
      records[0].find("\"status\": 86") != std::string::npos ? records[0] : records[1];
  EXPECT_NE(clean.find("\"test\": \"jit \\\"basic\\\"\""), std::string::npos) << clean;
  EXPECT_NE(clean.find("\"argv\": [\"" + prog_ + "\", \"a b\"]"), std::string::npos) << clean;
  EXPECT_NE(clean.find("\"ran\": true"), std::string::npos) << clean;
  EXPECT_NE(stale.find("\"status\": 86"), std::string::npos) << stale;
  EXPECT_NE(stale.find("\"test\": null"), std::string::npos) << stale;
  EXPECT_NE(stale.find("--seed 2 "), std::string::npos) << "the rerun command: " << stale;
}

TEST_F(RunnerTest, TheStoreRecordsARunThatNeverStarted)
{
  std::string store = work_ / "store";
  std::string text = work_ / "not-elf";
  WriteFile(text, "#!/bin/sh\n");
  ASSERT_EQ(chmod(text.c_str(), 0755), 0);
  ProcessResult r = Run({"--store", store, "--config", kExynos, "--", text});
  EXPECT_EQ(r.status, 6);
  std::map<std::string, std::string> files = StoreFiles(store);
  ASSERT_EQ(files.size(), 1u);
  const std::string &record = files.begin()->second;
  EXPECT_NE(record.find("\"status\": 6"), std::string::npos) << record;
  EXPECT_NE(record.find("\"ran\": false"), std::string::npos) << record;
  EXPECT_NE(record.find("\"report\": null"), std::string::npos) << record;
}

TEST_F(RunnerTest, TheUsersReportIsCopiedIntoTheStore)
{
  env_["FAKE_REPORTS"] = "1";
  std::string store = work_ / "store";
  std::string report = work_ / "mine.json";
  ASSERT_EQ(Run({"--store", store, "--report", report, "--config", kExynos, "--", prog_}).status,
            0);
  EXPECT_NE(PluginOption().find(",report=" + report + ","), std::string::npos) << PluginOption();
  // The user asked for the report: it is written whatever the run found.
  EXPECT_EQ(PluginOption().find("report-when"), std::string::npos) << PluginOption();
  std::map<std::string, std::string> files = StoreFiles(store);
  int copies = 0;
  for (const auto &f : files)
    copies += f.first.find(".json") != std::string::npos && f.second == ReadFileOrEmpty(report);
  EXPECT_EQ(copies, 1);
}

TEST_F(RunnerTest, AStoreThatCannotBeMadeExit4BeforeRunning)
{
  std::string file = work_ / "a-file";
  WriteFile(file, "");
  env_["JITFLUSH_EMU_STORE"] = file + "/store";
  ProcessResult r = Run({"--config", kExynos, "--", prog_});
  EXPECT_EQ(r.status, 4);
  EXPECT_EQ(r.LastErrLine().rfind("jitflush-emu: cannot use the suite store " + file +
                                      "/store (from JITFLUSH_EMU_STORE): ",
                                  0),
            0u)
      << r.LastErrLine();
  EXPECT_TRUE(QemuArgs().empty());
}

// ---------------------------------------------------------------------------
// Runner errors: status and message.

TEST_F(RunnerTest, HelpListsTheExitStatuses)
{
  ProcessResult r = Run({"--help"});
  EXPECT_EQ(r.status, 0);
  for (const char *line : {"  86   at least one stale", "  2    usage or config error",
                           "  3    QEMU not found", "  4    the --report or --sarif file",
                           "  5    the plugin is missing", "  6    PROGRAM cannot run on the rig",
                           "  7    QEMU ended before the program's first instruction",
                           "  9    --binfmt-*: binfmt_misc could not be set up",
                           "  128+S the runner was interrupted by signal S"})
    EXPECT_NE(r.out.find(line), std::string::npos) << line;
}

struct UsageCase {
  std::vector<std::string> args;
  std::string message;
};

TEST_F(RunnerTest, UsageErrorsExit2)
{
  const UsageCase cases[] = {
      {{}, "missing '--' and the program to run"},
      {{"--config", kExynos}, "missing '--' and the program to run"},
      {{"--config", kExynos, "/bin/true"}, "'/bin/true': put '--' before the program"},
      {{"--config", kExynos, "--"}, "missing the program after '--'"},
      {{"--config"}, "--config needs a value"},
      {{"--config", "--", prog_}, "--config needs a value"},
      {{"--config=", "--", prog_}, "--config needs a value"},
      {{"--config", kExynos, "--config", kExynos, "--", prog_}, "--config given twice"},
      {{"--config", kExynos, "--seed", "abc", "--", prog_},
       "--seed: not an unsigned number: 'abc'"},
      {{"--config", kExynos, "--seed", "-1", "--", prog_}, "--seed: not an unsigned number: '-1'"},
      {{"--config", kExynos, "--seed", "99999999999999999999", "--", prog_},
       "--seed: not an unsigned number"},
      {{"--config", kExynos, "--frobnicate", "--", prog_}, "unknown option '--frobnicate'"},
      {{"--config", kExynos, "--check", "maybe", "--", prog_},
       "--check: expected on, off or full, got 'maybe'"},
      {{"--config", kExynos, "--schedule", "fair", "--", prog_},
       "--schedule: expected turns or parallel, got 'fair'"},
      {{"--config", kExynos, "--quantum", "0", "--", prog_},
       "--quantum: expected a number from 1 to 2^40, got '0'"},
      {{"--config", kExynos, "--quantum", "many", "--", prog_},
       "--quantum: expected a number from 1 to 2^40, got 'many'"},
      {{"--config", kExynos, "--timeout", "0", "--", prog_},
       "--timeout: expected a number of seconds from 0.001 to 604800, got '0'"},
      {{"--config", kExynos, "--timeout", "5s", "--", prog_},
       "--timeout: expected a number of seconds from 0.001 to 604800, got '5s'"},
      {{"--config", kExynos, "--exec-of", "/nonexistent", "--", prog_},
       "--exec-of: not a folder: '/nonexistent'"},
      {{"--config", kExynos, "--", "/nonexistent/prog"}, "program not found: /nonexistent/prog"},
      {{"--config", kExynos, "--sysfs-root", "/nonexistent", "--", prog_},
       "--sysfs-root /nonexistent has no sys/ folder"},
      {{"--config", kExynos, "--sysroot", "/nonexistent", "--", prog_},
       "--sysroot: sysroot /nonexistent has no lib/ folder"},
      {{"--config", "/nonexistent.conf", "--", prog_}, "/nonexistent.conf: cannot read: "},
      {{"--config", kExynos, "--sarif-root", "/tmp", "--", prog_},
       "--sarif-root needs --sarif FILE"},
      {{"--config", kExynos, "--sarif", "o.sarif", "--sarif-root", "/nonexistent", "--", prog_},
       "--sarif-root: not a folder: '/nonexistent'"},
  };
  for (const UsageCase &c : cases) {
    ProcessResult r = Run(c.args);
    std::string shown;
    for (const auto &a : c.args)
      shown += a + " ";
    EXPECT_EQ(r.status, 2) << shown << "\n" << r.err;
    EXPECT_NE(r.LastErrLine().find("jitflush-emu: " + c.message), std::string::npos)
        << shown << "\n"
        << r.err;
    EXPECT_TRUE(QemuArgs().empty()) << shown << ": QEMU must not run";
  }
}

TEST_F(RunnerTest, BadConfigExit2NamingFileLineAndKey)
{
  std::string config = work_ / "bad.conf";
  WriteFile(config, "[soc]\nname=x\n[cluster a]\ncpus=0-1\nmidr=0x410fd034\nctr=0x8444800z\n");
  ProcessResult r = Run({"--config", config, "--", prog_});
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.LastErrLine(), "jitflush-emu: " + config +
                                 ":6: [cluster a] ctr: not a number: '0x8444800z' (decimal or "
                                 "0x hex)");
}

// A config's name (docs/RIG.md#installing-the-rig): a runner in the build
// tree finds NAME.conf among the source tree's qemu-configs/.
TEST_F(RunnerTest, AConfigNameIsItsFileAmongTheConfigs)
{
  ProcessResult r = Run({"--config", "exynos8890", "--", prog_});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(PluginOption().rfind(plugin_ + ",config=" + kExynos + ",", 0), 0u) << PluginOption();
  // And the default config is the same name.
  ProcessResult d = Run({"--", prog_});
  ASSERT_EQ(d.status, 0) << d.err;
  EXPECT_EQ(PluginOption().rfind(plugin_ + ",config=" + kExynos + ",", 0), 0u) << PluginOption();
}

TEST_F(RunnerTest, AnUnknownConfigNameExit2NamingTheConfigs)
{
  ProcessResult r = Run({"--config", "exynos8891", "--", prog_});
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.LastErrLine().rfind("jitflush-emu: no config named 'exynos8891' in " + kConfigs +
                                      " (it holds: a64fx-mixed, apple-m1, ",
                                  0),
            0u)
      << r.err;
  EXPECT_NE(r.LastErrLine().find(", exynos8890, "), std::string::npos) << r.err;
  EXPECT_TRUE(QemuArgs().empty());
  // From the environment, the variable is named.
  env_["JITFLUSH_EMU_CONFIG"] = "nope";
  ProcessResult e = Run({"--", prog_});
  EXPECT_EQ(e.status, 2);
  EXPECT_EQ(
      e.LastErrLine().rfind("jitflush-emu: JITFLUSH_EMU_CONFIG: no config named 'nope' in ", 0), 0u)
      << e.err;
}

// An installed runner (PREFIX/bin/jitflush-emu, as the jitflush-rig package
// lays it out) runs its own plugin and QEMU from PREFIX/lib/jitflush-rig and
// finds a config name in PREFIX/share/jitflush-rig/configs, with no option
// or variable naming them.
TEST_F(RunnerTest, AnInstalledRunnerFindsItsPluginQemuAndConfigsBesideIt)
{
  namespace fs = std::filesystem;
  const fs::path prefix = fs::path(work_.path()) / "usr";
  const fs::path lib = prefix / "lib/jitflush-rig", configs = prefix / "share/jitflush-rig/configs";
  fs::create_directories(prefix / "bin");
  fs::create_directories(lib);
  fs::create_directories(configs);
  fs::copy_file(kRunner, prefix / "bin/jitflush-emu");
  fs::copy_file(qemu_, lib / "qemu-aarch64");
  fs::copy_file(plugin_, lib / "jitflush_plugin.so");
  fs::copy_file(kExynos, configs / "exynos8890.conf");
  env_["JITFLUSH_QEMU"] = kUnset;
  env_["JITFLUSH_PLUGIN"] = kUnset;
  ProcessResult r = RunProcess(
      {(prefix / "bin/jitflush-emu").string(), "--config", "exynos8890", "--", prog_}, env_);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(PluginOption().rfind((lib / "jitflush_plugin.so").string() +
                                     ",config=" + (configs / "exynos8890.conf").string() + ",",
                                 0),
            0u)
      << PluginOption();
  // Its configs, not the source tree's: a name only the source tree has is unknown.
  ProcessResult u = RunProcess(
      {(prefix / "bin/jitflush-emu").string(), "--config", "tegra186", "--", prog_}, env_);
  EXPECT_EQ(u.status, 2);
  EXPECT_EQ(u.LastErrLine(), "jitflush-emu: no config named 'tegra186' in " + configs.string() +
                                 " (it holds: exynos8890); give a config's name or its file (a "
                                 "path with a '/' or ending in .conf)");
}

TEST_F(RunnerTest, MissingQemuExit3)
{
  env_["JITFLUSH_QEMU"] = "/nonexistent/qemu-aarch64";
  ProcessResult r = Run({"--config", kExynos, "--", prog_});
  EXPECT_EQ(r.status, 3);
  EXPECT_EQ(r.LastErrLine(),
            "jitflush-emu: QEMU not found: /nonexistent/qemu-aarch64 (from JITFLUSH_QEMU)");
}

TEST_F(RunnerTest, NonExecutableQemuExit3)
{
  ASSERT_EQ(chmod(qemu_.c_str(), 0644), 0);
  // With no x bit at all, access(X_OK) fails for root too.
  ProcessResult r = Run({"--config", kExynos, "--", prog_});
  EXPECT_EQ(r.status, 3);
  EXPECT_NE(r.LastErrLine().find("QEMU is not executable: " + qemu_), std::string::npos) << r.err;
}

TEST_F(RunnerTest, QemuWithoutPluginSupportExit3)
{
  env_["FAKE_NO_PLUGIN"] = "1";
  ProcessResult r = Run({"--config", kExynos, "--", prog_});
  EXPECT_EQ(r.status, 3);
  EXPECT_NE(r.LastErrLine().find("has no TCG plugin support (-plugin)"), std::string::npos)
      << r.err;
  EXPECT_TRUE(QemuArgs().empty());
}

// Both output files are checked before QEMU starts: an unwritable --sarif
// path found only after the run left no log and still exited 0.
TEST_F(RunnerTest, UnwritableReportOrSarifExit4BeforeRunning)
{
  for (const auto &[option, what] : {std::pair<std::string, std::string>{"--report", "the report"},
                                     {"--sarif", "the SARIF log"}}) {
    ProcessResult r = Run({"--config", kExynos, option, "/nonexistent/dir/out", "--", prog_});
    EXPECT_EQ(r.status, 4) << option;
    EXPECT_EQ(r.LastErrLine(), "jitflush-emu: cannot write " + what +
                                   " /nonexistent/dir/out: No such file or directory");
    EXPECT_TRUE(QemuArgs().empty()) << option;
    r = Run({"--config", kExynos, option, work_.path(), "--", prog_});
    EXPECT_EQ(r.status, 4) << option;
    EXPECT_NE(r.LastErrLine().find("Is a directory"), std::string::npos) << r.err;
  }
}

// A FIFO would be written only at exit, when nothing reads it: refused
// before the run rather than left to block the plugin.
TEST_F(RunnerTest, AFifoAsReportOrSarifIsRefusedBeforeRunning)
{
  const std::string fifo = work_ / "pipe";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0644), 0);
  for (const char *option : {"--report", "--sarif"}) {
    ProcessResult r = Run({"--config", kExynos, option, fifo, "--", prog_});
    EXPECT_EQ(r.status, 4) << option;
    EXPECT_NE(r.LastErrLine().find(fifo + ": it is a FIFO"), std::string::npos) << r.err;
    EXPECT_TRUE(QemuArgs().empty()) << option;
  }
}

TEST_F(RunnerTest, ReportCheckLeavesNoFileBehind)
{
  env_["FAKE_MODE"] = "nosummary"; // the "plugin" writes no report either
  std::string report = work_ / "r.json";
  ProcessResult r = Run({"--config", kExynos, "--report", report, "--", prog_});
  EXPECT_EQ(r.status, 5);
  EXPECT_FALSE(PathExists(report));
}

TEST_F(RunnerTest, MissingPluginExit5)
{
  env_["JITFLUSH_PLUGIN"] = "/nonexistent/jitflush_plugin.so";
  ProcessResult r = Run({"--config", kExynos, "--", prog_});
  EXPECT_EQ(r.status, 5);
  EXPECT_EQ(r.LastErrLine(),
            "jitflush-emu: plugin not found: /nonexistent/jitflush_plugin.so (from "
            "JITFLUSH_PLUGIN)");
  EXPECT_TRUE(QemuArgs().empty());
}

} // namespace
