// The qemu-configs parser (rig/shared/rig_config.c): every shipped config
// loads with the values docs/BACKGROUND.md#architecture-facts gives, and each malformed
// fixture fails with the file, line, group, key and problem named.
#include <gtest/gtest.h>

#include <cstdint>
#include <iterator>
#include <set>
#include <string>

extern "C" {
#include "rig_config.h"
}

#include "run_process.h"

namespace
{

std::string ConfigPath(const std::string &name)
{
  return std::string(JITFLUSH_QEMU_CONFIGS_DIR) + "/" + name;
}

struct Loaded {
  rig_config *cfg = nullptr;
  std::string error;
  ~Loaded()
  {
    rig_config_free(cfg);
  }
};

void LoadPath(const std::string &path, Loaded *out)
{
  GError *err = nullptr;
  out->cfg = rig_config_load(path.c_str(), &err);
  if (err) {
    out->error = err->message;
    g_error_free(err);
  }
}

// Writes TEXT to DIR/fixture.conf and loads it.
void LoadText(const TempDir &dir, const std::string &text, Loaded *out)
{
  WriteFile(dir / "fixture.conf", text);
  LoadPath(dir / "fixture.conf", out);
}

// Two clusters, the Exynos 8890 layout; lines numbered for the fixtures
// that edit it.
const char kBase[] = "[soc]\n"            // 1
                     "name=Test SoC\n"    // 2
                     "\n"                 // 3
                     "[cluster little]\n" // 4
                     "cpus=0-3\n"         // 5
                     "midr=0x410fd034\n"  // 6
                     "ctr=0x84448004\n"   // 7
                     "\n"                 // 8
                     "[cluster big]\n"    // 9
                     "cpus=4-7\n"         // 10
                     "midr=0x531f0011\n"  // 11
                     "ctr=0x84448005\n"   // 12
                     "\n"                 // 13
                     "[kernel]\n"         // 14
                     "sysfs=full\n";      // 15

std::string Replace(std::string text, const std::string &from, const std::string &to)
{
  size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos)
    text.replace(at, from.size(), to);
  return text;
}

class ConfigFixture : public ::testing::Test
{
protected:
  // Loads TEXT, expects failure, returns the message with the fixture's
  // folder replaced by "DIR" so that expectations read as file:line.
  std::string Error(const std::string &text)
  {
    Loaded l;
    LoadText(dir_, text, &l);
    EXPECT_EQ(l.cfg, nullptr) << "loaded although it should not";
    std::string msg = l.error;
    size_t at = msg.find(dir_.path());
    if (at != std::string::npos)
      msg.replace(at, dir_.path().size(), "DIR");
    return msg;
  }
  TempDir dir_;
};

// ---------------------------------------------------------------------------
// The shipped configs.

// Every file under qemu-configs/, listed by CMake when the tree is
// configured (tests/emu/CMakeLists.txt).
const char *const kShippedConfigs[] = {
#include "shipped_configs.inc"
};

TEST(ShippedConfigs, EveryFileLoads)
{
  // The glob found the folder and its models/ subfolder.
  const std::set<std::string> listed(std::begin(kShippedConfigs), std::end(kShippedConfigs));
  EXPECT_EQ(listed.count("exynos8890.conf"), 1u);
  EXPECT_EQ(listed.count("models/cortex-a53.conf"), 1u);
  for (const char *name : kShippedConfigs) {
    Loaded l;
    LoadPath(ConfigPath(name), &l);
    EXPECT_NE(l.cfg, nullptr) << name << ": " << l.error;
  }
}

