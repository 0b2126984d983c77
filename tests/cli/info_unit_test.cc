// Unit tests of jitflush-info's pure parts: argument parsing, the verdict,
// the JSON and table renderings and the selftest's code generators. Each
// synthetic machine goes through the library's real policy first
// (machine_builder.h).
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <sys/mman.h>

#include "machine_builder.h"

extern "C" {
#include "info_args.h"
#include "info_codegen.h"
#include "info_facts.h"
#include "info_output.h"
#include "info_verdict.h"
}

using nlohmann::json;
using namespace jfi_test;

namespace
{

// ---- argument parsing ---------------------------------------------------

struct ParseResult {
  bool ok;
  info_args args;
  std::string error;
};

ParseResult Parse(std::vector<std::string> words)
{
  words.insert(words.begin(), "jitflush-info");
  std::vector<char *> argv;
  for (std::string &w : words)
    argv.push_back(w.data());
  argv.push_back(nullptr);
  ParseResult r{};
  char error[256];
  r.ok = info_parse_args((int)words.size(), argv.data(), &r.args, error, sizeof error);
  r.error = error;
  return r;
}

TEST(Args, NoArgumentsIsTheTableReport)
{
  ParseResult r = Parse({});
  ASSERT_TRUE(r.ok);
  EXPECT_EQ(r.args.action, INFO_ACTION_REPORT);
  EXPECT_FALSE(r.args.json);
  EXPECT_FALSE(r.args.selftest);
  EXPECT_EQ(r.args.color, INFO_COLOR_AUTO);
}

TEST(Args, SelftestWithAndWithoutSeconds)
{
  ParseResult bare = Parse({"--selftest"});
  ASSERT_TRUE(bare.ok);
  EXPECT_TRUE(bare.args.selftest);
  EXPECT_DOUBLE_EQ(bare.args.selftest_seconds, INFO_SELFTEST_DEFAULT_SECONDS);

  ParseResult timed = Parse({"--json", "--selftest=0.5"});
  ASSERT_TRUE(timed.ok);
  EXPECT_TRUE(timed.args.json);
  EXPECT_DOUBLE_EQ(timed.args.selftest_seconds, 0.5);
}

TEST(Args, BadSelftestValuesAreUsageErrorsNamingTheArgument)
{
  for (const char *bad :
       {"--selftest=abc", "--selftest=", "--selftest=0", "--selftest=-1", "--selftest=inf",
        "--selftest=1e3", "--selftest=1.2.3", "--selftest=4000"}) {
    ParseResult r = Parse({bad});
    EXPECT_FALSE(r.ok) << bad;
    EXPECT_NE(r.error.find(bad), std::string::npos) << r.error;
  }
}

TEST(Args, UnknownOptionAndStrayArgumentAreNamed)
{
  ParseResult unknown = Parse({"--jsn"});
  EXPECT_FALSE(unknown.ok);
  EXPECT_EQ(unknown.error, "unknown option '--jsn'");
  ParseResult stray = Parse({"cpu0"});
  EXPECT_FALSE(stray.ok);
  EXPECT_EQ(stray.error, "unexpected argument 'cpu0'");
  ParseResult color = Parse({"--color=sometimes"});
  EXPECT_FALSE(color.ok);
  EXPECT_NE(color.error.find("--color=sometimes"), std::string::npos);
}

TEST(Args, HelpWinsOverVersion)
{
  EXPECT_EQ(Parse({"--version", "--help"}).args.action, INFO_ACTION_HELP);
  EXPECT_EQ(Parse({"--version"}).args.action, INFO_ACTION_VERSION);
  EXPECT_EQ(Parse({"--color=never"}).args.color, INFO_COLOR_NEVER);
}

// ---- facts --------------------------------------------------------------

TEST(Facts, CpulistCollapsesRuns)
{
  std::vector<CpuFacts> cpus = Exynos8890();
  cpus[2].observed = cpus[3].observed = cpus[4].observed = cpus[6].observed = false;
  auto info = Build(cpus);
  char out[64];
  EXPECT_STREQ(info_cpulist(info.get(), info_cpu_not_observed, out, sizeof out), "2-4,6");
}

TEST(Facts, ImplementerNamesAndTableLines)
{
  EXPECT_STREQ(info_implementer_name(0x53), "Samsung");
  EXPECT_EQ(info_implementer_name(0x00), nullptr);
  unsigned i = 0, d = 0;
  ASSERT_TRUE(info_midr_table_lines(kM1Midr, &i, &d));
  EXPECT_EQ(i, 128u);
  EXPECT_EQ(d, 64u);
  EXPECT_FALSE(info_midr_table_lines(0x000f0010, &i, &d));
  EXPECT_STREQ(info_l1ip_name(2), "VIPT");
  EXPECT_STREQ(info_l1ip_name(3), "PIPT");
}

// ---- verdict --------------------------------------------------------------

const info_strategy &Strategy(const info_verdict &v, int which)
{
  return v.strategies[which];
}

// jitflush-info's verdict on INFO.
info_verdict VerdictOf(const jitflush_info *info)
{
  info_verdict v;
  info_verdict_compute(info, &v);
  return v;
}

TEST(Verdict, Exynos8890IsHeterogeneousAndBothReadStrategiesAreUnsafe)
{
  auto info = Build(Exynos8890());
  info_verdict v = VerdictOf(info.get());
  EXPECT_EQ(v.kind, INFO_HETEROGENEOUS);
  EXPECT_TRUE(v.stride_safe);
  EXPECT_FALSE(v.kernel_sanitises_ctr);
  EXPECT_EQ(Strategy(v, INFO_STRATEGY_FIRST_CORE).safety, INFO_UNSAFE);
  EXPECT_EQ(Strategy(v, INFO_STRATEGY_PER_CALL).safety, INFO_UNSAFE);
  // 64-byte lines everywhere on the D side and >= 64 on the I side, but no
  // core has IDC: the dc cvau that fixed_64 leaves out is what breaks it here.
  EXPECT_EQ(Strategy(v, INFO_STRATEGY_FIXED_64).safety, INFO_UNSAFE);
  std::string fixed_why = Strategy(v, INFO_STRATEGY_FIXED_64).why;
  EXPECT_NE(fixed_why.find("IDC=0"), std::string::npos) << fixed_why;
  EXPECT_NE(fixed_why.find("dc cvau"), std::string::npos) << fixed_why;
  std::string why = Strategy(v, INFO_STRATEGY_FIRST_CORE).why;
  EXPECT_NE(why.find("CPU 4 (Exynos M1, I-line 128)"), std::string::npos) << why;
  EXPECT_NE(why.find("CPU 0 (Cortex-A53, I-line 64)"), std::string::npos) << why;
  EXPECT_NE(why.find("every other 64-byte line"), std::string::npos) << why;
  EXPECT_NE(std::string(Strategy(v, INFO_STRATEGY_PER_CALL).why).find("migrates"),
            std::string::npos);
}

TEST(Verdict, SanitisingKernelIsDetectedFromTheMidrTable)
{
  // Linux >= 4.9 on the S7: every EL0 read returns the system-wide 0x84448004.
  std::vector<CpuFacts> cpus = Exynos8890();
  for (CpuFacts &c : cpus)
    c.ctr = kA53Ctr;
  auto info = Build(cpus);
  EXPECT_FALSE(info->heterogeneous); // the library sees identical reads
  info_verdict v = VerdictOf(info.get());
  EXPECT_TRUE(v.kernel_sanitises_ctr);
  EXPECT_EQ(v.kind, INFO_HETEROGENEOUS);
  EXPECT_NE(std::string(v.sanitise_why).find("Exynos M1"), std::string::npos) << v.sanitise_why;
  EXPECT_EQ(Strategy(v, INFO_STRATEGY_FIRST_CORE).safety, INFO_SAFE);
  EXPECT_NE(std::string(Strategy(v, INFO_STRATEGY_FIRST_CORE).why).find("this kernel only"),
            std::string::npos);
}

TEST(Verdict, SanitisingKernelIsDetectedFromSysfsWhenTheMidrIsUnknown)
{
  std::vector<CpuFacts> cpus = Exynos8890();
  for (CpuFacts &c : cpus) {
    c.ctr = kA53Ctr;
    c.midr = 0; // no HWCAP_CPUID and no sysfs MIDR
  }
  auto info = Build(cpus);
  info_verdict v = VerdictOf(info.get());
  EXPECT_TRUE(v.kernel_sanitises_ctr);
  EXPECT_NE(std::string(v.sanitise_why).find("sysfs"), std::string::npos) << v.sanitise_why;
}

TEST(Verdict, SameCoreEverywhereIsNotSanitising)
{
  std::vector<CpuFacts> cpus;
  for (int i = 0; i < 4; i++)
    cpus.push_back(A53(i));
  auto info = Build(cpus);
  info_verdict v = VerdictOf(info.get());
  EXPECT_EQ(v.kind, INFO_HOMOGENEOUS);
  EXPECT_FALSE(v.kernel_sanitises_ctr);
  EXPECT_EQ(Strategy(v, INFO_STRATEGY_FIRST_CORE).safety, INFO_SAFE);
  EXPECT_EQ(Strategy(v, INFO_STRATEGY_PER_CALL).safety, INFO_SAFE);
  // A53 has IDC=0: the clean fixed_64 leaves out is needed even here.
  EXPECT_EQ(Strategy(v, INFO_STRATEGY_FIXED_64).safety, INFO_UNSAFE);
}

TEST(Verdict, HomogeneousIdcDicSystemIsSafeForEveryStrategy)
{
  std::vector<CpuFacts> cpus;
  for (int i = 0; i < 4; i++)
    cpus.push_back(CpuFacts{i, true, true, kN2Ctr, kN2Midr, false, 64, 64});
  auto info = Build(cpus);
  info_verdict v = VerdictOf(info.get());
  EXPECT_EQ(v.kind, INFO_HOMOGENEOUS);
  for (int s = 0; s < INFO_NSTRATEGIES; s++)
    EXPECT_EQ(Strategy(v, s).safety, INFO_SAFE) << Strategy(v, s).key << ": " << Strategy(v, s).why;
}

TEST(Verdict, OfflineBigClusterIsIncompleteAndNamesTheFloor)
{
  // The S7 with CPUs 6-7 hotplugged out: no per-CPU sysfs files, no read.
  std::vector<CpuFacts> cpus = Exynos8890();
  for (int i = 6; i < 8; i++)
    cpus[i] = CpuFacts{i, false, false, 0, 0, false, 0, 0};
  auto info = Build(cpus);
  info_verdict v = VerdictOf(info.get());
  EXPECT_EQ(v.kind, INFO_INCOMPLETE);
  EXPECT_STREQ(v.unseen, "6-7");
  EXPECT_STREQ(v.unseen_offline, "6-7");
  EXPECT_STREQ(v.unseen_online, "");
  EXPECT_TRUE(v.stride_safe); // the floor is safe
  EXPECT_EQ(info->iline, (unsigned)JITFLUSH_FLOOR_LINE);
  // The seen CPUs already disagree: unsafe whatever 6-7 are.
  EXPECT_EQ(Strategy(v, INFO_STRATEGY_FIRST_CORE).safety, INFO_UNSAFE);
  // Nothing is known about 6-7's lines, but the A53s seen lack IDC.
  EXPECT_EQ(Strategy(v, INFO_STRATEGY_FIXED_64).safety, INFO_UNSAFE);
  // All seen CPUs have IDC: only then does the unknown rest matter.
  for (int i = 0; i < 6; i++)
    cpus[i].ctr = kN2Ctr;
  info = Build(cpus);
  v = VerdictOf(info.get());
  EXPECT_EQ(Strategy(v, INFO_STRATEGY_FIXED_64).safety, INFO_UNKNOWN);
}

TEST(Verdict, CpusetHidingCpusIsIncompleteWithOnlineUnseen)
{
  std::vector<CpuFacts> cpus = Exynos8890();
  for (int i = 4; i < 8; i++) {
    cpus[i].observed = false;
    cpus[i].midr_from_sysfs = true;
  }
  auto info = Build(cpus);
  info_verdict v = VerdictOf(info.get());
  EXPECT_EQ(v.kind, INFO_INCOMPLETE);
  EXPECT_STREQ(v.unseen_online, "4-7");
  EXPECT_STREQ(v.unseen_offline, "");
  // Lines of the hidden M1s come from sysfs (128 I) and still count.
  EXPECT_EQ(Strategy(v, INFO_STRATEGY_FIRST_CORE).safety, INFO_UNSAFE);
}

TEST(Verdict, QemuMaxThirtyTwoByteLinesBreakTheFixed64Stride)
{
  std::vector<CpuFacts> cpus;
  for (int i = 0; i < 2; i++)
    cpus.push_back(CpuFacts{i, true, true, kMaxCtr, 0x000f0510, false, 64, 64});
  auto info = Build(cpus);
  info_verdict v = VerdictOf(info.get());
  EXPECT_EQ(v.kind, INFO_HOMOGENEOUS);
  EXPECT_EQ(Strategy(v, INFO_STRATEGY_FIXED_64).safety, INFO_UNSAFE);
  EXPECT_NE(std::string(Strategy(v, INFO_STRATEGY_FIXED_64).why).find("32-byte"),
            std::string::npos);
}

TEST(Verdict, Tegra186IdcMismatchBreaksTheReadStrategies)
{
  std::vector<CpuFacts> cpus = {
      {0, true, true, kA57Ctr, kA57Midr, false, 64, 64},
      {1, true, true, kDenver2Ctr, kDenver2Midr, false, 64, 64},
      {2, true, true, kDenver2Ctr, kDenver2Midr, false, 64, 64},
      {3, true, true, kA57Ctr, kA57Midr, false, 64, 64},
  };
  auto info = Build(cpus);
  info_verdict v = VerdictOf(info.get());
  EXPECT_EQ(v.kind, INFO_HETEROGENEOUS);
  EXPECT_FALSE(info->idc);
  const info_strategy &first = Strategy(v, INFO_STRATEGY_FIRST_CORE);
  EXPECT_EQ(first.safety, INFO_UNSAFE);
  EXPECT_NE(std::string(first.why).find("IDC=1"), std::string::npos) << first.why;
  EXPECT_NE(std::string(first.why).find("Denver2"), std::string::npos) << first.why;
}

TEST(Verdict, ProbeFailureMeansTheStrideIsNotSafe)
{
  auto info = Build({A53(0)}, true, JITFLUSH_ERR_PROBE);
  info_verdict v = VerdictOf(info.get());
  EXPECT_FALSE(v.stride_safe);
  EXPECT_NE(std::string(v.problem).find("probe"), std::string::npos);
}

TEST(Verdict, GlobalLineAboveACpusLineIsCaught)
{
  // A library bug the CLI must not paper over: a global stride larger than
  // a core's line.
  auto info = Build(Exynos8890());
  info->iline = 128;
  info_verdict v = VerdictOf(info.get());
  EXPECT_FALSE(v.stride_safe);
  EXPECT_NE(std::string(v.problem).find("CPU 0"), std::string::npos) << v.problem;
}

TEST(Verdict, UnreadablePossibleListIsIncompleteEvenWithEveryListedCpuSeen)
{
  auto info = Build({A53(0), A53(1)}, /*possible_known=*/false);
  info_verdict v = VerdictOf(info.get());
  EXPECT_EQ(v.kind, INFO_INCOMPLETE);
  EXPECT_TRUE(v.possible_unknown);
}

TEST(Verdict, TruncatedIncompleteViewDoesNotBlameThePossibleList)
{
  // 300 possible CPUs, 256 listed, all listed ones seen, yet not complete:
  // the unseen CPUs are among the unlisted ones, not an unreadable list.
  std::vector<CpuFacts> cpus;
  for (int i = 0; i < 256; i++)
    cpus.push_back(A53(i));
  auto info = Build(cpus);
  info->truncated = true;
  info->ncpus_possible = 300;
  info->complete = false;
  info_verdict v = VerdictOf(info.get());
  EXPECT_EQ(v.kind, INFO_INCOMPLETE);
  EXPECT_TRUE(v.unlisted_incomplete);
  EXPECT_FALSE(v.possible_unknown);
}

TEST(Verdict, X86IsAPlatformVerdict)
{
  auto info = std::make_unique<jitflush_info>();
  ASSERT_EQ(jitflush_get_info(info.get()), JITFLUSH_OK); // this host's own library
  info_verdict v = VerdictOf(info.get());
#if defined(__x86_64__)
  EXPECT_EQ(v.kind, INFO_PLATFORM);
  EXPECT_STREQ(info->platform, "x86_64");
#endif
  EXPECT_TRUE(v.stride_safe);
}

// ---- JSON -------------------------------------------------------------------

std::string Capture(void (*render)(FILE *, const jitflush_info *, const info_verdict *),
                    const jitflush_info *info)
{
  const info_verdict v = VerdictOf(info);
  char *buf = nullptr;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  render(f, info, &v);
  fclose(f);
  std::string out(buf, len);
  free(buf);
  return out;
}

void RenderJson(FILE *f, const jitflush_info *info, const info_verdict *v)
{
  info_print_json(f, info, v, nullptr);
}
void RenderTable(FILE *f, const jitflush_info *info, const info_verdict *v)
{
  info_print_table(f, info, v, false);
}
void RenderColorTable(FILE *f, const jitflush_info *info, const info_verdict *v)
{
  info_print_table(f, info, v, true);
}

TEST(Json, ContractKeysAndValuesForAnObservedCpu)
{
  auto info = Build(Exynos8890());
  json doc = json::parse(Capture(RenderJson, info.get()));
  ASSERT_EQ(doc["cpus"].size(), 8u);
  const json &cpu4 = doc["cpus"][4];
  // Every key of docs/CLI.md, with the S7's big-core values.
  EXPECT_EQ(cpu4["cpu"], 4);
  EXPECT_EQ(cpu4["online"], true);
  EXPECT_EQ(cpu4["midr"], "0x531f0011");
  EXPECT_EQ(cpu4["core"], "Exynos M1");
  EXPECT_EQ(cpu4["ctr_el0"], "0x84448005");
  EXPECT_EQ(cpu4["iline"], 128);
  EXPECT_EQ(cpu4["dline"], 64);
  EXPECT_EQ(cpu4["idc"], false);
  EXPECT_EQ(cpu4["dic"], false);
  EXPECT_EQ(cpu4["sysfs_l1i_line"], 128);
  EXPECT_EQ(cpu4["sysfs_l1d_line"], 64);
  EXPECT_EQ(cpu4["source"], "ctr_el0");
  const json &g = doc["global"];
  EXPECT_EQ(g["iline"], 64);
  EXPECT_EQ(g["dline"], 64);
  EXPECT_EQ(g["idc"], false);
  EXPECT_EQ(g["dic"], false);
  EXPECT_EQ(g["heterogeneous"], true);
  EXPECT_EQ(g["complete"], true);
  EXPECT_EQ(doc["verdict"]["kind"], "heterogeneous");
  EXPECT_EQ(doc["verdict"]["strategies"]["first_core_cache"]["safety"], "unsafe");
}

TEST(Json, OfflineCpuIsAllNullNeverInvented)
{
  std::vector<CpuFacts> cpus = Exynos8890();
  cpus[7] = CpuFacts{7, false, false, 0, 0, false, 0, 0};
  auto info = Build(cpus);
  json doc = json::parse(Capture(RenderJson, info.get()));
  const json &cpu7 = doc["cpus"][7];
  EXPECT_EQ(cpu7["online"], false);
  for (const char *key : {"midr", "core", "ctr_el0", "iline", "dline", "idc", "dic",
                          "sysfs_l1i_line", "sysfs_l1d_line"})
    EXPECT_TRUE(cpu7[key].is_null()) << key << " = " << cpu7[key];
  // The library flushes with the floor for it, and says so.
  EXPECT_EQ(cpu7["source"], "floor");
  EXPECT_EQ(doc["global"]["iline"], JITFLUSH_FLOOR_LINE);
  EXPECT_EQ(doc["global"]["complete"], false);
}

TEST(Json, UnknownCoreNameIsNullAndBigCtrKeepsAllBits)
{
  std::vector<CpuFacts> cpus = {{0, true, true, kN2Ctr, kN2Midr, false, 64, 64},
                                {1, true, true, kMaxCtr, 0x000f0010, false, 0, 0}};
  auto info = Build(cpus);
  json doc = json::parse(Capture(RenderJson, info.get()));
  EXPECT_EQ(doc["cpus"][0]["ctr_el0"], "0x4b444c004"); // TminLine above bit 31
  EXPECT_EQ(doc["cpus"][0]["idc"], true);
  EXPECT_EQ(doc["cpus"][0]["core"], "Neoverse N2");
  EXPECT_TRUE(doc["cpus"][1]["core"].is_null());
  EXPECT_EQ(doc["cpus"][1]["midr"], "0x000f0010");
  EXPECT_TRUE(doc["cpus"][1]["sysfs_l1i_line"].is_null());
  EXPECT_EQ(doc["global"]["iline"], 32);
}

// ---- table --------------------------------------------------------------------

TEST(Table, OneRowPerCpuWithSourcesAndNoColourWhenAskedNot)
{
  std::vector<CpuFacts> cpus = Exynos8890();
  cpus[7] = CpuFacts{7, false, false, 0, 0, false, 0, 0};
  auto info = Build(cpus);
  std::string out = Capture(RenderTable, info.get());
  EXPECT_EQ(out.find('\033'), std::string::npos);
  EXPECT_NE(out.find("Exynos M1"), std::string::npos);
  EXPECT_NE(out.find("Samsung 0x001 r1p1"), std::string::npos) << out; // MIDR 0x531f0011 decoded
  EXPECT_NE(out.find("0x84448005 c"), std::string::npos);
  EXPECT_NE(out.find("128 c"), std::string::npos);
  EXPECT_NE(out.find("Verdict: incomplete"), std::string::npos);
  EXPECT_NE(out.find("not seen: CPUs 7 (offline)"), std::string::npos) << out;
  // The offline row: no invented numbers, floor tag on the lines.
  size_t row = out.find("\n  7  offline");
  ASSERT_NE(row, std::string::npos) << out;
  std::string line = out.substr(row + 1, out.find('\n', row + 1) - row - 1);
  EXPECT_NE(line.find("unknown"), std::string::npos) << line;
  EXPECT_NE(line.find("- f"), std::string::npos) << line;
  EXPECT_EQ(line.find("64"), std::string::npos) << line;
}

TEST(Table, ColourOnlyWhenAsked)
{
  auto info = Build(Exynos8890());
  EXPECT_NE(Capture(RenderColorTable, info.get()).find("\033[31m"), std::string::npos);
}

// ---- code generators ------------------------------------------------------

TEST(Codegen, A64EncodingsMatchTheArmArm)
{
  // Reference encodings (GNU as for aarch64): movz w0, #0x1234 = 52824680;
  // movk w0, #0xabcd, lsl #16 = 72b579a0; add w0, w0, #0xfff = 113ffc00.
  EXPECT_EQ(info_a64_movz_w0(0x1234), 0x52824680u);
  EXPECT_EQ(info_a64_movk_w0_lsl16(0xabcd), 0x72b579a0u);
  EXPECT_EQ(info_a64_add_w0_imm(0xfff), 0x113ffc00u);
}

// A four-instruction interpreter for exactly what the generator emits, so
// the expected value is checked against the encoded words themselves.
uint32_t Interpret(const uint32_t *code, unsigned n)
{
  uint32_t w0 = 0xdeadbeef;
  for (unsigned i = 0; i < n; i++) {
    uint32_t insn = code[i];
    if ((insn & 0xffe0001f) == 0x52800000)
      w0 = (insn >> 5) & 0xffff;
    else if ((insn & 0xffe0001f) == 0x72a00000)
      w0 = (w0 & 0xffff) | (((insn >> 5) & 0xffff) << 16);
    else if ((insn & 0xffc003ff) == 0x11000000)
      w0 += (insn >> 10) & 0xfff;
    else if (insn == INFO_A64_RET)
      return w0;
    else
      ADD_FAILURE() << "unexpected word " << std::hex << insn;
  }
  ADD_FAILURE() << "no ret";
  return 0;
}

TEST(Codegen, A64FunctionsReturnWhatTheGeneratorPromises)
{
  for (unsigned words : {3u, 4u, 17u, 64u, 202u}) {
    std::vector<uint32_t> code(words + 1, 0);
    uint32_t want = info_codegen_a64(code.data(), words, 0x1234567u * words);
    EXPECT_EQ(code[words - 1], INFO_A64_RET);
    EXPECT_EQ(code[words], 0u) << "wrote past the end";
    EXPECT_EQ(Interpret(code.data(), words), want) << words;
  }
}

#if defined(__x86_64__) && defined(__linux__)
TEST(Codegen, X86FunctionsRunOnThisHost)
{
  void *page =
      mmap(nullptr, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(page, MAP_FAILED);
  for (unsigned ops : {0u, 1u, 50u, 200u}) {
    ASSERT_LE(info_codegen_x86_64_size(ops), 4096u);
    uint32_t want = info_codegen_x86_64(static_cast<uint8_t *>(page), ops, 99 + ops);
    auto fn = reinterpret_cast<uint32_t (*)()>(page);
    EXPECT_EQ(fn(), want) << ops;
  }
  munmap(page, 4096);
}
#endif

} // namespace
