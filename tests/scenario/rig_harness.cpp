#include "rig_harness.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

namespace fs = std::filesystem;

namespace scenario {
namespace {

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string LastLine(const std::string& text) {
  size_t end = text.find_last_not_of('\n');
  if (end == std::string::npos) return "";
  size_t begin = text.rfind('\n', end);
  return text.substr(begin == std::string::npos ? 0 : begin + 1, end - (begin == std::string::npos ? 0 : begin + 1) + 1);
}

std::string Quote(const std::string& s) {
  if (s.find_first_of(" \t'\"") == std::string::npos) return s;
  return "'" + s + "'";
}

// Runs argv with stdout/stderr to files, in its own process group so that a
// timeout can stop QEMU and its threads together.
int Spawn(const std::vector<std::string>& argv, const std::string& out_path, const std::string& err_path,
          int timeout_seconds, bool* timed_out) {
  std::vector<char*> cargv;
  for (const auto& a : argv) cargv.push_back(const_cast<char*>(a.c_str()));
  cargv.push_back(nullptr);
  const pid_t pid = fork();
  if (pid < 0) throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
  if (pid == 0) {
    setpgid(0, 0);
    const int out = open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int err = open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (out < 0 || err < 0) _exit(125);
    dup2(out, 1);
    dup2(err, 2);
    execv(cargv[0], cargv.data());
    dprintf(2, "exec %s: %s\n", cargv[0], std::strerror(errno));
    _exit(127);
  }
  setpgid(pid, pid);  // also from here, so the group exists before any kill
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeout_seconds);
  int status = 0;
  *timed_out = false;
  for (;;) {
    const pid_t r = waitpid(pid, &status, WNOHANG);
    if (r == pid) break;
    if (r < 0 && errno != EINTR) throw std::runtime_error(std::string("waitpid: ") + std::strerror(errno));
    if (std::chrono::steady_clock::now() > deadline && !*timed_out) {
      *timed_out = true;
      kill(-pid, SIGKILL);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return -1;
}

}  // namespace

std::string RunnerPath() { return JITFLUSH_SCENARIO_RUNNER; }
std::string ConfigPath(const std::string& name) { return std::string(JITFLUSH_SCENARIO_CONFIG_DIR) + "/" + name; }
std::string GuestProgram(const std::string& name) { return std::string(JITFLUSH_SCENARIO_GUEST_DIR) + "/" + name; }

std::string WorkDir() {
  const std::string dir = JITFLUSH_SCENARIO_WORK_DIR;
  fs::create_directories(dir);
  return dir;
}

std::vector<std::string> AllConfigNames() {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(JITFLUSH_SCENARIO_CONFIG_DIR, ec))
    if (entry.path().extension() == ".conf") names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

std::string WriteConfigVariant(const std::string& base_name, const std::string& section, const std::string& key,
                               const std::string& value, const std::string& variant_name) {
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
      if (!done) out << key << "=" << value << "\n";
      done = true;
      continue;
    }
    out << line << "\n";
  }
  add_if_leaving();
  if (!done) out << "\n[" << section << "]\n" << key << "=" << value << "\n";
  const std::string path = WorkDir() + "/" + variant_name;
  std::ofstream(path) << out.str();
  return path;
}

RigRun RunUnderRig(const std::string& config_path, uint64_t seed, const std::string& tag,
                   const std::vector<std::string>& program_and_args, int timeout_seconds,
                   const std::vector<std::string>& runner_args) {
  const std::string base = WorkDir() + "/" + tag;
  const std::string report_path = base + ".json";
  std::remove(report_path.c_str());
  std::vector<std::string> argv = {RunnerPath(), "--config", config_path, "--seed", std::to_string(seed),
                                   "--report", report_path};
  argv.insert(argv.end(), runner_args.begin(), runner_args.end());
  argv.push_back("--");
  argv.insert(argv.end(), program_and_args.begin(), program_and_args.end());

  RigRun run;
  for (const auto& a : argv) run.command += (run.command.empty() ? "" : " ") + Quote(a);
  run.exit_status = Spawn(argv, base + ".out", base + ".err", timeout_seconds, &run.timed_out);
  run.out = ReadFile(base + ".out");
  run.err = ReadFile(base + ".err");
  run.last_err_line = LastLine(run.err);
  const std::string report_text = ReadFile(report_path);
  if (!report_text.empty()) run.report = nlohmann::json::parse(report_text, nullptr, /*allow_exceptions=*/false);
  return run;
}

uint64_t RigRun::Count(const char* key) const {
  if (!report.is_object() || !report.contains(key) || !report[key].is_number_unsigned()) return 0;
  return report[key].get<uint64_t>();
}

uint64_t StaleAddr(const nlohmann::json& record) {
  const auto& a = record.at("addr");
  if (a.is_number_unsigned()) return a.get<uint64_t>();
  return std::stoull(a.get<std::string>(), nullptr, 0);
}

std::string RigRun::Describe() const {
  std::ostringstream s;
  s << "command: " << command << "\nexit status: " << exit_status << (timed_out ? " (timed out, killed)" : "")
    << "\nlast stderr line: " << last_err_line;
  if (report.is_discarded() || report.is_null()) {
    s << "\nreport: missing or not JSON";
  } else if (report.contains("stale") && report["stale"].is_array()) {
    const auto& stale = report["stale"];
    for (size_t i = 0; i < stale.size() && i < 5; i++) s << "\nstale[" << i << "]: " << stale[i].dump();
  }
  const std::string tail = err.size() > 2000 ? err.substr(err.size() - 2000) : err;
  s << "\nstderr (tail):\n" << tail << "\nstdout:\n" << (out.size() > 1000 ? out.substr(0, 1000) : out);
  return s.str();
}

}  // namespace scenario
