// jitflush-emu --merge (rig/report/report_merge.c, rig_merge_key.c) on suite stores
// written by the test: which findings of different processes are one root
// cause, what is summed, which processes are listed, the SARIF log, and
// every status. The entries have the layout the runner writes
// (runner_store.c, tested in runner_cli_test.cc).
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "run_process.h"

namespace
{

using nlohmann::json;

const std::string kRunner = JITFLUSH_EMU_RUNNER;

std::vector<std::string> Lines(const std::string &text)
{
  std::vector<std::string> out;
  size_t start = 0;
  for (size_t nl; (nl = text.find('\n', start)) != std::string::npos; start = nl + 1)
    out.push_back(text.substr(start, nl - start));
  if (start < text.size())
    out.push_back(text.substr(start));
  return out;
}

// A geometry finding of libgcc's latched stride, as a report holds it: the
// same flush site by symbol in every program, at an address of its own.
json GeometryFinding(const std::string &pc, int count)
{
  return {
      {"kind", "not-invalidated-in-geometry"},
      {"count", count},
      {"words", count / 2},
      {"line", 64},
      {"stride", 128},
      {"fetch_cpu", 0},
      {"fetch_core", "Cortex-A53"},
      {"writer", nullptr},
      {"flush",
       {{"pc", pc},
        {"symbol", "__aarch64_sync_cache_range+0x80"},
        {"location", nullptr},
        {"caller", {{"pc", pc}, {"symbol", "sljit_generate_code+0x5c4"}, {"location", nullptr}}}}},
      {"examples", json::array({"0x10"})},
      {"message", "The invalidate loop steps 128 bytes."}};
}

json NotCleanedFinding(const std::string &writer_symbol, int count)
{
  return {{"kind", "not-cleaned"},
          {"count", count},
          {"words", 1},
          {"line", 64},
          {"stride", nullptr},
          {"writer", {{"pc", "0x4000"}, {"symbol", writer_symbol}, {"location", nullptr}}},
          {"flush", nullptr},
          {"message", "not cleaned"}};
}

json SarifFor(const json &findings)
{
  json results = json::array();
  for (const json &f : findings)
    results.push_back({{"ruleId", f["kind"]},
                       {"level", "error"},
                       {"message", {{"text", f["message"]}}},
                       {"properties", {{"count", f["count"]}}}});
  json run = json::object();
  run["tool"]["driver"]["name"] = "jitflush-emu";
  run["tool"]["driver"]["rules"] = json::array();
  run["results"] = results;
  json log = json::object();
  log["version"] = "2.1.0";
  log["runs"] = json::array({run});
  return log;
}

// One entry of a store: ID.run, and ID.json / ID.sarif with FINDINGS.
void WriteEntry(const std::string &dir, const std::string &id, const std::vector<std::string> &argv,
                const json &findings, int seed, const char *test = nullptr)
{
  mkdir(dir.c_str(), 0755);
  long stale = 0;
  for (const json &f : findings)
    stale += f["count"].get<long>();
  json report = {
      {"config", "/c/exynos8890.conf"}, {"soc", "Exynos"},        {"seed", seed},
      {"policy", "adversarial"},        {"stale_fetches", stale}, {"findings", findings}};
  WriteFile(dir + "/" + id + ".json", report.dump());
  WriteFile(dir + "/" + id + ".sarif", SarifFor(findings).dump());
  json record = {{"format", "jitflush-emu-store-run"},
                 {"version", 1},
                 {"id", id},
                 {"test", test ? json(test) : json(nullptr)},
                 {"cwd", "/w"},
                 {"argv", argv},
                 {"reproduce", "jitflush-emu -- " + argv[0]},
                 {"status", stale ? 86 : 0},
                 {"ran", true},
                 {"report", id + ".json"},
                 {"sarif", id + ".sarif"}};
  WriteFile(dir + "/" + id + ".run", record.dump());
}

class MergeTest : public ::testing::Test
{
protected:
  ProcessResult Merge(std::vector<std::string> args)
  {
    args.insert(args.begin(), {kRunner, "--merge"});
    return RunProcess(args);
  }
  json Read(const std::string &path)
  {
    return json::parse(ReadFileOrEmpty(path));
  }
  TempDir dir_;
};

TEST_F(MergeTest, OneRootCauseFromSeveralProcessesAndStoresIsOneFindingWithTheSumAndEveryHit)
{
  // Two CI jobs' stores: the same libgcc flush in two programs (different
  // addresses), a clean process, and a different root cause elsewhere.
  const std::string a = dir_ / "job-a", b = dir_ / "job-b";
  WriteEntry(a, "run-1-aaaaaa", {"/b/pcre2_jit_test"},
             json::array({GeometryFinding("0x401500", 100)}), 1, "pcre2_jit_test");
  WriteEntry(a, "run-2-aaaaaa", {"/b/pcre2posix_test"}, json::array(), 1);
  WriteEntry(b, "run-3-bbbbbb", {"/b/pcre2test", "-jit", "in 1"},
             json::array({NotCleanedFinding("emit+0x10", 5), GeometryFinding("0x423000", 300)}), 2);
  ProcessResult r = Merge({"--report", dir_ / "suite.json", "--sarif", dir_ / "suite.sarif", a, b});
  ASSERT_EQ(r.status, 86) << r.Describe();
  EXPECT_EQ(Lines(r.out).back(), "jitflush-emu --merge: processes=3 stores=2 processes_stale=2 "
                                 "stale_fetches=405 findings=2 incomplete=0");

  json suite = Read(dir_ / "suite.json");
  EXPECT_EQ(suite["format"], "jitflush-emu-suite");
  EXPECT_EQ(suite["processes"], 3);
  EXPECT_EQ(suite["stale_fetches"], 405);
  ASSERT_EQ(suite["findings"].size(), 2u);
  const json &geo = suite["findings"][0]; // most stale fetches first
  EXPECT_EQ(geo["kind"], "not-invalidated-in-geometry");
  EXPECT_EQ(geo["count"], 400);
  EXPECT_EQ(geo["words"], 200);
  EXPECT_EQ(geo["runs"], 2);
  ASSERT_EQ(geo["hits"].size(), 2u);
  EXPECT_EQ(geo["hits"][0]["command"], "/b/pcre2_jit_test");
  EXPECT_EQ(geo["hits"][0]["test"], "pcre2_jit_test");
  EXPECT_EQ(geo["hits"][0]["count"], 100);
  EXPECT_EQ(geo["hits"][1]["command"], "/b/pcre2test -jit 'in 1'");
  EXPECT_EQ(geo["hits"][1]["seed"], 2);
  EXPECT_EQ(suite["runs"][geo["hits"][1]["run"].get<int>()]["id"], "run-3-bbbbbb");
  EXPECT_EQ(suite["findings"][1]["kind"], "not-cleaned");
  EXPECT_EQ(suite["findings"][1]["runs"], 1);

  json sarif = Read(dir_ / "suite.sarif");
  EXPECT_EQ(sarif["version"], "2.1.0");
  const json &results = sarif["runs"][0]["results"];
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[0]["ruleId"], "not-invalidated-in-geometry");
  EXPECT_EQ(results[0]["properties"]["count"], 400);
  EXPECT_EQ(results[0]["properties"]["processes"], 2);
  EXPECT_EQ(results[0]["properties"]["commands"],
            json({"/b/pcre2_jit_test", "/b/pcre2test -jit 'in 1'"}));
  EXPECT_EQ(results[0]["message"]["text"], "The invalidate loop steps 128 bytes. (2 processes of "
                                           "the suite; first: /b/pcre2_jit_test)");
  EXPECT_EQ(sarif["runs"][0]["tool"]["driver"]["name"], "jitflush-emu");
}

