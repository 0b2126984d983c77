#!/usr/bin/env bash
# Several tests that share one Debian sysroot start at once on a cold
# cache (ctest -j). Each calls fetch_debs.sh; the first must unpack while
# the others wait, and all must get the same complete sysroot. Without the
# lock, a second caller removed the first one's half-unpacked tree and one
# of them failed (CI, stop 31: realjit.php.stock seeds 1-5).
#
#   fetch_debs_parallel.sh
#
# Uses zlib1g (a small closure: zlib1g, libc6, libgcc-s1, gcc-12-base) in a
# new cache of its own, so the run is always cold.
#
# Exit status: 0 pass, 1 a caller failed or the sysroots differ.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cache=$(mktemp -d)
trap 'rm -rf "$cache"' EXIT

callers=3
for i in $(seq "$callers"); do
  "$here/fetch_debs.sh" "$cache" zlib zlib1g >"$cache/out.$i" 2>"$cache/err.$i" &
  pids[i]=$!
done
status=0
for i in $(seq "$callers"); do
  if ! wait "${pids[i]}"; then
    echo "fetch_debs_parallel.sh: caller $i failed:" >&2
    cat "$cache/err.$i" >&2
    status=1
  fi
done
[ "$status" = 0 ] || exit 1

first=$(cat "$cache/out.1")
for i in $(seq 2 "$callers"); do
  got=$(cat "$cache/out.$i")
  [ "$got" = "$first" ] ||
    { echo "fetch_debs_parallel.sh: caller $i got $got, caller 1 got $first" >&2; exit 1; }
done
lib=$(find "$first" -name 'libz.so.1*' -type f | head -n 1)
[ -n "$lib" ] || { echo "fetch_debs_parallel.sh: no libz.so.1 in $first" >&2; exit 1; }
[ -f "$(dirname "$first")/.complete" ] ||
  { echo "fetch_debs_parallel.sh: $first is not marked complete" >&2; exit 1; }
echo "fetch_debs_parallel.sh: $callers callers, one sysroot: $first"
