#!/usr/bin/env bash
# Runs any aarch64 program under the emulated big.LITTLE rig:
#   ci/rig.sh qemu-configs/exynos8890.conf [RUNNER OPTIONS] -- PROGRAM [ARGS...]
# RUNNER OPTIONS are jitflush-emu's (--seed N, --report FILE, --sysfs-root DIR,
# --sysroot DIR). Builds the rig first if it is not built yet; exits with the
# runner's status (86: a stale instruction fetch was seen).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
if [ $# -lt 3 ]; then
  echo "usage: ci/rig.sh CONFIG [RUNNER OPTIONS] -- PROGRAM [ARGS...]" >&2
  exit 2
fi
config=$1
shift
runner="$root/build/host/rig/jitflush-emu"
if [ ! -x "$runner" ]; then
  "$root/ci/install/deps.sh" >&2
  "$root/ci/build.sh" >&2
fi
exec "$runner" --config "$config" "$@"