TEST(ShippedConfigs, Exynos8890MatchesTheDesignTable)
{
  Loaded l;
  LoadPath(ConfigPath("exynos8890.conf"), &l);
  ASSERT_NE(l.cfg, nullptr) << l.error;
  const rig_config &c = *l.cfg;
  EXPECT_STREQ(c.soc_name, "Samsung Exynos 8890 (Galaxy S7)");
  EXPECT_STREQ(c.qemu_cpu, "cortex-a53");
  ASSERT_EQ(c.ncpus, 8u);
  ASSERT_EQ(c.nclusters, 2u);
  EXPECT_STREQ(c.clusters[0].name, "little");
  EXPECT_STREQ(c.clusters[0].core, "Cortex-A53");
  EXPECT_EQ(c.clusters[0].midr, 0x410fd034u);
  EXPECT_EQ(c.clusters[0].ctr, 0x84448004u);
  EXPECT_STREQ(c.clusters[1].name, "big");
  EXPECT_EQ(c.clusters[1].midr, 0x531f0011u);
  EXPECT_EQ(c.clusters[1].ctr, 0x84448005u);
  EXPECT_EQ(c.clusters[1].l1i_line, 128u);
  EXPECT_EQ(c.clusters[1].l1d_line, 64u);
  for (unsigned cpu = 0; cpu < 8; cpu++) {
    EXPECT_EQ(c.cpus[cpu].cluster, cpu < 4 ? 0 : 1) << cpu;
    EXPECT_TRUE(c.cpus[cpu].online) << cpu;
    EXPECT_TRUE(jf_cpuset_has(&c.allowed, cpu)) << cpu;
  }
  EXPECT_FALSE(jf_cpuset_has(&c.allowed, 8));
  EXPECT_EQ(c.ctr_trap, RIG_CTR_TRAP_NONE);
  EXPECT_EQ(c.sysfs, RIG_SYSFS_FULL);
  EXPECT_EQ(c.seed, 1u);
  EXPECT_EQ(c.migrate_every, 300u);
  EXPECT_EQ(c.sanitized_ctr, 0x84448004u); // the A53's 64-byte I line wins
  // The S7's shipped kernel (docs/COHERENCE-MODEL.md, "Older kernels:
  // anonymous pages were not synced").
  EXPECT_EQ(c.exec_map_sync, RIG_EXEC_MAP_SYNC_LINUX);
  EXPECT_EQ(c.kernel_linux, RIG_KERNEL_LINUX_ANON_SKIP);
}

// exynos8890-6.x.conf: the same SoC under today's kernel, nothing else
// changed.
TEST(ShippedConfigs, Exynos8890UnderTodaysKernelDiffersOnlyInItsKernel)
{
  Loaded phone, today;
  LoadPath(ConfigPath("exynos8890.conf"), &phone);
  LoadPath(ConfigPath("exynos8890-6.x.conf"), &today);
  ASSERT_NE(phone.cfg, nullptr) << phone.error;
  ASSERT_NE(today.cfg, nullptr) << today.error;
  EXPECT_EQ(today.cfg->kernel_linux, RIG_KERNEL_LINUX_6X);
  ASSERT_EQ(today.cfg->nclusters, phone.cfg->nclusters);
  for (unsigned i = 0; i < phone.cfg->nclusters; i++) {
    EXPECT_EQ(today.cfg->clusters[i].midr, phone.cfg->clusters[i].midr) << i;
    EXPECT_EQ(today.cfg->clusters[i].ctr, phone.cfg->clusters[i].ctr) << i;
    EXPECT_EQ(today.cfg->clusters[i].l1i_line, phone.cfg->clusters[i].l1i_line) << i;
    EXPECT_EQ(today.cfg->clusters[i].l1d_line, phone.cfg->clusters[i].l1d_line) << i;
  }
  EXPECT_EQ(today.cfg->ncpus, phone.cfg->ncpus);
  EXPECT_EQ(today.cfg->ctr_trap, phone.cfg->ctr_trap);
  EXPECT_EQ(today.cfg->sysfs, phone.cfg->sysfs);
  EXPECT_EQ(today.cfg->exec_map_sync, phone.cfg->exec_map_sync);
  EXPECT_EQ(today.cfg->seed, phone.cfg->seed);
  EXPECT_EQ(today.cfg->migrate_every, phone.cfg->migrate_every);
}

TEST(ShippedConfigs, HotplugStartsWithTheBigClusterOffline)
{
  Loaded l;
  LoadPath(ConfigPath("exynos8890-hotplug.conf"), &l);
  ASSERT_NE(l.cfg, nullptr) << l.error;
  for (unsigned cpu = 0; cpu < 8; cpu++) {
    EXPECT_EQ(l.cfg->cpus[cpu].online, cpu < 4) << cpu;
    EXPECT_TRUE(jf_cpuset_has(&l.cfg->allowed, cpu)) << cpu;
  }
}

