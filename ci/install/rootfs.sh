#!/usr/bin/env bash
# Makes a fresh Debian 12 (bookworm) root filesystem with Debian's own
# debootstrap (variant minbase) and caches it as a tarball, for the test
# that installs the jitflush-rig package into a machine without the
# repository (tests/packages, packages.amd64.rig_in_fresh_debian):
#
#   ci/install/rootfs.sh            build it unless cached; print the tarball
#   ci/install/rootfs.sh --cached   print it when cached, else exit 1
#
# The root also holds the runtime libraries jitflush-rig depends on
# (--include), so that installing the package there needs no download;
# nothing of jitflush is in it. The last line on stdout is the tarball,
# <repo>/.cache/rootfs/bookworm-minbase.tar (JITFLUSH_ROOTFS_CACHE: another
# folder). Needs root and debootstrap (ci/install/deps.sh installs it), and
# the Debian mirror (JITFLUSH_DEBIAN_MIRROR, default the one apt uses).
#
# Exit status: 0, 1 not cached (--cached), 3 not root or no debootstrap,
# 4 debootstrap failed (its log is named), 64 usage.
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
cache=${JITFLUSH_ROOTFS_CACHE:-$repo/.cache/rootfs}
tarball=$cache/bookworm-minbase.tar
# What jitflush-rig's Depends resolve to on bookworm (debian/control's
# shlibs and rig:Lazy); apt installs any other from the mirror.
include=libglib2.0-0,libjson-glib-1.0-0,libcapstone4,libdw1,zlib1g

die() { local rc=$1; shift; echo "ci/install/rootfs.sh: $*" >&2; exit "$rc"; }

case "${1:-}" in
  --cached) [ -s "$tarball" ] || exit 1; echo "$tarball"; exit 0 ;;
  "") ;;
  *) die 64 "usage: ci/install/rootfs.sh [--cached]" ;;
esac
if [ -s "$tarball" ]; then
  echo "$tarball"
  exit 0
fi
[ "$(id -u)" -eq 0 ] || die 3 "debootstrap needs root"
command -v debootstrap >/dev/null || die 3 "debootstrap is not installed (ci/install/deps.sh)"
mirror=${JITFLUSH_DEBIAN_MIRROR:-$(sed -n 's/^URIs: *\([^ ]*debian\)$/\1/p' /etc/apt/sources.list.d/debian.sources 2>/dev/null | head -n 1)}
[ -n "$mirror" ] || mirror=$(awk '$1 == "deb" && $3 == "bookworm" {print $2; exit}' /etc/apt/sources.list 2>/dev/null)
[ -n "$mirror" ] || die 64 "no Debian mirror found in apt's sources: set JITFLUSH_DEBIAN_MIRROR"
mkdir -p "$cache"
exec 9>"$cache/.lock"
flock 9
[ -s "$tarball" ] && { echo "$tarball"; exit 0; }
work=$(mktemp -d "$cache/work.XXXXXX")
trap 'rm -rf "$work"' EXIT
echo "ci/install/rootfs.sh: debootstrap --variant=minbase bookworm from $mirror (a few minutes)" >&2
debootstrap --variant=minbase --include="$include" bookworm "$work/root" "$mirror" >"$cache/debootstrap.log" 2>&1 ||
  die 4 "debootstrap failed: $cache/debootstrap.log"
tar -C "$work/root" -cf "$tarball.tmp" .
mv "$tarball.tmp" "$tarball"
echo "$tarball"
