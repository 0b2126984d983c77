#!/usr/bin/env bash
# V8 as Debian 12 ships it (nodejs 18 and libnode108, arm64, unpacked into
# a cached sysroot by fetch_debs.sh) under the rig, through rig_check.sh:
#
#   v8_check.sh CACHE RIG_CHECK_OPTIONS...
#
# node runs v8_loop.js, which prints "sum 599996". CpuFeatures::FlushICache
# reads CTR_EL0 on every call (docs/BACKGROUND.md#src-v8).
#
# Exit status: rig_check.sh's, 1 when the sysroot cannot be made, 2 usage.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
[ $# -ge 2 ] || { echo "usage: v8_check.sh CACHE RIG_CHECK_OPTIONS..." >&2; exit 2; }
cache=$1
shift
root=$("$here/fetch_debs.sh" "$cache" v8 nodejs) || exit 1
[ -x "$root/usr/bin/node" ] || { echo "v8_check.sh: no $root/usr/bin/node" >&2; exit 1; }
exec "$here/rig_check.sh" "$@" --rig-arg "--sysroot=$root" -- "$root/usr/bin/node" "$here/v8_loop.js"
