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
# Steps (ci/install/setup-steps.sh), each announced on one line with its first-run
# time when it has work to do, and silent when everything is cached:
#   1. ci/install/deps.sh  Debian packages (needs root only when some are missing)
#   2. ci/install/qemu.sh  plugin-enabled qemu-aarch64, cached in .cache/qemu
#   3. build/aarch64       jitflush-info only (the aarch64 preset)
#   4. build/host          the rig's runner and plugin only (the host preset)
#   5. build/host/rig/jitflush-emu --config FILE -- build/aarch64/cli/jitflush-info ARGS
# ci/build.sh builds the rest of both trees (tests); ci/info.sh does not
# wait for it. Build output goes to build/info.log, shown only on failure.
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
jf_me=ci/info.sh
jf_repo=$repo
jf_log="$repo/build/info.log"
: > "$jf_log"
# shellcheck source=install/setup-steps.sh
. "$here/install/setup-steps.sh"

jf_step_deps
if [ "$native" -eq 1 ]; then
  jf_step_build "jitflush-info for this machine" "$jf_time_info" "$repo/build/host" jitflush-info \
    cli/jitflush-info cmake -S "$repo" --preset host
  exec "$repo/build/host/cli/jitflush-info" ${info_args[@]+"${info_args[@]}"}
fi

jf_step_qemu
jf_step_build "jitflush-info for aarch64" "$jf_time_info" "$repo/build/aarch64" jitflush-info \
  cli/jitflush-info cmake -S "$repo" --preset aarch64
jf_step_build "the rig's runner and QEMU plugin" "$jf_time_rig" "$repo/build/host" jitflush-emu \
  rig/jitflush-emu cmake -S "$repo" --preset host -DJITFLUSH_QEMU_AARCH64="$jf_qemu"

runner="$repo/build/host/rig/jitflush-emu"
exe="$repo/build/aarch64/cli/jitflush-info"
for f in "$runner" "$exe"; do
  [ -x "$f" ] || { echo "ci/info.sh: $f was not built (see $jf_log)" >&2; exit 1; }
done
exec "$runner" --qemu "$jf_qemu" --config "$config" -- "$exe" ${info_args[@]+"${info_args[@]}"}
