#include "rig_harness.h"

#include <gtest/gtest.h>

#include "run_process.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace fs = std::filesystem;

namespace scenario
{
namespace
{

std::string ReadFile(const std::string &path)
{
  return ReadFileOrEmpty(path);
}

std::string Quote(const std::string &s)
{
  if (s.find_first_of(" \t'\"") == std::string::npos)
    return s;
  return "'" + s + "'";
}

} // namespace

std::string RunnerPath()
{
  return JITFLUSH_SCENARIO_RUNNER;
}
std::string ConfigPath(const std::string &name)
{
  return std::string(JITFLUSH_SCENARIO_CONFIG_DIR) + "/" + name;
}
std::string GuestProgram(const std::string &name)
{
  return std::string(JITFLUSH_SCENARIO_GUEST_DIR) + "/" + name;
}

std::string WorkDir()
{
  const std::string dir = JITFLUSH_SCENARIO_WORK_DIR;
  fs::create_directories(dir);
  return dir;
}

std::vector<std::string> AllConfigNames()
{
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto &entry : fs::directory_iterator(JITFLUSH_SCENARIO_CONFIG_DIR, ec))
    if (entry.path().extension() == ".conf")
      names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

std::string WriteConfigVariant(const std::string &base_name, const std::string &section,
                               const std::string &key, const std::string &value,
                               const std::string &variant_name)
{
  std::istringstream in(ReadFile(ConfigPath(base_name)));
  std::ostringstream out;
  std::string line, group;
  bool done = false;
  auto add_if_leaving = [&]() {
    if (group == section && !done) {
      out << key << "=" << value << "\n";
      done = true;
    }
  };
  while (std::getline(in, line)) {
    if (!line.empty() && line[0] == '[') {
      add_if_leaving();
      group = line.substr(1, line.find(']') - 1);
    } else if (group == section && line.rfind(key + "=", 0) == 0) {
      if (!done)
        out << key << "=" << value << "\n";
      done = true;
      continue;
    }
    out << line << "\n";
  }
  add_if_leaving();
  if (!done)
    out << "\n[" << section << "]\n" << key << "=" << value << "\n";
  const std::string path = WorkDir() + "/" + variant_name;
  std::ofstream(path) << out.str();
  return path;
}

RigRun RunUnderRig(const std::string &config_path, uint64_t seed, const std::string &tag,
                   const std::vector<std::string> &program_and_args, int timeout_seconds,
                   const std::vector<std::string> &runner_options)
{
  const std::string base = WorkDir() + "/" + tag;
  const std::string report_path = base + ".json";
  std::remove(report_path.c_str());
  std::vector<std::string> argv = {RunnerPath(),         "--config", config_path, "--seed",
                                   std::to_string(seed), "--report", report_path};
  argv.insert(argv.end(), runner_options.begin(), runner_options.end());
  argv.push_back("--");
  argv.insert(argv.end(), program_and_args.begin(), program_and_args.end());

  RigRun run;
  for (const auto &a : argv)
    run.command += (run.command.empty() ? "" : " ") + Quote(a);
  const ProcessResult p = RunProcess(argv, {}, timeout_seconds);
  run.exit_status = p.status;
  run.timed_out = p.timed_out;
  run.out = p.out;
  run.err = p.err;
  // Kept beside the report for whoever debugs a failure.
  WriteFile(base + ".out", run.out);
  WriteFile(base + ".err", run.err);
  run.last_err_line = p.LastErrLine();
  const std::string report_text = ReadFile(report_path);
  if (!report_text.empty())
    run.report = nlohmann::json::parse(report_text, nullptr, /*allow_exceptions=*/false);
  return run;
}

uint64_t RigRun::Count(const char *key) const
{
  if (!report.is_object() || !report.contains(key) || !report[key].is_number_unsigned())
    return 0;
  return report[key].get<uint64_t>();
}

void ExpectClean(const RigRun &run)
{
  ASSERT_FALSE(run.timed_out) << run.Describe();
  ASSERT_TRUE(run.report.is_object()) << run.Describe();
  EXPECT_EQ(run.exit_status, 0) << run.Describe();
  EXPECT_EQ(run.Count("stale_fetches"), 0u) << run.Describe();
  EXPECT_TRUE(run.report["stale"].empty()) << run.Describe();
  EXPECT_TRUE(!run.report.contains("findings") || run.report["findings"].empty()) << run.Describe();
  EXPECT_GT(run.Count("fetch_checks"), 0u) << run.Describe();
  EXPECT_NE(run.last_err_line.find("jitflush-emu: stale_fetches=0 "), std::string::npos)
      << run.Describe();
}

uint64_t CpuInstructions(const RigRun &run, int cpu)
{
  if (!run.report.is_object() || !run.report.contains("cores"))
    return 0;
  for (const auto &core : run.report["cores"])
    if (core.at("cpu").get<int>() == cpu)
      return core.at("instructions").get<uint64_t>();
  return 0;
}

uint64_t StaleAddr(const nlohmann::json &record)
{
  const auto &a = record.at("addr");
  if (a.is_number_unsigned())
    return a.get<uint64_t>();
  return std::stoull(a.get<std::string>(), nullptr, 0);
}

std::string RigRun::Describe() const
{
  std::ostringstream s;
  s << "command: " << command << "\nexit status: " << exit_status
    << (timed_out ? " (timed out, killed)" : "") << "\nlast stderr line: " << last_err_line;
  if (report.is_discarded() || report.is_null()) {
    s << "\nreport: missing or not JSON";
  } else if (report.contains("stale") && report["stale"].is_array()) {
    const auto &stale = report["stale"];
    for (size_t i = 0; i < stale.size() && i < 5; i++)
      s << "\nstale[" << i << "]: " << stale[i].dump();
  }
  const std::string tail = err.size() > 2000 ? err.substr(err.size() - 2000) : err;
  s << "\nstderr (tail):\n"
    << tail << "\nstdout:\n"
    << (out.size() > 1000 ? out.substr(0, 1000) : out);
  return s.str();
}

} // namespace scenario
