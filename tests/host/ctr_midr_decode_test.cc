// CTR_EL0 and MIDR_EL1 decoding against the values of docs/BACKGROUND.md#architecture-facts.
#include <gtest/gtest.h>

extern "C" {
#include "jitflush.h"
#include "ctr.h"
#include "midr_table.h"
}

#include <cstdio>
#include <ostream>
#include <string>

static std::string HexName(const char *what, uint64_t value)
{
  char text[40];
  std::snprintf(text, sizeof text, "%s_0x%llx", what, static_cast<unsigned long long>(value));
  return text;
}

struct CtrCase {
  uint64_t ctr;
  unsigned iline, dline;
  bool idc, dic;
  unsigned l1ip;
};

class CtrDecode : public ::testing::TestWithParam<CtrCase>
{
};

TEST_P(CtrDecode, FieldsMatchTheArmArmLayout)
{
  const CtrCase &c = GetParam();
  jf_ctr d = jf_ctr_decode(c.ctr);
  EXPECT_EQ(d.iline, c.iline);
  EXPECT_EQ(d.dline, c.dline);
  EXPECT_EQ(d.idc, c.idc);
  EXPECT_EQ(d.dic, c.dic);
  EXPECT_EQ(d.l1ip, c.l1ip);
}

INSTANTIATE_TEST_SUITE_P(
    KnownCores, CtrDecode,
    ::testing::Values(CtrCase{0x84448004, 64, 64, false, false, 2},   // Cortex-A53/A55, VIPT
                      CtrCase{0x8444c004, 64, 64, false, false, 3},   // A57/A72/A76, PIPT
                      CtrCase{0x84448005, 128, 64, false, false, 2},  // Exynos M1 (emulated)
                      CtrCase{0x86668006, 256, 256, false, false, 2}, // A64FX
                      CtrCase{0x80038003, 32, 32, false, false, 2},   // QEMU -cpu max
                      CtrCase{0x9444c004, 64, 64, true, false, 3},    // Denver2: IDC
                      CtrCase{0xb444c004, 64, 64, true, true, 3},     // Neoverse V1: IDC+DIC
                      CtrCase{0x49444c004ULL, 64, 64, true, false,
                              3}, // Cortex-A710, 64-bit with TminLine
                      CtrCase{0x4b444c004ULL, 64, 64, true, true, 3}, // Neoverse N2
                      CtrCase{0x8444c00aULL, 4096, 64, false, false, 3}
                      // N1 erratum 1542419: IminLine = PAGE_SHIFT-2, 4 KiB pages
                      ),
    [](const ::testing::TestParamInfo<CtrCase> &p) { return HexName("ctr", p.param.ctr); });

TEST(CtrDecode, TopBitsAreNotTruncated)
{
  // TminLine [37:32] = 4 → 64-byte tag granule lines; a 32-bit decode loses it.
  EXPECT_EQ(jf_ctr_decode(0x49444c004ULL).tminline, 64u);
  EXPECT_EQ(jf_ctr_decode(0x9444c004ULL).tminline, 0u);
}

TEST(CtrDecode, CwgAndErgZeroMeanNotGiven)
{
  EXPECT_EQ(jf_ctr_decode(0x80038003).cwg, 0u);
  EXPECT_EQ(jf_ctr_decode(0x84448004).cwg, 4u << 4);
  EXPECT_EQ(jf_ctr_decode(0x84448004).erg, 4u << 4);
}

TEST(Log2Line, PowersOfTwo)
{
  EXPECT_EQ(jf_log2_line(4), 2u);
  EXPECT_EQ(jf_log2_line(64), 6u);
  EXPECT_EQ(jf_log2_line(4096), 12u);
}

struct MidrCase {
  uint64_t midr;
  const char *name;
  unsigned iline, dline;
};

// The value CTest appends to each test's name: without it GoogleTest
// prints the struct's bytes, name pointer included, and every link renamed
// the tests.
void PrintTo(const MidrCase &c, std::ostream *os)
{
  *os << c.name << " " << c.iline << "/" << c.dline;
}