TEST_F(MergeTest, DifferentSitesKindsOrLinesStayApart)
{
  const std::string s = dir_ / "s";
  json other_caller = GeometryFinding("0x1", 1);
  other_caller["flush"]["caller"]["symbol"] = "other_jit+0x10";
  json other_line = GeometryFinding("0x1", 1);
  other_line["line"] = 32;
  json no_symbol = GeometryFinding("0x1", 1);
  no_symbol["flush"]["symbol"] = nullptr;
  json no_symbol_elsewhere = no_symbol;
  no_symbol_elsewhere["flush"]["pc"] = "0x2";
  WriteEntry(s, "run-1-a", {"/p"},
             json::array({GeometryFinding("0x1", 1), other_caller, other_line, no_symbol,
                          no_symbol_elsewhere, NotCleanedFinding("a+0x1", 1),
                          NotCleanedFinding("b+0x1", 1)}),
             1);
  WriteEntry(s, "run-2-a", {"/q"},
             json::array({GeometryFinding("0x9", 1), NotCleanedFinding("a+0x1", 1)}), 1);
  ASSERT_EQ(Merge({"--report", dir_ / "m.json", s}).status, 86);
  json m = Read(dir_ / "m.json");
  ASSERT_EQ(m["findings"].size(), 7u) << m["findings"].dump(1);
  int shared = 0;
  for (const json &f : m["findings"])
    shared += f["runs"] == 2;
  EXPECT_EQ(shared, 2) << "the first geometry finding and not-cleaned at a+0x1";
}

TEST_F(MergeTest, CleanStoresExit0AndKilledProcessesAreListed)
{
  const std::string s = dir_ / "s";
  WriteEntry(s, "run-1-a", {"/p"}, json::array(), 1);
  WriteFile(s + "/run-9-killed", ""); // a marker without a record
  ProcessResult r = Merge({"--report", dir_ / "m.json", s});
  ASSERT_EQ(r.status, 0) << r.Describe();
  json m = Read(dir_ / "m.json");
  EXPECT_EQ(m["findings"], json::array());
  EXPECT_EQ(m["processes"], 1);
  EXPECT_EQ(m["incomplete"], json({s + "/run-9-killed"}));
}

TEST_F(MergeTest, ErrorsHaveTheirStatuses)
{
  const std::string s = dir_ / "s";
  WriteEntry(s, "run-1-a", {"/p"}, json::array(), 1);
  EXPECT_EQ(Merge({}).status, 2);
  EXPECT_EQ(Merge({"--frob", s}).status, 2);
  EXPECT_EQ(Merge({"--report"}).status, 2);
  ProcessResult r = Merge({"--report", dir_ / "no/such/dir/m.json", s});
  EXPECT_EQ(r.status, 4) << r.Describe();
  EXPECT_NE(r.LastErrLine().find("cannot write the report"), std::string::npos) << r.err;
  r = Merge({dir_ / "missing"});
  EXPECT_EQ(r.status, 5);
  EXPECT_NE(r.LastErrLine().find("store " + dir_ / "missing"), std::string::npos) << r.err;
  WriteFile(s + "/run-2-a.run", "{not json");
  r = Merge({s});
  EXPECT_EQ(r.status, 5);
  EXPECT_NE(r.LastErrLine().find(s + "/run-2-a.run"), std::string::npos) << r.err;
}

} // namespace
