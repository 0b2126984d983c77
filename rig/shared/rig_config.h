/*
 * The emulated SoC described by a qemu-configs/NAME.conf file (format in
 * docs/RIG.md). Shared by the runner (jitflush-emu, which builds the
 * sysfs overlay from it) and the TCG plugin (which gives each guest thread
 * one of these CPUs).
 */
#ifndef JITFLUSH_EMU_CONFIG_H
#define JITFLUSH_EMU_CONFIG_H

#include <stdbool.h>
#include <stdint.h>

#include <glib.h>

#include "cpuset.h" /* struct jf_cpuset, JF_MAX_CPUS (common/cpuset.c) */

enum rig_ctr_trap {
  RIG_CTR_TRAP_NONE,     /* each CPU's own CTR_EL0 is visible at EL0 */
  RIG_CTR_TRAP_SANITIZE, /* Linux >= 4.9 on a mismatched system: every read
                            returns the system-wide safe value */
};

enum rig_sysfs_mode {
  RIG_SYSFS_FULL,     /* possible/present/online, cache/indexM, regs/ */
  RIG_SYSFS_NO_CACHE, /* no cpuN/cache/ */
  RIG_SYSFS_NO_MIDR,  /* no cpuN/regs/identification/ */
  RIG_SYSFS_NONE,     /* no /sys/devices/system/cpu at all */
};

/* [kernel] exec-map-sync: whether the emulated kernel syncs a page the
 * first time it is mapped executable, as arm64 Linux does
 * (rig/model/model_kernel_sync.c). */
enum rig_exec_map_sync {
  RIG_EXEC_MAP_SYNC_LINUX, /* default */
  RIG_EXEC_MAP_SYNC_NONE,  /* no OS help: such code is kernel-sync-assumed */
};

/* [kernel] linux: which arm64 Linux's __sync_icache_dcache the emulated
 * kernel has (rig/model/model_kernel_sync.c, docs/COHERENCE-MODEL.md). */
enum rig_kernel_linux {
  RIG_KERNEL_LINUX_6X,        /* default: syncs every page, anonymous too */
  RIG_KERNEL_LINUX_ANON_SKIP, /* v3.11-v4.6: returns early for anonymous pages */
};

/* [sched] policy. */
enum rig_sched_policy {
  RIG_SCHED_ADVERSARIAL, /* default: CTR_EL0 read on the largest-line CPU of
                            the thread's mask, maintenance on the smallest */
  RIG_SCHED_RANDOM,      /* seeded random migrations only */
};

/* rig_ctr_trap_names, rig_sysfs_mode_names, rig_exec_map_sync_names,
 * rig_kernel_linux_names, rig_sched_policy_names: the names of the values
 * of a key of rig_config_keys.def, in the order of their enum,
 * NULL-terminated; the config, and the options --policy and
 * --exec-map-sync, take them. */
#define RIG_CONFIG_KEY(group, key, type, use, meaning)
#define RIG_CONFIG_ENUM(group, key, id, meaning, ...) extern const char *const rig_##id##_names[];
#include "rig_config_keys.def"
#undef RIG_CONFIG_KEY
#undef RIG_CONFIG_ENUM

struct rig_cluster {
  char *name; /* text after "cluster " in the group name */
  char *core; /* core= (a human name, e.g. "Cortex-A53") */
  uint64_t midr;
  uint64_t ctr;
  unsigned l1i_line;  /* bytes; defaults to 4 << CTR.IminLine */
  unsigned l1d_line;  /* bytes; defaults to 4 << CTR.DminLine */
  char *domain;       /* domain= (default: the cluster's own name) */
  unsigned domain_id; /* index of the first cluster with the same domain:
                         clusters with equal ids share one cpufreq policy
                         and one topology cluster in the overlay */
};

/* [hotplug] events: at AT guest instructions (all threads together) the
 * CPUs in CPUS come online (ONLINE) or go offline. */
struct rig_hotplug_event {
  uint64_t at;
  bool online;
  struct jf_cpuset cpus;
};

struct rig_cpu {
  int cluster; /* index into rig_config.clusters */
  bool online; /* online at start */
};

struct rig_config {
  char *path;
  char *soc_name;
  char *qemu_cpu; /* NULL when not given */
  unsigned ncpus; /* CPUs 0..ncpus-1; every one belongs to a cluster */
  struct rig_cpu cpus[JF_MAX_CPUS];
  struct rig_cluster *clusters;
  unsigned nclusters;
  enum rig_ctr_trap ctr_trap;
  enum rig_sysfs_mode sysfs;
  struct jf_cpuset allowed;         /* initial affinity; default: online CPUs */
  uint64_t seed;                    /* [sched] seed, default 1 */
  unsigned migrate_every;           /* [sched] mean instructions; 0 = never */
  enum rig_sched_policy policy;     /* [sched] policy, default adversarial */
  uint64_t sanitized_ctr;           /* the system-wide safe CTR_EL0 (min lines,
                                       AND of IDC/DIC) computed at load time */
  struct rig_hotplug_event *events; /* sorted by at (stable) */
  unsigned nevents;
  /* [kernel] exec-map-sync, default linux. */
  enum rig_exec_map_sync exec_map_sync;
  /* [kernel] linux, default 6.x. */
  enum rig_kernel_linux kernel_linux;
};

/* The cluster CPU belongs to. */
static inline unsigned rig_config_cluster_of(const struct rig_config *cfg, unsigned cpu)
{
  return (unsigned)cfg->cpus[cpu].cluster;
}

/* The CTR_EL0 a guest reads on CPU: its own, or the sanitised system value
 * when the emulated kernel traps EL0 reads (Linux >= 4.9 on mismatched
 * systems, arch/arm64/kernel/cpufeature.c). */
static inline uint64_t rig_config_visible_ctr(const struct rig_config *cfg, unsigned cpu)
{
  if (cfg->ctr_trap == RIG_CTR_TRAP_SANITIZE) {
    return cfg->sanitized_ctr;
  }
  return cfg->clusters[rig_config_cluster_of(cfg, cpu)].ctr;
}

/* Parses a [hotplug] events value: items "+CPULIST@N" or "-CPULIST@N"
 * separated by commas (a CPULIST may hold commas itself: "+4,6@100"), in
 * the kernel's cpulist format. Fills *events / *n (the caller frees *events
 * with g_free), or returns false with *ERROR saying what is wrong (without
 * the file, the line or the value: rig_config_load adds them). Exposed for
 * tests. */
bool rig_parse_hotplug_events(const char *text, struct rig_hotplug_event **events, unsigned *n,
                              GError **error);

/*
 * Loads and validates PATH. On error returns NULL and sets *error to a
 * message that names the file, the line (where one applies), the key and the
 * problem, e.g. "qemu-configs/x.conf:12: [cluster big] ctr: not a number:
 * '0xzz'". Unknown groups and keys, bad numbers, overlapping or missing CPUs
 * are all errors.
 */
struct rig_config *rig_config_load(const char *path, GError **error);
void rig_config_free(struct rig_config *config);

#endif /* JITFLUSH_EMU_CONFIG_H */
