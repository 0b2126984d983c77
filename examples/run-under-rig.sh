#!/usr/bin/env bash
# Runs YOUR aarch64 Linux JIT binary on the emulated big.LITTLE rig, in one
# command, and tells you whether it ever executed code it had not flushed:
#
#   examples/run-under-rig.sh [RUNNER OPTIONS] -- ./my-jit [ARGS...]
#
#   examples/run-under-rig.sh -- ./minimal_jit              # Exynos 8890 (default)
#   examples/run-under-rig.sh --config qemu-configs/tegra186.conf --seed 7 \
#       --report rig.json -- ./my-jit --bench
#
# Options before -- go to the runner, jitflush-emu (DESIGN.md section 4):
# --config FILE (default: qemu-configs/exynos8890.conf), --seed N,
# --report FILE.json, --sysfs-root DIR, --sysroot DIR (for a dynamically
# linked program: default /usr/aarch64-linux-gnu). The program may use any
# flush routine: jitflush, __builtin___clear_cache, its own asm.
#
# The first run sets the rig up (Debian packages, QEMU with plugins from
# Debian's source package, about 90 s on 2 cores, cached in .cache/; then the
# runner and plugin in build/rig). Later runs start at once. Set JITFLUSH_EMU
# to use a runner built elsewhere (e.g. build/host/src/emu/jitflush-emu).
#
# Exit status: your program's own status when every fetch was coherent;
# 86 when it ran at least one stale instruction (a missing or too-short
# flush: the runner's last stderr line counts them, --report lists the
# addresses); the runner's 2-5 for its own errors; 64 usage; the failing
# setup step's status when setup fails (its log: build/rig-setup.log).
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)

runner_args=()
have_config=0
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
  case "$1" in
    -h|--help) sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0"; exit 0 ;;
    --config|--config=*) have_config=1 ;;
  esac
  runner_args+=("$1")
  shift
done
if [ $# -lt 2 ]; then
  echo "examples/run-under-rig.sh: give the program after --, e.g. examples/run-under-rig.sh -- ./my-jit" >&2
  exit 64
fi
shift # the --
[ "$have_config" -eq 1 ] || runner_args=(--config "$repo/qemu-configs/exynos8890.conf" "${runner_args[@]}")

runner=${JITFLUSH_EMU:-}
if [ -z "$runner" ]; then
  for candidate in "$repo/build/rig/src/emu/jitflush-emu" "$repo/build/host/src/emu/jitflush-emu"; do
    if [ -x "$candidate" ]; then runner=$candidate; break; fi
  done
fi

if [ -z "$runner" ]; then
  mkdir -p "$repo/build"
  log="$repo/build/rig-setup.log"
  : > "$log"
  echo "examples/run-under-rig.sh: first run: setting up the rig (log: $log)" >&2
  failed() {
    echo "examples/run-under-rig.sh: $1 failed (status $2); the end of $log:" >&2
    tail -n 30 "$log" >&2
    exit "$2"
  }
  # Each setup step's output goes to the log.
  step() {
    local rc=0
    "$@" >>"$log" 2>&1 || rc=$?
    [ "$rc" -eq 0 ] || failed "'$*'" "$rc"
  }
  step "$repo/ci/install-deps.sh"
  # ci/build-qemu.sh's last stdout line is the cached QEMU prefix.
  rc=0
  qemu_prefix=$("$repo/ci/build-qemu.sh" 2>>"$log" | tail -n 1) || rc=$?
  [ "$rc" -eq 0 ] || failed ci/build-qemu.sh "$rc"
  qemu="$qemu_prefix/bin/qemu-aarch64"
  [ -x "$qemu" ] || { echo "examples/run-under-rig.sh: ci/build-qemu.sh gave no qemu-aarch64 ($qemu)" >&2; exit 1; }
  # Only the rig: no tests, no CLI.
  step cmake -S "$repo" -B "$repo/build/rig" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DJITFLUSH_BUILD_TESTS=OFF -DJITFLUSH_BUILD_CLI=OFF -DJITFLUSH_BUILD_RIG=ON \
    -DJITFLUSH_QEMU_AARCH64="$qemu"
  step cmake --build "$repo/build/rig" -j 2
  runner="$repo/build/rig/src/emu/jitflush-emu"
  [ -x "$runner" ] || { echo "examples/run-under-rig.sh: $runner was not built (see $log)" >&2; exit 1; }
fi

exec "$runner" "${runner_args[@]}" -- "$@"