TEST(ShippedConfigs, CpusetsConfineTheProcess)
{
  Loaded little, big;
  LoadPath(ConfigPath("exynos8890-cpuset.conf"), &little);
  LoadPath(ConfigPath("exynos8890-cpuset-hidden-small.conf"), &big);
  ASSERT_NE(little.cfg, nullptr) << little.error;
  ASSERT_NE(big.cfg, nullptr) << big.error;
  for (unsigned cpu = 0; cpu < 8; cpu++) {
    EXPECT_EQ(jf_cpuset_has(&little.cfg->allowed, cpu), cpu < 4) << cpu;
    EXPECT_EQ(jf_cpuset_has(&big.cfg->allowed, cpu), cpu >= 4) << cpu;
  }
  // The hidden cluster still counts for the system-wide value.
  EXPECT_EQ(big.cfg->sanitized_ctr, 0x84448004u);
}

TEST(ShippedConfigs, SanitizedCtrFollowsTheKernelRule)
{
  struct Case {
    const char *file;
    uint64_t ctr;
  } cases[] = {
      {"exynos8890-sanitized.conf", 0x84448004u},
      {"tegra186.conf", 0x8444c004u},    // Denver2's IDC is ANDed away
      {"a64fx-mixed.conf", 0x86648004u}, // 256-byte lines drop to 64
      {"tri-cluster.conf", 0x84438003u}, // 32-byte lines from the third cluster
      {"n1-idc-dic.conf", 0x4b444c004u}, // IDC, DIC and TminLine kept
      {"apple-m1.conf", 0x84448004u},
      {"many-cpus-300.conf", 0x84448004u},
  };
  for (const Case &c : cases) {
    Loaded l;
    LoadPath(ConfigPath(c.file), &l);
    ASSERT_NE(l.cfg, nullptr) << c.file << ": " << l.error;
    EXPECT_EQ(l.cfg->sanitized_ctr, c.ctr)
        << c.file << std::hex << " got 0x" << l.cfg->sanitized_ctr;
  }
  Loaded trap;
  LoadPath(ConfigPath("exynos8890-sanitized.conf"), &trap);
  ASSERT_NE(trap.cfg, nullptr);
  EXPECT_EQ(trap.cfg->ctr_trap, RIG_CTR_TRAP_SANITIZE);
}

TEST(ShippedConfigs, ThreeHundredCpus)
{
  Loaded l;
  LoadPath(ConfigPath("many-cpus-300.conf"), &l);
  ASSERT_NE(l.cfg, nullptr) << l.error;
  EXPECT_EQ(l.cfg->ncpus, 300u);
  EXPECT_EQ(l.cfg->cpus[149].cluster, 0);
  EXPECT_EQ(l.cfg->cpus[150].cluster, 1);
  EXPECT_EQ(l.cfg->cpus[299].cluster, 1);
  EXPECT_TRUE(jf_cpuset_has(&l.cfg->allowed, 299));
  EXPECT_FALSE(jf_cpuset_has(&l.cfg->allowed, 300));
}

// ---------------------------------------------------------------------------
// What is accepted.

TEST_F(ConfigFixture, DefaultsAndNumberForms)
{
  Loaded l;
  LoadText(dir_, Replace(kBase, "midr=0x410fd034", "midr=1091555380   # decimal, comment after it"),
           &l);
  ASSERT_NE(l.cfg, nullptr) << l.error;
  EXPECT_EQ(l.cfg->clusters[0].midr, 0x410fd034u);
  EXPECT_STREQ(l.cfg->clusters[0].core, "little"); // core= defaults to the name
  EXPECT_EQ(l.cfg->clusters[0].l1i_line, 64u);     // from CTR_EL0.IminLine
  EXPECT_EQ(l.cfg->clusters[1].l1i_line, 128u);
  EXPECT_EQ(l.cfg->qemu_cpu, nullptr);
  EXPECT_EQ(l.cfg->seed, 1u);
  EXPECT_EQ(l.cfg->migrate_every, 0u);
}

TEST_F(ConfigFixture, AllowedDefaultsToTheOnlineCpus)
{
  Loaded l;
  LoadText(dir_, Replace(kBase, "cpus=4-7\n", "cpus=4-7\nonline=5\n"), &l);
  ASSERT_NE(l.cfg, nullptr) << l.error;
  for (unsigned cpu = 0; cpu < 8; cpu++) {
    bool online = cpu < 4 || cpu == 5;
    EXPECT_EQ(l.cfg->cpus[cpu].online, online) << cpu;
    EXPECT_EQ(jf_cpuset_has(&l.cfg->allowed, cpu), online) << cpu;
  }
}

