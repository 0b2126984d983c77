// Code rewritten with the same bytes, end to end (guest/rewrite_guest.c
// under the real plugin-enabled QEMU, in both check modes): a stale fetch
// that can only see the instruction it runs is counted apart
// (benign_stale_fetches), noted, and never a finding or exit 86 on its
// own; the first version of a trampoline in a fresh slot is a finding.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "run_process.h"

namespace
{

const std::string kRunner = JITFLUSH_EMU_RUNNER;
const std::string kGuest = JITFLUSH_EMU_REWRITE_GUEST;
const std::string kConfigs = JITFLUSH_QEMU_CONFIGS_DIR;

struct GuestRun {
  ProcessResult result;
  nlohmann::json report;
};

GuestRun Guest(const std::string &mode, const std::string &check)
{
  TempDir dir;
  std::vector<std::string> argv = {kRunner,  "--config", kConfigs + "/exynos8890.conf",
                                   "--seed", "1",        "--check",
                                   check,    "--report", dir / "r.json",
                                   "--",     kGuest,     mode};
  GuestRun run{RunProcess(argv), nullptr};
  const std::string text = ReadFileOrEmpty(dir / "r.json");
  if (!text.empty())
    run.report = nlohmann::json::parse(text);
  return run;
}

class RewriteEndToEnd : public ::testing::TestWithParam<std::string>
{
};

// Slot 0 published once, then rewritten eight times with the same bytes
// and run with no maintenance: clean, with a note, the program's status.
TEST_P(RewriteEndToEnd, AnIdenticalRewriteOnlyIsCleanWithANote)
{
  GuestRun run = Guest("same", GetParam());
  ASSERT_EQ(run.result.status, 42) << run.result.err;
  ASSERT_TRUE(run.report.is_object()) << run.result.err;
  EXPECT_EQ(run.report["stale_fetches"], 0) << run.report.dump();
  EXPECT_TRUE(run.report["findings"].empty()) << run.report.dump();
  // Eight rounds of four words, each fetched once.
  EXPECT_EQ(run.report["benign_stale_fetches"], 32) << run.report.dump();
  const auto &note = run.report["benign_stale_note"];
  ASSERT_TRUE(note.is_object()) << run.report.dump();
  EXPECT_EQ(note["fetches"], 32);
  EXPECT_NE(note["note"].get<std::string>().find("same bytes"), std::string::npos);
  EXPECT_NE(run.result.err.find("==jitflush-emu== NOTE: 32 stale fetches (first 0x"),
            std::string::npos)
      << run.result.err;
  EXPECT_EQ(run.result.err.find("STALE FETCH"), std::string::npos) << run.result.err;
}

// The same, then the trampoline's first version in a fresh slot: one
// finding, for that slot's words only, exit 86; the rewrites stay a note.
TEST_P(RewriteEndToEnd, AFreshSlotBesideIdenticalRewritesIsTheOnlyFinding)
{
  GuestRun run = Guest("same-fresh", GetParam());
  ASSERT_EQ(run.result.status, 86) << run.result.err;
  ASSERT_TRUE(run.report.is_object()) << run.result.err;
  EXPECT_EQ(run.report["stale_fetches"], 4) << run.report.dump();
  EXPECT_EQ(run.report["benign_stale_fetches"], 32) << run.report.dump();
  ASSERT_EQ(run.report["findings"].size(), 1u) << run.report.dump();
  EXPECT_EQ(run.report["findings"][0]["kind"], "not-cleaned");
  ASSERT_FALSE(run.report["stale"].empty());
  // Every stale word lies in the fresh slot, 256 bytes past slot 0 (the
  // page's start: the benign note's first word).
  const uint64_t page =
      std::stoull(run.report["benign_stale_note"]["first"].get<std::string>(), nullptr, 16);
  for (const auto &s : run.report["stale"]) {
    const uint64_t addr = std::stoull(s["addr"].get<std::string>(), nullptr, 16);
    EXPECT_GE(addr, page + 256) << s.dump();
    EXPECT_LT(addr, page + 256 + 16) << s.dump();
  }
  EXPECT_NE(run.result.err.find("SUMMARY: jitflush-emu: 1 finding, 4 stale fetches"),
            std::string::npos)
      << run.result.err;
}

// A function that stores the word it runs four instructions later with
// the same bytes, in its own running block, published before: the store
// into the running block is benign (plugin_selfstore.c), counted once and
// noted; the program's status. In both check modes: the old block's fetch
// of the word after the store is the fetch judged at the store, not
// checked again (with check=full it was, not found benign, and exit 86).
TEST_P(RewriteEndToEnd, AStoreIntoTheRunningBlockWithTheSameBytesIsBenign)
{
  GuestRun run = Guest("self-same", GetParam());
  ASSERT_EQ(run.result.status, 42) << run.result.err;
  ASSERT_TRUE(run.report.is_object()) << run.result.err;
  EXPECT_EQ(run.report["stale_fetches"], 0) << run.report.dump();
  EXPECT_TRUE(run.report["findings"].empty()) << run.report.dump();
  EXPECT_EQ(run.report["benign_stale_fetches"], 1) << run.report.dump();
  const auto &note = run.report["benign_stale_note"];
  ASSERT_TRUE(note.is_object()) << run.report.dump();
  EXPECT_EQ(note["fetches"], 1);
}

// The same store with another word (movz x0, #43): the block runs on from
// its old translation, a finding for that word only, exit 86.
TEST_P(RewriteEndToEnd, AStoreIntoTheRunningBlockWithOtherBytesIsAFinding)
{
  GuestRun run = Guest("self-other", GetParam());
  ASSERT_EQ(run.result.status, 86) << run.result.err;
  ASSERT_TRUE(run.report.is_object()) << run.result.err;
  EXPECT_EQ(run.report["benign_stale_fetches"], 0) << run.report.dump();
  // Judged once, at the store, in both modes (check=full judged it again
  // at the old block's fetch of it: 2).
  EXPECT_EQ(run.report["stale_fetches"], 1) << run.report.dump();
  ASSERT_EQ(run.report["findings"].size(), 1u) << run.report.dump();
  const auto &stale = run.report["stale"];
  ASSERT_FALSE(stale.empty()) << run.report.dump();
  const std::string word = stale[0]["addr"].get<std::string>();
  EXPECT_EQ(word.substr(word.size() - 3), "010") << run.report.dump(); // the fifth word
  for (const auto &s : stale)
    EXPECT_EQ(s["addr"], word) << run.report.dump();
}

INSTANTIATE_TEST_SUITE_P(CheckModes, RewriteEndToEnd, ::testing::Values("on", "full"),
                         [](const ::testing::TestParamInfo<std::string> &info) {
                           return "check_" + info.param;
                         });

} // namespace
