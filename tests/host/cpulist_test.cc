// The kernel's cpulist format, and what happens to anything else.
#include <gtest/gtest.h>

#include <cstring>

extern "C" {
#include "internal/cpuset.h"
}

static bool Parse(const char *text, jf_cpuset *set)
{
  return jf_cpulist_parse(text, std::strlen(text), set);
}

TEST(Cpulist, RangesAndSingles)
{
  jf_cpuset s;
  ASSERT_TRUE(Parse("0-3,6\n", &s));
  EXPECT_EQ(jf_cpuset_count(&s), 5u);
  EXPECT_TRUE(jf_cpuset_has(&s, 3));
  EXPECT_FALSE(jf_cpuset_has(&s, 4));
  EXPECT_TRUE(jf_cpuset_has(&s, 6));
  EXPECT_EQ(jf_cpuset_end(&s), 7u);
}

TEST(Cpulist, LargestCpuSetSizeFits)
{
  jf_cpuset s;
  ASSERT_TRUE(Parse("0-1023", &s));
  EXPECT_EQ(jf_cpuset_count(&s), 1024u);
  EXPECT_EQ(jf_cpuset_end(&s), 1024u);
}

TEST(Cpulist, MalformedIsRejectedAndLeavesAnEmptySet)
{
  for (const char *bad : {"", "\n", "3-1", "a", "0-", "-1", "1024", "0,,1", "0-1,", "1 2",
                          "99999999999999999999", "0-3\n\n", "0x1"}) {
    jf_cpuset s;
    jf_cpuset_add(&s, 5);
    EXPECT_FALSE(Parse(bad, &s)) << '"' << bad << '"';
    EXPECT_EQ(jf_cpuset_count(&s), 0u) << '"' << bad << '"';
  }
}

TEST(Cpulist, NotNulTerminatedInput)
{
  const char text[] = {'0', '-', '2', '9', '9'}; // only the first 3 bytes count
  jf_cpuset s;
  ASSERT_TRUE(jf_cpulist_parse(text, 3, &s));
  EXPECT_EQ(jf_cpuset_count(&s), 3u);
}

TEST(CpuWords, CpufreqFormat)
{
  jf_cpuset s;
  ASSERT_TRUE(jf_cpuwords_parse("4 5 6 7 \n", 9, &s));
  EXPECT_EQ(jf_cpuset_count(&s), 4u);
  ASSERT_TRUE(jf_cpuwords_parse("0", 1, &s));
  EXPECT_TRUE(jf_cpuset_has(&s, 0));
  EXPECT_FALSE(jf_cpuwords_parse("4-7\n", 4, &s));
  EXPECT_FALSE(jf_cpuwords_parse("1024\n", 5, &s));
  EXPECT_EQ(jf_cpuset_count(&s), 0u);
}

TEST(CpuList, FormatIsTheKernelsFormatAndRoundTrips)
{
  jf_cpuset s;
  ASSERT_TRUE(jf_cpulist_parse("0-3,6,8-9", 9, &s));
  char buf[32];
  ASSERT_TRUE(jf_cpulist_format(&s, buf, sizeof buf));
  EXPECT_STREQ(buf, "0-3,6,8-9");
  char tiny[4];
  EXPECT_FALSE(jf_cpulist_format(&s, tiny, sizeof tiny));
  jf_cpuset_clear(&s);
  ASSERT_TRUE(jf_cpulist_format(&s, buf, sizeof buf));
  EXPECT_STREQ(buf, "");
}
