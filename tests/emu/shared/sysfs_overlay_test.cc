// The generated sysfs tree (rig/shared/rig_sysfs_overlay.c): file names and
// contents as arm64 Linux writes them, per [kernel] sysfs= mode, and the
// sysroot links that let a dynamically linked guest load.
#include <gtest/gtest.h>

#include <unistd.h>

#include <initializer_list>
#include <string>
#include <utility>

extern "C" {
#include "rig_config.h"
#include "rig_sysfs_overlay.h"
}

#include "run_process.h"

namespace
{

const char kExynos[] = "[soc]\nname=Exynos-like\n"
                       "[cluster little]\ncpus=0-3\nmidr=0x410fd034\nctr=0x84448004\n"
                       "[cluster big]\ncpus=4-7\nmidr=0x531f0011\nctr=0x84448005\n"
                       "[kernel]\nsysfs=MODE\n";

class OverlayTest : public ::testing::Test
{
protected:
  ~OverlayTest() override
  {
    rig_config_free(cfg_);
  }

  // Loads kExynos with sysfs=MODE plus EXTRA in the big cluster, and writes
  // the overlay into root().
  void Generate(const std::string &mode, const std::string &big_extra = "")
  {
    std::string text = kExynos;
    text.replace(text.find("MODE"), 4, mode);
    text.replace(text.find("cpus=4-7\n"), 9, "cpus=4-7\n" + big_extra);
    GenerateText(text);
  }
  void GenerateText(const std::string &text)
  {
    WriteFile(dir_ / "soc.conf", text);
    GError *err = nullptr;
    cfg_ = rig_config_load((dir_ / "soc.conf").c_str(), &err);
    ASSERT_NE(cfg_, nullptr) << err->message;
    ASSERT_EQ(mkdir(root().c_str(), 0755), 0);
    ASSERT_TRUE(rig_overlay_write_sysfs(cfg_, root().c_str(), &err)) << err->message;
  }
  std::string root() const
  {
    return dir_ / "root";
  }
  std::string Cpu(const std::string &rel) const
  {
    return root() + "/sys/devices/system/cpu/" + rel;
  }
  std::string Read(const std::string &rel) const
  {
    return ReadFileOrEmpty(Cpu(rel));
  }
  // The tree, relative to the cpu folder: each of FILES holds exactly its
  // text, and nothing of ABSENT exists.
  void ExpectTree(std::initializer_list<std::pair<std::string, std::string>> files,
                  std::initializer_list<std::string> absent = {}) const
  {
    for (const auto &[rel, text] : files)
      EXPECT_EQ(Read(rel), text) << rel;
    for (const std::string &rel : absent)
      EXPECT_FALSE(PathExists(Cpu(rel))) << rel;
  }

