// Just enough of a qemu-configs/*.conf reader (DESIGN.md section 4) for the
// scenario tests to pick CPUs and expectations from the same file the rig
// runs: which core is big, whether every core has IDC, whether D lines
// differ. The rig's own loader (src/emu/emu_config.c) validates the file;
// this one only throws when something it needs is missing.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace scenario {

struct SocCluster {
  std::string name;
  std::vector<int> cpus;
  std::vector<int> online;  // CPUs online at start (all of cpus by default)
  bool online_given = false;
  uint64_t ctr = 0;

  unsigned ILine() const { return 4u << (ctr & 0xf); }
  unsigned DLine() const { return 4u << ((ctr >> 16) & 0xf); }
  bool Idc() const { return (ctr >> 28) & 1; }
  bool Dic() const { return (ctr >> 29) & 1; }
};

struct SocConf {
  std::string path;
  std::vector<SocCluster> clusters;
  std::string ctr_trap = "none";
  std::vector<int> allowed;  // empty: every online CPU
  long migrate_every = -1;   // [sched] migrate-every; -1 when not given

  // The CPUs a process may start on: online and in [process] allowed.
  std::vector<int> UsableCpus(const SocCluster& cluster) const;
  // A usable CPU of the cluster with the largest I line, or -1.
  int BigCpu() const;
  bool EveryCoreHasIdc() const;
  bool EveryCoreHasDic() const;
  // More than one usable CPU and migrations not switched off.
  bool CanMigrate() const;
  // The cluster holding cpu, or nullptr.
  const SocCluster* ClusterOf(int cpu) const;
  bool ILinesDiffer() const;
  // The CPUs a process may use do not all have the same CTR_EL0.
  bool UsableCtrsDiffer() const;
  bool DLinesDiffer() const;
};

// Throws std::runtime_error naming the file and line on text it cannot use.
SocConf LoadSocConf(const std::string& path);

// Parses "0-3,6" (a cpulist; "" is the empty set); throws
// std::runtime_error when malformed.
std::vector<int> ParseCpuList(const std::string& text);

}  // namespace scenario
