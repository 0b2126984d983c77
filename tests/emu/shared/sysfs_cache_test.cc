// The runner's shared sysfs trees (rig/shared/rig_sysfs_cache.c): named by the
// digest of their content, made once and whole, never trusted when someone
// else could have written them, and evicted least recently used first,
// never while a run holds one.
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <set>
#include <string>
#include <vector>

extern "C" {
#include "rig_config.h"
#include "rig_sysfs_cache.h"
#include "rig_sysfs_overlay.h"
}

#include "run_process.h"

namespace
{

// An Exynos-like config whose big cores have I-lines of LINE bytes and
// whose big cluster is CPUs 4 to LAST: each gives another tree.
std::string Config(unsigned line, const std::string &sysfs = "full", unsigned last = 7)
{
  return "[soc]\nname=Exynos-like\n"
         "[cluster little]\ncpus=0-3\nmidr=0x410fd034\nctr=0x84448004\n"
         "[cluster big]\ncpus=4-" +
         std::to_string(last) +
         "\nmidr=0x531f0011\nctr=0x84448005\nl1i-line=" + std::to_string(line) +
         "\n[kernel]\nsysfs=" + sysfs + "\n";
}

class SysfsCacheTest : public ::testing::Test
{
protected:
  ~SysfsCacheTest() override
  {
    for (rig_config *c : configs_)
      rig_config_free(c);
  }
  rig_config *Load(const std::string &text)
  {
    std::string path = dir_ / ("c" + std::to_string(configs_.size()) + ".conf");
    WriteFile(path, text);
    GError *err = nullptr;
    rig_config *c = rig_config_load(path.c_str(), &err);
    EXPECT_NE(c, nullptr) << err->message;
    configs_.push_back(c);
    return c;
  }
  // A run's scratch folder in base(), as the runner makes one.
  std::string Scratch()
  {
    std::string s = base() + "/jitflush-emu-test-" + std::to_string(scratches_++);
    EXPECT_EQ(mkdir(s.c_str(), 0700), 0);
    return s;
  }
  std::string base() const
  {
    return dir_ / "base";
  }
  std::set<std::string> Trees() const
  {
    std::set<std::string> names;
    for (const auto &e : std::filesystem::directory_iterator(base()))
      if (e.path().filename().string().rfind("jitflush-sysfs-", 0) == 0)
        names.insert(e.path().string());
    return names;
  }
  void SetUp() override
  {
    ASSERT_EQ(mkdir(base().c_str(), 0755), 0);
  }

