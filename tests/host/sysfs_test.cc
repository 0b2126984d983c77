// The sysfs reader over fixture trees in the fake filesystem.
#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

#include "fakes/fake_fs.h"

extern "C" {
#include "fs.h"
#include "sysfs.h"
}

class Sysfs : public ::testing::Test
{
protected:
  void SetUp() override
  {
    fakefs::Reset();
  }
};

TEST_F(Sysfs, ReadsPossibleAndOnline)
{
  fakefs::CreateFile("/sys/devices/system/cpu/possible", "0-7\n");
  fakefs::CreateFile("/sys/devices/system/cpu/online", "0-5\n");
  jf_cpuset s;
  ASSERT_TRUE(jf_sysfs_read_cpulist("possible", &s));
  EXPECT_EQ(jf_cpuset_count(&s), 8u);
  ASSERT_TRUE(jf_sysfs_read_cpulist("online", &s));
  EXPECT_EQ(jf_cpuset_count(&s), 6u);
  EXPECT_FALSE(jf_sysfs_read_cpulist("present", &s)); // absent
}

TEST_F(Sysfs, ReadsL1LinesAndMidrOfAnExynosBigCore)
{
  fakefs::CreateL1(4, 128, 64);
  fakefs::CreateMidr(4, 0x531f0011);
  jf_sysfs_cpu c;
  jf_sysfs_read_cpu(4, &c);
  EXPECT_EQ(c.l1i_line, 128u);
  EXPECT_EQ(c.l1d_line, 64u); // the level-2 16-byte entry is ignored
  ASSERT_TRUE(c.has_midr);
  EXPECT_EQ(c.midr, 0x531f0011u);
}

TEST_F(Sysfs, UnifiedL1ServesBothSides)
{
  fakefs::CreateFile("/sys/devices/system/cpu/cpu0/cache/index0/level", "1\n");
  fakefs::CreateFile("/sys/devices/system/cpu/cpu0/cache/index0/type", "Unified\n");
  fakefs::CreateFile("/sys/devices/system/cpu/cpu0/cache/index0/coherency_line_size", "32\n");
  jf_sysfs_cpu c;
  jf_sysfs_read_cpu(0, &c);
  EXPECT_EQ(c.l1i_line, 32u);
  EXPECT_EQ(c.l1d_line, 32u);
}

TEST_F(Sysfs, MissingTreeLeavesEverythingUnknown)
{
  jf_sysfs_cpu c;
  jf_sysfs_read_cpu(0, &c);
  EXPECT_EQ(c.l1i_line, 0u);
  EXPECT_EQ(c.l1d_line, 0u);
  EXPECT_FALSE(c.has_midr);
  jf_cpuset s;
  EXPECT_FALSE(jf_sysfs_read_cpulist("possible", &s));
}

TEST_F(Sysfs, GarbageIsIgnoredNotUsed)
{
  const std::string base = "/sys/devices/system/cpu/cpu1/cache/";
  for (const char *bad : {"abc\n", "63\n", "0\n", "-64\n", "262144\n", "", "64 64\n", "0x\n"}) {
    fakefs::Reset();
    fakefs::CreateFile(base + "index0/level", "1\n");
    fakefs::CreateFile(base + "index0/type", "Data\n");
    fakefs::CreateFile(base + "index0/coherency_line_size", bad);
    fakefs::CreateFile("/sys/devices/system/cpu/cpu1/regs/identification/midr_el1", bad);
    jf_sysfs_cpu c;
    jf_sysfs_read_cpu(1, &c);
    EXPECT_EQ(c.l1d_line, 0u) << '"' << bad << '"';
    const std::string text(bad);
    const bool still_a_number = text == "0\n" || text == "63\n" || text == "262144\n";
    if (!still_a_number) {
      EXPECT_FALSE(c.has_midr) << '"' << bad << '"';
    }
  }
}

TEST_F(Sysfs, UnknownTypeOrBadLevelIsSkipped)
{
  const std::string base = "/sys/devices/system/cpu/cpu2/cache/";
  fakefs::CreateFile(base + "index0/level", "one\n");
  fakefs::CreateFile(base + "index0/type", "Data\n");
  fakefs::CreateFile(base + "index0/coherency_line_size", "64\n");
  fakefs::CreateFile(base + "index1/level", "1\n");
  fakefs::CreateFile(base + "index1/type", "Trace\n");
  fakefs::CreateFile(base + "index1/coherency_line_size", "64\n");
  jf_sysfs_cpu c;
  jf_sysfs_read_cpu(2, &c);
  EXPECT_EQ(c.l1d_line, 0u);
  EXPECT_EQ(c.l1i_line, 0u);
}

TEST_F(Sysfs, MidrAbove32BitsIsNotAMidr)
{
  fakefs::CreateFile("/sys/devices/system/cpu/cpu0/regs/identification/midr_el1",
                     "0x00000001410fd034\n");
  jf_sysfs_cpu c;
  jf_sysfs_read_cpu(0, &c);
  EXPECT_FALSE(c.has_midr);
}

