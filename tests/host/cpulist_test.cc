// The kernel's cpulist format, and what happens to anything else.
#include <gtest/gtest.h>

#include <cstring>

extern "C" {
#include "cpuset.h"
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

// Why a list is refused, in the words the rig's config errors quote
// (tests/emu/shared/emu_config_test.cc): the first item with a problem decides.
TEST(CpulistProblem, NamesTheFirstProblem)
{
  const struct {
    const char *text;
    const char *reason;
  } cases[] = {
      {"0-3,6", nullptr},
      {"0-3,6\n", nullptr},
      {"", "empty CPU list"},
      {"\n", "empty CPU list"},
      {"a", "malformed CPU list"},
      {"0,,1", "malformed CPU list"},
      {"1-", "malformed CPU list"},
      {"0x4", "malformed CPU list"},
      {"0, 1", "malformed CPU list"},
      {"7-4x", "malformed CPU list"}, // the item's syntax before its values
      {"7-4", "descending range in CPU list"},
      {"2000-4", "descending range in CPU list"},
      {"1024", "CPU number too large (the limit is 1023)"},
      {"4-2000", "CPU number too large (the limit is 1023)"},
      {"99999999999999999999", "CPU number too large (the limit is 1023)"},
      {"7-4,1024", "descending range in CPU list"},
      {"1024,7-4", "CPU number too large (the limit is 1023)"},
      {"0-3,x", "malformed CPU list"},
  };
  for (const auto &c : cases) {
    jf_cpuset s;
    jf_cpuset_add(&s, 5);
    const char *reason = jf_cpulist_problem(c.text, std::strlen(c.text), &s);
    if (!c.reason) {
      EXPECT_EQ(reason, nullptr) << '"' << c.text << "\": " << reason;
      EXPECT_EQ(jf_cpuset_count(&s), 5u) << '"' << c.text << '"'; // 0-3 and 6
      EXPECT_FALSE(jf_cpuset_has(&s, 5)) << '"' << c.text << '"';
      continue;
    }
    ASSERT_NE(reason, nullptr) << '"' << c.text << '"';
    EXPECT_STREQ(reason, c.reason) << '"' << c.text << '"';
    EXPECT_EQ(jf_cpuset_count(&s), 0u) << '"' << c.text << '"';
    EXPECT_EQ(jf_cpulist_parse(c.text, std::strlen(c.text), &s), false) << '"' << c.text << '"';
  }
}

TEST(Cpuset, RemoveTakesOneCpuOut)
{
  jf_cpuset s;
  jf_cpuset_clear(&s);
  jf_cpuset_add(&s, 3);
  jf_cpuset_add(&s, 700);
  jf_cpuset_remove(&s, 700);
  jf_cpuset_remove(&s, 4);    // not a member: no change
  jf_cpuset_remove(&s, 5000); // out of range: ignored, as jf_cpuset_add ignores it
  EXPECT_EQ(jf_cpuset_count(&s), 1u);
  EXPECT_TRUE(jf_cpuset_has(&s, 3));
  EXPECT_EQ(jf_cpuset_end(&s), 1u + 3u);
}
