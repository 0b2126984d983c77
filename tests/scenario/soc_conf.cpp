#include "soc_conf.h"

#include <algorithm>
#include <fstream>
#include <stdexcept>

namespace scenario {
namespace {

std::string Trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return "";
  const auto e = s.find_last_not_of(" \t\r");
  return s.substr(b, e - b + 1);
}

bool Contains(const std::vector<int>& v, int x) { return std::find(v.begin(), v.end(), x) != v.end(); }

}  // namespace

std::vector<int> ParseCpuList(const std::string& text) {
  std::vector<int> out;
  if (Trim(text).empty()) return out;
  size_t pos = 0;
  while (pos <= text.size()) {
    const size_t comma = std::min(text.find(',', pos), text.size());
    const std::string item = Trim(text.substr(pos, comma - pos));
    size_t used = 0;
    const int lo = std::stoi(item, &used);
    int hi = lo;
    if (used < item.size()) {
      if (item[used] != '-') throw std::runtime_error("bad cpulist '" + text + "'");
      const std::string rest = item.substr(used + 1);
      size_t used_hi = 0;
      hi = std::stoi(rest, &used_hi);
      if (used_hi != rest.size() || hi < lo) throw std::runtime_error("bad cpulist '" + text + "'");
    }
    for (int c = lo; c <= hi; c++) out.push_back(c);
    pos = comma + 1;
  }
  return out;
}

SocConf LoadSocConf(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error(path + ": cannot open");
  SocConf conf;
  conf.path = path;
  std::string group, line;
  int lineno = 0;
  while (std::getline(in, line)) {
    lineno++;
    line = Trim(line);
    if (line.empty() || line[0] == '#' || line[0] == ';') continue;
    if (line.front() == '[') {
      group = Trim(line.substr(1, line.find(']') - 1));
      if (group.rfind("cluster ", 0) == 0) {
        conf.clusters.emplace_back();
        conf.clusters.back().name = Trim(group.substr(8));
      }
      continue;
    }
    const auto eq = line.find('=');
    if (eq == std::string::npos) throw std::runtime_error(path + ":" + std::to_string(lineno) + ": not key=value");
    const std::string key = Trim(line.substr(0, eq));
    std::string value = Trim(line.substr(eq + 1));
    // Tolerate a trailing "# comment" (value empty when it starts with one).
    const auto hash = value.find('#');
    if (hash != std::string::npos && (hash == 0 || value[hash - 1] == ' ' || value[hash - 1] == '\t'))
      value = Trim(value.substr(0, hash));
    try {
      if (group.rfind("cluster ", 0) == 0) {
        SocCluster& c = conf.clusters.back();
        if (key == "cpus") c.cpus = ParseCpuList(value);
        if (key == "online") {
          c.online = ParseCpuList(value);
          c.online_given = true;
        }
        if (key == "ctr") c.ctr = std::stoull(value, nullptr, 0);
      } else if (group == "kernel" && key == "ctr-trap") {
        conf.ctr_trap = value;
      } else if (group == "process" && key == "allowed") {
        conf.allowed = ParseCpuList(value);
      } else if (group == "sched" && key == "migrate-every") {
        conf.migrate_every = std::stol(value, nullptr, 0);
      }
    } catch (const std::exception& e) {
      throw std::runtime_error(path + ":" + std::to_string(lineno) + ": " + key + ": " + e.what());
    }
  }
  for (SocCluster& c : conf.clusters) {
    if (c.cpus.empty() || c.ctr == 0)
      throw std::runtime_error(path + ": [cluster " + c.name + "] needs cpus= and ctr=");
    if (!c.online_given) c.online = c.cpus;
  }
  return conf;
}

std::vector<int> SocConf::UsableCpus(const SocCluster& cluster) const {
  std::vector<int> out;
  for (int cpu : cluster.cpus)
    if (Contains(cluster.online, cpu) && (allowed.empty() || Contains(allowed, cpu))) out.push_back(cpu);
  return out;
}

int SocConf::BigCpu() const {
  int best = -1;
  unsigned best_line = 0;
  for (const SocCluster& c : clusters) {
    const auto usable = UsableCpus(c);
    if (!usable.empty() && c.ILine() > best_line) {
      best_line = c.ILine();
      best = usable.front();
    }
  }
  return best;
}

bool SocConf::EveryCoreHasIdc() const {
  return std::all_of(clusters.begin(), clusters.end(), [](const SocCluster& c) { return c.Idc(); });
}

bool SocConf::EveryCoreHasDic() const {
  return std::all_of(clusters.begin(), clusters.end(), [](const SocCluster& c) { return c.Dic(); });
}

bool SocConf::CanMigrate() const {
  size_t usable = 0;
  for (const SocCluster& c : clusters) usable += UsableCpus(c).size();
  return usable > 1 && migrate_every != 0;
}

const SocCluster* SocConf::ClusterOf(int cpu) const {
  for (const SocCluster& c : clusters)
    if (Contains(c.cpus, cpu)) return &c;
  return nullptr;
}

bool SocConf::UsableCtrsDiffer() const {
  uint64_t first = 0;
  for (const SocCluster& c : clusters) {
    if (UsableCpus(c).empty()) continue;
    if (first == 0) first = c.ctr;
    if (c.ctr != first) return true;
  }
  return false;
}

bool SocConf::ILinesDiffer() const {
  return std::any_of(clusters.begin(), clusters.end(),
                     [this](const SocCluster& c) { return c.ILine() != clusters.front().ILine(); });
}

bool SocConf::DLinesDiffer() const {
  return std::any_of(clusters.begin(), clusters.end(),
                     [this](const SocCluster& c) { return c.DLine() != clusters.front().DLine(); });
}

}  // namespace scenario