// The config's cpulists are the library's (common/cpuset.c), and its messages
// quote the library's reasons.
TEST(CpuList, ParsesLinuxCpulists)
{
  jf_cpuset set;
  ASSERT_EQ(jf_cpulist_problem("0-3,6", 5, &set), nullptr);
  for (unsigned cpu = 0; cpu < 8; cpu++)
    EXPECT_EQ(jf_cpuset_has(&set, cpu), cpu <= 3 || cpu == 6) << cpu;
  ASSERT_EQ(jf_cpulist_problem("1023", 4, &set), nullptr);
  EXPECT_TRUE(jf_cpuset_has(&set, 1023));
  EXPECT_FALSE(jf_cpuset_has(&set, 0));
  const char *malformed = "malformed CPU list";
  const char *too_large = "CPU number too large (the limit is 1023)";
  const struct {
    std::string text;
    const char *reason;
  } bad[] = {{"", "empty CPU list"}, {"1-", malformed},
             {"-1", malformed},      {"3-1", "descending range in CPU list"},
             {"a", malformed},       {"0,,1", malformed},
             {"1024", too_large},    {"0-1024", too_large},
             {"0x", malformed}};
  for (const auto &b : bad) {
    const char *problem = jf_cpulist_problem(b.text.data(), b.text.size(), &set);
    ASSERT_NE(problem, nullptr) << b.text;
    EXPECT_STREQ(problem, b.reason) << b.text;
  }
}

// ---------------------------------------------------------------------------
// What is rejected, and how the message reads.

TEST_F(ConfigFixture, UnknownKey)
{
  EXPECT_EQ(Error(Replace(kBase, "cpus=4-7\n", "cpus=4-7\ncolour=blue\n")),
            "DIR/fixture.conf:11: [cluster big] colour: unknown key (known: cpus, core, midr, "
            "ctr, l1i-line, l1d-line, online, domain)");
}

TEST_F(ConfigFixture, UnknownGroup)
{
  EXPECT_EQ(Error(std::string(kBase) + "[schedule]\nseed=1\n"),
            "DIR/fixture.conf:16: [schedule]: unknown group (known: soc, cluster NAME, kernel, "
            "process, sched, hotplug)");
}

TEST_F(ConfigFixture, BadHexNumber)
{
  EXPECT_EQ(Error(Replace(kBase, "ctr=0x84448005", "ctr=0x8444800g")),
            "DIR/fixture.conf:12: [cluster big] ctr: not a number: '0x8444800g' (decimal or "
            "0x hex)");
}

TEST_F(ConfigFixture, BadDecimalNumber)
{
  EXPECT_EQ(Error(std::string(kBase) + "[sched]\nmigrate-every=30k\n"),
            "DIR/fixture.conf:17: [sched] migrate-every: not a number: '30k' (decimal or 0x hex)");
}

TEST_F(ConfigFixture, NumberOutOfRange)
{
  EXPECT_EQ(Error(Replace(kBase, "midr=0x531f0011", "midr=0x1531f0011")),
            "DIR/fixture.conf:11: [cluster big] midr: 0x1531f0011 is out of range (at most "
            "0xffffffff)");
}

TEST_F(ConfigFixture, CtrWithoutRes1Bit)
{
  EXPECT_EQ(Error(Replace(kBase, "ctr=0x84448005", "ctr=0x04448005")),
            "DIR/fixture.conf:12: [cluster big] ctr: 0x4448005 has bit 31 clear, which is RES1 "
            "in CTR_EL0");
}

TEST_F(ConfigFixture, OverlappingClusters)
{
  EXPECT_EQ(Error(Replace(kBase, "cpus=4-7", "cpus=3-7")),
            "DIR/fixture.conf:10: [cluster big] cpus: cpu 3 is already in [cluster little]");
}

TEST_F(ConfigFixture, GapBetweenClusters)
{
  EXPECT_EQ(Error(Replace(kBase, "cpus=4-7", "cpus=5-7")),
            "DIR/fixture.conf:10: [cluster big] cpus: cpu 4 is in no cluster (CPUs must be "
            "0..7 without gaps)");
}

