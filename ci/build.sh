#!/usr/bin/env bash
# Builds both trees: build/aarch64 (cross: library, CLI, target tests, guest
# programs) first, then build/host (library, host tests, the rig, and the
# host-side drivers that run the aarch64 programs under it).
# Usage: ci/build.sh [--no-rig]     (--no-rig: skip building QEMU)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
jobs=${JITFLUSH_JOBS:-$(nproc)}

qemu_args=()
if [ "${1:-}" != "--no-rig" ]; then
  qemu_prefix=$("$root/ci/build-qemu.sh" | tail -n 1)
  qemu_args=(-DJITFLUSH_QEMU_AARCH64="$qemu_prefix/bin/qemu-aarch64")
fi

cmake -S "$root" -B "$root/build/aarch64" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_TOOLCHAIN_FILE="$root/cmake/aarch64-linux-gnu.cmake" \
  -DJITFLUSH_BUILD_CLI=ON -DJITFLUSH_BUILD_TESTS=ON >/dev/null
cmake --build "$root/build/aarch64" -j "$jobs"

cmake -S "$root" -B "$root/build/host" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DJITFLUSH_BUILD_CLI=ON -DJITFLUSH_BUILD_RIG=ON -DJITFLUSH_BUILD_TESTS=ON \
  -DJITFLUSH_AARCH64_BUILD_DIR="$root/build/aarch64" "${qemu_args[@]}" >/dev/null
cmake --build "$root/build/host" -j "$jobs"