class MidrTable : public ::testing::TestWithParam<MidrCase>
{
};

TEST_P(MidrTable, EveryCoreOfTheDesignTableIsKnown)
{
  const MidrCase &c = GetParam();
  const jf_core *core = jf_midr_lookup(c.midr);
  ASSERT_NE(core, nullptr) << std::hex << c.midr;
  EXPECT_STREQ(core->name, c.name);
  EXPECT_EQ(core->iline, c.iline);
  EXPECT_EQ(core->dline, c.dline);
  EXPECT_STREQ(jitflush_midr_name(c.midr), c.name);
}

INSTANTIATE_TEST_SUITE_P(
    DesignTable, MidrTable,
    ::testing::Values(
        MidrCase{0x410fd034, "Cortex-A53", 64, 64}, MidrCase{0x412fd050, "Cortex-A55", 64, 64},
        MidrCase{0x411fd070, "Cortex-A57", 64, 64}, MidrCase{0x410fd083, "Cortex-A72", 64, 64},
        MidrCase{0x414fd0b1, "Cortex-A76", 64, 64}, MidrCase{0x412fd471, "Cortex-A710", 64, 64},
        MidrCase{0x414fd0c1, "Neoverse N1", 64, 64}, MidrCase{0x410fd493, "Neoverse N2", 64, 64},
        MidrCase{0x411fd402, "Neoverse V1", 64, 64}, MidrCase{0x4e0f0030, "Denver2", 64, 64},
        MidrCase{0x531f0011, "Exynos M1", 128, 64},
        MidrCase{0x611f0221, "Apple M1 Icestorm", 64, 64},
        MidrCase{0x611f0231, "Apple M1 Firestorm", 64, 64},
        MidrCase{0x461f0010, "A64FX", 256, 256}),
    [](const ::testing::TestParamInfo<MidrCase> &p) { return HexName("midr", p.param.midr); });

TEST(MidrTable, UnknownCoreIsNull)
{
  EXPECT_EQ(jf_midr_lookup(0x12345678), nullptr);
  EXPECT_EQ(jitflush_midr_name(0), nullptr);
}

TEST(MidrFields, DecodeLikeTheArmArm)
{
  EXPECT_EQ(jitflush_midr_implementer(0x531f0011), 0x53u);
  EXPECT_EQ(jitflush_midr_variant(0x531f0011), 1u);
  EXPECT_EQ(jitflush_midr_part(0x531f0011), 0x001u);
  EXPECT_EQ(jitflush_midr_revision(0x531f0011), 1u);
  EXPECT_EQ(jitflush_midr_part(0x410fd034), 0xd03u);
}

TEST(MidrErrata, OnlyCortexA53R0p0ToR0p2NeedDcCivac)
{
  EXPECT_TRUE(jf_midr_needs_dc_civac(0x410fd030));
  EXPECT_TRUE(jf_midr_needs_dc_civac(0x410fd032));
  EXPECT_FALSE(jf_midr_needs_dc_civac(0x410fd033)); // r0p3
  EXPECT_FALSE(jf_midr_needs_dc_civac(0x410fd034)); // r0p4, the Exynos 8890's
  EXPECT_FALSE(jf_midr_needs_dc_civac(0x411fd030)); // r1p0
  EXPECT_FALSE(jf_midr_needs_dc_civac(0x410fd070)); // A57 r0p0
}

TEST(SourceNames, MatchTheCliContract)
{
  EXPECT_STREQ(jitflush_source_name(JITFLUSH_SRC_CTR_EL0), "ctr_el0");
  EXPECT_STREQ(jitflush_source_name(JITFLUSH_SRC_SYSFS), "sysfs");
  EXPECT_STREQ(jitflush_source_name(JITFLUSH_SRC_MIDR_TABLE), "midr_table");
  EXPECT_STREQ(jitflush_source_name(JITFLUSH_SRC_FLOOR), "floor");
  EXPECT_STREQ(jitflush_source_name(JITFLUSH_SRC_NONE), "none");
  EXPECT_STREQ(jitflush_source_name(static_cast<jitflush_source>(99)), "none");
}
