// The running block in one word (rig/plugin/plugin_vcpu.h,
// plugin_vcpu_block_word, through block_rig.c): the crash report reads its start and a store
// into the running block its start and end (plugin_selfstore.c), from the
// one inline store each checked TB makes.
#include <gtest/gtest.h>

#include <cstdint>

#include "block_rig.h"

TEST(RunningBlock, OneWordGivesTheBlocksStartAndEnd)
{
  uint64_t word = block_rig_word(0x7fff'f7a1'2340, 3);
  EXPECT_EQ(block_rig_start(word), uint64_t{0x7fff'f7a1'2340});
  EXPECT_EQ(block_rig_end(word), uint64_t{0x7fff'f7a1'234c});
}

TEST(RunningBlock, TheLongestBlockAtTheTopOfTheAddressSpaceFits)
{
  // TCG_MAX_INSNS is 512; the highest 48-bit address that starts a word.
  uint64_t start = (uint64_t{1} << 48) - 4 * 512;
  uint64_t word = block_rig_word(start, 512);
  EXPECT_EQ(block_rig_start(word), start);
  EXPECT_EQ(block_rig_end(word), uint64_t{1} << 48);
}

// A start beyond 48 bits (no AArch64 user address is) cannot be packed:
// the block reads as empty, so no store is taken for one into it, rather
// than as another block's range.
TEST(RunningBlock, AStartThatDoesNotFitReadsAsAnEmptyBlock)
{
  uint64_t word = block_rig_word(uint64_t{1} << 52 | 0x1000, 4);
  EXPECT_EQ(block_rig_end(word), block_rig_start(word));
}