  TempDir dir_;
  std::vector<rig_config *> configs_;
  int scratches_ = 0;
};

TEST(SysfsKey, TheContentNamesTheTree)
{
  TempDir dir;
  auto load = [&](const std::string &name, const std::string &text) {
    WriteFile(dir / name, text);
    GError *err = nullptr;
    rig_config *c = rig_config_load((dir / name).c_str(), &err);
    EXPECT_NE(c, nullptr) << err->message;
    return c;
  };
  rig_config *a = load("a.conf", Config(128));
  rig_config *same = load("same.conf", "# another file, the same SoC\n" + Config(128));
  rig_config *line = load("line.conf", Config(64));
  rig_config *no_midr = load("no-midr.conf", Config(128, "no-midr"));
  rig_config *none = load("none.conf", Config(128, "none"));
  char *ka = rig_overlay_sysfs_key(a);
  char *ks = rig_overlay_sysfs_key(same);
  char *kl = rig_overlay_sysfs_key(line);
  char *kn = rig_overlay_sysfs_key(no_midr);
  ASSERT_NE(ka, nullptr);
  EXPECT_EQ(strlen(ka), 64u);
  EXPECT_STREQ(ka, ks);
  EXPECT_STRNE(ka, kl) << "a different line size, the same tree";
  EXPECT_STRNE(ka, kn) << "no regs/ folders, the same tree";
  EXPECT_EQ(rig_overlay_sysfs_key(none), nullptr);
  for (char *k : {ka, ks, kl, kn})
    g_free(k);
  for (rig_config *c : {a, same, line, no_midr, none})
    rig_config_free(c);
}

TEST_F(SysfsCacheTest, MadeOnceAndWhole)
{
  rig_config *c = Load(Config(128));
  rig_sysfs_share first, second;
  std::string scratch = Scratch();
  ASSERT_TRUE(rig_sysfs_share_open(c, base().c_str(), scratch.c_str(), &first));
  char *key = rig_overlay_sysfs_key(c);
  EXPECT_EQ(std::string(first.dir),
            base() + "/jitflush-sysfs-" + std::to_string(getuid()) + "-" + key);
  g_free(key);
  const std::string cpu = std::string(first.dir) + "/sys/devices/system/cpu/";
  EXPECT_EQ(ReadFileOrEmpty(cpu + "possible"), "0-7\n");
  EXPECT_EQ(ReadFileOrEmpty(cpu + "cpu5/cache/index1/coherency_line_size"), "128\n");
  // Nothing of it is left in the scratch folder: it was renamed into place.
  EXPECT_TRUE(std::filesystem::is_empty(scratch));
  struct stat made;
  ASSERT_EQ(stat((cpu + "possible").c_str(), &made), 0);

  ASSERT_TRUE(rig_sysfs_share_open(c, base().c_str(), Scratch().c_str(), &second));
  EXPECT_STREQ(second.dir, first.dir);
  struct stat again;
  ASSERT_EQ(stat((cpu + "possible").c_str(), &again), 0);
  EXPECT_EQ(again.st_ino, made.st_ino) << "written again";
  rig_sysfs_share_close(&first);
  rig_sysfs_share_close(&second);
  EXPECT_EQ(first.dir, nullptr);
  EXPECT_EQ(Trees().size(), 1u);
}

TEST_F(SysfsCacheTest, NoTreeForSysfsNone)
{
  rig_sysfs_share s;
  EXPECT_FALSE(
      rig_sysfs_share_open(Load(Config(128, "none")), base().c_str(), Scratch().c_str(), &s));
  EXPECT_TRUE(Trees().empty());
}

// A folder under the tree's name that others may write to (or that is a
// link) is not used: its content could be anything.
TEST_F(SysfsCacheTest, AnUntrustedFolderIsNotUsed)
{
  rig_config *c = Load(Config(128));
  char *key = rig_overlay_sysfs_key(c);
  const std::string path = base() + "/jitflush-sysfs-" + std::to_string(getuid()) + "-" + key;
  g_free(key);
  ASSERT_EQ(mkdir(path.c_str(), 0777), 0);
  ASSERT_EQ(chmod(path.c_str(), 0777), 0); // whatever the umask
  rig_sysfs_share s;
  EXPECT_FALSE(rig_sysfs_share_open(c, base().c_str(), Scratch().c_str(), &s));
  ASSERT_EQ(rmdir(path.c_str()), 0);
  ASSERT_EQ(symlink(dir_.path().c_str(), path.c_str()), 0);
  EXPECT_FALSE(rig_sysfs_share_open(c, base().c_str(), Scratch().c_str(), &s));
}

// Runs that start together for a new tree all get the one tree, whole.
TEST_F(SysfsCacheTest, ConcurrentRunsGetOneTree)
{
  rig_config *c = Load(Config(256));
  const int kRuns = 8;
  std::vector<std::string> scratch;
  for (int i = 0; i < kRuns; i++)
    scratch.push_back(Scratch());
  std::vector<pid_t> pids;
  for (int i = 0; i < kRuns; i++) {
    pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      rig_sysfs_share s;
      bool ok =
          rig_sysfs_share_open(c, base().c_str(), scratch[i].c_str(), &s) &&
          ReadFileOrEmpty(std::string(s.dir) + "/sys/devices/system/cpu/kernel_max") == "255\n";
      _exit(ok ? 0 : 1);
    }
    pids.push_back(pid);
  }
  for (pid_t pid : pids) {
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  }
  EXPECT_EQ(Trees().size(), 1u);
}

// Beyond RIG_SYSFS_SHARE_KEEP trees, the least recently used go (into the
// scratch folder of the run that made the newest, which removes it), but
// never one a run still holds: the next older one goes in its place.
TEST_F(SysfsCacheTest, EvictsTheLeastRecentlyUsedButNeverAHeldOne)
{
  std::vector<rig_sysfs_share> held(2);
  std::vector<std::string> names;
  const unsigned kTrees = RIG_SYSFS_SHARE_KEEP + 4;
  for (unsigned i = 0; i < kTrees; i++) {
    rig_sysfs_share s;
    ASSERT_TRUE(rig_sysfs_share_open(Load(Config(128, "full", 4 + i)), base().c_str(),
                                     Scratch().c_str(), &s))
        << i;
    names.push_back(s.dir);
    if (i < held.size())
      held[i] = s; // the oldest two stay held
    else
      rig_sysfs_share_close(&s);
    usleep(2000); // distinct use times
  }
  std::set<std::string> trees = Trees();
  EXPECT_EQ(trees.size(), size_t{RIG_SYSFS_SHARE_KEEP});
  EXPECT_TRUE(trees.count(names[0]) && trees.count(names[1])) << "a held tree was evicted";
  for (unsigned i = 2; i < 6; i++)
    EXPECT_FALSE(trees.count(names[i])) << "tree " << i << " was used longer ago than those kept";
  EXPECT_TRUE(trees.count(names.back()));
  for (auto &s : held)
    rig_sysfs_share_close(&s);
}

} // namespace
