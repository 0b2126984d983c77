#!/usr/bin/env bash
# Installs every Debian package jitflush's build, tests and rig need.
# Idempotent: apt-get skips what is already there. Needs root (CI runs as root).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)

if [ "$(id -u)" -ne 0 ]; then
  echo "ci/install-deps.sh: must run as root to install Debian packages" >&2
  exit 3
fi

"$here/apt-sources.sh"

# Build and host tests.
pkgs=(cmake ninja-build g++ gcc pkg-config googletest libgtest-dev libcapstone-dev)
# Cross toolchain for the aarch64 target build.
pkgs+=(gcc-aarch64-linux-gnu g++-aarch64-linux-gnu libc6-dev-arm64-cross)
# Stock qemu-aarch64 for the target tests (plain TCG, no plugins).
pkgs+=(qemu-user)
# The rig: the plugin's deps and what QEMU's own build needs.
pkgs+=(libglib2.0-dev device-tree-compiler dpkg-dev python3-venv flex bison)
# JSON in the C++ tests (scenario tests read the runner's report).
pkgs+=(nlohmann-json3-dev)
# Fuzzing and sanitizers.
pkgs+=(clang libclang-rt-14-dev)

missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ "${#missing[@]}" -gt 0 ]; then
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# qemu-user from bookworm (7.2) lacks the neoverse-n1 and a64fx models the
# target tests use; the backport (10.0) has them.
if ! dpkg --compare-versions "$(dpkg-query -W -f='${Version}' qemu-user)" ge 1:9; then
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends -t bookworm-backports qemu-user
fi
# meson >= 1.5 for QEMU >= 10.1.
if ! dpkg --compare-versions "$(dpkg-query -W -f='${Version}' meson 2>/dev/null || echo 0)" ge 1.5; then
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends -t bookworm-backports meson
fi
