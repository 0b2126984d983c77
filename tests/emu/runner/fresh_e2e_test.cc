// The first version of a whole function on a fresh page, end to end
// (guest/fresh_guest.c under the real plugin-enabled QEMU, configs with
// migrations, a fixed seed: the turns schedule makes one seed give one
// report; the guest runs with an empty environment, in both check modes). A migration due at the
// start of the function's block must not publish it before its fetches are judged: the herd7
// Sometimes shapes (DIC1.SM.B+isb on an IDC=1 DIC=1 SoC, IDC1.SM.B+ic.ivau-dsb.ish-isb on an IDC=1
// DIC=0 one) are findings and exit 86; their Never neighbours (a dsb ish after the stores) are
// clean.
#include <gtest/gtest.h>

#include <algorithm>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "run_process.h"

namespace
{

const std::string kRunner = JITFLUSH_EMU_RUNNER;
const std::string kGuest = JITFLUSH_EMU_FRESH_GUEST;
const std::string kConfigs = JITFLUSH_QEMU_CONFIGS_DIR;

// IDC=1 DIC=1 (Neoverse N2) and IDC=1 DIC=0 (Cortex-A710), both with a
// migration every 300 instructions.
const char kIdc1Dic1[] = "n1-idc-dic.conf";
const char kIdc1Dic0[] = "models/cortex-a710.conf";

struct Shape {
  const char *config;
  const char *sequence; // fresh_guest's SEQUENCE
  const char *style;    // fresh_guest's STYLE
  const char *check;    // --check
};

std::ostream &operator<<(std::ostream &os, const Shape &s)
{
  return os << s.sequence << "/" << s.style << "/check=" << s.check;
}

std::string ShapeName(const ::testing::TestParamInfo<Shape> &info)
{
  std::string name =
      std::string(info.param.sequence) + "_" + info.param.style + "_check_" + info.param.check;
  std::replace(name.begin(), name.end(), '-', '_');
  return name;
}

struct GuestRun {
  ProcessResult result;
  nlohmann::json report;
};

GuestRun Guest(const Shape &s)
{
  TempDir dir;
  // An empty environment: the guest's loader runs as many instructions
  // every time, so the seed's migrations fall on the same ones.
  std::vector<std::string> argv = {
      "/usr/bin/env", "-i", kRunner,   "--config", kConfigs + "/" + s.config,
      "--seed",       "1",  "--check", s.check,    "--report",
      dir / "r.json", "--", kGuest,    s.sequence, s.style};
  GuestRun run{RunProcess(argv), nullptr};
  const std::string text = ReadFileOrEmpty(dir / "r.json");
  if (!text.empty())
    run.report = nlohmann::json::parse(text);
  return run;
}

class FreshSometimes : public ::testing::TestWithParam<Shape>
{
};
class FreshNever : public ::testing::TestWithParam<Shape>
{
};

// herd7 Sometimes: stale fetches of the function's words, a finding, 86.
TEST_P(FreshSometimes, TheFirstVersionIsStale)
{
  GuestRun run = Guest(GetParam());
  ASSERT_TRUE(run.report.is_object()) << run.result.err;
  EXPECT_EQ(run.result.status, 86) << run.result.err;
  EXPECT_GT(run.report["stale_fetches"].get<uint64_t>(), 0u) << run.report.dump();
  EXPECT_FALSE(run.report["findings"].empty()) << run.report.dump();
  ASSERT_FALSE(run.report["stale"].empty()) << run.report.dump();
  // Every stale word lies in the function: 1 KiB from its first word.
  uint64_t lo = UINT64_MAX, hi = 0;
  for (const auto &s : run.report["stale"]) {
    const uint64_t addr = std::stoull(s["addr"].get<std::string>(), nullptr, 16);
    lo = std::min(lo, addr);
    hi = std::max(hi, addr);
  }
  EXPECT_LT(hi - lo, 1024u) << run.report.dump();
  EXPECT_NE(run.result.err.find("STALE FETCH"), std::string::npos) << run.result.err;
}

// herd7 Never: clean, the program's status (42: every call right).
TEST_P(FreshNever, TheFunctionIsPublished)
{
  GuestRun run = Guest(GetParam());
  ASSERT_EQ(run.result.status, 42) << run.result.err;
  ASSERT_TRUE(run.report.is_object()) << run.result.err;
  EXPECT_EQ(run.report["stale_fetches"], 0) << run.report.dump();
  EXPECT_EQ(run.report["benign_stale_fetches"], 0) << run.report.dump();
  EXPECT_TRUE(run.report["findings"].empty()) << run.report.dump();
  EXPECT_GT(run.report["migrations"].get<uint64_t>(), 0u) << run.report.dump();
}

// memcpy: the function copied in a few wide stores, so no migration falls
// among them. Without the check before a migration at the block's start
// (plugin_instrument.c, on_tb_due), both isb cases were clean at this seed
// (0 stale fetches, exit 42) when the guest still made library calls
// between its stores and the call; the ic-dsb-isb cases were findings with
// or without it.
INSTANTIATE_TEST_SUITE_P(Memcpy, FreshSometimes,
                         ::testing::Values(Shape{kIdc1Dic1, "isb", "memcpy", "on"},
                                           Shape{kIdc1Dic1, "isb", "memcpy", "full"},
                                           Shape{kIdc1Dic0, "ic-dsb-isb", "memcpy", "on"},
                                           Shape{kIdc1Dic0, "ic-dsb-isb", "memcpy", "full"}),
                         ShapeName);

INSTANTIATE_TEST_SUITE_P(Controls, FreshNever,
                         ::testing::Values(Shape{kIdc1Dic1, "dsb-isb", "loop", "on"},
                                           Shape{kIdc1Dic1, "dsb-isb", "loop", "full"},
                                           Shape{kIdc1Dic1, "dsb-isb", "memcpy", "on"},
                                           Shape{kIdc1Dic1, "dsb-isb", "memcpy", "full"},
                                           Shape{kIdc1Dic0, "dsb-ic-dsb-isb", "loop", "on"},
                                           Shape{kIdc1Dic0, "dsb-ic-dsb-isb", "loop", "full"},
                                           Shape{kIdc1Dic0, "dsb-ic-dsb-isb", "memcpy", "on"},
                                           Shape{kIdc1Dic0, "dsb-ic-dsb-isb", "memcpy", "full"}),
                         ShapeName);

} // namespace
