#include "soc_conf.h"

#include <algorithm>
#include <memory>
#include <stdexcept>

extern "C" {
#include "rig_config.h"
}

namespace scenario
{
namespace
{

bool Contains(const std::vector<int> &v, int x)
{
  return std::find(v.begin(), v.end(), x) != v.end();
}

} // namespace

// The rig's own loader reads the file, so the tests accept exactly the
// files the rig runs, with its error messages (file, line and key).
SocConf LoadSocConf(const std::string &path)
{
  GError *error = nullptr;
  std::unique_ptr<rig_config, void (*)(rig_config *)> cfg(rig_config_load(path.c_str(), &error),
                                                          rig_config_free);
  if (!cfg) {
    std::string message = error ? error->message : path + ": cannot load";
    if (error)
      g_error_free(error);
    throw std::runtime_error(message);
  }
  SocConf conf;
  conf.path = path;
  for (unsigned k = 0; k < cfg->nclusters; k++) {
    SocCluster c;
    c.name = cfg->clusters[k].name;
    c.ctr = cfg->clusters[k].ctr;
    for (unsigned cpu = 0; cpu < cfg->ncpus; cpu++) {
      if (cfg->cpus[cpu].cluster != static_cast<int>(k))
        continue;
      c.cpus.push_back(static_cast<int>(cpu));
      if (cfg->cpus[cpu].online)
        c.online.push_back(static_cast<int>(cpu));
    }
    conf.clusters.push_back(c);
  }
  conf.ctr_trap = cfg->ctr_trap == RIG_CTR_TRAP_SANITIZE ? "sanitize" : "none";
  for (unsigned cpu = 0; cpu < cfg->ncpus; cpu++)
    if (jf_cpuset_has(&cfg->allowed, cpu))
      conf.allowed.push_back(static_cast<int>(cpu));
  conf.migrate_every = static_cast<long>(cfg->migrate_every);
  return conf;
}

std::vector<int> SocConf::UsableCpus(const SocCluster &cluster) const
{
  std::vector<int> out;
  for (int cpu : cluster.cpus)
    if (Contains(cluster.online, cpu) && (allowed.empty() || Contains(allowed, cpu)))
      out.push_back(cpu);
  return out;
}

int SocConf::BigCpu() const
{
  int best = -1;
  unsigned best_line = 0;
  for (const SocCluster &c : clusters) {
    const auto usable = UsableCpus(c);
    if (!usable.empty() && c.ILine() > best_line) {
      best_line = c.ILine();
      best = usable.front();
    }
  }
  return best;
}

bool SocConf::EveryCoreHasIdc() const
{
  return std::all_of(clusters.begin(), clusters.end(), [](const SocCluster &c) { return c.Idc(); });
}

bool SocConf::EveryCoreHasDic() const
{
  return std::all_of(clusters.begin(), clusters.end(), [](const SocCluster &c) { return c.Dic(); });
}

bool SocConf::CanMigrate() const
{
  size_t usable = 0;
  for (const SocCluster &c : clusters)
    usable += UsableCpus(c).size();
  return usable > 1 && migrate_every != 0;
}

const SocCluster *SocConf::ClusterOf(int cpu) const
{
  for (const SocCluster &c : clusters)
    if (Contains(c.cpus, cpu))
      return &c;
  return nullptr;
}

bool SocConf::UsableCtrsDiffer() const
{
  uint64_t first = 0;
  for (const SocCluster &c : clusters) {
    if (UsableCpus(c).empty())
      continue;
    if (first == 0)
      first = c.ctr;
    if (c.ctr != first)
      return true;
  }
  return false;
}

bool SocConf::ILinesDiffer() const
{
  return std::any_of(clusters.begin(), clusters.end(),
                     [this](const SocCluster &c) { return c.ILine() != clusters.front().ILine(); });
}

bool SocConf::DLinesDiffer() const
{
  return std::any_of(clusters.begin(), clusters.end(),
                     [this](const SocCluster &c) { return c.DLine() != clusters.front().DLine(); });
}

} // namespace scenario
