// jitflush-info (the aarch64 build) under the emulated big.LITTLE rig:
//
// - Golden: every qemu-configs/*.conf, --json compared field by field with
//   tests/cli/golden/<config>.json (a config without one fails).
// - Fixtures: sysfs trees of real phones and broken kernels served with
//   --sysfs-root (tests/cli/fixtures/<name>/sys), each with its own
//   expected.json naming the rig config to pair with.
// - Selftest: --selftest on exynos8890.conf with zero stale fetches in the
//   runner's report.
//
// Paths come from compile definitions set by tests/cli/CMakeLists.txt.
// With JITFLUSH_REGEN_GOLDENS=1 in the environment (ci/gen/goldens.sh)
// the golden and fixture tests first rewrite their expectation files from
// the run (golden_compare.h), then check the run against them as usual.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include <unistd.h>

#include "golden_compare.h"
#include "run_process.h"

namespace fs = std::filesystem;
using jfi_test::CompareWithExpectation;
using jfi_test::ordered_json;
using nlohmann::json;

namespace
{

// A rig run is QEMU with a TCG plugin: generous, but not unbounded.
constexpr int kRunTimeout = 600;

json LoadJson(const fs::path &path)
{
  std::ifstream in(path);
  if (!in)
    throw std::runtime_error("cannot read " + path.string());
  return json::parse(in, nullptr, true, /*ignore_comments=*/false);
}

// A fresh scratch directory per run for the runner's report.
fs::path ScratchFile(const std::string &name)
{
  fs::path dir = fs::temp_directory_path() / ("jfi-cli-test-" + std::to_string(getpid()));
  fs::create_directories(dir);
  return dir / name;
}

struct RigRun {
  ProcessResult process;
  json report; // the runner's --report, null when absent
};

RigRun RunUnderRig(const fs::path &config, const std::vector<std::string> &info_args,
                   const fs::path &sysfs_root = {})
{
  fs::path report = ScratchFile(config.stem().string() + "-report.json");
  fs::remove(report);
  std::vector<std::string> argv = {JFI_EMU, "--config", config.string(), "--report",
                                   report.string()};
  if (!sysfs_root.empty()) {
    argv.push_back("--sysfs-root");
    argv.push_back(sysfs_root.string());
  }
  argv.push_back("--");
  argv.push_back(JFI_INFO_AARCH64);
  argv.insert(argv.end(), info_args.begin(), info_args.end());
  RigRun run;
  run.process = RunProcess(argv, {}, kRunTimeout);
  if (fs::exists(report))
    run.report = LoadJson(report);
  return run;
}

json ParseOutput(const RigRun &run, const std::string &what)
{
  try {
    return json::parse(run.process.out);
  } catch (const json::exception &e) {
    ADD_FAILURE() << what << ": stdout is not JSON (" << e.what() << ")\n"
                  << run.process.Describe();
    return json();
  }
}

// The expectation in PATH for RUN. Regenerating, PATH is first rewritten
// from the run (created for a config that has none), and only when a
// checked value changed, so that an unchanged file keeps its hand layout.
json Expectation(const fs::path &path, const RigRun &run, const std::string &what)
{
  if (!jfi_test::Regenerating())
    return LoadJson(path);
  json doc = ParseOutput(run, what);
  if (!doc.is_object() || !doc.contains("cpus"))
    return fs::exists(path) ? LoadJson(path) : json::object();
  ordered_json old;
  if (fs::exists(path)) {
    std::ifstream in(path);
    old = ordered_json::parse(in);
  } else {
    old = jfi_test::NewExpectation(doc["cpus"].size());
  }
  ordered_json fresh = jfi_test::RegenerateExpectation(doc, run.process.status, old);
  json result = json::parse(fresh.dump());
  if (!fs::exists(path) || result != json::parse(old.dump())) {
    std::ofstream(path) << jfi_test::FormatExpectation(fresh);
    std::cout << "regenerated " << path.string() << "\n";
  }
  return result;
}

std::vector<std::string> ListConfigs()
{
  std::vector<std::string> stems;
  for (const auto &entry : fs::directory_iterator(JFI_CONFIG_DIR))
    if (entry.path().extension() == ".conf")
      stems.push_back(entry.path().stem().string());
  std::sort(stems.begin(), stems.end());
  return stems;
}

std::vector<std::string> ListFixtures()
{
  std::vector<std::string> names;
  for (const auto &entry : fs::directory_iterator(JFI_FIXTURE_DIR))
    if (entry.is_directory() && fs::exists(entry.path() / "expected.json"))
      names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

std::string TestName(const testing::TestParamInfo<std::string> &info)
{
  std::string name = info.param;
  std::replace_if(
      name.begin(), name.end(), [](char c) { return !isalnum((unsigned char)c); }, '_');
  return name;
}

void CheckRun(const RigRun &run, const json &expected, const std::string &what)
{
  int want_status = expected.value("exit_status", 0);
  EXPECT_EQ(run.process.status, want_status) << what << "\n" << run.process.Describe();
  json doc = ParseOutput(run, what);
  if (doc.is_null())
    return;
  CompareWithExpectation(doc, expected, what);
  // jitflush-info never prints half a report: the contract keys are all there.
  for (const json &cpu : doc["cpus"])
    for (const char *key : {"cpu", "online", "midr", "core", "ctr_el0", "iline", "dline", "idc",
                            "dic", "sysfs_l1i_line", "sysfs_l1d_line", "source"})
      EXPECT_TRUE(cpu.contains(key)) << what << ": CPU record without " << key;
}

// ---- every config in qemu-configs/ -------------------------------------

class Golden : public testing::TestWithParam<std::string>
{
};

TEST_P(Golden, JsonMatchesTheConfigsFacts)
{
  const std::string stem = GetParam();
  fs::path config = fs::path(JFI_CONFIG_DIR) / (stem + ".conf");
  fs::path golden = fs::path(JFI_GOLDEN_DIR) / (stem + ".json");
  ASSERT_TRUE(fs::exists(golden) || jfi_test::Regenerating())
      << "no expectation for " << config << ": write " << golden
      << " from the config's facts (docs/BACKGROUND.md#architecture-facts), or start one with "
         "ci/gen/goldens.sh";
  RigRun run = RunUnderRig(config, {"--json"});
  CheckRun(run, Expectation(golden, run, stem), stem);
}

INSTANTIATE_TEST_SUITE_P(Configs, Golden, testing::ValuesIn(ListConfigs()), TestName);

// ---- sysfs fixtures --------------------------------------------------------

class Fixture : public testing::TestWithParam<std::string>
{
};

TEST_P(Fixture, HonestReportFromThisTree)
{
  fs::path dir = fs::path(JFI_FIXTURE_DIR) / GetParam();
  json expected = LoadJson(dir / "expected.json"); // for its config; checked below
  // "config": a rig config beside the fixture; "qemu_config": one of qemu-configs/.
  fs::path config = expected.contains("qemu_config")
                        ? fs::path(JFI_CONFIG_DIR) / expected["qemu_config"].get<std::string>()
                        : dir / expected.at("config").get<std::string>();
  ASSERT_TRUE(fs::exists(config)) << config;
  fs::path root = fs::exists(dir / "sys") ? dir : fs::path();
  RigRun run = RunUnderRig(config, {"--json"}, root);
  expected = Expectation(dir / "expected.json", run, GetParam());
  CheckRun(run, expected, GetParam());
  // The same tree through the table: it must also exit the same way and
  // never print a number for a CPU it marked unknown (checked by the JSON).
  RigRun table = RunUnderRig(config, {}, root);
  EXPECT_EQ(table.process.status, expected.value("exit_status", 0)) << table.process.Describe();
  EXPECT_NE(table.process.out.find("Verdict: " +
                                   expected.at("also").at("verdict.kind").get<std::string>()),
            std::string::npos)
      << table.process.out;
}

INSTANTIATE_TEST_SUITE_P(Trees, Fixture, testing::ValuesIn(ListFixtures()), TestName);

// ---- the selftest ----------------------------------------------------------------

TEST(RigSelftest, Exynos8890HasNoStaleFetches)
{
  fs::path config = fs::path(JFI_CONFIG_DIR) / "exynos8890.conf";
  RigRun run = RunUnderRig(config, {"--selftest=2"});
  ASSERT_EQ(run.process.status, 0) << run.process.Describe();
  ASSERT_FALSE(run.report.is_null()) << "the runner wrote no report\n" << run.process.Describe();
  EXPECT_EQ(run.report.at("stale_fetches"), 0) << run.report.dump(2);
  EXPECT_GT(run.report.at("fetch_checks").get<long long>(), 0) << run.report.dump(2);
  // Both clusters ran generated code: the flushes had both geometries to get right.
  for (int cpu = 0; cpu < 8; cpu++)
    EXPECT_NE(run.process.out.find("pinned to CPU " + std::to_string(cpu) + " "), std::string::npos)
        << "CPU " << cpu << "\n"
        << run.process.out;
  EXPECT_NE(run.process.out.find("selftest: PASS"), std::string::npos) << run.process.out;
  EXPECT_EQ(run.process.out.find("WRONG"), std::string::npos) << run.process.out;
  EXPECT_EQ(run.process.out.find("skipped"), std::string::npos) << run.process.out;
}

TEST(RigSelftest, JsonSelftestCountsAgree)
{
  fs::path config = fs::path(JFI_CONFIG_DIR) / "exynos8890.conf";
  RigRun run = RunUnderRig(config, {"--json", "--selftest=1"});
  ASSERT_EQ(run.process.status, 0) << run.process.Describe();
  json doc = ParseOutput(run, "selftest json");
  ASSERT_TRUE(doc.contains("selftest"));
  const json &st = doc["selftest"];
  EXPECT_EQ(st["passed"], true);
  EXPECT_EQ(st["wrong"], 0);
  EXPECT_EQ(st["written"], st["verified"]);
  EXPECT_EQ(st["phases"].size(), 9u); // CPUs 0-7 pinned, then free
  for (size_t i = 0; i < 8; i++)
    EXPECT_EQ(st["phases"][i]["ran_on"], json::array({(int)i})) << st["phases"][i];
  EXPECT_EQ(run.report.at("stale_fetches"), 0);
}

} // namespace
