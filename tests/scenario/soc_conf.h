// What the scenario tests need to know of a qemu-configs/*.conf (docs/RIG.md
// section 4) to pick CPUs and expectations from the same file the rig runs:
// which core is big, whether every core has IDC, whether D lines differ.
// The file is read by the rig's own loader (rig/shared/rig_config.c), so a
// file the rig rejects is rejected here too, with the same message.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace scenario
{

struct SocCluster {
  std::string name;
  std::vector<int> cpus;
  std::vector<int> online; // CPUs online at start
  uint64_t ctr = 0;

  unsigned ILine() const
  {
    return 4u << (ctr & 0xf);
  }
  unsigned DLine() const
  {
    return 4u << ((ctr >> 16) & 0xf);
  }
  bool Idc() const
  {
    return (ctr >> 28) & 1;
  }
  bool Dic() const
  {
    return (ctr >> 29) & 1;
  }
};

struct SocConf {
  std::string path;
  std::vector<SocCluster> clusters;
  std::string ctr_trap = "none";
  std::vector<int> allowed; // [process] allowed (default: the online CPUs)
  long migrate_every = 0;   // [sched] migrate-every; 0: never

  // The CPUs a process may start on: online and in [process] allowed.
  std::vector<int> UsableCpus(const SocCluster &cluster) const;
  // A usable CPU of the cluster with the largest I line, or -1.
  int BigCpu() const;
  bool EveryCoreHasIdc() const;
  bool EveryCoreHasDic() const;
  // More than one usable CPU and migrations not switched off.
  bool CanMigrate() const;
  // The cluster holding cpu, or nullptr.
  const SocCluster *ClusterOf(int cpu) const;
  bool ILinesDiffer() const;
  // The CPUs a process may use do not all have the same CTR_EL0.
  bool UsableCtrsDiffer() const;
  bool DLinesDiffer() const;
};

// Throws std::runtime_error with the loader's message (file, line, key)
// when the rig would reject the file.
SocConf LoadSocConf(const std::string &path);

} // namespace scenario
