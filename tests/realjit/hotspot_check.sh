#!/usr/bin/env bash
# OpenJDK 17's HotSpot as Debian 12 ships it (openjdk-17-jre-headless,
# arm64, unpacked into a cached sysroot by fetch_debs.sh) under the rig,
# through rig_check.sh:
#
#   hotspot_check.sh CACHE OUT MODE RIG_CHECK_OPTIONS...
#
# MODE is xint (-Xint: the template interpreter only, generated at start)
# or tiered (the default compilers too). Hello.java is compiled with the
# host's javac into OUT; it prints "sum 59998". ICache::invalidate_range
# calls libgcc_s's __clear_cache, which latches CTR_EL0.
#
# Exit status: rig_check.sh's, 1 when the sysroot or the class cannot be
# made, 2 usage, 77 when the host has no javac (CTest shows it as skipped).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
[ $# -ge 4 ] || { echo "usage: hotspot_check.sh CACHE OUT xint|tiered RIG_CHECK_OPTIONS..." >&2; exit 2; }
cache=$1 mode=$3
mkdir -p "$2"
out=$(cd "$2" && pwd)
shift 3
case "$mode" in
  xint) flags=(-Xint) ;;
  tiered) flags=() ;;
  *) echo "hotspot_check.sh: MODE must be xint or tiered, not '$mode'" >&2; exit 2 ;;
esac
command -v javac >/dev/null || { echo "hotspot_check.sh: no javac on this host: skipped" >&2; exit 77; }
root=$("$here/fetch_debs.sh" "$cache" hotspot openjdk-17-jre-headless) || exit 1
java=$root/usr/lib/jvm/java-17-openjdk-arm64/bin/java
[ -x "$java" ] || { echo "hotspot_check.sh: no $java" >&2; exit 1; }
if [ ! "$out/Hello.class" -nt "$here/Hello.java" ]; then
  javac --release 17 -d "$out" "$here/Hello.java" || exit 1
fi
# No perf data file and no class-data sharing archive: neither is in the
# sysroot's writable state, and both only add mappings.
exec "$here/rig_check.sh" "$@" --rig-arg "--sysroot=$root" -- \
  "$java" ${flags[@]+"${flags[@]}"} -XX:-UsePerfData -Xshare:off -cp "$out" Hello
