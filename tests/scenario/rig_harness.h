// Runs an aarch64 guest program under the rig (jitflush-emu, docs/RIG.md
// section 4) and collects what the scenario tests assert on: the exit
// status, the output, and the parsed JSON report.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace scenario
{

// The runner's status when at least one fetch was stale (docs/RIG.md).
constexpr int kStaleExitStatus = 86;

struct RigRun {
  std::string command;  // for failure messages
  int exit_status = -1; // the runner's status; 128+N when killed by signal N
  bool timed_out = false;
  std::string out, err;      // the runner's stdout and stderr
  std::string last_err_line; // "jitflush-emu: stale_fetches=..." when it ran
  nlohmann::json report;     // null when no report was written

  uint64_t Count(const char *key) const; // a top-level counter; 0 if absent
  // Command, status, summary line and the first stale records: what a
  // failing assertion should show.
  std::string Describe() const;
};

std::string RunnerPath();
std::string ConfigPath(const std::string &name);   // "exynos8890.conf" -> full path
std::string GuestProgram(const std::string &name); // "jit_stress" -> aarch64 build path
std::string WorkDir();                             // created on first use

// Every qemu-configs/*.conf, sorted by name.
std::vector<std::string> AllConfigNames();

// Writes a copy of a config with [section] key=value set (replaced, or
// added to the section) into the work dir and returns its path.
std::string WriteConfigVariant(const std::string &base_name, const std::string &section,
                               const std::string &key, const std::string &value,
                               const std::string &variant_name);

// jitflush-emu --config CONFIG --seed SEED --report WORK/TAG.json
//              [RUNNER_OPTIONS...] -- PROGRAM...
RigRun RunUnderRig(const std::string &config_path, uint64_t seed, const std::string &tag,
                   const std::vector<std::string> &program_and_args, int timeout_seconds = 90,
                   const std::vector<std::string> &runner_options = {});

// The run finished, the checker ran (fetch_checks > 0) and saw no stale
// fetch: status 0, empty "stale" (and "findings"), summary stale_fetches=0.
void ExpectClean(const RigRun &run);

// The instructions the report credits to emulated CPU (0 if not listed).
uint64_t CpuInstructions(const RigRun &run, int cpu);

// The address of a stale record ("addr": number or "0x..." string).
uint64_t StaleAddr(const nlohmann::json &record);

} // namespace scenario
