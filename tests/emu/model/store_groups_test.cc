// Which of a block's stores share one callback (rig/model/model_store_groups.c).
// A group may only hold stores whose words are known relative to the
// leader's address: anything that may change the base register, and any
// event, must end it, or the leader records the wrong words.
#include <gtest/gtest.h>

#include <cstdint>
#include <utility>
#include <vector>

#include "model_store_groups.h"

namespace
{

// A64 encodings (Arm ARM, DDI 0487).
constexpr uint32_t kStrX1AtX0 = 0xf9000001;          // str x1, [x0]
constexpr uint32_t kStrX2AtX0Plus8 = 0xf9000402;     // str x2, [x0, #8]
constexpr uint32_t kStrW3AtX0Plus4 = 0xb9000403;     // str w3, [x0, #4]
constexpr uint32_t kStrbW1AtX0Plus1 = 0x39000401;    // strb w1, [x0, #1]
constexpr uint32_t kAddX0X0_8 = 0x91002000;          // add x0, x0, #8
constexpr uint32_t kLdrX0AtX0 = 0xf9400000;          // ldr x0, [x0]
constexpr uint32_t kLdrX5AtSpPlus8 = 0xf94007e5;     // ldr x5, [sp, #8]
constexpr uint32_t kLdrX2AtX0Post8 = 0xf8408402;     // ldr x2, [x0], #8
constexpr uint32_t kMovX0X1 = 0xaa0103e0;            // mov x0, x1
constexpr uint32_t kStrX19PreSpMinus32 = 0xf81e0ff3; // str x19, [sp, #-32]!
constexpr uint32_t kStrX20AtSpPlus8 = 0xf90007f4;    // str x20, [sp, #8]
constexpr uint32_t kStrX19AtSpPlus16 = 0xf9000bf3;   // str x19, [sp, #16]
constexpr uint32_t kStrX1AtX0Post16 = 0xf8010401;    // str x1, [x0], #16
constexpr uint32_t kStrX0AtX0Pre8 = 0xf8008c00;      // str x0, [x0, #8]! (UNPREDICTABLE)
constexpr uint32_t kCmpX1X2 = 0xeb02003f;            // cmp x1, x2 (subs xzr, ...)
constexpr uint32_t kSubSpSp16 = 0xd10043ff;          // sub sp, sp, #16
constexpr uint32_t kDcCvauX3 = 0xd50b7b23;           // dc cvau, x3
constexpr uint32_t kStpX3X4AtX5 = 0xa90010a3;        // stp x3, x4, [x5]
constexpr uint32_t kStxrW6X7AtX0 = 0xc8067c07;       // stxr w6, x7, [x0]
constexpr uint32_t kStrX2AtX1 = 0xf9000022;          // str x2, [x1]
constexpr uint32_t kStrX3AtX1Plus8 = 0xf9000423;     // str x3, [x1, #8]
constexpr uint32_t kCaspX0X1X2X3AtX4 = 0x48207c82;   // casp x0, x1, x2, x3, [x4]

struct Plan {
  explicit Plan(std::vector<uint32_t> words)
      : role(words.size()), group_of(words.size()), groups(words.size())
  {
    ngroups =
        model_groups_plan(words.data(), words.size(), role.data(), group_of.data(), groups.data());
  }
  const model_store_group &GroupOf(size_t insn) const
  {
    return groups[group_of[insn]];
  }
  // The (offset, bytes) ranges of INSN's group, from its leader's address.
  std::vector<std::pair<int32_t, uint32_t>> Ranges(size_t insn) const
  {
    const model_store_group &g = GroupOf(insn);
    std::vector<std::pair<int32_t, uint32_t>> out;
    for (uint32_t i = 0; i < g.nranges; i++)
      out.push_back({g.range[i].offset, g.range[i].bytes});
    return out;
  }
  std::vector<model_store_role> role;
  std::vector<uint32_t> group_of;
  std::vector<model_store_group> groups;
  size_t ngroups = 0;
};

using Roles = std::vector<model_store_role>;
using Ranges = std::vector<std::pair<int32_t, uint32_t>>;
constexpr model_store_role kOwn = MODEL_STORE_OWN;
constexpr model_store_role kLeader = MODEL_STORE_LEADER;
constexpr model_store_role kMember = MODEL_STORE_MEMBER;

// Each byte names the store that wrote it: a finding's writers are exact
// per word (docs/FINDINGS.md), so adjacent stores keep a range each.
TEST(StoreGroups, AdjacentStoresThroughOneBaseShareOneGroupARangeEach)
{
  Plan p({kStrX1AtX0, kStrX2AtX0Plus8});
  EXPECT_EQ(p.role, (Roles{kLeader, kMember}));
  EXPECT_EQ(p.group_of[1], p.group_of[0]);
  EXPECT_EQ(p.GroupOf(0).leader, 0u);
  ASSERT_EQ(p.Ranges(0), (Ranges{{0, 8}, {8, 8}}));
  EXPECT_EQ(p.GroupOf(0).range[0].last_insn, 0u);
  EXPECT_EQ(p.GroupOf(0).range[1].last_insn, 1u);
}

// A later store over part of an earlier one's bytes: those bytes are the
// later store's, the rest stay the earlier one's.
TEST(StoreGroups, AnOverwrittenPartNamesTheLaterStore)
{
  Plan p({kStrX1AtX0, kStrbW1AtX0Plus1});
  EXPECT_EQ(p.role, (Roles{kLeader, kMember}));
  ASSERT_EQ(p.Ranges(0), (Ranges{{0, 1}, {2, 6}, {1, 1}}));
  EXPECT_EQ(p.GroupOf(0).range[0].last_insn, 0u);
  EXPECT_EQ(p.GroupOf(0).range[1].last_insn, 0u);
  EXPECT_EQ(p.GroupOf(0).range[2].last_insn, 1u);
}

TEST(StoreGroups, SizesComeFromTheEncoding)
{
  Plan p({kStrbW1AtX0Plus1, kStrW3AtX0Plus4});
  EXPECT_EQ(p.role, (Roles{kLeader, kMember}));
  // strb at +1 (1 byte) and str w at +4 (4 bytes), from the leader's +1:
  // [0, 1) and [3, 7), not touching.
  EXPECT_EQ(p.Ranges(0), (Ranges{{0, 1}, {3, 4}}));
}

TEST(StoreGroups, ChangingTheBaseEndsTheGroup)
{
  EXPECT_EQ(Plan({kStrX1AtX0, kAddX0X0_8, kStrX2AtX0Plus8}).role, (Roles{kOwn, kOwn, kOwn}));
  EXPECT_EQ(Plan({kStrX1AtX0, kLdrX0AtX0, kStrX2AtX0Plus8}).role, (Roles{kOwn, kOwn, kOwn}));
  EXPECT_EQ(Plan({kStrX1AtX0, kMovX0X1, kStrX2AtX0Plus8}).role, (Roles{kOwn, kOwn, kOwn}));
  EXPECT_EQ(Plan({kStrX1AtX0, kLdrX2AtX0Post8, kStrX2AtX0Plus8}).role, (Roles{kOwn, kOwn, kOwn}))
      << "a load with writeback moves its base";
  EXPECT_EQ(Plan({kStrX1AtX0, kStxrW6X7AtX0, kStrX2AtX0Plus8}).role,
            (Roles{kLeader, kOwn, kMember}))
      << "stxr writes w6 only";
  EXPECT_EQ(Plan({kStrX2AtX1, kCaspX0X1X2X3AtX4, kStrX3AtX1Plus8}).role, (Roles{kOwn, kOwn, kOwn}))
      << "casp returns the old pair in x0 and x1";
}

TEST(StoreGroups, OtherRegistersDoNotEndTheGroup)
{
  EXPECT_EQ(Plan({kStrX1AtX0, kLdrX5AtSpPlus8, kStrX2AtX0Plus8}).role,
            (Roles{kLeader, kOwn, kMember}));
  EXPECT_EQ(Plan({kStrX1AtX0, kStpX3X4AtX5, kStrX2AtX0Plus8}).role, (Roles{kLeader, kOwn, kMember}))
      << "a pair store keeps its own callback and leaves x0 alone";
}

TEST(StoreGroups, EventsEndEveryGroup)
{
  EXPECT_EQ(Plan({kStrX1AtX0, kDcCvauX3, kStrX2AtX0Plus8}).role, (Roles{kOwn, kOwn, kOwn}));
}

TEST(StoreGroups, WritebackIsFollowed)
{
  // A prologue: sp moves down by 32, then a store at the new sp + 8.
  Plan prologue({kStrX19PreSpMinus32, kStrX20AtSpPlus8});
  EXPECT_EQ(prologue.role, (Roles{kLeader, kMember}));
  EXPECT_EQ(prologue.Ranges(0), (Ranges{{0, 8}, {8, 8}}));

  // Post-index: the second store lands 16 bytes after the first.
  Plan post({kStrX1AtX0Post16, kStrX1AtX0});
  EXPECT_EQ(post.role, (Roles{kLeader, kMember}));
  EXPECT_EQ(post.Ranges(0), (Ranges{{0, 8}, {16, 8}}));
}

TEST(StoreGroups, UnpredictableWritebackKeepsItsOwnCallback)
{
  EXPECT_EQ(Plan({kStrX0AtX0Pre8, kStrX1AtX0}).role, (Roles{kOwn, kOwn}));
}

TEST(StoreGroups, OnlyInstructionsThatWriteSpEndTheStackGroup)
{
  EXPECT_EQ(Plan({kStrX20AtSpPlus8, kCmpX1X2, kStrX19AtSpPlus16}).role,
            (Roles{kLeader, kOwn, kMember}))
      << "cmp writes xzr, not sp";
  EXPECT_EQ(Plan({kStrX20AtSpPlus8, kSubSpSp16, kStrX19AtSpPlus16}).role,
            (Roles{kOwn, kOwn, kOwn}));
}

TEST(StoreGroups, AFullGroupStartsANewOne)
{
  std::vector<uint32_t> words;
  for (uint32_t i = 0; i < MODEL_STORE_GROUP_RANGES + 2; i++) {
    words.push_back(0xf9000001 | (i * 4) << 10); // str x1, [x0, #32*i]: disjoint
  }
  Plan p(words);
  Roles want{kLeader};
  for (uint32_t i = 1; i < MODEL_STORE_GROUP_RANGES; i++) {
    want.push_back(kMember);
  }
  want.push_back(kLeader);
  want.push_back(kMember);
  EXPECT_EQ(p.role, want);
  EXPECT_EQ(p.GroupOf(0).nranges, static_cast<uint32_t>(MODEL_STORE_GROUP_RANGES));
  EXPECT_EQ(p.GroupOf(MODEL_STORE_GROUP_RANGES).leader,
            static_cast<uint32_t>(MODEL_STORE_GROUP_RANGES));
  EXPECT_EQ(p.Ranges(MODEL_STORE_GROUP_RANGES), (Ranges{{0, 8}, {32, 8}}));
}

} // namespace