TEST_F(ConfigFixture, BadEnumValue)
{
  EXPECT_EQ(Error(Replace(kBase, "sysfs=full", "sysfs=partial")),
            "DIR/fixture.conf:15: [kernel] sysfs: bad value 'partial' (expected full | no-cache "
            "| no-midr | none)");
  EXPECT_EQ(Error(Replace(kBase, "sysfs=full", "sysfs=full\nctr-trap=emulate")),
            "DIR/fixture.conf:16: [kernel] ctr-trap: bad value 'emulate' (expected none | "
            "sanitize)");
}

// [kernel] exec-map-sync: Linux's own maintenance unless told otherwise.
TEST_F(ConfigFixture, ExecMapSyncDefaultsToLinux)
{
  Loaded linux_default, none;
  LoadText(dir_, kBase, &linux_default);
  ASSERT_NE(linux_default.cfg, nullptr) << linux_default.error;
  EXPECT_EQ(linux_default.cfg->exec_map_sync, RIG_EXEC_MAP_SYNC_LINUX);
  LoadText(dir_, Replace(kBase, "sysfs=full", "sysfs=full\nexec-map-sync=none"), &none);
  ASSERT_NE(none.cfg, nullptr) << none.error;
  EXPECT_EQ(none.cfg->exec_map_sync, RIG_EXEC_MAP_SYNC_NONE);
  EXPECT_EQ(Error(Replace(kBase, "sysfs=full", "sysfs=full\nexec-map-sync=macos")),
            "DIR/fixture.conf:16: [kernel] exec-map-sync: bad value 'macos' (expected linux | "
            "none)");
}

// [kernel] linux: today's __sync_icache_dcache unless the config names the
// older one that skips anonymous pages; anything else names file, line, key.
TEST_F(ConfigFixture, KernelLinuxDefaultsToToday)
{
  Loaded today, old;
  LoadText(dir_, kBase, &today);
  ASSERT_NE(today.cfg, nullptr) << today.error;
  EXPECT_EQ(today.cfg->kernel_linux, RIG_KERNEL_LINUX_6X);
  LoadText(dir_, Replace(kBase, "sysfs=full", "sysfs=full\nlinux=3.18-anon-skip"), &old);
  ASSERT_NE(old.cfg, nullptr) << old.error;
  EXPECT_EQ(old.cfg->kernel_linux, RIG_KERNEL_LINUX_ANON_SKIP);
  EXPECT_STREQ(rig_kernel_linux_names[old.cfg->kernel_linux], "3.18-anon-skip");
  EXPECT_EQ(Error(Replace(kBase, "sysfs=full", "sysfs=full\nlinux=3.18")),
            "DIR/fixture.conf:16: [kernel] linux: bad value '3.18' (expected 6.x | "
            "3.18-anon-skip)");
  EXPECT_EQ(Error(Replace(kBase, "sysfs=full", "sysfs=full\nlinux=")),
            "DIR/fixture.conf:16: [kernel] linux: empty value");
}

TEST_F(ConfigFixture, MissingRequiredKeys)
{
  EXPECT_EQ(Error(Replace(kBase, "ctr=0x84448005\n", "")),
            "DIR/fixture.conf:9: [cluster big]: missing required key 'ctr'");
  EXPECT_EQ(Error(Replace(kBase, "midr=0x410fd034\n", "")),
            "DIR/fixture.conf:4: [cluster little]: missing required key 'midr'");
  EXPECT_EQ(Error(Replace(kBase, "cpus=0-3\n", "")),
            "DIR/fixture.conf:4: [cluster little]: missing required key 'cpus'");
}

TEST_F(ConfigFixture, OnlineOutsideItsCluster)
{
  EXPECT_EQ(Error(Replace(kBase, "cpus=4-7\n", "cpus=4-7\nonline=2-4\n")),
            "DIR/fixture.conf:11: [cluster big] online: cpu 2 is not one of this cluster's cpus");
}

TEST_F(ConfigFixture, NothingOnline)
{
  std::string text = Replace(kBase, "cpus=0-3\n", "cpus=0-3\nonline=\n");
  text = Replace(text, "cpus=4-7\n", "cpus=4-7\nonline=\n");
  EXPECT_EQ(Error(text),
            "DIR/fixture.conf:12: [cluster big] online: no CPU of any cluster is online: the "
            "program could not run");
}

TEST_F(ConfigFixture, AllowedOutsideTheCpus)
{
  EXPECT_EQ(Error(std::string(kBase) + "[process]\nallowed=0-9\n"),
            "DIR/fixture.conf:17: [process] allowed: cpu 8 does not exist (CPUs are 0..7)");
}

