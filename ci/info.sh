#!/usr/bin/env bash
# The README's first command: set everything up and show what jitflush sees
# on an emulated Samsung Exynos 8890 (Galaxy S7), the big.LITTLE SoC whose
# mismatched I-cache lines broke libgcc's __clear_cache.
#
#   ci/info.sh                          table for qemu-configs/exynos8890.conf
#   ci/info.sh --config FILE            another emulated SoC (qemu-configs/*.conf)
#   ci/info.sh --native                 this machine's own build, run directly
#                                       (on an ARM64 machine: the real thing)
#   ci/info.sh [...] -- --json          arguments after -- go to jitflush-info
#                                       (--json, --selftest[=SECONDS], --help)
#
# Steps, each idempotent and silent when there is nothing to do:
#   1. ci/install-deps.sh  Debian packages (needs root only when some are missing)
#   2. ci/build-qemu.sh    plugin-enabled qemu-aarch64, cached in .cache/qemu
#   3. ci/build.sh         build/aarch64, then build/host
#   4. build/host/src/emu/jitflush-emu --config FILE -- build/aarch64/src/cli/jitflush-info ARGS
# Build output goes to build/info.log and is shown only when a step fails.
#
# Exit status: jitflush-info's own (0 ok, 1 stride not established safely or
# selftest failure, 2 its usage error), 86 when the rig saw a stale fetch,
# the runner's own codes (2-5) for its errors, 64 for a usage error of this
# script, and the failing step's status when setup fails.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
config="$repo/qemu-configs/exynos8890.conf"
native=0
info_args=()

usage() {
  sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0"
}

while [ $# -gt 0 ]; do
  case "$1" in
    --config)
      [ $# -ge 2 ] || { echo "ci/info.sh: --config needs a file" >&2; exit 64; }
      config=$2
      shift 2
      ;;
    --config=*) config=${1#--config=}; shift ;;
    --native) native=1; shift ;;
    -h|--help) usage; exit 0 ;;
    --) shift; info_args=("$@"); break ;;
    *) echo "ci/info.sh: unknown argument '$1' (arguments for jitflush-info go after --)" >&2; exit 64 ;;
  esac
done

# A relative --config is relative to where the user stands, not to the repo.
case "$config" in
  /*) ;;
  *) config="$PWD/$config" ;;
esac
if [ "$native" -eq 0 ] && [ ! -f "$config" ]; then
  echo "ci/info.sh: no such config: $config (see $repo/qemu-configs/)" >&2
  exit 64
fi

mkdir -p "$repo/build"
log="$repo/build/info.log"
: > "$log"

# Runs a setup step with its output in the log; on failure shows the log's
# tail and stops with the step's status.
step() {
  local name=$1
  shift
  local rc=0
  "$@" >>"$log" 2>&1 || rc=$?
  if [ "$rc" -ne 0 ]; then
    echo "ci/info.sh: $name failed (status $rc); the last lines of $log:" >&2
    tail -n 40 "$log" >&2
    exit "$rc"
  fi
}

# Does nothing when every package is there; names what is missing otherwise.
step "ci/install-deps.sh" "$repo/ci/install-deps.sh"

if [ "$native" -eq 0 ]; then
  # The last stdout line of build-qemu.sh is the cached prefix.
  qemu_out=$(mktemp)
  trap 'rm -f "$qemu_out"' EXIT
  step "ci/build-qemu.sh" bash -c '"$1" > "$2"' _ "$repo/ci/build-qemu.sh" "$qemu_out"
  qemu_prefix=$(tail -n 1 "$qemu_out")
  if [ ! -x "$qemu_prefix/bin/qemu-aarch64" ]; then
    echo "ci/info.sh: ci/build-qemu.sh did not name a prefix with bin/qemu-aarch64 (got '$qemu_prefix')" >&2
    exit 1
  fi
  export JITFLUSH_QEMU_AARCH64="$qemu_prefix/bin/qemu-aarch64"
fi

step "ci/build.sh" "$repo/ci/build.sh"

if [ "$native" -eq 1 ]; then
  exe="$repo/build/host/src/cli/jitflush-info"
  [ -x "$exe" ] || { echo "ci/info.sh: $exe was not built" >&2; exit 1; }
  exec "$exe" ${info_args[@]+"${info_args[@]}"}
fi

runner="$repo/build/host/src/emu/jitflush-emu"
exe="$repo/build/aarch64/src/cli/jitflush-info"
for f in "$runner" "$exe"; do
  [ -x "$f" ] || { echo "ci/info.sh: $f was not built (see $log)" >&2; exit 1; }
done
exec "$runner" --qemu "$JITFLUSH_QEMU_AARCH64" --config "$config" -- "$exe" ${info_args[@]+"${info_args[@]}"}
