#!/usr/bin/env bash
# Builds both trees with the CMake presets (CMakePresets.json): aarch64
# (cross: library, CLI, target tests, guest programs) first, then host
# (library, host tests, the rig, and the host-side drivers that run the
# aarch64 programs under it), with the QEMU that ci/install/qemu.sh built.
# Usage: ci/build.sh [--no-rig]     (--no-rig: skip building QEMU)
#
# Which QEMU (docs/RIG.md, "Which QEMU"): the one named, or none. A build/host
# configured with -DJITFLUSH_QEMU_AARCH64=<a QEMU outside .cache/qemu> keeps
# it; otherwise JITFLUSH_QEMU_TARBALL (with JITFLUSH_QEMU_TARBALL_SHA256) or
# JITFLUSH_QEMU_VERSION choose what ci/install/qemu.sh builds, and its default
# when neither is set. A tree's own QEMU and one named in the environment are
# refused together (exit 3, naming both); a change of QEMU is said on stderr.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
jobs=${JITFLUSH_JOBS:-$(nproc)}

qemu_args=()
if [ "${1:-}" != "--no-rig" ]; then
  had=""
  [ ! -f build/host/CMakeCache.txt ] ||
    had=$(sed -n 's/^JITFLUSH_QEMU_AARCH64:[A-Z]*=//p' build/host/CMakeCache.txt)
  case "$had" in
    ""|"$repo/.cache/qemu/"*) own="" ;;
    *) own=$had ;;
  esac
  named=${JITFLUSH_QEMU_TARBALL:+JITFLUSH_QEMU_TARBALL=$JITFLUSH_QEMU_TARBALL}
  named=${named:-${JITFLUSH_QEMU_VERSION:+JITFLUSH_QEMU_VERSION=$JITFLUSH_QEMU_VERSION}}
  if [ -n "$own" ] && [ -n "$named" ]; then
    echo "ci/build.sh: build/host is configured with -DJITFLUSH_QEMU_AARCH64=$own, and $named" \
      "names another QEMU: unset it, or drop the tree's (cmake --preset host -UJITFLUSH_QEMU_AARCH64)" >&2
    exit 3
  fi
  if [ -n "$own" ]; then
    echo "ci/build.sh: build/host keeps the QEMU it was configured with, $own" >&2
    qemu=$own
  else
    build_qemu=(ci/install/qemu.sh)
    if [ -n "${JITFLUSH_QEMU_TARBALL:-}" ]; then
      build_qemu+=(--tarball "$JITFLUSH_QEMU_TARBALL")
      [ -z "${JITFLUSH_QEMU_TARBALL_SHA256:-}" ] || build_qemu+=(--sha256 "$JITFLUSH_QEMU_TARBALL_SHA256")
    fi
    qemu_prefix=$("${build_qemu[@]}" | tail -n 1)
    qemu="$qemu_prefix/bin/qemu-aarch64"
    if [ -n "$had" ] && [ "$had" != "$qemu" ]; then
      echo "ci/build.sh: build/host was configured for $had; configuring it for $qemu${named:+ ($named)}" >&2
    fi
  fi
  qemu_args=(-DJITFLUSH_QEMU_AARCH64="$qemu")
fi

cmake --preset aarch64 >/dev/null
cmake --build --preset aarch64 -j "$jobs"
cmake --preset host "${qemu_args[@]}" >/dev/null
cmake --build --preset host -j "$jobs"