TEST_F(ConfigFixture, AllowedOnlyOfflineCpus)
{
  EXPECT_EQ(Error(Replace(kBase, "cpus=4-7\n", "cpus=4-7\nonline=\n") + "[process]\nallowed=4-7\n"),
            "DIR/fixture.conf:18: [process] allowed: none of these CPUs is online");
}

TEST_F(ConfigFixture, MalformedCpuList)
{
  EXPECT_EQ(Error(Replace(kBase, "cpus=4-7", "cpus=7-4")),
            "DIR/fixture.conf:10: [cluster big] cpus: descending range in CPU list: '7-4'");
  EXPECT_EQ(Error(Replace(kBase, "cpus=4-7", "cpus=4-2000")),
            "DIR/fixture.conf:10: [cluster big] cpus: CPU number too large (the limit is "
            "1023): '4-2000'");
}

TEST_F(ConfigFixture, LineSizeNotAPowerOfTwo)
{
  EXPECT_EQ(Error(Replace(kBase, "cpus=4-7\n", "cpus=4-7\nl1i-line=96\n")),
            "DIR/fixture.conf:11: [cluster big] l1i-line: 96 is not a power of two >= 4");
}

TEST_F(ConfigFixture, DuplicateKeyAndGroup)
{
  EXPECT_EQ(Error(Replace(kBase, "ctr=0x84448005\n", "ctr=0x84448005\nctr=0x84448004\n")),
            "DIR/fixture.conf:13: [cluster big] ctr: duplicate key (first at line 12)");
  EXPECT_EQ(Error(std::string(kBase) + "[kernel]\nsysfs=none\n"),
            "DIR/fixture.conf:16: [kernel]: duplicate group (first at line 14)");
}

TEST_F(ConfigFixture, SyntaxErrors)
{
  EXPECT_EQ(Error(Replace(kBase, "name=Test SoC", "name Test SoC")),
            "DIR/fixture.conf:2: [soc]: expected key=value, got 'name Test SoC'");
  EXPECT_EQ(Error("cpus=0-3\n" + std::string(kBase)),
            "DIR/fixture.conf:1: key=value before the first [group]");
  EXPECT_EQ(Error(Replace(kBase, "[cluster big]", "[cluster big")),
            "DIR/fixture.conf:9: malformed group header '[cluster big' (expected [name])");
  EXPECT_EQ(Error(Replace(kBase, "[cluster big]", "[cluster ]")),
            "DIR/fixture.conf:9: [cluster ]: a cluster needs a name: [cluster NAME]");
}

TEST_F(ConfigFixture, EmptyValue)
{
  EXPECT_EQ(Error(Replace(kBase, "name=Test SoC", "name=   # nothing")),
            "DIR/fixture.conf:2: [soc] name: empty value");
}

TEST_F(ConfigFixture, NoCluster)
{
  EXPECT_EQ(Error("[soc]\nname=x\n"),
            "DIR/fixture.conf: no [cluster NAME] group: at least one cluster is required");
}

TEST(ConfigErrors, RefusesWhatIsNotAConfigFile)
{
  Loaded dev, dir;
  LoadPath("/dev/zero", &dev);
  EXPECT_EQ(dev.error, "/dev/zero: not a config file (not a regular file)");
  LoadPath("/tmp", &dir);
  EXPECT_EQ(dir.error, "/tmp: not a config file (not a regular file)");
}

TEST(ConfigErrors, UnreadableFileIsNamed)
{
  Loaded l;
  LoadPath("/nonexistent/x.conf", &l);
  EXPECT_EQ(l.cfg, nullptr);
  EXPECT_EQ(l.error.rfind("/nonexistent/x.conf: cannot read: ", 0), 0u) << l.error;
}

} // namespace

// ---------------------------------------------------------------------------
// domain= (which CPUs the kernel groups) and [hotplug] events.

