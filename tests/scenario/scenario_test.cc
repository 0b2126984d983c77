// The emulated big.LITTLE scenarios: jit_stress and checker_selftest (built
// in the aarch64 build) run under jitflush-emu, and each test states what
// the rig must observe. Exit 86 means the plugin saw at least one stale
// instruction fetch (docs/COHERENCE-MODEL.md).
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <initializer_list>
#include <ostream>
#include <stdexcept>
#include <string>
#include <vector>

#include "rig_harness.h"
#include "soc_conf.h"

namespace scenario
{
namespace
{

// Sized so the whole suite stays within a few minutes on 2 cores (one
// jit_stress run takes about a second under the rig) while every run still
// executes hundreds of flushes and, with migrate-every=300, thousands of
// migrations, dozens of them between clusters inside a flush call.
constexpr int kThreads = 4;
constexpr int kIterations = 300;
constexpr uint64_t kSeed = 20160301;

const char *const kAllImpls[] = {
#define SC_IMPL(name, function, safe) name,
#include "flush_impls.def"
#undef SC_IMPL
};

// The plugin's stale reasons (rig/model/model_coherence.c), one per missing
// step of the sequence; a record's reason must contain the phrase.
const std::string kNotCleaned = "not cleaned";
const std::string kNotInvalidated = "not invalidated in this core's geometry";
const std::string kInvalidateNotCompleted = "invalidate not completed";
const std::string kOtherExecView = "invalidated through another executable view";
const std::string kNotSynchronised = "pipeline not synchronised";

SocConf Conf(const std::string &name)
{
  return LoadSocConf(ConfigPath(name));
}

std::vector<std::string> StressArgs(const std::string &impl, int iterations = kIterations,
                                    std::initializer_list<std::string> extra = {})
{
  std::vector<std::string> args = {
      GuestProgram("jit_stress"), "--impl=" + impl, "--threads=" + std::to_string(kThreads),
      "--iterations=" + std::to_string(iterations), "--seed=" + std::to_string(kSeed)};
  args.insert(args.end(), extra.begin(), extra.end());
  return args;
}

std::string Tag(std::string text)
{
  for (char &c : text)
    if (!isalnum(static_cast<unsigned char>(c)))
      c = '_';
  return text;
}

bool ReasonMentions(const nlohmann::json &record, const std::string &phrase)
{
  return record.contains("reason") && record["reason"].is_string() &&
         record["reason"].get<std::string>().find(phrase) != std::string::npos;
}

bool AnyReasonMentions(const RigRun &run, const std::string &phrase)
{
  for (const auto &r : run.report["stale"])
    if (ReasonMentions(r, phrase))
      return true;
  return false;
}

// The number after "key=" in the program's output (its summary line).
uint64_t OutputValue(const RigRun &run, const std::string &key)
{
  const auto at = run.out.find(" " + key + "=");
  if (at == std::string::npos)
    throw std::runtime_error("no " + key + "= in the output:\n" + run.out);
  return std::stoull(run.out.substr(at + key.size() + 2), nullptr, 0);
}

// The program itself succeeded (QEMU keeps fetch coherent) but the plugin
// saw stale fetches, so the runner exits 86 and lists them.
void ExpectStale(const RigRun &run)
{
  ASSERT_FALSE(run.timed_out) << run.Describe();
  ASSERT_TRUE(run.report.is_object()) << run.Describe();
  EXPECT_EQ(run.exit_status, kStaleExitStatus) << run.Describe();
  EXPECT_GT(run.Count("stale_fetches"), 0u) << run.Describe();
  ASSERT_TRUE(run.report["stale"].is_array() && !run.report["stale"].empty()) << run.Describe();
  EXPECT_NE(run.last_err_line.find("jitflush-emu: stale_fetches="), std::string::npos)
      << run.Describe();
  EXPECT_EQ(run.last_err_line.find("stale_fetches=0 "), std::string::npos) << run.Describe();
}

// The Galaxy S7 signature: an invalidate stepped by the big core's 128-byte
// line leaves the second 64-byte line of each block stale on the LITTLE
// cores, and nothing else.
void ExpectOnlySkipped128ByteStrideLines(const RigRun &run, const SocConf &conf)
{
  for (const auto &record : run.report["stale"]) {
    const uint64_t offset = StaleAddr(record) % 128;
    EXPECT_GE(offset, 64u) << record.dump();
    EXPECT_LT(offset, 128u) << record.dump();
    const SocCluster *cluster = conf.ClusterOf(record.at("cpu").get<int>());
    ASSERT_NE(cluster, nullptr) << record.dump();
    EXPECT_EQ(cluster->ILine(), 64u)
        << "only a 64-byte-line core can miss a 128-byte-stride invalidate: " << record.dump();
    EXPECT_TRUE(ReasonMentions(record, kNotInvalidated)) << record.dump();
  }
}

// ---- (a) jitflush never lets a core fetch stale code, on every SoC --------

class JitflushOnEveryConfig : public ::testing::TestWithParam<std::string>
{
};

TEST_P(JitflushOnEveryConfig, NoStaleFetchEvenWhenThreadsMigrateInsideFlushes)
{
  const SocConf conf = Conf(GetParam());
  // Random migrations only: the adversarial policy would move every
  // --watch-ctr read to the same CPU (adversary_test.cc covers it).
  const RigRun run =
      RunUnderRig(conf.path, kSeed, "a-jitflush-" + Tag(GetParam()),
                  StressArgs("jitflush", kIterations, {"--watch-ctr"}), 90, {"--policy", "random"});
  ExpectClean(run);
  EXPECT_NE(run.out.find("impl=jitflush"), std::string::npos) << run.Describe();
  EXPECT_NE(run.out.find("wrong=0"), std::string::npos) << run.Describe();
  if (!conf.EveryCoreHasIdc()) {
    EXPECT_GT(run.Count("dc_ops"), 0u) << run.Describe();
  }
  if (!conf.EveryCoreHasDic()) {
    EXPECT_GT(run.Count("ic_ops"), 0u) << run.Describe();
  }
  if (conf.CanMigrate()) {
    EXPECT_GT(run.Count("migrations"), 0u) << run.Describe();
    // Where the CPUs the process may use disagree on CTR_EL0 (and the kernel
    // does not hide that), a change of CTR_EL0 across a flush call proves a
    // migration between clusters inside it: the case the minimum stride is for.
    if (conf.UsableCtrsDiffer() && conf.ctr_trap != "sanitize") {
      EXPECT_GT(OutputValue(run, "ctr_changed_in_flush"), 0u) << run.Describe();
    }
    // Not every runner version reports where migrations landed; when it
    // does, at least one must have hit a flush loop, or the test did not
    // exercise what it claims.
    for (const char *key : {"migrations_in_maintenance", "migrations_in_flush"})
      if (run.report.contains(key)) {
        EXPECT_GT(run.Count(key), 0u) << key << "\n" << run.Describe();
      }
  }
}

std::string ConfigTestName(const ::testing::TestParamInfo<std::string> &info)
{
  return Tag(info.param.substr(0, info.param.size() - 5));
}

INSTANTIATE_TEST_SUITE_P(AllConfigs, JitflushOnEveryConfig, ::testing::ValuesIn(AllConfigNames()),
                         ConfigTestName);

TEST(ScenarioSetup, ConfigsAndGuestProgramsExist)
{
  EXPECT_FALSE(AllConfigNames().empty()) << "no .conf in " << JITFLUSH_SCENARIO_CONFIG_DIR;
  for (const char *name :
       {"exynos8890.conf", "exynos8890-sanitized.conf", "apple-m1.conf", "tri-cluster.conf"})
    EXPECT_NO_THROW(Conf(name)) << name;
  for (const char *prog : {"jit_stress", "checker_selftest"})
    EXPECT_EQ(access(GuestProgram(prog).c_str(), X_OK), 0)
        << GuestProgram(prog) << ": build the aarch64 tree first";
}

// ---- (b) a stride latched on a big core skips the LITTLE cores' lines -----

class LatchedBigStride : public ::testing::TestWithParam<std::string>
{
};

TEST_P(LatchedBigStride, StaleOnlyInTheSecondHalfOfEach128ByteBlockOnLittleCores)
{
  const SocConf conf = Conf("exynos8890.conf");
  const int big = conf.BigCpu();
  ASSERT_GE(big, 0);
  ASSERT_EQ(conf.ClusterOf(big)->ILine(), 128u)
      << "exynos8890.conf should model 128-byte Exynos M1 I-lines";
  const RigRun run =
      RunUnderRig(conf.path, kSeed, "b-" + GetParam(),
                  StressArgs(GetParam(), kIterations, {"--first-call-cpu=" + std::to_string(big)}));
  ExpectStale(run);
  EXPECT_NE(run.out.find("wrong=0"), std::string::npos) << run.Describe();
  // Both read CTR_EL0 once (on the big core, before the workers start) and
  // keep it; a handful of reads elsewhere (libc start-up) is tolerated, one
  // per flush is not.
  EXPECT_LT(run.Count("ctr_reads"), static_cast<uint64_t>(kThreads)) << run.Describe();
  ExpectOnlySkipped128ByteStrideLines(run, conf);
}

INSTANTIATE_TEST_SUITE_P(Exynos8890, LatchedBigStride, ::testing::Values("cached-first", "libgcc"),
                         [](const auto &info) { return Tag(info.param); });

// ---- (c) reading CTR_EL0 on every call does not survive migration ---------

TEST(PerCallStride, StaleWhenThreadsMigrateBetweenBigAndLittleCores)
{
  const SocConf base = Conf("exynos8890.conf");
  ASSERT_TRUE(base.ILinesDiffer());
  // Migrations every few dozen instructions: flush loops of a few lines
  // then regularly start on a big core and finish, or run the code, on a
  // LITTLE one.
  const std::string config = WriteConfigVariant("exynos8890.conf", "sched", "migrate-every", "40",
                                                "exynos8890-migrate-40.conf");
  const RigRun run = RunUnderRig(config, kSeed, "c-per-call", StressArgs("per-call"));
  ExpectStale(run);
  EXPECT_GT(run.Count("migrations"), 0u) << run.Describe();
  // A stride read on a big core, used on (or migrated to) a LITTLE one.
  ExpectOnlySkipped128ByteStrideLines(run, base);
  // One mrs per flush: the V8 model reads CTR_EL0 every call.
  EXPECT_GE(run.Count("ctr_reads"), static_cast<uint64_t>(kThreads) * kIterations)
      << run.Describe();
}

// ---- (d) no clean at all (fixed 64 without dc cvau: Wasmtime 41 to 48) -----

class MissingClean : public ::testing::TestWithParam<std::string>
{
};

TEST_P(MissingClean, StaleWhereSomeCoreLacksIdc)
{
  const SocConf conf = Conf(GetParam());
  ASSERT_FALSE(conf.EveryCoreHasIdc())
      << GetParam() << " is meant to have a core without CTR_EL0.IDC";
  const RigRun run =
      RunUnderRig(conf.path, kSeed, "d-" + Tag(GetParam()), StressArgs("fixed-64-no-dc"));
  ExpectStale(run);
  EXPECT_EQ(run.Count("dc_ops"), 0u) << run.Describe();
  EXPECT_GT(run.Count("ic_ops"), 0u) << run.Describe();
  EXPECT_TRUE(AnyReasonMentions(run, kNotCleaned)) << run.Describe();
}

INSTANTIATE_TEST_SUITE_P(IdcZeroSocs, MissingClean,
                         ::testing::Values("tri-cluster.conf", "exynos8890.conf"),
                         [](const auto &info) {
                           return Tag(info.param.substr(0, info.param.size() - 5));
                         });

// ---- (e) control: where nothing mismatches, every routine is fine ---------

struct ControlCase {
  std::string config, impl;
};

void PrintTo(const ControlCase &c, std::ostream *os)
{
  *os << c.config << " " << c.impl;
}

class ControlConfigs : public ::testing::TestWithParam<ControlCase>
{
};

TEST_P(ControlConfigs, OnlyAMissingCleanIsStale)
{
  const SocConf conf = Conf(GetParam().config);
  const std::string &impl = GetParam().impl;
  std::initializer_list<std::string> first_on_big = {"--first-call-cpu=" +
                                                     std::to_string(conf.BigCpu())};
  const bool latches = impl == "libgcc" || impl == "cached-first";
  const RigRun run =
      RunUnderRig(conf.path, kSeed, "e-" + Tag(GetParam().config) + "-" + impl,
                  latches ? StressArgs(impl, kIterations, first_on_big) : StressArgs(impl));
  if (impl == "fixed-64-no-dc" && !conf.EveryCoreHasIdc()) {
    ExpectStale(run);
    for (const auto &record : run.report["stale"]) {
      EXPECT_TRUE(ReasonMentions(record, kNotCleaned)) << record.dump();
    }
  } else {
    ExpectClean(run);
  }
  EXPECT_NE(run.out.find("wrong=0"), std::string::npos) << run.Describe();
}

std::vector<ControlCase> ControlCases()
{
  std::vector<ControlCase> cases;
  for (const char *config : {"apple-m1.conf", "exynos8890-sanitized.conf"})
    for (const char *impl : kAllImpls)
      cases.push_back({config, impl});
  return cases;
}

INSTANTIATE_TEST_SUITE_P(HomogeneousOrSanitized, ControlConfigs,
                         ::testing::ValuesIn(ControlCases()), [](const auto &info) {
                           return Tag(info.param.config.substr(0, info.param.config.size() - 5) +
                                      "_" + info.param.impl);
                         });

// ---- (f) the checker itself: one broken sequence per rule -----------------

class CheckerAcceptsCorrectSequence : public ::testing::TestWithParam<std::string>
{
};

TEST_P(CheckerAcceptsCorrectSequence, NoStaleFetch)
{
  const RigRun run = RunUnderRig(ConfigPath(GetParam()), kSeed, "f-correct-" + Tag(GetParam()),
                                 {GuestProgram("checker_selftest"), "correct"});
  ExpectClean(run);
  EXPECT_NE(run.out.find("result ok"), std::string::npos) << run.Describe();
}

INSTANTIATE_TEST_SUITE_P(AllConfigs, CheckerAcceptsCorrectSequence,
                         ::testing::ValuesIn(AllConfigNames()), ConfigTestName);

// A config where the writer's D line is smaller than another core's, so
// cleaning with that core's stride is a real mistake; exynos8890 (equal D
// lines, the program then uses twice the line) when none is there.
std::string WrongCoreCleanConfig()
{
  for (const char *name : {"a64fx-mixed.conf", "tri-cluster.conf"}) {
    try {
      if (Conf(name).DLinesDiffer())
        return name;
    } catch (const std::exception &) {
    }
  }
  return "exynos8890.conf";
}

// What checker_selftest printed about the sequence it ran.
struct SelftestLayout {
  uint64_t code, cpu_iline, cpu_dline, clean_stride, invalidate_stride;
};

SelftestLayout Layout(const RigRun &run)
{
  return {OutputValue(run, "code"), OutputValue(run, "cpu_iline"), OutputValue(run, "cpu_dline"),
          OutputValue(run, "clean_stride"), OutputValue(run, "invalidate_stride")};
}

constexpr uint64_t kSelftestCodeBytes = 2048;     // CODE_WORDS * 4 in checker_selftest.c
constexpr uint64_t kSelftestRewrittenByte = 1200; // REWRITTEN_WORD * 4

struct BrokenCase {
  std::string name;
  std::string reason;
  // Which words may be stale, given the layout: the test fails on a stale
  // record anywhere else.
  bool (*expected_word)(const SelftestLayout &, uint64_t offset);
};

void PrintTo(const BrokenCase &c, std::ostream *os)
{
  *os << c.name << " (expects '" << c.reason << "')";
}

bool AnyWord(const SelftestLayout &, uint64_t)
{
  return true;
}
bool SkippedByInvalidate(const SelftestLayout &l, uint64_t offset)
{
  return offset % l.invalidate_stride >= l.cpu_iline;
}
bool SkippedByClean(const SelftestLayout &l, uint64_t offset)
{
  return offset % l.clean_stride >= l.cpu_dline;
}
bool RewrittenWord(const SelftestLayout &, uint64_t offset)
{
  return offset == kSelftestRewrittenByte;
}
bool RewrittenPair(const SelftestLayout &, uint64_t offset)
{
  return offset == kSelftestRewrittenByte || offset == kSelftestRewrittenByte + 4;
}

class CheckerFlagsBrokenSequence : public ::testing::TestWithParam<BrokenCase>
{
};

TEST_P(CheckerFlagsBrokenSequence, StaleWithTheMissingStepNamed)
{
  const BrokenCase &c = GetParam();
  const std::string config =
      c.name == "wrong-core-clean" ? WrongCoreCleanConfig() : "exynos8890.conf";
  const RigRun run = RunUnderRig(ConfigPath(config), kSeed, "f-" + c.name + "-" + Tag(config),
                                 {GuestProgram("checker_selftest"), c.name});
  ExpectStale(run);
  EXPECT_NE(run.out.find("result ok"), std::string::npos) << run.Describe();
  const SelftestLayout layout = Layout(run);
  if (c.name == "wrong-geometry") {
    EXPECT_EQ(layout.invalidate_stride, 2 * layout.cpu_iline) << run.out;
  }
  if (c.name == "wrong-core-clean") {
    EXPECT_GT(layout.clean_stride, layout.cpu_dline) << run.out;
  }
  if (c.name == "span-store-after-flush") {
    // The store's second word is recorded only if the callback covers all
    // eight bytes.
    bool second = false;
    for (const auto &record : run.report["stale"]) {
      second = second || StaleAddr(record) == layout.code + kSelftestRewrittenByte + 4;
    }
    EXPECT_TRUE(second) << "the second word of the 8-byte store is not stale: " << run.Describe();
  }
  // The sequence is broken in exactly one way: every stale record names
  // that step and lies where that step left a gap.
  for (const auto &record : run.report["stale"]) {
    const uint64_t addr = StaleAddr(record);
    ASSERT_GE(addr, layout.code) << record.dump();
    ASSERT_LT(addr, layout.code + kSelftestCodeBytes) << record.dump();
    EXPECT_TRUE(ReasonMentions(record, c.reason))
        << "expected '" << c.reason << "': " << record.dump();
    EXPECT_TRUE(c.expected_word(layout, addr - layout.code))
        << "offset " << addr - layout.code << ": " << record.dump();
  }
}

INSTANTIATE_TEST_SUITE_P(
    OnePerRule, CheckerFlagsBrokenSequence,
    ::testing::Values(BrokenCase{"no-dsb", kInvalidateNotCompleted, AnyWord},
                      BrokenCase{"no-isb", kNotSynchronised, AnyWord},
                      BrokenCase{"wrong-geometry", kNotInvalidated, SkippedByInvalidate},
                      BrokenCase{"wrong-core-clean", kNotCleaned, SkippedByClean},
                      BrokenCase{"store-after-flush", kNotCleaned, RewrittenWord},
                      // Recorded by the data store's callback (model_store_groups.c).
                      BrokenCase{"grouped-store-after-flush", kNotCleaned, RewrittenWord},
                      // One 8-byte store: recorded by the span callback (plugin_store.c).
                      BrokenCase{"span-store-after-flush", kNotCleaned, RewrittenPair},
                      BrokenCase{"no-clean", kNotCleaned, AnyWord},
                      // Both Exynos 8890 clusters have VIPT I-caches.
                      BrokenCase{"other-exec-view", kOtherExecView, AnyWord}),
    [](const auto &info) { return Tag(info.param.name); });

} // namespace
} // namespace scenario
