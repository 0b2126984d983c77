// The contract between the runner and the plugin (rig/shared/rig_contract.h):
// the counters' table, the summary line both sides use, and the docs that
// promise it.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "rig_contract.h"

namespace
{

std::string Format(const rig_summary &s, rig_counter_shown shown)
{
  GString *out = g_string_new(nullptr);
  rig_summary_format(out, &s, shown);
  std::string text(out->str);
  g_string_free(out, TRUE);
  return text;
}

// Every counter gets a value of its own, so a swapped field shows.
rig_summary Distinct()
{
  rig_summary s{};
  for (int c = 0; c < RIG_NCOUNTERS; c++) {
    s.counter[c] = 1000 + static_cast<uint64_t>(c);
  }
  s.findings = 7;
  return s;
}

TEST(RigContract, SummaryLineHasEverySummaryCounterInTableOrderThenFindings)
{
  rig_summary s = Distinct();
  EXPECT_EQ(Format(s, RIG_SHOWN_SUMMARY),
            "stale_fetches=1000 fetch_checks=1001 migrations=1002 ctr_reads=1003 dc_ops=1004 "
            "ic_ops=1005 isb=1006 insns=1007 benign_stale_fetches=1008 findings=7");
}

TEST(RigContract, StderrLineHasTheSixCountersTheRunnerPrints)
{
  rig_summary s = Distinct();
  EXPECT_EQ(Format(s, RIG_SHOWN_STDERR), "stale_fetches=1000 fetch_checks=1001 migrations=1002 "
                                         "ctr_reads=1003 dc_ops=1004 ic_ops=1005 findings=7");
}

TEST(RigContract, ParseReadsBackWhatFormatWrote)
{
  rig_summary s = Distinct();
  s.counter[RIG_COUNTER_insns] = UINT64_MAX;
  rig_summary back{};
  GError *error = nullptr;
  ASSERT_TRUE(rig_summary_parse(Format(s, RIG_SHOWN_SUMMARY).c_str(), &back, &error))
      << error->message;
  for (int c = 0; c < RIG_NCOUNTERS; c++) {
    uint64_t want = rig_counters[c].shown <= RIG_SHOWN_SUMMARY ? s.counter[c] : 0;
    EXPECT_EQ(back.counter[c], want) << rig_counters[c].name;
  }
  EXPECT_EQ(back.findings, 7u);
}

TEST(RigContract, ParseIgnoresOrderAndUnknownKeys)
{
  rig_summary back{};
  GError *error = nullptr;
  ASSERT_TRUE(
      rig_summary_parse("findings=2 benign_stale_fetches=6 insns=9 isb=0 ic_ops=0 dc_ops=1 "
                        "ctr_reads=0 migrations=3 fetch_checks=4 stale_fetches=5 future=1\n",
                        &back, &error))
      << error->message;
  EXPECT_EQ(back.counter[RIG_COUNTER_stale_fetches], 5u);
  EXPECT_EQ(back.counter[RIG_COUNTER_insns], 9u);
  EXPECT_EQ(back.counter[RIG_COUNTER_benign_stale_fetches], 6u);
  EXPECT_EQ(back.findings, 2u);
}

TEST(RigContract, ParseRefusesALineWithoutAnyOneSummaryField)
{
  const std::string full = Format(Distinct(), RIG_SHOWN_SUMMARY);
  std::istringstream words(full);
  std::string dropped;
  while (words >> dropped) {
    std::string line = " " + full + " ";
    line.replace(line.find(" " + dropped + " "), dropped.size() + 1, "");
    rig_summary back{};
    GError *error = nullptr;
    EXPECT_FALSE(rig_summary_parse(line.c_str(), &back, &error)) << "without " << dropped;
    ASSERT_NE(error, nullptr);
    std::string key = dropped.substr(0, dropped.find('='));
    EXPECT_EQ(std::string(error->message), key + " is missing");
    g_error_free(error);
  }
}

TEST(RigContract, ParseRefusesBadValuesAndRepeats)
{
  const std::string rest = " fetch_checks=1 migrations=1 ctr_reads=1 dc_ops=1 ic_ops=1 isb=1 "
                           "insns=1 findings=0";
  for (const char *bad : {"stale_fetches=-1", "stale_fetches=x", "stale_fetches=1 stale_fetches=2",
                          "stale_fetches"}) {
    rig_summary back{};
    GError *error = nullptr;
    EXPECT_FALSE(rig_summary_parse((bad + rest).c_str(), &back, &error)) << bad;
    g_clear_error(&error);
  }
}

// docs/RIG.md is the contract users read: every counter is documented there.
TEST(RigContract, RigDocListsEveryCounter)
{
  std::ifstream in(JITFLUSH_DOCS_DIR "/RIG.md");
  ASSERT_TRUE(in) << JITFLUSH_DOCS_DIR "/RIG.md";
  std::stringstream text;
  text << in.rdbuf();
  for (int c = 0; c < RIG_NCOUNTERS; c++) {
    EXPECT_NE(text.str().find(std::string("`") + rig_counters[c].name + "`"), std::string::npos)
        << "docs/RIG.md does not document the counter `" << rig_counters[c].name << "`";
  }
}

} // namespace