TEST_F(ConfigFixture, DomainsDefaultToTheClusterAndCanBeShared)
{
  Loaded l;
  LoadText(dir_, kBase, &l);
  ASSERT_NE(l.cfg, nullptr) << l.error;
  EXPECT_EQ(l.cfg->clusters[0].domain_id, 0u);
  EXPECT_EQ(l.cfg->clusters[1].domain_id, 1u);
  Loaded shared;
  LoadText(dir_, Replace(kBase, "cpus=4-7\n", "cpus=4-7\ndomain=little\n"), &shared);
  ASSERT_NE(shared.cfg, nullptr) << shared.error;
  EXPECT_EQ(shared.cfg->clusters[1].domain_id, 0u);
  EXPECT_STREQ(shared.cfg->clusters[1].domain, "little");
}

TEST_F(ConfigFixture, HotplugEventsAreSortedAndTheCpusetFollowsThem)
{
  Loaded l;
  LoadText(dir_,
           Replace(kBase, "cpus=4-7\n", "cpus=4-7\nonline=4-5\n") +
               "[hotplug]\nevents=-5@9000000,+6-7@2000000   # out of order on purpose\n",
           &l);
  ASSERT_NE(l.cfg, nullptr) << l.error;
  ASSERT_EQ(l.cfg->nevents, 2u);
  EXPECT_EQ(l.cfg->events[0].at, 2000000u);
  EXPECT_TRUE(l.cfg->events[0].online);
  EXPECT_TRUE(jf_cpuset_has(&l.cfg->events[0].cpus, 6));
  EXPECT_TRUE(jf_cpuset_has(&l.cfg->events[0].cpus, 7));
  EXPECT_FALSE(jf_cpuset_has(&l.cfg->events[0].cpus, 5));
  EXPECT_EQ(l.cfg->events[1].at, 9000000u);
  EXPECT_FALSE(l.cfg->events[1].online);
  // With events, [process] allowed defaults to every CPU (Linux's root
  // cpuset takes CPUs as they come online).
  EXPECT_TRUE(jf_cpuset_has(&l.cfg->allowed, 7));
}

TEST(HotplugEvents, CpulistsMayHoldCommas)
{
  rig_hotplug_event *events = nullptr;
  unsigned n = 0;
  GError *err = nullptr;
  ASSERT_TRUE(rig_parse_hotplug_events("+4,6@100,-4@200", &events, &n, &err)) << err->message;
  ASSERT_EQ(n, 2u);
  EXPECT_TRUE(jf_cpuset_has(&events[0].cpus, 4));
  EXPECT_TRUE(jf_cpuset_has(&events[0].cpus, 6));
  EXPECT_FALSE(jf_cpuset_has(&events[0].cpus, 5));
  g_free(events);
  for (const char *bad : {"", "6@100", "+6", "+6@", "+6@x", "+@100", "+6@100;-6@200", "+6@100,",
                          "+6-@1", "+1024@1", "+6@-1", "+6@100 ,-6@200"}) {
    EXPECT_FALSE(rig_parse_hotplug_events(bad, &events, &n, &err)) << bad;
    EXPECT_NE(err, nullptr) << bad;
    g_clear_error(&err);
    EXPECT_EQ(events, nullptr) << bad;
  }
  // A list's problem is the library's reason (common/cpuset.c).
  ASSERT_FALSE(rig_parse_hotplug_events("+7-6@100", &events, &n, &err));
  EXPECT_STREQ(err->message, "descending range in CPU list in an event");
  g_clear_error(&err);
}

TEST_F(ConfigFixture, HotplugEventErrorsNameFileLineAndKey)
{
  const std::string base = Replace(kBase, "cpus=4-7\n", "cpus=4-7\nonline=4-5\n");
  EXPECT_EQ(Error(base + "[hotplug]\nevents=+6-7@2e6\n"),
            "DIR/fixture.conf:18: [hotplug] events: events are separated by commas: '+6-7@2e6'");
  EXPECT_EQ(Error(base + "[hotplug]\nevents=+5@100\n"),
            "DIR/fixture.conf:18: [hotplug] events: cpu 5 is already online at 100");
  EXPECT_EQ(Error(base + "[hotplug]\nevents=+8@100\n"),
            "DIR/fixture.conf:18: [hotplug] events: cpu 8 does not exist (CPUs are 0..7)");
  EXPECT_EQ(Error(base + "[hotplug]\nevents=-0-5@100\n"),
            "DIR/fixture.conf:18: [hotplug] events: at 100 no CPU the process may use would be "
            "online");
  EXPECT_EQ(Error(base + "[hotplug]\nwhen=now\n"),
            "DIR/fixture.conf:18: [hotplug] when: unknown key (known: events)");
}
