// Findings (rig/report/findings*.c) and guest symbols (rig/report/report_symbols.c) on
// their own: verdicts in, grouped findings and their three renderings out.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <initializer_list>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

extern "C" {
#include "rig_config.h"
}
#include "report_demangle.h"
#include "rig_json.h"
#include "report_findings.h"
#include "report_findings_json.h"
#include "report_findings_names.h"
#include "report_findings_sarif.h"
#include "report_findings_text.h"
#include "report_known_routines.h"
#include "report_module_origin.h"
#include "report_symbols.h"

namespace
{

struct Config {
  Config()
  {
    GError *err = nullptr;
    cfg = rig_config_load(JITFLUSH_QEMU_CONFIGS_DIR "/exynos8890.conf", &err);
    if (err)
      g_error_free(err);
  }
  ~Config()
  {
    rig_config_free(cfg);
  }
  rig_config *cfg;
};

model_verdict Geometry(uint32_t site, uint64_t writer = 0x4031fc)
{
  return model_verdict{MODEL_STALE_NOT_INVALIDATED_IN_GEOMETRY, writer, site, 128, 64, 0, false, 0};
}

// A fixed "symbolizer": every PC gets a name and a module (libfake.so,
// loaded at 0x400000), only some a location.
void FakeNames(uint64_t pc, report_frame_names *out, void *)
{
  out->symbol = g_strdup_printf("fn_%llx+0x4", static_cast<unsigned long long>(pc));
  out->raw_symbol = g_strdup_printf("_Z4fn_%llxv+0x4", static_cast<unsigned long long>(pc));
  out->location = pc == 0x401224 ? g_strdup("/src/jit.c:55") : nullptr;
  if (pc >= 0x400000) {
    out->module = g_strdup("/sysroot/usr/lib/libfake.so");
    out->offset = pc - 0x400000;
  }
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
  Findings() : f(report_findings_new(config.cfg))
  {
  }
  ~Findings() override
  {
    report_findings_free(f);
  }
  nlohmann::json Json()
  {
    JsonObject *report = json_object_new();
    report_findings_json(f, report);
    return nlohmann::json::parse(Take(rig_json_write_object(report)));
  }
  // One stale fetch of each (address, verdict), on cpu 0 by thread 0.
  void Record(std::initializer_list<std::pair<uint64_t, const model_verdict *>> fetches)
  {
    for (const auto &[va, v] : fetches)
      report_findings_record(f, va, 0, 0, v);
  }
  Config config;
  report_findings *f;
};

// Each of LINES stands somewhere in TEXT.
void ExpectContains(const std::string &text, std::initializer_list<std::string> lines)
{
  for (const std::string &line : lines)
    EXPECT_NE(text.find(line), std::string::npos) << line << "\nnot in:\n" << text;
}

TEST_F(Findings, ConfigLoads)
{
  ASSERT_NE(config.cfg, nullptr);
}

TEST_F(Findings, ManyStaleFetchesOfOneBugAreOneFindingWithACount)
{
  const uint32_t site = report_findings_site(f, 0x403520, 0x401228);
  EXPECT_EQ(report_findings_site(f, 0x403520, 0x401228), site) << "sites are interned";
  const model_verdict v = Geometry(site);
  for (int round = 0; round < 1000; round++)
    for (uint64_t word = 0; word < 16; word++)
      report_findings_record(f, 0x7f0000001040 + 4 * word, 0, 0, &v);
  EXPECT_EQ(report_findings_count(f), 1u);
  EXPECT_EQ(report_findings_stale_total(f), 16000u);
  report_findings_resolve(f, FakeNames, nullptr);
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
  const model_verdict v = {MODEL_STALE_NOT_CLEANED, 0x5000, MODEL_NO_SITE, 0, 64, 1, false, 0};
  const model_verdict unknown_writer = {
      MODEL_STALE_NOT_SYNCHRONISED, 0, MODEL_NO_SITE, 0, 64, 1, false, 0};
  report_findings_record(f, 0x9000, 0, 0, &v);
  report_findings_record(f, 0x9004, 0, 0, &unknown_writer);
  report_findings_resolve(f, nullptr, nullptr);
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

// A program with 100,000 distinct flush callers gave 50,000 findings, 22 MB of
// stderr and a 33 MB report. Root causes past REPORT_FINDINGS_KEEP are not
// kept, and their stale fetches are counted where a reader sees them.
TEST_F(Findings, RootCausesBeyondTheCapAreCountedNotKept)
{
  const unsigned extra = 7;
  for (unsigned i = 0; i < REPORT_FINDINGS_KEEP + extra; i++) {
    const model_verdict v = {
        MODEL_STALE_NOT_CLEANED, 0x10000 + 4 * uint64_t{i}, MODEL_NO_SITE, 0, 64, 0, false, 0};
    report_findings_record(f, 0x900000 + 4 * uint64_t{i}, 0, 0, &v);
    report_findings_record(f, 0x900000 + 4 * uint64_t{i}, 0, 0, &v);
  }
  EXPECT_EQ(report_findings_count(f), unsigned{REPORT_FINDINGS_KEEP});
  EXPECT_EQ(report_findings_omitted_stale(f), 2u * extra);
  EXPECT_EQ(report_findings_stale_total(f), 2u * (REPORT_FINDINGS_KEEP + extra))
      << "all still counted";
  report_findings_resolve(f, nullptr, nullptr);
  const nlohmann::json j = Json();
  EXPECT_EQ(j["findings"].size(), size_t{REPORT_FINDINGS_KEEP});
  EXPECT_EQ(j["findings_omitted_stale"], 2 * extra);
  const std::string text = Take(report_findings_text(f));
  EXPECT_NE(text.find("==jitflush-emu== 14 more stale fetches of root causes beyond the first "
                      "1000, which are the only ones kept\n"),
            std::string::npos);
}

// Each finding block and the SARIF log say how to get the run
// again.
TEST_F(Findings, EachBlockAndTheSarifLogCarryTheReproducingCommand)
{
  const std::string cmd =
      "jitflush-emu --config /c/x.conf --seed 7 --policy random -- /bin/jit 'a b'";
  report_findings_set_reproduce(f, cmd.c_str());
  const model_verdict a = {MODEL_STALE_NOT_CLEANED, 0x5000, MODEL_NO_SITE, 0, 64, 0, false, 0};
  const model_verdict b = {MODEL_STALE_NOT_CLEANED, 0x5004, MODEL_NO_SITE, 0, 64, 0, false, 0};
  report_findings_record(f, 0x9000, 0, 0, &a);
  report_findings_record(f, 0x9004, 0, 0, &b);
  report_findings_resolve(f, nullptr, nullptr);
  const std::string text = Take(report_findings_text(f));
  size_t blocks = 0;
  for (size_t at = text.find("    rerun   " + cmd + "\n"); at != std::string::npos;
       at = text.find("    rerun   " + cmd + "\n", at + 1))
    blocks++;
  EXPECT_EQ(blocks, 2u) << text;
  const nlohmann::json s = nlohmann::json::parse(Take(report_findings_sarif(f)));
  EXPECT_EQ(s["runs"][0]["invocations"][0]["commandLine"], cmd);
  // A report records the run: the blocks point at it, and say what it
  // cannot restore; the SARIF log keeps the command line.
  report_findings_set_rerun(f, "jitflush-emu --reproduce /w/r.json",
                            "the environment (the run was recorded with --no-record-env)");
  const std::string recorded = Take(report_findings_text(f));
  EXPECT_EQ(recorded.find(cmd), std::string::npos) << recorded;
  EXPECT_NE(recorded.find("    rerun   jitflush-emu --reproduce /w/r.json\n            not "
                          "restored by it: the environment (the run was recorded with "
                          "--no-record-env)\n"),
            std::string::npos)
      << recorded;
  const nlohmann::json again = nlohmann::json::parse(Take(report_findings_sarif(f)));
  EXPECT_EQ(again["runs"][0]["invocations"][0]["commandLine"], cmd);
}

TEST_F(Findings, DifferentStepsSitesAndLinesAreDifferentFindingsMostFrequentFirst)
{
  const uint32_t a = report_findings_site(f, 0x1000, 0x2004);
  const uint32_t b = report_findings_site(f, 0x1100, 0x2004);
  const model_verdict geo = Geometry(a);
  model_verdict other_site = Geometry(b);
  model_verdict no_isb = {MODEL_STALE_NOT_SYNCHRONISED, 0x4031fc, a, 64, 64, 0, false, 0};
  model_verdict no_site_w1 = {MODEL_STALE_NOT_CLEANED, 0x5000, MODEL_NO_SITE, 0, 64, 0, false, 0};
  model_verdict no_site_w2 = {MODEL_STALE_NOT_CLEANED, 0x5004, MODEL_NO_SITE, 0, 64, 0, false, 0};
  report_findings_record(f, 0x9000, 0, 0, &geo);
  for (int i = 0; i < 3; i++)
    report_findings_record(f, 0x9004, 4, 1, &other_site);
  Record({{0x9008, &no_isb}, {0x900c, &no_site_w1}, {0x9010, &no_site_w2}});
  EXPECT_EQ(report_findings_count(f), 5u);
  report_findings_resolve(f, nullptr, nullptr);
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
  report_findings_ctr_read(f, 0x4012cc, 4, 0x84448005);
  report_findings_ctr_read(f, 0x4012cc, 4, 0x84448005);
  report_findings_ctr_read(f, 0x4012cc, 0, 0x84448004);
  report_findings_resolve(f, FakeNames, nullptr);
  const nlohmann::json j = Json();
  ASSERT_EQ(j["ctr_read_sites"].size(), 2u);
  const nlohmann::json first = {{"pc", "0x4012cc"},
                                {"symbol", "fn_4012cc+0x4"},
                                {"cpu", 4},
                                {"value", "0x84448005"},
                                {"count", 2}};
  for (const auto &field : first.items())
    EXPECT_EQ(j["ctr_read_sites"][0][field.key()], field.value()) << field.key();
}

TEST_F(Findings, TextIsOneBlockPerFindingAndASummary)
{
  EXPECT_EQ(Take(report_findings_text(f)), "") << "nothing to say on a clean run";
  const model_verdict v = Geometry(report_findings_site(f, 0x403520, 0x401228));
  report_findings_record(f, 0x9040, 0, 0, &v);
  report_findings_resolve(f, FakeNames, nullptr);
  const std::string text = Take(report_findings_text(f));
  EXPECT_EQ(
      text.rfind(
          "==jitflush-emu== STALE FETCH #1 not-invalidated-in-geometry: 1 stale fetches of 1 words "
          "(first 0x9040) on cpu 0 (Cortex-A53, 64-byte I-cache lines)\n",
          0),
      0u)
      << text;
  ExpectContains(text, {"    flush   0x403520 fn_403520+0x4 (libfake.so+0x3520)\n",
                        "            loop stride 128 bytes\n",
                        "    called  0x401224 fn_401224+0x4 /src/jit.c:55 (libfake.so+0x1224)\n",
                        "    writer  0x4031fc fn_4031fc+0x4 (libfake.so+0x31fc)\n",
                        "SUMMARY: jitflush-emu: 1 finding, 1 stale fetches\n"});
}

TEST_F(Findings, SarifHasOneResultPerFindingAtTheCallersLine)
{
  const model_verdict v = Geometry(report_findings_site(f, 0x403520, 0x401228));
  report_findings_record(f, 0x9040, 0, 0, &v);
  report_findings_resolve(f, FakeNames, nullptr);
  const nlohmann::json s = nlohmann::json::parse(Take(report_findings_sarif(f)));
  EXPECT_EQ(s["version"], "2.1.0");
  const auto &run = s["runs"][0];
  EXPECT_EQ(run["tool"]["driver"]["name"], "jitflush-emu");
  EXPECT_EQ(run["tool"]["driver"]["rules"].size(), 10u) << "one rule per kind";
  EXPECT_EQ(run["tool"]["driver"]["rules"][9]["id"], "kernel-sync-assumed");
  ASSERT_EQ(run["results"].size(), 1u);
  const auto &r = run["results"][0];
  EXPECT_EQ(r["ruleId"], "not-invalidated-in-geometry");
  EXPECT_EQ(run["tool"]["driver"]["rules"][r["ruleIndex"].get<int>()]["id"], r["ruleId"]);
  const auto &loc = r["locations"][0]["physicalLocation"];
  EXPECT_EQ(loc["artifactLocation"]["uri"], "file:///src/jit.c");
  EXPECT_EQ(loc["region"]["startLine"], 55);
}

// QEMU's TCG gave 5 findings and HotSpot 9 to 12 for one latched
// stride, one per caller. One routine with one stride is one root cause;
// its callers are listed inside with their counts.
TEST_F(Findings, OneRoutineAndStrideIsOneFindingWhateverTheCaller)
{
  const uint32_t from_a = report_findings_site(f, 0x403520, 0x401228);
  const uint32_t from_b = report_findings_site(f, 0x403520, 0x402004);
  const model_verdict a = Geometry(from_a), b = Geometry(from_b);
  for (int i = 0; i < 3; i++)
    report_findings_record(f, 0x9040 + 4 * i, 0, 0, &a);
  report_findings_record(f, 0xa040, 1, 0, &b);
  EXPECT_EQ(report_findings_count(f), 1u);
  report_findings_resolve(f, FakeNames, nullptr);
  const nlohmann::json j = Json();
  ASSERT_EQ(j["findings"].size(), 1u);
  const auto &flush = j["findings"][0]["flush"];
  EXPECT_EQ(flush["pc"], "0x403520");
  EXPECT_EQ(flush["caller"]["pc"], "0x401224") << "the caller with most stale fetches";
  ASSERT_EQ(flush["callers"].size(), 2u);
  EXPECT_EQ(flush["callers"][0]["pc"], "0x401224");
  EXPECT_EQ(flush["callers"][0]["count"], 3);
  EXPECT_EQ(flush["callers"][1]["pc"], "0x402000");
  EXPECT_EQ(flush["callers"][1]["count"], 1);
  const std::string text = Take(report_findings_text(f));
  EXPECT_NE(text.find("    called  0x401224 fn_401224+0x4 /src/jit.c:55 (libfake.so+0x1224) [3 "
                      "stale fetches]\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("    called  0x402000 fn_402000+0x4 (libfake.so+0x2000) [1 stale fetches]\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("SUMMARY: jitflush-emu: 1 finding,"), std::string::npos) << text;
}

// A call of one or two lines shows no stride of its own; with one stride
// known for its routine it is the same bug, and says so.
TEST_F(Findings, AShortCallJoinsItsRoutinesOneStride)
{
  const uint32_t loop = report_findings_site(f, 0x403520, 0x401228);
  const uint32_t short_call = report_findings_site(f, 0x403520, 0x402004);
  const model_verdict strided = Geometry(loop);
  model_verdict strideless = Geometry(short_call);
  strideless.stride = 0;
  Record({{0x9040, &strided}, {0xa040, &strideless}, {0xa044, &strideless}});
  EXPECT_EQ(report_findings_count(f), 1u);
  report_findings_record(f, 0xa048, 0, 0, &strideless); // after settling: same finding
  EXPECT_EQ(report_findings_count(f), 1u);
  report_findings_resolve(f, FakeNames, nullptr);
  const nlohmann::json j = Json();
  ASSERT_EQ(j["findings"].size(), 1u);
  EXPECT_EQ(j["findings"][0]["stride"], 128);
  EXPECT_EQ(j["findings"][0]["count"], 4);
  EXPECT_EQ(j["findings"][0]["words"], 4);
  EXPECT_EQ(j["findings"][0]["flush"]["callers"].size(), 2u);
}

TEST_F(Findings, AShortCallOfARoutineWithTwoStridesStaysApart)
{
  const uint32_t site = report_findings_site(f, 0x403520, 0x401228);
  model_verdict by128 = Geometry(site), by256 = Geometry(site), none = Geometry(site);
  by256.stride = 256;
  none.stride = 0;
  report_findings_record(f, 0x9040, 0, 0, &by128);
  report_findings_record(f, 0x9140, 0, 0, &by256);
  report_findings_record(f, 0x9240, 0, 0, &none);
  EXPECT_EQ(report_findings_count(f), 3u) << "nothing guessed between two strides";
}

// The stride is explained by the CTR_EL0 read it came from.
TEST_F(Findings, TheStrideNamesTheCtrReadItCameFrom)
{
  report_findings_ctr_read(f, 0x4012c0, 0, 0x84448004); // a LITTLE core's own value
  report_findings_ctr_read(f, 0x4012cc, 7, 0x84448005); // latched on an M1
  const model_verdict v = Geometry(report_findings_site(f, 0x403520, 0x401228));
  report_findings_record(f, 0x9040, 2, 0, &v);
  report_findings_resolve(f, FakeNames, nullptr);
  const nlohmann::json j = Json();
  const auto &src = j["findings"][0]["stride_source"];
  EXPECT_EQ(src["pc"], "0x4012cc");
  EXPECT_EQ(src["cpu"], 7);
  EXPECT_EQ(src["value"], "0x84448005");
  EXPECT_EQ(src["count"], 1);
  EXPECT_NE(j["findings"][0]["message"].get<std::string>().find(
                "it came from CTR_EL0 read once on cpu 7 (Exynos M1)"),
            std::string::npos)
      << j["findings"][0]["message"];
  const std::string text = Take(report_findings_text(f));
  EXPECT_NE(text.find("            loop stride 128 bytes: CTR_EL0 read once on cpu 7 (Exynos M1) "
                      "at 0x4012cc fn_4012cc+0x4 (libfake.so+0x12cc), IminLine 128 bytes, used on "
                      "cpu 2 (Cortex-A53, 64)\n"),
            std::string::npos)
      << text;
}

// HotSpot reads CTR_EL0 in VM_Version for itself, and libgcc's
// __aarch64_sync_cache_range reads it again to latch its stride: the read
// nearest the flush is the source.
TEST_F(Findings, TheStrideSourceIsTheReadNearestTheFlush)
{
  report_findings_ctr_read(f, 0x7f0000e36e8c, 4, 0x84448005); // libjvm.so's VM_Version
  report_findings_ctr_read(f, 0x403490, 4, 0x84448005);       // the flush routine's own
  const model_verdict v = Geometry(report_findings_site(f, 0x403520, 0x401228));
  report_findings_record(f, 0x9040, 2, 0, &v);
  report_findings_resolve(f, FakeNames, nullptr);
  EXPECT_EQ(Json()["findings"][0]["stride_source"]["pc"], "0x403490");
}

TEST_F(Findings, AStrideNoCtrReadExplainsHasNoSource)
{
  report_findings_ctr_read(f, 0x4012c0, 0, 0x84448004);
  model_verdict v = Geometry(report_findings_site(f, 0x403520, 0x401228));
  v.stride = 256; // hard-coded: no core reports 256-byte lines
  report_findings_record(f, 0x9040, 2, 0, &v);
  report_findings_resolve(f, FakeNames, nullptr);
  EXPECT_TRUE(Json()["findings"][0]["stride_source"].is_null());
}

// A symbolizer of one flush routine, `flush_range` at 0x403500-0x4035ff,
// which calls a helper from 0x403504; everything else is `caller`.
void RoutineNames(uint64_t pc, report_frame_names *out, void *)
{
  const bool inside = pc >= 0x403500 && pc < 0x403600;
  out->symbol = g_strdup_printf("%s+0x%llx", inside ? "flush_range" : "jit_publish",
                                static_cast<unsigned long long>(pc & 0xff));
  out->raw_symbol = g_strdup(out->symbol);
}

// A flush routine that called a helper (for the cache geometry) before
// its loops holds in x30 the return address of that call, inside itself:
// its caller is in the frame record at x29.
TEST_F(Findings, TheCallerOfANonLeafRoutineComesFromItsFrameRecord)
{
  const model_verdict v = Geometry(report_findings_site_framed(f, 0x403520, 0x403508, 0x401228));
  report_findings_record(f, 0x9040, 2, 0, &v);
  report_findings_resolve(f, RoutineNames, nullptr);
  const nlohmann::json j = Json();
  EXPECT_EQ(j["findings"][0]["flush"]["caller"]["pc"], "0x401224") << j.dump(1);
  EXPECT_EQ(j["findings"][0]["flush"]["caller"]["symbol"], "jit_publish+0x24");
  ASSERT_EQ(j["findings"][0]["flush"]["callers"].size(), 1u);
  const std::string text = Take(report_findings_text(f));
  EXPECT_NE(text.find("    called  0x401224 jit_publish+0x24"), std::string::npos) << text;
  EXPECT_EQ(text.find("called  0x403504"), std::string::npos) << text;
}

// A leaf routine's x30 is its caller; the frame record then is the
// caller's own (its caller's caller), and is not taken.
TEST_F(Findings, TheCallerOfALeafRoutineIsTheLinkRegister)
{
  const model_verdict v = Geometry(report_findings_site_framed(f, 0x403520, 0x401228, 0x400f00));
  report_findings_record(f, 0x9040, 2, 0, &v);
  report_findings_resolve(f, RoutineNames, nullptr);
  EXPECT_EQ(Json()["findings"][0]["flush"]["caller"]["pc"], "0x401224");
}

// Two calls of a non-leaf routine from one caller return to the same
// place inside it from the helper, with different frames: one caller each.
TEST_F(Findings, NonLeafCallersAreCountedByTheirFrameRecord)
{
  const model_verdict a = Geometry(report_findings_site_framed(f, 0x403520, 0x403508, 0x401228));
  const model_verdict b = Geometry(report_findings_site_framed(f, 0x403520, 0x403508, 0x402008));
  report_findings_record(f, 0x9040, 2, 0, &a);
  report_findings_record(f, 0x9044, 2, 0, &b);
  report_findings_record(f, 0x9048, 2, 0, &b);
  report_findings_resolve(f, RoutineNames, nullptr);
  const nlohmann::json j = Json();
  const auto &callers = j["findings"][0]["flush"]["callers"];
  ASSERT_EQ(callers.size(), 2u) << j.dump(1);
  EXPECT_EQ(callers[0]["pc"], "0x402004");
  EXPECT_EQ(callers[0]["count"], 2);
  EXPECT_EQ(callers[1]["pc"], "0x401224");
}

// One CTR_EL0 value latched on an M1 steps both loops over a smaller
// core's lines: the clean and the invalidate findings are one root cause.
TEST_F(Findings, BothLoopsOfOneLatchedReadAreOneRootCause)
{
  report_findings_ctr_read(f, 0x4034f0, 5, 0x84448005); // DminLine 64, IminLine 128
  const uint32_t dc = report_findings_site(f, 0x403510, 0x401228);
  const uint32_t ic = report_findings_site(f, 0x403540, 0x401228);
  model_verdict d = {MODEL_STALE_NOT_CLEANED, 0x5000, dc, 64, 32, 0, true, 0};
  model_verdict i = Geometry(ic);
  i.line = 64;
  Record({{0x9020, &d}, {0x9060, &i}, {0x9064, &i}});
  EXPECT_EQ(report_findings_count(f), 2u);
  report_findings_resolve(f, FakeNames, nullptr);
  const nlohmann::json j = Json();
  ASSERT_EQ(j["findings"].size(), 2u);
  EXPECT_TRUE(j["findings"][0]["same_cause_as"].is_null());
  EXPECT_EQ(j["findings"][1]["same_cause_as"], 1);
  EXPECT_EQ(j["findings"][1]["kind"], "not-cleaned");
  EXPECT_EQ(j["findings"][1]["line_core"], "Cortex-A53");
  const std::string text = Take(report_findings_text(f));
  ExpectContains(text,
                 {"    cause   the same CTR_EL0 read as #1", "SUMMARY: jitflush-emu: 1 finding,"});
  const auto sarif = nlohmann::json::parse(Take(report_findings_sarif(f)));
  EXPECT_EQ(sarif["runs"][0]["results"][1]["properties"]["sameCauseAs"], 1);
  EXPECT_FALSE(sarif["runs"][0]["results"][0]["properties"].contains("sameCauseAs"));
}

// Two loops whose strides came from different reads are two causes.
TEST_F(Findings, LoopsOfDifferentReadsAreTwoRootCauses)
{
  report_findings_ctr_read(f, 0x4034f0, 5, 0x84448005);
  report_findings_ctr_read(f, 0x4034f0, 0, 0x84448004);
  model_verdict d = {MODEL_STALE_NOT_CLEANED,
                     0x5000,
                     report_findings_site(f, 0x403510, 0x401228),
                     64,
                     32,
                     0,
                     true,
                     0};
  const model_verdict i = Geometry(report_findings_site(f, 0x403540, 0x401228));
  report_findings_record(f, 0x9020, 0, 0, &d);
  report_findings_record(f, 0x9060, 0, 0, &i);
  report_findings_resolve(f, FakeNames, nullptr);
  const nlohmann::json j = Json();
  // The clean's DminLine 64 is read on cpu 0's own cluster and on cpu 5's;
  // the one elsewhere (cpu 5) is preferred, the same as the invalidate's.
  EXPECT_EQ(j["findings"][0]["stride_source"]["cpu"], 5);
  d.stride = 128; // no read has DminLine 128: a hard-coded step
  report_findings_record(f, 0x9120, 0, 0, &d);
  report_findings_resolve(f, FakeNames, nullptr);
  const nlohmann::json k = Json();
  unsigned own = 0;
  for (const auto &fd : k["findings"])
    own += fd["same_cause_as"].is_null();
  EXPECT_EQ(own, 2u) << k.dump(1);
}

// On tri-cluster a finding said "Cortex-A55, 32-byte lines" where
// 32 was the writer's D line. The text says whose line it is.
TEST_F(Findings, TheLineSaysWhichCoreAndCacheItIs)
{
  const model_verdict d = {MODEL_STALE_NOT_CLEANED, 0x5000, MODEL_NO_SITE, 0, 64, 1, false, 0};
  const model_verdict i = Geometry(report_findings_site(f, 0x403520, 0x401228));
  report_findings_record(f, 0x9000, 0, 0, &d);
  report_findings_record(f, 0x9040, 0, 0, &i);
  report_findings_record(f, 0x9044, 0, 0, &i);
  report_findings_resolve(f, nullptr, nullptr);
  const nlohmann::json j = Json();
  EXPECT_EQ(j["findings"][0]["line_cache"], "I");
  EXPECT_EQ(j["findings"][1]["line_cache"], "D");
  const std::string text = Take(report_findings_text(f));
  EXPECT_NE(text.find("on cpu 0 (Cortex-A53, 64-byte I-cache lines)\n"), std::string::npos) << text;
  EXPECT_NE(text.find("on cpu 0 (Cortex-A53), written on a Exynos M1 (64-byte D-cache lines)\n"),
            std::string::npos)
      << text;
}

// Each word names its own writer: words written by two stores once named
// one writer for all.
TEST_F(Findings, EachWordKeepsItsOwnWriter)
{
  const uint32_t site = report_findings_site(f, 0x403520, 0x401228);
  const model_verdict one = Geometry(site, 0x4031fc), other = Geometry(site, 0x403300);
  Record({{0x9040, &one}, {0x9044, &other}, {0x9048, &other}});
  report_findings_resolve(f, FakeNames, nullptr);
  const nlohmann::json j = Json();
  const auto &writers = j["findings"][0]["writers"];
  ASSERT_EQ(writers.size(), 2u);
  EXPECT_EQ(writers[0]["pc"], "0x403300");
  EXPECT_EQ(writers[0]["words"], 2);
  EXPECT_EQ(writers[1]["pc"], "0x4031fc");
  EXPECT_EQ(writers[1]["words"], 1);
  EXPECT_EQ(j["findings"][0]["writer"]["pc"], "0x4031fc") << "the first store, as before";
  const std::string text = Take(report_findings_text(f));
  ExpectContains(text, {"    writer  0x403300 fn_403300+0x4 (libfake.so+0x3300) [2 words]\n",
                        "    writer  0x4031fc fn_4031fc+0x4 (libfake.so+0x31fc) [1 words]\n"});
}

TEST_F(Findings, FramesCarryTheirModuleOffsetAndRawNameAndTheReportTheMappings)
{
  const model_verdict v = Geometry(report_findings_site(f, 0x403520, 0x401228));
  report_findings_record(f, 0x7f0000009040, 0, 0, &v);
  report_findings_add_mapping(f, "/sysroot/usr/lib/libfake.so", 0x400000, 0x410000, 0x400000,
                              "a4a30fd4");
  report_findings_resolve(f, FakeNames, nullptr);
  const nlohmann::json j = Json();
  const auto &flush = j["findings"][0]["flush"];
  EXPECT_EQ(flush["module"], "/sysroot/usr/lib/libfake.so");
  EXPECT_EQ(flush["offset"], "0x3520");
  EXPECT_EQ(flush["symbol"], "fn_403520+0x4");
  EXPECT_EQ(flush["raw_symbol"], "_Z4fn_403520v+0x4");
  ASSERT_EQ(j["mappings"].size(), 1u);
  EXPECT_EQ(j["mappings"][0]["path"], "/sysroot/usr/lib/libfake.so");
  EXPECT_EQ(j["mappings"][0]["start"], "0x400000");
  EXPECT_EQ(j["mappings"][0]["end"], "0x410000");
  EXPECT_EQ(j["mappings"][0]["load_base"], "0x400000");
  EXPECT_EQ(j["mappings"][0]["build_id"], "a4a30fd4");
}

TEST_F(Findings, GeneratedCodeHasNoModuleAndSaysSo)
{
  const model_verdict v = {
      MODEL_STALE_NOT_CLEANED, 0x7f0000001000, MODEL_NO_SITE, 0, 64, 0, false, 0};
  report_findings_record(f, 0x9000, 0, 0, &v);
  report_findings_resolve(
      f, [](uint64_t, report_frame_names *, void *) {}, nullptr);
  const nlohmann::json j = Json();
  EXPECT_TRUE(j["findings"][0]["writer"]["module"].is_null());
  EXPECT_TRUE(j["findings"][0]["writer"]["offset"].is_null());
}

// A guest that dies of a signal after stale fetches: the reports
// name the thread, its last block and the finding it fetched stale last.
TEST_F(Findings, ACrashNamesTheThreadsLastStaleFetchAndItsFinding)
{
  const model_verdict big = Geometry(report_findings_site(f, 0x403520, 0x401228));
  const model_verdict other = {MODEL_STALE_NOT_CLEANED, 0x5000, MODEL_NO_SITE, 0, 64, 0, false, 0};
  for (int i = 0; i < 5; i++)
    report_findings_record(f, 0x9040 + 4 * i, 0, 3, &big); // thread 3
  report_findings_record(f, 0xa000, 1, 4, &other);         // thread 4, last of all
  report_findings_note_end(f, 3, 0x401000);
  report_findings_resolve(f, FakeNames, nullptr);
  nlohmann::json j = Json();
  ASSERT_TRUE(j["crash"].is_object()) << j.dump();
  EXPECT_EQ(j["crash"]["thread"], 3);
  EXPECT_EQ(j["crash"]["block"]["symbol"], "fn_401000+0x4");
  EXPECT_EQ(j["crash"]["last_stale"]["finding"], 1) << "the most frequent finding is #1";
  EXPECT_EQ(j["crash"]["last_stale"]["kind"], "not-invalidated-in-geometry");
  EXPECT_EQ(j["crash"]["last_stale"]["addr"], "0x9050");
  EXPECT_EQ(j["crash"]["last_stale"]["stale_fetches_after"], 1);
  const std::string text = Take(report_findings_text(f));
  EXPECT_NE(text.find("==jitflush-emu== CRASH: the program died of a signal (it never called "
                      "exit_group) in thread 3, in the block at 0x401000 fn_401000+0x4 "
                      "(libfake.so+0x1000)\n"
                      "    its last stale fetch, 0x9050, was of finding #1 "
                      "(not-invalidated-in-geometry), 1 stale fetches before the end"),
            std::string::npos)
      << text;
  EXPECT_LT(text.find("CRASH"), text.find("SUMMARY")) << "before the summary line";
  // The same end after exit_group is a normal end.
  report_findings_note_exit(f);
  j = Json();
  EXPECT_TRUE(j["crash"].is_null());
  EXPECT_EQ(Take(report_findings_text(f)).find("CRASH"), std::string::npos);
}

// ---- SARIF that code scanning can place ---------------------------------------

nlohmann::json SarifOf(report_findings *f)
{
  return nlohmann::json::parse(Take(report_findings_sarif(f)));
}

TEST_F(Findings, SarifPlacesSourceUnderTheSarifRootRelativeToIt)
{
  report_findings_set_sarif_root(f, "/src/");
  const model_verdict v = Geometry(report_findings_site(f, 0x403520, 0x401228));
  report_findings_record(f, 0x9040, 0, 0, &v);
  report_findings_resolve(f, FakeNames, nullptr);
  const nlohmann::json s = SarifOf(f);
  const auto &run = s["runs"][0];
  EXPECT_EQ(run["originalUriBaseIds"]["SRCROOT"]["uri"], "file:///src/");
  const auto &art = run["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"];
  EXPECT_EQ(art["uri"], "jit.c");
  EXPECT_EQ(art["uriBaseId"], "SRCROOT");
}

TEST_F(Findings, SarifWithoutASourceLinePlacesTheModuleAndOffset)
{
  // Only 0x401224 has a location: a caller elsewhere leaves the module.
  const model_verdict v = Geometry(report_findings_site(f, 0x403520, 0x402004));
  report_findings_record(f, 0x9040, 0, 0, &v);
  report_findings_resolve(f, FakeNames, nullptr);
  const nlohmann::json s = SarifOf(f);
  const auto &loc = s["runs"][0]["results"][0]["locations"][0];
  EXPECT_EQ(loc["physicalLocation"]["artifactLocation"]["uri"],
            "file:///sysroot/usr/lib/libfake.so");
  EXPECT_EQ(loc["physicalLocation"]["region"]["byteOffset"], 0x2000) << "the caller's offset";
  EXPECT_EQ(loc["logicalLocations"][0]["fullyQualifiedName"], "fn_402000+0x4");
}

// The same root cause in another run (other addresses, CPUs, counts, a
// different seed's schedule) has the same fingerprint; another stride not.
TEST_F(Findings, SarifFingerprintsNameTheRootCauseNotTheRun)
{
  auto print = [this](uint64_t word, unsigned cpu, unsigned stride, int times) {
    report_findings *g = report_findings_new(config.cfg);
    model_verdict v = Geometry(report_findings_site(g, 0x403520, 0x401228));
    v.stride = stride;
    for (int i = 0; i < times; i++)
      report_findings_record(g, word + 4 * i, cpu, 0, &v);
    report_findings_resolve(g, FakeNames, nullptr);
    const nlohmann::json s = SarifOf(g);
    report_findings_free(g);
    return s["runs"][0]["results"][0]["partialFingerprints"]["jitflushRootCause/v1"]
        .get<std::string>();
  };
  const std::string first = print(0x9040, 0, 128, 3);
  EXPECT_EQ(first.size(), 32u);
  EXPECT_EQ(print(0x7f0000123440, 2, 128, 7), first);
  EXPECT_NE(print(0x9040, 0, 256, 3), first);
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

void FreeNames(report_frame_names &n)
{
  report_frame_names_clear(&n);
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
  report_symbols *s = report_symbols_new(maps.c_str());
  report_frame_names names = {};
  report_symbols_lookup(fn + 4, &names, s);
  ASSERT_NE(names.symbol, nullptr);
  EXPECT_STREQ(names.symbol, "sc_flush_libgcc+0x4");
  EXPECT_STREQ(names.raw_symbol, "sc_flush_libgcc+0x4") << "a C name is its own raw name";
  EXPECT_EQ(std::string(names.module), kGuest);
  // A static program's text is its first loadable segment, file offset 0
  // at 0x400000.
  EXPECT_EQ(names.offset, fn + 4 - 0x400000);
  ASSERT_NE(names.location, nullptr);
  // file:line inside sc_flush_libgcc's body, wherever the source has it.
  const std::string loc = names.location;
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
  FreeNames(names);
  names = {};
  report_symbols_lookup(0x10, &names, s);
  EXPECT_EQ(names.symbol, nullptr) << "an address no file maps has no name";
  EXPECT_EQ(names.location, nullptr);
  EXPECT_EQ(names.module, nullptr);
  report_symbols_free(s);
}

TEST(Symbols, GuestMapsKeepOnlyAarch64FilesShiftedByTheGuestBase)
{
  ASSERT_NE(NmAddress("main"), 0u) << "no main in " << kGuest;
  const std::string host = "5500400000-5500800000 r-xp 00000000 08:01 12 " + kGuest +
                           "\n"
                           "7f0000000000-7f0000100000 r-xp 00000000 08:01 13 /bin/sh\n"
                           "7f0000200000-7f0000201000 rw-p 00000000 00:00 0 \n";
  EXPECT_EQ(report_symbols_guest_base(host.c_str(), kGuest.c_str(), 0x400100), 0x5500000000u);
  EXPECT_EQ(report_symbols_guest_base(host.c_str(), "/nonexistent", 0x400100), 0u);
  char *guest = report_symbols_guest_maps(host.c_str(), 0x5500000000);
  EXPECT_EQ(std::string(guest), "400000-800000 r-xp 00000000 08:01 12 " + kGuest + "\n");
  g_free(guest);
}

TEST(Symbols, CxxNamesAreDemangledAndCNamesLeftAlone)
{
  char *plain = report_demangle("_ZN2v88internal11CpuFeatures11FlushICacheEPvm");
  ASSERT_NE(plain, nullptr);
  EXPECT_STREQ(plain, "v8::internal::CpuFeatures::FlushICache(void*, unsigned long)");
  g_free(plain);
  plain = report_demangle("_ZN17AbstractAssembler5flushEv");
  EXPECT_STREQ(plain, "AbstractAssembler::flush()");
  g_free(plain);
  EXPECT_EQ(report_demangle("__aarch64_sync_cache_range"), nullptr);
  EXPECT_EQ(report_demangle("i"), nullptr) << "a C function named like a mangled type";
  EXPECT_EQ(report_demangle("_Zgarbage"), nullptr);
  EXPECT_EQ(report_demangle("_Rgarbage"), nullptr);
}

int Shell(const std::string &cmd)
{
  return system(cmd.c_str());
}

// FILE's bytes as instruction words.
std::vector<uint32_t> FileWords(const std::string &file)
{
  std::ifstream in(file, std::ios::binary);
  std::vector<uint32_t> w;
  uint32_t word;
  while (in.read(reinterpret_cast<char *>(&word), sizeof word))
    w.push_back(word);
  return w;
}

// The file offset of the first instruction OP (any register) at or after
// FROM, or 0.
uint64_t OffsetOf(const std::vector<uint32_t> &w, uint64_t from, uint32_t op)
{
  for (size_t i = from / 4; i < w.size(); i++)
    if ((w[i] & 0xffffffe0u) == op)
      return 4 * i;
  return 0;
}

constexpr uint32_t kDcCvau = 0xd50b7b20, kIcIvau = 0xd50b7520;

void LookUp(uint64_t pc, report_frame_names *out, void *ctx)
{
  report_symbols_lookup(pc, out, static_cast<report_symbols *>(ctx));
}

// jit_stress stripped into a new temporary folder, as DIR/NAME, with the
// file offset of the ic ivau of the copy of libgcc's
// __aarch64_sync_cache_range linked into it (0: none found).
struct StrippedLibgcc {
  explicit StrippedLibgcc(const std::string &name)
  {
    char tmpl[] = "/tmp/jf-stripped-XXXXXX";
    if (!mkdtemp(tmpl))
      return;
    dir = tmpl;
    exe = dir + "/" + name;
    const uint64_t fn = NmAddress("__aarch64_sync_cache_range");
    if (fn && Shell("mkdir -p $(dirname " + exe + ") && aarch64-linux-gnu-strip -o " + exe + " " +
                    kGuest) == 0) {
      // A static, non-PIE program: its text's file offset is its address
      // less 0x400000.
      off = OffsetOf(FileWords(exe), fn - 0x400000, kIcIvau);
      if (off >= fn - 0x400000 + 0x100)
        off = 0; // not in the routine
    }
  }
  ~StrippedLibgcc()
  {
    if (!dir.empty())
      Shell("rm -rf " + dir);
  }
  std::string dir, exe;
  uint64_t off = 0;
};

// A stripped program with libgcc's __aarch64_sync_cache_range linked in
// statically (jit_stress's sc_flush_libgcc calls __builtin___clear_cache):
// the flush has no symbol, and the finding names the routine by its code,
// in all three forms, with the advice that fits.
TEST_F(Findings, AStrippedStaticLibgccFlushIsNamedByItsCode)
{
  const StrippedLibgcc copy("jit_stress");
  ASSERT_NE(copy.off, 0u) << "no ic ivau of a libgcc copy in " << kGuest;
  const std::string &exe = copy.exe;
  const uint64_t flush = 0x400000 + copy.off;
  const std::string maps = "00400000-00800000 r-xp 00000000 08:01 12 " + exe + "\n";
  report_symbols *s = report_symbols_new(maps.c_str());
  const model_verdict v = Geometry(report_findings_site(f, flush, 0x401228));
  for (uint64_t word = 0; word < 16; word++)
    report_findings_record(f, 0x7f0000001040 + 4 * word, 0, 0, &v);
  report_findings_resolve(f, LookUp, s);

  const nlohmann::json j = Json();
  ASSERT_EQ(j["findings"].size(), 1u);
  const nlohmann::json &fl = j["findings"][0]["flush"];
  EXPECT_TRUE(fl["symbol"].is_null()) << "stripped: " << fl;
  EXPECT_EQ(fl["module"], exe);
  EXPECT_EQ(fl["routine"]["name"], "libgcc's __clear_cache") << fl;
  EXPECT_EQ(fl["routine"]["function"], "__aarch64_sync_cache_range");
  // Who built it is the binary's own word (its .comment: strip keeps it);
  // the build the code was matched against is only the fingerprint.
  EXPECT_EQ(fl["routine"]["compiler"], "GCC: (Debian 12.2.0-14) 12.2.0");
  EXPECT_EQ(fl["routine"]["compiler_source"], ".comment");
  EXPECT_EQ(fl["routine"]["fingerprint"], "GCC 12 (Debian 12)");
  EXPECT_EQ(fl["routine"]["advice_for"], "you");
  EXPECT_EQ(fl["origin"]["kind"], "project") << fl;
  EXPECT_EQ(fl["routine"]["flaw"], "CTR_EL0 latched in a static on the first call");
  EXPECT_EQ(fl["routine"]["advice"].get<std::string>().rfind("link jitflush's drop-in", 0), 0u);

  // The message, in all three forms, ends with the routine's flaw and fix.
  const std::string sentence =
      "The flush routine is libgcc's __clear_cache "
      "(__aarch64_sync_cache_range, built by GCC: (Debian 12.2.0-14) 12.2.0): CTR_EL0 "
      "latched in a static on the first call; link jitflush's drop-in "
      "__clear_cache";
  const std::string message = j["findings"][0]["message"];
  EXPECT_NE(message.find(sentence), std::string::npos) << message;

  const std::string text = Take(report_findings_text(f));
  EXPECT_NE(text.find("\n            is libgcc's __clear_cache (__aarch64_sync_cache_range), built "
                      "by GCC: (Debian 12.2.0-14) 12.2.0 (its .comment)\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("    " + message + "\n"), std::string::npos) << text;

  const nlohmann::json sarif = nlohmann::json::parse(Take(report_findings_sarif(f)));
  const nlohmann::json &result = sarif["runs"][0]["results"][0];
  EXPECT_EQ(result["message"]["text"], message);
  EXPECT_EQ(result["properties"]["flushRoutine"], "libgcc's __clear_cache");
  // Another kind at the same routine (no isb after it): the routine is
  // named, but its latch is not this finding's cause.
  const model_verdict unsynced = {
      MODEL_STALE_NOT_SYNCHRONISED, 0x4031fc, v.flush_site, 128, 64, 0, false, 0};
  report_findings_record(f, 0x7f0000002000, 0, 0, &unsynced);
  report_findings_resolve(f, LookUp, s);
  const nlohmann::json both = Json();
  ASSERT_EQ(both["findings"].size(), 2u);
  const std::string other = both["findings"][1]["message"];
  EXPECT_EQ(both["findings"][1]["kind"], "not-synchronised");
  EXPECT_NE(other.find(" The flush routine is libgcc's __clear_cache (__aarch64_sync_cache_range, "
                       "built by GCC: (Debian 12.2.0-14) 12.2.0)."),
            std::string::npos)
      << other;
  EXPECT_EQ(other.find("drop-in"), std::string::npos) << other;
  EXPECT_EQ(result["properties"]["flushRoutineBuild"], "GCC: (Debian 12.2.0-14) 12.2.0");
  EXPECT_EQ(result["properties"]["flushRoutineFingerprint"], "GCC 12 (Debian 12)");
  report_symbols_free(s);
}

// libgcc_s.so.1 of the aarch64 sysroot (Debian's libgcc-s1, GCC 12): the
// routine __clear_cache branches to has no symbol of its own.
TEST(KnownRoutinesInFiles, TheSysrootsLibgccSIsRecognised)
{
  const std::string so = "/usr/aarch64-linux-gnu/lib/libgcc_s.so.1";
  const std::vector<uint32_t> w = FileWords(so);
  ASSERT_FALSE(w.empty()) << so;
  for (uint32_t op : {kDcCvau, kIcIvau}) {
    const uint64_t off = OffsetOf(w, 0, op);
    ASSERT_NE(off, 0u) << so;
    const report_known_routine *r = report_known_routine_in_file(so.c_str(), off);
    ASSERT_NE(r, nullptr) << so << "+0x" << std::hex << off;
    EXPECT_STREQ(r->name, "libgcc's __clear_cache");
    EXPECT_STREQ(r->fingerprint, "GCC 12 (Debian 12)");
  }
  EXPECT_EQ(report_known_routine_in_file("/nonexistent/libgcc_s.so.1", 0x6ed0), nullptr);
}

// jitflush's own flush, linked into the same program, is none of them; and
// a finding whose module cannot be read has "routine": null.
TEST_F(Findings, AFlushRoutineOfAnotherShapeStaysUnnamed)
{
  const uint64_t fn = NmAddress("jitflush_clear_cache");
  ASSERT_NE(fn, 0u);
  const std::vector<uint32_t> w = FileWords(kGuest);
  const uint64_t off = OffsetOf(w, fn - 0x400000, kDcCvau);
  ASSERT_NE(off, 0u);
  EXPECT_EQ(report_known_routine_in_file(kGuest.c_str(), off), nullptr);
  const model_verdict v = Geometry(report_findings_site(f, 0x403520, 0x401228));
  report_findings_record(f, 0x7f0000001040, 0, 0, &v);
  report_findings_resolve(f, FakeNames, nullptr);
  const nlohmann::json j = Json();
  EXPECT_TRUE(j["findings"][0]["flush"]["routine"].is_null()) << j["findings"][0]["flush"];
  EXPECT_EQ(Take(report_findings_text(f)).find("            is "), std::string::npos);
}

// ---- what the binary says of itself -----------------------------------------

// The findings of one geometry stale fetch at the flush instruction at file
// offset OFF of the static, non-PIE program EXE (mapped where it was
// linked), named through its ELF and DWARF.
nlohmann::json FlushFindingIn(const std::string &exe, uint64_t off, std::string *text = nullptr,
                              std::string *sarif = nullptr, const char *project = nullptr,
                              model_stale_kind kind = MODEL_STALE_NOT_INVALIDATED_IN_GEOMETRY)
{
  Config config;
  report_findings *f = report_findings_new(config.cfg);
  report_findings_set_sarif_root(f, project);
  const std::string maps = "00400000-00800000 r-xp 00000000 08:01 12 " + exe + "\n";
  report_symbols *s = report_symbols_new(maps.c_str());
  model_verdict v = Geometry(report_findings_site(f, 0x400000 + off, 0x401228));
  v.kind = kind;
  for (uint64_t word = 0; word < 16; word++)
    report_findings_record(f, 0x7f0000001040 + 4 * word, 0, 0, &v);
  report_findings_resolve(f, LookUp, s);
  JsonObject *report = json_object_new();
  report_findings_json(f, report);
  nlohmann::json j = nlohmann::json::parse(Take(rig_json_write_object(report)));
  if (text)
    *text = Take(report_findings_text(f));
  if (sarif)
    *sarif = Take(report_findings_sarif(f));
  report_symbols_free(s);
  report_findings_free(f);
  return j;
}

void WriteFile(const std::string &path, const std::string &bytes)
{
  std::ofstream(path, std::ios::binary) << bytes;
}

// Who built a recognised routine is what its binary says, never the build
// its code was matched against: the same libgcc code (GCC 12's shapes)
// under another .comment is labelled by that one, a linker's line is left
// out, and with no .comment at all the label says the compiler is unknown.
TEST(RoutineCompiler, FollowsTheBinarysCommentAndSaysWhenThereIsNone)
{
  const StrippedLibgcc copy("stripped");
  ASSERT_NE(copy.off, 0u) << "no ic ivau of a libgcc copy in " << kGuest;
  const std::string &dir = copy.dir, &base = copy.exe;
  const uint64_t off = copy.off;
  struct Case {
    std::string comment; // empty: the section removed
    const char *compiler;
  } const cases[] = {
      {std::string("GCC: (Debian 10.2.1-6) 10.2.1 20210110\0", 40),
       "GCC: (Debian 10.2.1-6) 10.2.1 20210110"},
      {std::string("GCC: (GNU) 14.2.0\0Linker: LLD 18.1.8\0clang version 18.1.8\0", 58),
       "GCC: (GNU) 14.2.0, clang version 18.1.8"},
      {"", nullptr},
  };
  int n = 0;
  for (const Case &c : cases) {
    const std::string exe = dir + "/prog" + std::to_string(n++), section = exe + ".comment";
    WriteFile(section, c.comment);
    const std::string edit =
        c.comment.empty() ? "--remove-section .comment" : "--update-section .comment=" + section;
    ASSERT_EQ(Shell("aarch64-linux-gnu-objcopy " + edit + " " + base + " " + exe), 0);
    std::string text;
    const nlohmann::json j = FlushFindingIn(exe, off, &text);
    const nlohmann::json &routine = j["findings"][0]["flush"]["routine"];
    ASSERT_EQ(routine["name"], "libgcc's __clear_cache") << routine;
    EXPECT_EQ(routine["fingerprint"], "GCC 12 (Debian 12)") << "what the code matches stays";
    const std::string message = j["findings"][0]["message"];
    if (c.compiler) {
      EXPECT_EQ(routine["compiler"], c.compiler);
      EXPECT_EQ(routine["compiler_source"], ".comment");
      ExpectContains(message, {std::string("(__aarch64_sync_cache_range, built by ") + c.compiler +
                               "): CTR_EL0 latched"});
      ExpectContains(text, {std::string("), built by ") + c.compiler + " (its .comment)\n"});
    } else {
      EXPECT_TRUE(routine["compiler"].is_null()) << routine;
      EXPECT_TRUE(routine["compiler_source"].is_null()) << routine;
      ExpectContains(message, {"(__aarch64_sync_cache_range, built by an unknown compiler)"});
      ExpectContains(text, {"), built by an unknown compiler (no DW_AT_producer, no .comment)\n"});
    }
    EXPECT_EQ(message.find("GCC 12 (Debian 12)"), std::string::npos) << message;
  }
}

// With DWARF, the compile unit covering the routine says who built it
// (DW_AT_producer, its options left out), before the module's .comment:
// here a copy of GCC 14's routine compiled into a C function with -g, then
// the same binary with the producer's version changed in place.
TEST(RoutineCompiler, TheProducerOfTheCompileUnitComesFirst)
{
  size_t n = 0;
  const report_known_routine *all = report_known_routines(&n);
  const report_known_routine *gcc14 = nullptr;
  for (size_t i = 0; i < n; i++)
    if (std::string(all[i].fingerprint) == "GCC 14 (Debian 13)")
      gcc14 = &all[i];
  ASSERT_NE(gcc14, nullptr);
  char tmpl[] = "/tmp/jf-producer-XXXXXX";
  ASSERT_NE(mkdtemp(tmpl), nullptr);
  const std::string dir = tmpl, exe = dir + "/copy";
  {
    std::ofstream c(dir + "/copy.c");
    c << "void routine_copy(void)\n{\n  __asm__ volatile(\n";
    for (size_t i = 0; i < gcc14->nwords; i++)
      c << "    \".inst " << gcc14->words[i] << "\\n\"\n";
    c << "  );\n}\nvoid _start(void)\n{\n  routine_copy();\n  for (;;)\n    ;\n}\n";
  }
  ASSERT_EQ(Shell("aarch64-linux-gnu-gcc -std=gnu11 -g -O2 -nostdlib -static -no-pie -o " + exe +
                  " " + dir + "/copy.c"),
            0);
  const uint64_t off = OffsetOf(FileWords(exe), 0, kIcIvau);
  ASSERT_NE(off, 0u);
  const nlohmann::json j = FlushFindingIn(exe, off);
  const nlohmann::json &routine = j["findings"][0]["flush"]["routine"];
  ASSERT_EQ(routine["fingerprint"], "GCC 14 (Debian 13)") << j["findings"][0]["flush"];
  EXPECT_EQ(routine["compiler_source"], "DW_AT_producer");
  const std::string producer = routine["compiler"];
  ASSERT_EQ(producer.rfind("GNU C11 ", 0), 0u) << producer;
  EXPECT_EQ(producer.find(" -"), std::string::npos) << "options are left out: " << producer;

  // The same bytes with another version in the producer: the label follows.
  const std::string version = producer.substr(8);
  const std::string other =
      version == "10.2.1" ? "14.2.0" : std::string("10.2.1").substr(0, version.size());
  ASSERT_EQ(other.size(), version.size());
  std::string bytes = ReadText(exe);
  const size_t at = bytes.find("GNU C11 " + version + " -");
  ASSERT_NE(at, std::string::npos);
  bytes.replace(at + 8, version.size(), other);
  const std::string patched = dir + "/patched";
  WriteFile(patched, bytes);
  const nlohmann::json p = FlushFindingIn(patched, off);
  EXPECT_EQ(p["findings"][0]["flush"]["routine"]["compiler"], "GNU C11 " + other);
  ExpectContains(p["findings"][0]["message"], {"built by GNU C11 " + other + "):"});
  Shell("rm -rf " + dir);
}

// ---- whose module it is --------------------------------------------------------

struct Origin {
  std::string kind, file, package;
};

Origin OriginOf(const std::string &path, const char *project, const char *note = nullptr)
{
  struct report_module_origin o = {};
  report_module_origin(path.c_str(), project, note, &o);
  Origin out{report_module_kind_name(o.kind), o.file, o.package ? o.package : ""};
  report_module_origin_clear(&o);
  return out;
}

TEST(ModuleOrigin, ThePathSaysWhoseModuleItIs)
{
  char tmpl[] = "/tmp/jf-site-XXXXXX";
  ASSERT_NE(mkdtemp(tmpl), nullptr);
  const std::string venv = tmpl, site = venv + "/lib/python3.11/site-packages";
  ASSERT_EQ(Shell("mkdir -p " + site + "/llvmlite/binding " + site + "/llvmlite-0.43.0.dist-info " +
                  site + "/numpy.libs " + site + "/numpy-2.1.3.dist-info " + site +
                  "/Pillow-11.0.0.dist-info"),
            0);
  struct Case {
    std::string path;
    const char *project;
    Origin want;
  } const cases[] = {
      {site + "/llvmlite/binding/libllvmlite.so",
       nullptr,
       {"python-package", "libllvmlite.so", "llvmlite 0.43.0"}},
      // auditwheel's copies of a wheel's libraries, and a top-level module.
      {site + "/numpy.libs/libgfortran-040039e1.so.5.0.0",
       nullptr,
       {"python-package", "libgfortran-040039e1.so.5.0.0", "numpy 2.1.3"}},
      {site + "/pil.cpython-311-aarch64-linux-gnu.so",
       nullptr,
       {"python-package", "pil.cpython-311-aarch64-linux-gnu.so", ""}},
      {site + "/pillow.cpython-311-aarch64-linux-gnu.so",
       nullptr,
       {"python-package", "pillow.cpython-311-aarch64-linux-gnu.so", "Pillow 11.0.0"}},
      // Inside the project, a virtual environment is still someone else's.
      {site + "/llvmlite/binding/libllvmlite.so",
       tmpl,
       {"python-package", "libllvmlite.so", "llvmlite 0.43.0"}},
      {"/usr/lib/aarch64-linux-gnu/libffi.so.8.1.2", nullptr, {"system", "libffi.so.8.1.2", ""}},
      {"/usr/aarch64-linux-gnu/lib/libgcc_s.so.1", nullptr, {"system", "libgcc_s.so.1", ""}},
      {"/opt/jdk/lib/server/libjvm.so", "/src/app", {"system", "libjvm.so", ""}},
      {"/work/.cache/sysroots/bookworm/usr/lib/aarch64-linux-gnu/libpcre2-8.so.0",
       nullptr,
       {"sysroot", "libpcre2-8.so.0", ""}},
      {"/src/app/build/sysroot/lib/aarch64-linux-gnu/libc.so.6",
       "/src/app",
       {"sysroot", "libc.so.6", ""}},
      {"/src/app/build/jit", "/src/app", {"project", "jit", ""}},
      {"/src/app-other/jit", "/src/app", {"outside-project", "jit", ""}},
      // No project root given: a path that is no one else's is the user's.
      {"/home/me/build/jit", nullptr, {"project", "jit", ""}},
      // A package note wins over the path's guesswork.
      {"/usr/lib/aarch64-linux-gnu/libffi.so.8",
       nullptr,
       {"system", "libffi.so.8", "libffi8 3.4.4-1"}},
  };
  for (const Case &c : cases) {
    const bool note = c.path == "/usr/lib/aarch64-linux-gnu/libffi.so.8";
    const Origin got = OriginOf(c.path, c.project, note ? "libffi8 3.4.4-1" : nullptr);
    EXPECT_EQ(got.kind, c.want.kind) << c.path;
    EXPECT_EQ(got.file, c.want.file) << c.path;
    EXPECT_EQ(got.package, c.want.package) << c.path;
  }
  Shell("rm -rf " + venv);
}

// An FDO package note ("Package Metadata for Core Files": owner "FDO",
// type 0xcafe1a7e, a JSON object).
std::string PackageNote(const std::string &json)
{
  std::string desc = json + '\0';
  desc.resize((desc.size() + 3) & ~size_t(3), '\0');
  std::string out;
  auto word = [&out](uint32_t v) { out.append(reinterpret_cast<const char *>(&v), 4); };
  word(4);
  word(static_cast<uint32_t>(json.size() + 1));
  word(0xcafe1a7e);
  out.append("FDO\0", 4);
  return out + desc;
}

// A latched routine in a library the user installed: the finding says which
// module and package, that its builders alone can fix it, what protects its
// users meanwhile, and gives the relink advice to them; the JSON carries the
// same as fields. The project's own copy (AStrippedStaticLibgccFlush...)
// keeps the advice for its reader.
TEST(ModuleOrigin, ALatchedRoutineInAnInstalledLibraryAdvisesBothReaders)
{
  const StrippedLibgcc copy("stripped");
  ASSERT_NE(copy.off, 0u) << "no ic ivau of a libgcc copy in " << kGuest;
  const std::string lib = copy.dir + "/sysroot/usr/lib/aarch64-linux-gnu";
  const std::string so = lib + "/libjit.so.1", note = copy.dir + "/note";
  WriteFile(note, PackageNote(R"({"type":"deb","name":"libjit1","version":"1.2.3-4"})"));
  ASSERT_EQ(Shell("mkdir -p " + lib + " && aarch64-linux-gnu-objcopy --add-section .note.package=" +
                  note + " " + copy.exe + " " + so),
            0);
  const uint64_t off = copy.off;
  std::string text, sarif;
  const nlohmann::json j = FlushFindingIn(so, off, &text, &sarif, "/src/app");
  const nlohmann::json &fd = j["findings"][0];
  EXPECT_EQ(fd["flush"]["origin"],
            nlohmann::json::parse(R"({"kind": "sysroot", "file": "libjit.so.1",
            "soname": null, "package": "libjit1 1.2.3-4"})"));
  EXPECT_EQ(fd["flush"]["routine"]["advice_for"], "the builders of libjit.so.1");
  ASSERT_TRUE(fd["protection"].is_string()) << fd;
  EXPECT_EQ(fd["protection"].get<std::string>().rfind(
                "a Linux kernel that traps EL0 reads of CTR_EL0 on cores whose lines differ", 0),
            0u);
  const std::string message = fd["message"];
  ExpectContains(message,
                 {": CTR_EL0 latched in a static on the first call. It is in libjit.so.1 (libjit1 "
                  "1.2.3-4, a distribution's library in a sysroot), not built in this project: "
                  "report this finding to its builders. Until they fix it, " +
                  fd["protection"].get<std::string>() +
                  ". For its builders: link jitflush's drop-in __clear_cache"});
  EXPECT_EQ(message.find("; link jitflush's drop-in"), std::string::npos)
      << "the relink advice is not the reader's: " << message;
  ExpectContains(text, {"\n            in libjit.so.1 (libjit1 1.2.3-4, a distribution's library "
                        "in a sysroot), not built in this project: the fix is for its builders\n",
                        "    " + message + "\n"});
  const nlohmann::json s = nlohmann::json::parse(sarif);
  EXPECT_EQ(s["runs"][0]["results"][0]["properties"]["flushModuleOrigin"], "sysroot");

  // A missing isb after the same routine is its caller's to add: the
  // module is still named, but neither its builders' fix nor a protection.
  const nlohmann::json u =
      FlushFindingIn(so, off, &text, nullptr, "/src/app", MODEL_STALE_NOT_SYNCHRONISED);
  const nlohmann::json &unsynced = u["findings"][0];
  EXPECT_EQ(unsynced["kind"], "not-synchronised");
  EXPECT_TRUE(unsynced["protection"].is_null()) << unsynced;
  EXPECT_EQ(unsynced["message"].get<std::string>().find("builders"), std::string::npos)
      << unsynced["message"];
  ExpectContains(text, {"\n            in libjit.so.1 (libjit1 1.2.3-4, a distribution's library "
                        "in a sysroot), not built in this project\n"});
}

// The three manglings a JIT's frames come in, each through the lookup the
// reports use: an aarch64 program whose functions carry a C++ name, a Rust
// v0 name and a Rust legacy name (rustc's two manglings) is named with the
// demangled name in `symbol` and the mangled one in `raw_symbol`.
TEST(Symbols, CxxAndBothRustManglingsAreDemangledInFrames)
{
  struct Case {
    const char *mangled, *plain;
  } const cases[] = {
      {"_ZN2v88internal11CpuFeatures11FlushICacheEPvm",
       "v8::internal::CpuFeatures::FlushICache(void*, unsigned long)"},
      // v0: an inherent method prints as <Type>::method, the crate
      // disambiguator (Cs..._) dropped, as rustc's demangler prints it.
      {"_RNvMs_NtNtCs6X8UcSRmXjT_8wasmtime7runtime11code_memoryNtB4_10CodeMemory7publish",
       "<wasmtime::runtime::code_memory::CodeMemory>::publish"},
      // legacy: the 17h<16 hex digits>E hash dropped.
      {"_ZN8wasmtime7runtime11code_memory10CodeMemory7publish17h0f1e2d3c4b5a6978E",
       "wasmtime::runtime::code_memory::CodeMemory::publish"},
  };
  char tmpl[] = "/tmp/jf-mangled-XXXXXX";
  ASSERT_NE(mkdtemp(tmpl), nullptr);
  const std::string dir = tmpl;
  {
    std::ofstream s(dir + "/names.s");
    s << ".text\n.global _start\n_start:\n  ret\n";
    for (const Case &c : cases)
      s << ".global " << c.mangled << "\n.type " << c.mangled << ", %function\n"
        << c.mangled << ":\n  nop\n  nop\n  ret\n.size " << c.mangled << ", 12\n";
  }
  const std::string exe = dir + "/names";
  ASSERT_EQ(
      Shell("aarch64-linux-gnu-gcc -nostdlib -static -no-pie -o " + exe + " " + dir + "/names.s"),
      0);
  const std::string maps = "00400000-00800000 r-xp 00000000 08:01 12 " + exe + "\n";
  report_symbols *s = report_symbols_new(maps.c_str());
  for (const Case &c : cases) {
    uint64_t addr = 0;
    {
      const std::string cmd = "aarch64-linux-gnu-nm " + exe;
      std::unique_ptr<FILE, int (*)(FILE *)> p(popen(cmd.c_str(), "r"), pclose);
      char line[512], name[400], type;
      unsigned long long a;
      while (p && fgets(line, sizeof line, p.get()))
        if (sscanf(line, "%llx %c %399s", &a, &type, name) == 3 && std::string(name) == c.mangled)
          addr = a;
    }
    ASSERT_NE(addr, 0u) << c.mangled;
    report_frame_names names = {};
    report_symbols_lookup(addr + 4, &names, s);
    ASSERT_NE(names.symbol, nullptr) << c.mangled;
    EXPECT_EQ(std::string(names.symbol), std::string(c.plain) + "+0x4");
    EXPECT_EQ(std::string(names.raw_symbol), std::string(c.mangled) + "+0x4");
    FreeNames(names);
  }
  report_symbols_free(s);
  Shell("rm -rf " + dir);
}

// A stripped program in a sysroot whose debug package put the DWARF under
// ROOT/usr/lib/debug/.build-id/: libdwfl finds it there.
TEST(Symbols, DebugFilesInTheSysrootsBuildIdTreeAreFound)
{
  const uint64_t fn = NmAddress("sc_flush_libgcc");
  ASSERT_NE(fn, 0u);
  char tmpl[] = "/tmp/jf-sysroot-XXXXXX";
  ASSERT_NE(mkdtemp(tmpl), nullptr);
  const std::string root = tmpl;
  const std::string exe = root + "/usr/bin/jit_stress";
  std::string id;
  {
    const std::string cmd = "aarch64-linux-gnu-readelf -n " + kGuest +
                            " | sed -n 's/.*Build ID: *\\([0-9a-f]*\\).*/\\1/p'";
    std::unique_ptr<FILE, int (*)(FILE *)> p(popen(cmd.c_str(), "r"), pclose);
    char buf[128] = {};
    ASSERT_TRUE(p && fgets(buf, sizeof buf, p.get()));
    id = buf;
    id.erase(id.find_last_not_of("\n") + 1);
  }
  ASSERT_GT(id.size(), 2u) << "the guest has no build ID";
  const std::string debug_dir = root + "/usr/lib/debug/.build-id/" + id.substr(0, 2);
  const std::string debug = debug_dir + "/" + id.substr(2) + ".debug";
  ASSERT_EQ(Shell("mkdir -p " + root + "/usr/bin " + debug_dir), 0);
  ASSERT_EQ(Shell("aarch64-linux-gnu-objcopy --only-keep-debug " + kGuest + " " + debug), 0);
  ASSERT_EQ(Shell("aarch64-linux-gnu-objcopy --strip-debug " + kGuest + " " + exe), 0);
  const std::string maps = "00400000-00800000 r-xp 00000000 08:01 12 " + exe + "\n";
  report_frame_names names = {};
  report_symbols *s = report_symbols_new(maps.c_str());
  report_symbols_lookup(fn + 4, &names, s);
  ASSERT_NE(names.location, nullptr) << "no file:line: the debug file was not found";
  EXPECT_NE(std::string(names.location).find("impl_libgcc.c:"), std::string::npos)
      << names.location;
  std::string listed;
  report_symbols_each_module(
      s,
      [](const char *path, uint64_t start, uint64_t, uint64_t base, const char *build_id,
         void *ctx) {
        *static_cast<std::string *>(ctx) += std::string(path) + " " + std::to_string(start) + " " +
                                            std::to_string(base) + " " +
                                            (build_id ? build_id : "-");
      },
      &listed);
  EXPECT_EQ(listed, exe + " " + std::to_string(0x400000) + " 0 " + id);
  FreeNames(names);
  report_symbols_free(s);
  // Without the debug file, no line: the test above proves the lookup.
  ASSERT_EQ(Shell("rm -f " + debug), 0);
  names = {};
  s = report_symbols_new(maps.c_str());
  report_symbols_lookup(fn + 4, &names, s);
  EXPECT_EQ(names.location, nullptr);
  EXPECT_STREQ(names.symbol, "sc_flush_libgcc+0x4") << "the symbol table is still there";
  FreeNames(names);
  report_symbols_free(s);
  Shell("rm -rf " + root);
}

} // namespace

// ---- repeats of a memoised verdict, one at a time or N at once ------------------

// What a stale block's words leave in a report, each word's verdict memoised
// once and then repeated ROUNDS times: in the order the block runs them
// (word after word, round after round) or each word's ROUNDS at once.
nlohmann::json RepeatedBlock(const rig_config *cfg, bool at_once, uint64_t rounds)
{
  report_findings *g = report_findings_new(cfg);
  const model_verdict flushed = Geometry(report_findings_site(g, 0x403520, 0x401228));
  const model_verdict unflushed = {
      MODEL_STALE_NOT_CLEANED, 0x5000, MODEL_NO_SITE, 0, 64, 0, false, 0};
  // The report's first-words list filled by other fetches first: a batch
  // is only taken once it keeps no more.
  for (int i = 0; i < 100; i++)
    report_findings_record(g, 0x9000 + 4 * (i % 8), 2, 5, &unflushed);
  EXPECT_FALSE(report_findings_keeps_more(g));
  const uint64_t words[] = {0x7f0000001040, 0x7f0000001044, 0x7f0000002000};
  const model_verdict *verdict[] = {&flushed, &flushed, &unflushed};
  report_stale_repeat memo[3];
  for (int w = 0; w < 3; w++)
    report_findings_record_memo(g, words[w], 1, 3, verdict[w], &memo[w]);
  if (at_once) {
    for (int w = 0; w < 3; w++)
      EXPECT_TRUE(report_findings_repeat_n(g, &memo[w], words[w], 1, 3, rounds));
    report_findings_benign_n(g, 0x6000, rounds);
  } else {
    for (uint64_t k = 0; k < rounds; k++) {
      for (int w = 0; w < 3; w++)
        EXPECT_TRUE(report_findings_repeat(g, &memo[w], words[w], 1, 3));
      report_findings_benign(g, 0x6000);
    }
  }
  report_findings_note_end(g, 3, 0x401000); // names thread 3's last stale fetch
  report_findings_resolve(g, FakeNames, nullptr);
  JsonObject *report = json_object_new();
  report_findings_json(g, report);
  nlohmann::json j = nlohmann::json::parse(Take(rig_json_write_object(report)));
  j["text"] = Take(report_findings_text(g));
  j["benign_total"] = report_findings_benign_total(g);
  report_findings_free(g);
  return j;
}

TEST_F(Findings, RepeatsRecordedAtOnceLeaveTheReportOfRepeatsOneByOne)
{
  const nlohmann::json one_by_one = RepeatedBlock(config.cfg, false, 1000);
  const nlohmann::json at_once = RepeatedBlock(config.cfg, true, 1000);
  EXPECT_EQ(one_by_one, at_once);
  EXPECT_EQ(at_once["benign_total"], 1000);
  EXPECT_EQ(at_once["crash"]["last_stale"]["addr"], "0x7f0000002000") << "the block's last word";
  ASSERT_EQ(at_once["findings"].size(), 2u) << at_once.dump();
  EXPECT_EQ(at_once["findings"][0]["count"], 2002) << "two words, each 1 + 1000 times";
}

TEST_F(Findings, ARepeatNoLongerAppliesOnceTheFindingsWereSettled)
{
  const model_verdict v = Geometry(report_findings_site(f, 0x403520, 0x401228));
  report_stale_repeat memo;
  report_findings_record_memo(f, 0x7f0000001040, 0, 0, &v, &memo);
  EXPECT_TRUE(report_findings_repeat_applies(f, &memo));
  report_findings_count(f); // settles
  EXPECT_FALSE(report_findings_repeat_applies(f, &memo));
  EXPECT_FALSE(report_findings_repeat_n(f, &memo, 0x7f0000001040, 0, 0, 7));
  EXPECT_EQ(report_findings_stale_total(f), 1u) << "nothing recorded";
}
