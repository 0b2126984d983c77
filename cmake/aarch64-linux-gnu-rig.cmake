# Cross toolchain for aarch64 Linux whose target programs run on the rig:
#
#   cmake -S . -B build-rig -DCMAKE_TOOLCHAIN_FILE=<jitflush>/cmake/aarch64-linux-gnu-rig.cmake
#   cmake --build build-rig && ctest --test-dir build-rig
#
# Every test CTest runs through the emulator (add_test(NAME n COMMAND
# target)) becomes "jitflush-emu -- PROGRAM ARGS": its own exit status,
# stdout and stderr, or 86 with the finding blocks on stderr when it ran
# code it had not flushed correctly. The rig's options come from the
# environment at test time, so one build serves every SoC and seed:
#
#   JITFLUSH_EMU_CONFIG=<jitflush>/qemu-configs/tegra186.conf JITFLUSH_EMU_SEED=3 \
#   JITFLUSH_EMU_STORE=$PWD/rig-store ctest --test-dir build-rig
#   jitflush-emu --merge --report rig.json --sarif rig.sarif rig-store
#
# (default SoC: the Exynos 8890). Tests registered the old way,
# add_test(n command), and programs that test scripts start bypass the
# emulator: run ctest under "jitflush-emu --binfmt-run -- ctest" for them.
# docs/RIG.md#test-suites-on-the-rig has the details; aarch64-linux-gnu.cmake
# with -DJITFLUSH_RIG=ON is the same.
set(JITFLUSH_RIG ON)
include(${CMAKE_CURRENT_LIST_DIR}/aarch64-linux-gnu.cmake)