TEST(ParseU64, DecimalHexAndOverflow)
{
  uint64_t v;
  EXPECT_TRUE(jf_parse_u64("64\n", 3, &v));
  EXPECT_EQ(v, 64u);
  EXPECT_TRUE(jf_parse_u64("0x00000000410fd034", 18, &v));
  EXPECT_EQ(v, 0x410fd034u);
  EXPECT_FALSE(jf_parse_u64("18446744073709551616", 20, &v)); // 2^64
  EXPECT_TRUE(jf_parse_u64("18446744073709551615", 20, &v));
  EXPECT_EQ(v, UINT64_MAX);
  EXPECT_FALSE(jf_parse_u64("", 0, &v));
  EXPECT_FALSE(jf_parse_u64("0xg", 3, &v));
}

// The fake itself must be able to fail: a descriptor left open is reported
// with its path, and each misuse of the seam is a failure of its own.
TEST_F(Sysfs, FakeFsReportsALeakedDescriptor)
{
  fakefs::CreateFile("/sys/devices/system/cpu/possible", "0-3\n");
  int fd = jf_fs_open("/sys/devices/system/cpu/possible");
  ASSERT_GE(fd, 0);
  EXPECT_NONFATAL_FAILURE(fakefs::ExpectNoMisuse(),
                          "/sys/devices/system/cpu/possible was opened and never closed");
}

TEST_F(Sysfs, FakeFsReportsReadAfterCloseAndDoubleClose)
{
  fakefs::CreateFile("/sys/devices/system/cpu/online", "0\n");
  int fd = jf_fs_open("/sys/devices/system/cpu/online");
  ASSERT_GE(fd, 0);
  jf_fs_close(fd);
  char buf[8];
  EXPECT_EQ(jf_fs_read(fd, buf, sizeof buf), -1);
  EXPECT_NONFATAL_FAILURE(fakefs::ExpectNoMisuse(),
                          "read from /sys/devices/system/cpu/online after jf_fs_close");
  jf_fs_close(fd);
  EXPECT_NONFATAL_FAILURE(fakefs::ExpectNoMisuse(), "/sys/devices/system/cpu/online closed twice");
}

// The kernel's groupings: cpufreq's related_cpus is a list of
// numbers each followed by a space (show_cpus, drivers/cpufreq/cpufreq.c).
TEST_F(Sysfs, DomainIsThePolicyWithinTheTopologyCluster)
{
  fakefs::CreateFile("/sys/devices/system/cpu/cpu4/cpufreq/related_cpus", "4 5 6 7 \n");
  fakefs::CreateFile("/sys/devices/system/cpu/cpu4/topology/core_siblings_list", "4-7\n");
  jf_cpuset s;
  ASSERT_TRUE(jf_sysfs_read_domain(4, &s));
  EXPECT_EQ(jf_cpuset_count(&s), 4u);
  EXPECT_TRUE(jf_cpuset_has(&s, 7));
  // cluster_cpus_list (Linux >= 5.16) wins over core_siblings_list.
  fakefs::CreateFile("/sys/devices/system/cpu/cpu4/topology/cluster_cpus_list", "4-5\n");
  ASSERT_TRUE(jf_sysfs_read_domain(4, &s));
  EXPECT_EQ(jf_cpuset_count(&s), 2u);
  EXPECT_FALSE(jf_cpuset_has(&s, 6));
}

TEST_F(Sysfs, DomainFromOneFactAlone)
{
  fakefs::CreateFile("/sys/devices/system/cpu/cpu4/topology/core_siblings_list", "4-7\n");
  jf_cpuset s;
  ASSERT_TRUE(jf_sysfs_read_domain(4, &s));
  EXPECT_EQ(jf_cpuset_count(&s), 4u);
  EXPECT_FALSE(jf_sysfs_read_domain(5, &s)); // nothing for CPU 5
  EXPECT_EQ(jf_cpuset_count(&s), 0u);
}

TEST_F(Sysfs, GarbageGroupingsAreNotFacts)
{
  jf_cpuset s;
  for (const char *bad : {"4 5 six 7\n", "4,5\n", "4  5\n", "\n", "4-", "99999999 4\n", " 4 5\n"}) {
    fakefs::Reset();
    fakefs::CreateFile("/sys/devices/system/cpu/cpu4/cpufreq/related_cpus", bad);
    EXPECT_FALSE(jf_sysfs_read_domain(4, &s)) << bad;
    EXPECT_EQ(jf_cpuset_count(&s), 0u) << bad;
  }
  // A list that does not name its own CPU is not the kernel's.
  fakefs::Reset();
  fakefs::CreateFile("/sys/devices/system/cpu/cpu4/topology/core_siblings_list", "0-3\n");
  EXPECT_FALSE(jf_sysfs_read_domain(4, &s));
  // Policy and cluster that share nothing but the CPU itself elsewhere.
  fakefs::Reset();
  fakefs::CreateFile("/sys/devices/system/cpu/cpu4/cpufreq/related_cpus", "0 1\n");
  fakefs::CreateFile("/sys/devices/system/cpu/cpu4/topology/core_siblings_list", "4-7\n");
  EXPECT_FALSE(jf_sysfs_read_domain(4, &s));
}
