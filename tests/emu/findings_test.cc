// Findings (src/emu/findings.c) and guest symbols (src/emu/symbols.c) on
// their own: verdicts in, grouped findings and their three renderings out.
#include <gtest/gtest.h>

#include <cstdio>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

extern "C" {
#include "emu_config.h"
}
#include "emu_json.h"
#include "findings.h"
#include "symbols.h"

namespace
{

struct Config {
  Config()
  {
    GError *err = nullptr;
    cfg = emu_config_load(JITFLUSH_QEMU_CONFIGS_DIR "/exynos8890.conf", &err);
    if (err)
      g_error_free(err);
  }
  ~Config()
  {
    emu_config_free(cfg);
  }
  emu_config *cfg;
};

jf_verdict Geometry(uint32_t site, uint64_t writer = 0x4031fc)
{
  return jf_verdict{JF_STALE_NOT_INVALIDATED_IN_GEOMETRY, writer, site, 128, 64, 0};
}

// A fixed "symbolizer": every PC gets a name, only some a location.
void FakeNames(uint64_t pc, char **symbol, char **location, void *)
{
  *symbol = g_strdup_printf("fn_%llx+0x4", static_cast<unsigned long long>(pc));
  *location = pc == 0x401224 ? g_strdup("/src/jit.c:55") : nullptr;
}

std::string Take(GString *s)
{
  std::string out(s->str, s->len);
  g_string_free(s, TRUE);
  return out;
}

class Findings : public ::testing::Test
{
protected:
  Findings() : f(emu_findings_new(config.cfg))
  {
  }
  ~Findings() override
  {
    emu_findings_free(f);
  }
  nlohmann::json Json()
  {
    JsonObject *report = json_object_new();
    emu_findings_json(f, report);
    return nlohmann::json::parse(Take(emu_json_write_object(report)));
  }
  Config config;
  emu_findings *f;
};

TEST_F(Findings, ConfigLoads)
{
  ASSERT_NE(config.cfg, nullptr);
}

TEST_F(Findings, ManyStaleFetchesOfOneBugAreOneFindingWithACount)
{
  const uint32_t site = emu_findings_site(f, 0x403520, 0x401228);
  EXPECT_EQ(emu_findings_site(f, 0x403520, 0x401228), site) << "sites are interned";
  const jf_verdict v = Geometry(site);
  for (int round = 0; round < 1000; round++)
    for (uint64_t word = 0; word < 16; word++)
      emu_findings_record(f, 0x7f0000001040 + 4 * word, 0, 0, &v);
  EXPECT_EQ(emu_findings_count(f), 1u);
  EXPECT_EQ(emu_findings_stale_total(f), 16000u);
  emu_findings_resolve(f, FakeNames, nullptr);
  const nlohmann::json j = Json();
  ASSERT_EQ(j["findings"].size(), 1u);
  const auto &fd = j["findings"][0];
  EXPECT_EQ(fd["kind"], "not-invalidated-in-geometry");
  EXPECT_EQ(fd["count"], 16000);
  EXPECT_EQ(fd["words"], 16);
  EXPECT_EQ(fd["fetch_cpu"], 0);
  EXPECT_EQ(fd["fetch_core"], "Cortex-A53");
  EXPECT_EQ(fd["writer_core"], "Cortex-A53") << "the verdict's writer cluster 0";
  EXPECT_EQ(fd["line"], 64);
  EXPECT_EQ(fd["stride"], 128);
  EXPECT_EQ(fd["writer"]["pc"], "0x4031fc");
  EXPECT_EQ(fd["writer"]["symbol"], "fn_4031fc+0x4");
  EXPECT_TRUE(fd["writer"]["location"].is_null());
  EXPECT_EQ(fd["flush"]["pc"], "0x403520");
  EXPECT_EQ(fd["flush"]["caller"]["pc"], "0x401224") << "the call before the return address";
  EXPECT_EQ(fd["flush"]["caller"]["location"], "/src/jit.c:55");
  ASSERT_EQ(fd["examples"].size(), 5u);
  EXPECT_EQ(fd["examples"][0], "0x7f0000001040");
  EXPECT_NE(fd["message"].get<std::string>().find("steps 128 bytes"), std::string::npos);
  EXPECT_EQ(j["stale"].size(), 100u) << "the per-word list keeps the first 100";
  EXPECT_EQ(j["stale"][0]["reason"], "not invalidated in this core's geometry");
}

TEST_F(Findings, WriterCoreIsTheCoreThatStoredNotTheOneThatFetched)
{
  // Stored on a big core (cluster 1), fetched stale on LITTLE CPU 0: the
  // D line that a clean missed is the writer's.
  const jf_verdict v = {JF_STALE_NOT_CLEANED, 0x5000, JF_MODEL_NO_SITE, 0, 64, 1};
  const jf_verdict unknown_writer = {JF_STALE_NOT_SYNCHRONISED, 0, JF_MODEL_NO_SITE, 0, 64, 1};
  emu_findings_record(f, 0x9000, 0, 0, &v);
  emu_findings_record(f, 0x9004, 0, 0, &unknown_writer);
  emu_findings_resolve(f, nullptr, nullptr);
  const nlohmann::json j = Json();
  ASSERT_EQ(j["findings"].size(), 2u);
  for (const auto &fd : j["findings"]) {
    EXPECT_EQ(fd["fetch_core"], "Cortex-A53");
    if (fd["kind"] == "not-cleaned")
      EXPECT_EQ(fd["writer_core"], "Exynos M1");
    else
      EXPECT_TRUE(fd["writer_core"].is_null()) << "no writer, no writer core";
  }
}

// Issue 23: 100,000 distinct flush callers gave 50,000 findings, 22 MB of
// stderr and a 33 MB report. Root causes past EMU_FINDINGS_KEEP are not
// kept, and their stale fetches are counted where a reader sees them.
TEST_F(Findings, RootCausesBeyondTheCapAreCountedNotKept)
{
  const unsigned extra = 7;
  for (unsigned i = 0; i < EMU_FINDINGS_KEEP + extra; i++) {
    const jf_verdict v = {
        JF_STALE_NOT_CLEANED, 0x10000 + 4 * uint64_t{i}, JF_MODEL_NO_SITE, 0, 64, 0};
    emu_findings_record(f, 0x900000 + 4 * uint64_t{i}, 0, 0, &v);
    emu_findings_record(f, 0x900000 + 4 * uint64_t{i}, 0, 0, &v);
  }
  EXPECT_EQ(emu_findings_count(f), unsigned{EMU_FINDINGS_KEEP});
  EXPECT_EQ(emu_findings_omitted_stale(f), 2u * extra);
  EXPECT_EQ(emu_findings_stale_total(f), 2u * (EMU_FINDINGS_KEEP + extra)) << "all still counted";
  emu_findings_resolve(f, nullptr, nullptr);
  const nlohmann::json j = Json();
  EXPECT_EQ(j["findings"].size(), size_t{EMU_FINDINGS_KEEP});
  EXPECT_EQ(j["findings_omitted_stale"], 2 * extra);
  const std::string text = Take(emu_findings_text(f));
  EXPECT_NE(text.find("==jitflush-emu== 14 more stale fetches of root causes beyond the first "
                      "1000, which are the only ones kept\n"),
            std::string::npos);
}

// Issue 27: each finding block and the SARIF log say how to get the run
// again.
TEST_F(Findings, EachBlockAndTheSarifLogCarryTheReproducingCommand)
{
  const std::string cmd =
      "jitflush-emu --config /c/x.conf --seed 7 --policy random -- /bin/jit 'a b'";
  emu_findings_set_reproduce(f, cmd.c_str());
  const jf_verdict a = {JF_STALE_NOT_CLEANED, 0x5000, JF_MODEL_NO_SITE, 0, 64, 0};
  const jf_verdict b = {JF_STALE_NOT_CLEANED, 0x5004, JF_MODEL_NO_SITE, 0, 64, 0};
  emu_findings_record(f, 0x9000, 0, 0, &a);
  emu_findings_record(f, 0x9004, 0, 0, &b);
  emu_findings_resolve(f, nullptr, nullptr);
  const std::string text = Take(emu_findings_text(f));
  size_t blocks = 0;
  for (size_t at = text.find("    rerun   " + cmd + "\n"); at != std::string::npos;
       at = text.find("    rerun   " + cmd + "\n", at + 1))
    blocks++;
  EXPECT_EQ(blocks, 2u) << text;
  const nlohmann::json s = nlohmann::json::parse(Take(emu_findings_sarif(f)));
  EXPECT_EQ(s["runs"][0]["invocations"][0]["commandLine"], cmd);
}

TEST_F(Findings, DifferentStepsSitesAndLinesAreDifferentFindingsMostFrequentFirst)
{
  const uint32_t a = emu_findings_site(f, 0x1000, 0x2004);
  const uint32_t b = emu_findings_site(f, 0x1100, 0x2004);
  const jf_verdict geo = Geometry(a);
  jf_verdict other_site = Geometry(b);
  jf_verdict no_isb = {JF_STALE_NOT_SYNCHRONISED, 0x4031fc, a, 64, 64, 0};
  jf_verdict no_site_w1 = {JF_STALE_NOT_CLEANED, 0x5000, JF_MODEL_NO_SITE, 0, 64, 0};
  jf_verdict no_site_w2 = {JF_STALE_NOT_CLEANED, 0x5004, JF_MODEL_NO_SITE, 0, 64, 0};
  emu_findings_record(f, 0x9000, 0, 0, &geo);
  for (int i = 0; i < 3; i++)
    emu_findings_record(f, 0x9004, 4, 1, &other_site);
  emu_findings_record(f, 0x9008, 0, 0, &no_isb);
  emu_findings_record(f, 0x900c, 0, 0, &no_site_w1);
  emu_findings_record(f, 0x9010, 0, 0, &no_site_w2);
  EXPECT_EQ(emu_findings_count(f), 5u);
  emu_findings_resolve(f, nullptr, nullptr);
  const nlohmann::json j = Json();
  EXPECT_EQ(j["findings"][0]["count"], 3) << "most stale fetches first";
  EXPECT_EQ(j["findings"][0]["fetch_core"], "Exynos M1");
  for (const auto &fd : j["findings"]) {
    if (fd["kind"] == "not-cleaned") {
      EXPECT_TRUE(fd["flush"].is_null()) << fd.dump();
      EXPECT_TRUE(fd["stride"].is_null()) << fd.dump();
      EXPECT_TRUE(fd["writer"]["symbol"].is_null()) << "no symbolizer: null, never guessed";
    }
  }
}

TEST_F(Findings, CtrReadSitesCountEachPcCpuAndValue)
{
  emu_findings_ctr_read(f, 0x4012cc, 4, 0x84448005);
  emu_findings_ctr_read(f, 0x4012cc, 4, 0x84448005);
  emu_findings_ctr_read(f, 0x4012cc, 0, 0x84448004);
  emu_findings_resolve(f, FakeNames, nullptr);
  const nlohmann::json j = Json();
  ASSERT_EQ(j["ctr_read_sites"].size(), 2u);
  EXPECT_EQ(j["ctr_read_sites"][0]["pc"], "0x4012cc");
  EXPECT_EQ(j["ctr_read_sites"][0]["symbol"], "fn_4012cc+0x4");
  EXPECT_EQ(j["ctr_read_sites"][0]["cpu"], 4);
  EXPECT_EQ(j["ctr_read_sites"][0]["value"], "0x84448005");
  EXPECT_EQ(j["ctr_read_sites"][0]["count"], 2);
}

TEST_F(Findings, TextIsOneBlockPerFindingAndASummary)
{
  EXPECT_EQ(Take(emu_findings_text(f)), "") << "nothing to say on a clean run";
  const jf_verdict v = Geometry(emu_findings_site(f, 0x403520, 0x401228));
  emu_findings_record(f, 0x9040, 0, 0, &v);
  emu_findings_resolve(f, FakeNames, nullptr);
  const std::string text = Take(emu_findings_text(f));
  EXPECT_EQ(
      text.rfind(
          "==jitflush-emu== STALE FETCH #1 not-invalidated-in-geometry: 1 stale fetches of 1 words "
          "(first 0x9040) on cpu 0 (Cortex-A53, 64-byte lines)\n",
          0),
      0u)
      << text;
  EXPECT_NE(text.find("    flush   0x403520 fn_403520+0x4\n"), std::string::npos) << text;
  EXPECT_NE(text.find("            loop stride 128 bytes\n"), std::string::npos) << text;
  EXPECT_NE(text.find("    called  0x401224 fn_401224+0x4 /src/jit.c:55\n"), std::string::npos)
      << text;
  EXPECT_NE(text.find("    writer  0x4031fc fn_4031fc+0x4\n"), std::string::npos) << text;
  EXPECT_NE(text.find("SUMMARY: jitflush-emu: 1 finding, 1 stale fetches\n"), std::string::npos)
      << text;
}

TEST_F(Findings, SarifHasOneResultPerFindingAtTheCallersLine)
{
  const jf_verdict v = Geometry(emu_findings_site(f, 0x403520, 0x401228));
  emu_findings_record(f, 0x9040, 0, 0, &v);
  emu_findings_resolve(f, FakeNames, nullptr);
  const nlohmann::json s = nlohmann::json::parse(Take(emu_findings_sarif(f)));
  EXPECT_EQ(s["version"], "2.1.0");
  const auto &run = s["runs"][0];
  EXPECT_EQ(run["tool"]["driver"]["name"], "jitflush-emu");
  EXPECT_EQ(run["tool"]["driver"]["rules"].size(), 7u) << "one rule per kind";
  ASSERT_EQ(run["results"].size(), 1u);
  const auto &r = run["results"][0];
  EXPECT_EQ(r["ruleId"], "not-invalidated-in-geometry");
  EXPECT_EQ(run["tool"]["driver"]["rules"][r["ruleIndex"].get<int>()]["id"], r["ruleId"]);
  const auto &loc = r["locations"][0]["physicalLocation"];
  EXPECT_EQ(loc["artifactLocation"]["uri"], "file:///src/jit.c");
  EXPECT_EQ(loc["region"]["startLine"], 55);
}

// ---- symbols over a real aarch64 binary --------------------------------------

const std::string kGuest = JITFLUSH_AARCH64_BUILD_DIR "/tests/scenario/jit_stress";

std::string ReadText(const std::string &path)
{
  std::unique_ptr<FILE, int (*)(FILE *)> f(fopen(path.c_str(), "r"), fclose);
  std::string text;
  char buf[4096];
  size_t n;
  while (f && (n = fread(buf, 1, sizeof buf, f.get())) > 0)
    text.append(buf, n);
  return text;
}

uint64_t NmAddress(const std::string &symbol)
{
  const std::string cmd = "aarch64-linux-gnu-nm " + kGuest + " 2>/dev/null";
  std::unique_ptr<FILE, int (*)(FILE *)> p(popen(cmd.c_str(), "r"), pclose);
  char line[512];
  while (p && fgets(line, sizeof line, p.get())) {
    unsigned long long addr;
    char type;
    char name[400];
    if (sscanf(line, "%llx %c %399s", &addr, &type, name) == 3 && symbol == name)
      return addr;
  }
  return 0;
}

TEST(Symbols, NamesFunctionOffsetAndSourceLineOfAnAarch64Binary)
{
  // The host tree names its aarch64 tree (ci/build.sh builds both): a
  // missing program there is a broken build, not a reason to skip.
  const uint64_t fn = NmAddress("sc_flush_libgcc");
  ASSERT_NE(fn, 0u) << "no sc_flush_libgcc in " << kGuest << " (aarch64-linux-gnu-nm)";
  // A static, non-PIE program: mapped where it was linked.
  const std::string maps = "00400000-00800000 r-xp 00000000 08:01 12 " + kGuest + "\n";
  emu_symbols *s = emu_symbols_new(maps.c_str());
  char *symbol = nullptr, *location = nullptr;
  emu_symbols_lookup(fn + 4, &symbol, &location, s);
  ASSERT_NE(symbol, nullptr);
  EXPECT_STREQ(symbol, "sc_flush_libgcc+0x4");
  ASSERT_NE(location, nullptr);
  // file:line inside sc_flush_libgcc's body, wherever the source has it.
  const std::string loc = location;
  const std::string file = loc.substr(0, loc.rfind(':'));
  EXPECT_EQ(file.substr(file.size() - std::string("tests/scenario/impl_libgcc.c").size()),
            "tests/scenario/impl_libgcc.c")
      << loc;
  const int line = std::stoi(loc.substr(loc.rfind(':') + 1));
  const std::string source = ReadText(file);
  int def = 0, n = 1;
  for (size_t i = 0; i < source.size(); i++) {
    if (source.compare(i, 21, "void sc_flush_libgcc(") == 0)
      def = n;
    n += source[i] == '\n';
  }
  ASSERT_GT(def, 0) << file;
  EXPECT_GE(line, def) << loc;
  EXPECT_LE(line, def + 3) << loc;
  g_free(symbol);
  g_free(location);
  emu_symbols_lookup(0x10, &symbol, &location, s);
  EXPECT_EQ(symbol, nullptr) << "an address no file maps has no name";
  EXPECT_EQ(location, nullptr);
  emu_symbols_free(s);
}

TEST(Symbols, GuestMapsKeepOnlyAarch64FilesShiftedByTheGuestBase)
{
  ASSERT_NE(NmAddress("main"), 0u) << "no main in " << kGuest;
  const std::string host = "5500400000-5500800000 r-xp 00000000 08:01 12 " + kGuest +
                           "\n"
                           "7f0000000000-7f0000100000 r-xp 00000000 08:01 13 /bin/sh\n"
                           "7f0000200000-7f0000201000 rw-p 00000000 00:00 0 \n";
  EXPECT_EQ(emu_symbols_guest_base(host.c_str(), kGuest.c_str(), 0x400100), 0x5500000000u);
  EXPECT_EQ(emu_symbols_guest_base(host.c_str(), "/nonexistent", 0x400100), 0u);
  char *guest = emu_symbols_guest_maps(host.c_str(), 0x5500000000);
  EXPECT_EQ(std::string(guest), "400000-800000 r-xp 00000000 08:01 12 " + kGuest + "\n");
  g_free(guest);
}

} // namespace