  TempDir dir_;
  rig_config *cfg_ = nullptr;
};

TEST_F(OverlayTest, FullTreeHasListsCachesAndMidr)
{
  Generate("full");
  ExpectTree({{"possible", "0-7\n"},
              {"present", "0-7\n"},
              {"online", "0-7\n"},
              {"offline", "\n"},
              {"kernel_max", "255\n"}});
  for (int cpu = 0; cpu < 8; cpu++) {
    std::string c = "cpu" + std::to_string(cpu) + "/";
    EXPECT_EQ(Read(c + "online"), "1\n") << c;
    EXPECT_EQ(Read(c + "cache/index0/level"), "1\n") << c;
    EXPECT_EQ(Read(c + "cache/index0/type"), "Data\n") << c;
    EXPECT_EQ(Read(c + "cache/index0/coherency_line_size"), "64\n") << c;
    EXPECT_EQ(Read(c + "cache/index1/level"), "1\n") << c;
    EXPECT_EQ(Read(c + "cache/index1/type"), "Instruction\n") << c;
    EXPECT_EQ(Read(c + "cache/index1/coherency_line_size"), cpu < 4 ? "64\n" : "128\n") << c;
    EXPECT_EQ(Read(c + "regs/identification/midr_el1"),
              cpu < 4 ? "0x00000000410fd034\n" : "0x00000000531f0011\n")
        << c;
    // No size is invented: the config does not give one.
    EXPECT_FALSE(PathExists(Cpu(c + "cache/index0/size"))) << c;
  }
  EXPECT_FALSE(PathExists(Cpu("cpu8")));
}

TEST_F(OverlayTest, SysfsLineSizesOverrideTheCtrDefaults)
{
  Generate("full", "l1i-line=64\nl1d-line=32\n");
  ExpectTree({{"cpu4/cache/index1/coherency_line_size", "64\n"},
              {"cpu4/cache/index0/coherency_line_size", "32\n"}});
}

TEST_F(OverlayTest, OfflineCpusHaveNoPerCpuFiles)
{
  Generate("full", "online=5\n");
  ExpectTree({{"possible", "0-7\n"},
              {"online", "0-3,5\n"},
              {"offline", "4,6-7\n"},
              {"cpu5/cache/index1/coherency_line_size", "128\n"},
              {"cpu5/online", "1\n"}},
             {"cpu4", "cpu6", "cpu7"});
}

TEST_F(OverlayTest, NoCacheLeavesOutCacheFolders)
{
  Generate("no-cache");
  ExpectTree({{"possible", "0-7\n"}, {"cpu7/regs/identification/midr_el1", "0x00000000531f0011\n"}},
             {"cpu0/cache", "cpu7/cache"});
}

TEST_F(OverlayTest, NoMidrLeavesOutRegs)
{
  Generate("no-midr");
  ExpectTree({{"cpu0/cache/index0/coherency_line_size", "64\n"},
              {"cpu7/cache/index1/coherency_line_size", "128\n"}},
             {"cpu0/regs"});
}

TEST_F(OverlayTest, NoneWritesNothing)
{
  Generate("none");
  EXPECT_FALSE(PathExists(root() + "/sys"));
}

TEST_F(OverlayTest, ThreeHundredCpus)
{
  GenerateText("[cluster a]\ncpus=0-149\nmidr=0x410fd034\nctr=0x84448004\n"
               "[cluster b]\ncpus=150-299\nmidr=0x411fd070\nctr=0x8444c004\n");
  ExpectTree({{"possible", "0-299\n"},
              {"kernel_max", "511\n"},
              {"cpu299/regs/identification/midr_el1", "0x00000000411fd070\n"}},
             {"cpu300"});
}

// Each online CPU's grouping lists every CPU of its domain,
// offline ones included, as the Galaxy S7's kernel shows CPUs 6-7.
TEST_F(OverlayTest, GroupingListsNameOfflineMembersOfTheDomain)
{
  Generate("full", "online=4-5\n");
  ExpectTree({{"cpu4/cpufreq/related_cpus", "4 5 6 7 \n"},
              {"cpu4/topology/core_siblings_list", "4-7\n"},
              {"cpu5/topology/package_cpus_list", "4-7\n"},
              {"cpu5/topology/cluster_cpus_list", "4-7\n"},
              {"cpu0/cpufreq/related_cpus", "0 1 2 3 \n"}},
             {"cpu6"});
}

TEST_F(OverlayTest, ClustersSharingADomainShareTheirLists)
{
  Generate("full", "domain=little\nonline=\n");
  ExpectTree({{"cpu0/cpufreq/related_cpus", "0 1 2 3 4 5 6 7 \n"},
              {"cpu3/topology/cluster_cpus_list", "0-7\n"}});
}

TEST_F(OverlayTest, HotplugEventsRewriteListsAndPerCpuFolders)
{
  Generate("full", "online=4-5\n");
  jf_cpuset online;
  jf_cpuset_clear(&online);
  for (unsigned cpu = 0; cpu < 8; cpu++)
    if (cpu != 5) // +6-7, -5
      jf_cpuset_add(&online, cpu);
  GError *err = nullptr;
  const std::string cpu_root = root() + "/sys/devices/system/cpu";
  ASSERT_TRUE(rig_overlay_set_online(cfg_, cpu_root.c_str(), &online, &err)) << err->message;
  ExpectTree({{"online", "0-4,6-7\n"},
              {"offline", "5\n"},
              {"cpu7/cache/index1/coherency_line_size", "128\n"},
              {"cpu6/cpufreq/related_cpus", "4 5 6 7 \n"}},
             {"cpu5"});
}

TEST(SysrootLinks, LinksLibraryFoldersOnly)
{
  TempDir dir;
  std::string sysroot = dir / "sysroot", root = dir / "root";
  for (const char *d : {"", "/lib", "/usr", "/bin"})
    ASSERT_EQ(mkdir((sysroot + d).c_str(), 0755), 0) << d;
  ASSERT_EQ(mkdir(root.c_str(), 0755), 0);
  GError *err = nullptr;
  ASSERT_TRUE(rig_overlay_link_sysroot(root.c_str(), sysroot.c_str(), &err)) << err->message;
  char buf[4096];
  ssize_t n = readlink((root + "/lib").c_str(), buf, sizeof buf);
  ASSERT_GT(n, 0);
  EXPECT_EQ(std::string(buf, n), sysroot + "/lib");
  n = readlink((root + "/usr").c_str(), buf, sizeof buf);
  ASSERT_GT(n, 0);
  EXPECT_EQ(std::string(buf, n), sysroot + "/usr");
  EXPECT_FALSE(PathExists(root + "/lib64")); // not in this sysroot
  EXPECT_FALSE(PathExists(root + "/bin"));   // host tools in a cross sysroot
}

// A distribution's root (a Debian arm64 sysroot): its /etc and /opt are
// the guest's, as under plain `qemu-aarch64 -L`, where a program's own
// configuration lives (Racket CS: /etc/racket); the folders the guest
// writes to or the overlay answers are not.
TEST(SysrootLinks, LinksTheConfigurationFoldersOfADistributionsRoot)
{
  TempDir dir;
  std::string sysroot = dir / "sysroot", root = dir / "root";
  for (const char *d :
       {"", "/lib", "/usr", "/etc", "/opt", "/sbin", "/tmp", "/var", "/sys", "/proc", "/dev"})
    ASSERT_EQ(mkdir((sysroot + d).c_str(), 0755), 0) << d;
  ASSERT_EQ(mkdir(root.c_str(), 0755), 0);
  GError *err = nullptr;
  ASSERT_TRUE(rig_overlay_link_sysroot(root.c_str(), sysroot.c_str(), &err)) << err->message;
  for (const char *d : {"/etc", "/opt"}) {
    char buf[4096];
    ssize_t n = readlink((root + d).c_str(), buf, sizeof buf);
    ASSERT_GT(n, 0) << d;
    EXPECT_EQ(std::string(buf, n), sysroot + d);
  }
  for (const char *d : {"/sbin", "/tmp", "/var", "/sys", "/proc", "/dev"})
    EXPECT_FALSE(PathExists(root + d)) << d;
}

TEST(SysrootLinks, KeepsWhatTheRootAlreadyHas)
{
  TempDir dir;
  std::string sysroot = dir / "sysroot", root = dir / "root";
  ASSERT_EQ(mkdir(sysroot.c_str(), 0755), 0);
  ASSERT_EQ(mkdir((sysroot + "/lib").c_str(), 0755), 0);
  ASSERT_EQ(mkdir(root.c_str(), 0755), 0);
  ASSERT_EQ(mkdir((root + "/lib").c_str(), 0755), 0);
  GError *err = nullptr;
  ASSERT_TRUE(rig_overlay_link_sysroot(root.c_str(), sysroot.c_str(), &err)) << err->message;
  char buf[16];
  EXPECT_LT(readlink((root + "/lib").c_str(), buf, sizeof buf), 0); // still a folder
}

// "--sysroot sysroot": a relative symlink target would be read from the
// overlay's folder, where QEMU then finds no loader.
TEST(SysrootLinks, ARelativeSysrootIsLinkedByItsAbsolutePath)
{
  TempDir dir;
  std::string root = dir / "root";
  ASSERT_EQ(mkdir((dir / "sysroot").c_str(), 0755), 0);
  ASSERT_EQ(mkdir((dir / "sysroot/lib").c_str(), 0755), 0);
  ASSERT_EQ(mkdir(root.c_str(), 0755), 0);
  char here[4096];
  ASSERT_NE(getcwd(here, sizeof here), nullptr);
  ASSERT_EQ(chdir(dir.path().c_str()), 0);
  GError *err = nullptr;
  bool ok = rig_overlay_link_sysroot(root.c_str(), "sysroot", &err);
  ASSERT_EQ(chdir(here), 0);
  ASSERT_TRUE(ok) << err->message;
  char buf[4096];
  ssize_t n = readlink((root + "/lib").c_str(), buf, sizeof buf);
  ASSERT_GT(n, 0);
  EXPECT_EQ(std::string(buf, n), dir / "sysroot/lib");
}

TEST(SysrootLinks, RejectsASysrootWithoutLib)
{
  TempDir dir;
  GError *err = nullptr;
  EXPECT_FALSE(rig_overlay_link_sysroot(dir.path().c_str(), "/nonexistent-sysroot", &err));
  ASSERT_NE(err, nullptr);
  EXPECT_NE(std::string(err->message).find("/nonexistent-sysroot has no lib/"), std::string::npos)
      << err->message;
  g_error_free(err);
}

} // namespace
