// Whether a QEMU loads plugins, read from its ELF file
// (rig/runner/runner_qemu.c): the build's plugin-enabled QEMU exports the
// API, a dynamic program without it does not, and anything the file
// cannot tell is left to "qemu -h".
#include <gtest/gtest.h>

#include <string>

#include "run_process.h"
#include "runner_qemu.h"

namespace
{

TEST(QemuPluginSupport, TheBuildsQemuExportsThePluginApi)
{
  EXPECT_EQ(runner_qemu_plugin_support(JITFLUSH_QEMU_AARCH64), RUNNER_PLUGINS_YES);
}

TEST(QemuPluginSupport, ADynamicProgramWithoutTheApiHasNone)
{
  // Any dynamic x86-64 program of the host: sh imports from libc only.
  EXPECT_EQ(runner_qemu_plugin_support("/bin/sh"), RUNNER_PLUGINS_NO);
}

TEST(QemuPluginSupport, WhatTheFileCannotTellIsUnknown)
{
  TempDir dir;
  WriteFile(dir / "script", "#!/bin/sh\necho -plugin\n");
  EXPECT_EQ(runner_qemu_plugin_support((dir / "script").c_str()), RUNNER_PLUGINS_UNKNOWN);
  EXPECT_EQ(runner_qemu_plugin_support((dir / "missing").c_str()), RUNNER_PLUGINS_UNKNOWN);
  // The name as a string elsewhere in the file is not an export.
  WriteFile(dir / "text", "qemu_plugin_register_vcpu_tb_trans_cb\n");
  EXPECT_EQ(runner_qemu_plugin_support((dir / "text").c_str()), RUNNER_PLUGINS_UNKNOWN);
}

} // namespace
