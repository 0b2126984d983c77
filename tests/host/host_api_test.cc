// The public API as built for this host (x86_64 Linux): what a JIT on x86
// gets from the same calls it makes on ARM64.
#include <gtest/gtest.h>
#include <sys/mman.h>

#include <cstring>
#include <memory>

#include "jitflush.h"

TEST(HostApi, InfoSaysNoMaintenanceIsNeeded)
{
  std::unique_ptr<jitflush_info> info(new jitflush_info());
  ASSERT_EQ(jitflush_get_info(info.get()), JITFLUSH_OK);
#if defined(__x86_64__)
  EXPECT_STREQ(info->platform, "x86_64");
  EXPECT_TRUE(info->idc);
  EXPECT_TRUE(info->dic);
  EXPECT_EQ(info->iline_source, JITFLUSH_SRC_PLATFORM);
#endif
  EXPECT_TRUE(info->complete);
  EXPECT_NE(info->method, nullptr);
  EXPECT_EQ(jitflush_get_info(nullptr), JITFLUSH_ERR_ARG);
  EXPECT_EQ(jitflush_init(), JITFLUSH_OK);
}

TEST(HostApi, FlushedCodeRuns)
{
#if defined(__x86_64__)
  void *p =
      mmap(nullptr, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(p, MAP_FAILED);
  const unsigned char mov_eax_42_ret[] = {0xb8, 42, 0, 0, 0, 0xc3};
  std::memcpy(static_cast<char *>(p) + 3, mov_eax_42_ret, sizeof mov_eax_42_ret);
  jitflush_clear_cache(static_cast<char *>(p) + 3, static_cast<char *>(p) + 9);
  jitflush_clear_cache_dual(p, p, 4096);
  EXPECT_EQ(reinterpret_cast<int (*)()>(static_cast<char *>(p) + 3)(), 42);
  munmap(p, 4096);
#endif
}

TEST(HostApi, SyncCoresUsesMembarrierOnLinux)
{
#if defined(__linux__)
  // This kernel (>= 4.16) offers PRIVATE_EXPEDITED_SYNC_CORE on x86_64 too.
  EXPECT_EQ(jitflush_sync_cores(), JITFLUSH_OK);
  char dummy[8] = {0};
  EXPECT_EQ(jitflush_clear_cache_all_threads(dummy, dummy + 8), JITFLUSH_OK);
#endif
}
