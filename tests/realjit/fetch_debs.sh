#!/usr/bin/env bash
# Unpacks Debian 12 (bookworm) arm64 binary packages into a cached sysroot,
# without touching the machine's apt state or adding a dpkg architecture
# (docs/RUNNING-YOUR-JIT.md, "5. JITs from Debian packages: QEMU's TCG,
# BEAM, HotSpot, V8, PHP": a private apt state for arm64, the
# dependency closure, apt-get download, dpkg-deb -x):
#
#   fetch_debs.sh CACHE NAME PACKAGE...
#
# The sysroot is CACHE/realjit-debs-<recipe>/NAME/root, where <recipe>
# hashes this script and the package list, so a changed list unpacks anew
# and an unchanged one never downloads again (.complete stamp); parallel
# callers wait on a lock file beside it while one of them unpacks. Prints the
# sysroot's path on stdout. The mirror is the machine's own (its Debian
# sources), so no host name is written here.
#
# Exit status: 0 ready, 1 apt failed, 2 usage, 3 no Debian mirror known.
set -euo pipefail

[ $# -ge 3 ] || { echo "usage: fetch_debs.sh CACHE NAME PACKAGE..." >&2; exit 2; }
mkdir -p "$1"
cache=$(cd "$1" && pwd) name=$2
shift 2
recipe=$( (cat "$0"; printf '%s\n' "$@") | sha256sum | cut -c1-12)
top=$cache/realjit-debs-$recipe/$name
root=$top/root
# Tests that share a sysroot run in parallel, and the first run of each
# must not remove what another is unpacking: one unpacks, the others wait
# for it here and then find .complete.
mkdir -p "$(dirname "$top")"
exec 9>"$top.lock"
flock 9
if [ -f "$top/.complete" ]; then
  echo "$root"
  exit 0
fi

mirror=""
if [ -r /etc/apt/sources.list.d/debian.sources ]; then
  mirror=$(awk '/^URIs:/ && $2 !~ /security/ {print $2; exit}' /etc/apt/sources.list.d/debian.sources)
fi
if [ -z "$mirror" ] && [ -r /etc/apt/sources.list ]; then
  mirror=$(awk '$1=="deb" && $2 !~ /security/ {print $2; exit}' /etc/apt/sources.list)
fi
[ -n "$mirror" ] || { echo "fetch_debs.sh: no Debian mirror in the machine's apt sources" >&2; exit 3; }

rm -rf "$top"
state=$top/apt
mkdir -p "$state/lists/partial" "$state/cache/archives/partial" "$top/debs" "$root"
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
for suite in bookworm bookworm-updates; do
  echo "deb [signed-by=$keyring] $mirror $suite main"
done >"$state/sources.list"
: >"$state/status"
opts=(-o APT::Architecture=arm64 -o APT::Architectures::=arm64
      -o Dir::State="$state" -o Dir::State::Lists="$state/lists"
      -o Dir::State::status="$state/status" -o Dir::Cache="$state/cache"
      -o Dir::Etc::SourceList="$state/sources.list" -o Dir::Etc::SourceParts=/nonexistent
      -o Debug::NoLocking=1 -o APT::Sandbox::User=root)
apt-get "${opts[@]}" -qq update >&2 || { echo "fetch_debs.sh: apt-get update failed" >&2; exit 1; }
# The closure of Depends and PreDepends (no Recommends), real packages only.
closure=$(apt-cache "${opts[@]}" depends --recurse --no-recommends --no-suggests --no-conflicts \
            --no-breaks --no-replaces --no-enhances "$@" | awk '/^[a-z0-9]/ {print $1}' | sort -u)
(cd "$top/debs" && apt-get "${opts[@]}" -qq download $closure >&2) ||
  { echo "fetch_debs.sh: apt-get download failed" >&2; exit 1; }
for deb in "$top"/debs/*.deb; do
  dpkg-deb -x "$deb" "$root"
done
rm -rf "$top/debs" "$state"
touch "$top/.complete"
echo "$root"
