#!/usr/bin/env bash
# Builds both trees with the CMake presets (CMakePresets.json): aarch64
# (cross: library, CLI, target tests, guest programs) first, then host
# (library, host tests, the rig, and the host-side drivers that run the
# aarch64 programs under it), with the QEMU that ci/build-qemu.sh built.
# Usage: ci/build.sh [--no-rig]     (--no-rig: skip building QEMU)
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=${JITFLUSH_JOBS:-$(nproc)}

qemu_args=()
if [ "${1:-}" != "--no-rig" ]; then
  qemu_prefix=$(ci/build-qemu.sh | tail -n 1)
  qemu_args=(-DJITFLUSH_QEMU_AARCH64="$qemu_prefix/bin/qemu-aarch64")
fi

cmake --preset aarch64 >/dev/null
cmake --build --preset aarch64 -j "$jobs"
cmake --preset host "${qemu_args[@]}" >/dev/null
cmake --build --preset host -j "$jobs"
