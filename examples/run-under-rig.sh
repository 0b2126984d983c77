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
# Options before -- go to the runner, jitflush-emu (docs/RIG.md):
# --config FILE (default: qemu-configs/exynos8890.conf), --seed N,
# --report FILE.json, --sysfs-root DIR, --sysroot DIR (for a dynamically
# linked program: default /usr/aarch64-linux-gnu). The program may use any
# flush routine: jitflush, __builtin___clear_cache, its own asm.
#
# The first run sets the rig up, one line per step as it starts, with what
# it took the first time on 2 cores (ci/install/setup-steps.sh): Debian packages,
# QEMU with plugins from Debian's source package (about 2 min, cached in
# .cache/qemu), then the runner and plugin in build/rig (about 10 s). Later
# runs print nothing of their own. Set JITFLUSH_EMU to use a runner built
# elsewhere (e.g. build/host/rig/jitflush-emu).
#
# Exit status: your program's own status when every fetch was coherent;
# 86 when it ran at least one stale instruction (a missing or too-short
# flush: stderr has one block per finding naming the flush routine and its
# caller, the last line counts them, --report and --sarif hold them); the
# runner's 2-7 for its own errors (6: the program cannot run on the rig, 7:
# QEMU stopped before its first instruction); 64 usage; the failing
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
  for candidate in "$repo/build/rig/rig/jitflush-emu" "$repo/build/host/rig/jitflush-emu"; do
    if [ -x "$candidate" ]; then runner=$candidate; break; fi
  done
fi

if [ -z "$runner" ]; then
  runner="$("$repo/ci/install/rig.sh")/jitflush-emu"
fi

exec "$runner" "${runner_args[@]}" -- "$@"
