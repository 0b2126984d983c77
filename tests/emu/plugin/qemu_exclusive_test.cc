// Finding a data object in a running executable's own symbol table
// (rig/plugin/plugin_qemu_exclusive.c): how the schedule reads QEMU's count of the
// vCPUs an exclusive section waits for. Here the executable is this test.
#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>
#include <string>

#include "plugin_qemu_exclusive.h"

// A global with C linkage, so its symbol is its name; never optimised away.
extern "C" {
int jf_test_probe_target = 7;
}

namespace
{

TEST(QemuExclusive, FindsADataObjectInTheRunningExecutablesSymbolTableAtItsRuntimeAddress)
{
  uint64_t addr = 0, size = 0;
  const char *why = nullptr;
  ASSERT_TRUE(plugin_elf_data_object("/proc/self/exe", "jf_test_probe_target", &addr, &size, &why))
      << why;
  EXPECT_EQ(size, sizeof(int));
  EXPECT_EQ(addr + plugin_main_executable_bias(),
            static_cast<uint64_t>(reinterpret_cast<uintptr_t>(&jf_test_probe_target)));
}

TEST(QemuExclusive, SaysWhyWhenThereIsNoSuchObject)
{
  uint64_t addr = 0, size = 0;
  const char *why = nullptr;
  // A function is not a data object.
  EXPECT_FALSE(
      plugin_elf_data_object("/proc/self/exe", "plugin_elf_data_object", &addr, &size, &why));
  EXPECT_STREQ(why, "the executable's symbol table has no such object");
  EXPECT_FALSE(plugin_elf_data_object("/proc/self/exe", "no_such_object_here", &addr, &size, &why));
  EXPECT_STREQ(why, "the executable's symbol table has no such object");
}

TEST(QemuExclusive, SaysWhyWhenTheFileIsMissingOrNoElf)
{
  uint64_t addr = 0, size = 0;
  const char *why = nullptr;
  EXPECT_FALSE(plugin_elf_data_object("/nonexistent/qemu", "pending_cpus", &addr, &size, &why));
  EXPECT_STREQ(why, "the executable could not be opened");
  std::string path = testing::TempDir() + "/not-elf";
  std::ofstream(path) << "#!/bin/sh\nexit 0\n";
  EXPECT_FALSE(plugin_elf_data_object(path.c_str(), "pending_cpus", &addr, &size, &why));
  EXPECT_STREQ(why, "the executable has no symbol table (a stripped build?)");
}

// This process is no QEMU: the count is not found, and the reason says so.
TEST(QemuExclusive, AProcessWithoutQemusCountGetsNoAddressAndAReason)
{
  const char *why = nullptr;
  EXPECT_EQ(plugin_qemu_pending_cpus(&why), nullptr);
  EXPECT_STREQ(why, "the executable's symbol table has no such object");
}

} // namespace
