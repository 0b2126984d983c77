#!/usr/bin/env bash
# Builds jitflush's Debian packages (debian/) with dpkg-buildpackage:
#
#   ci/gen/packages.sh [--lintian] ARCH... [--out DIR]
#
#   ARCH amd64   a native build of the source package and the binaries
#   ARCH arm64   a cross build with Debian's cross toolchain
#                (dpkg-buildpackage -aarm64 -Pcross,nocheck: the arm64
#                jitflush-info cannot run during the build)
#   --no-rig     leave out jitflush-rig (built by default for the machine's
#                own architecture, with the build profile pkg.jitflush.rig:
#                the rig and the plugin-enabled qemu-aarch64 of
#                ci/install/qemu.sh, which builds it first when it is not
#                cached, about six minutes; JITFLUSH_RIG_QEMU names another
#                PREFIX/bin/qemu-aarch64 instead)
#   --lintian    then run lintian on each build's .changes; any error or
#                warning fails (debian/source/lintian-overrides and the
#                packages' own overrides say why a tag is overridden)
#   --out DIR    where the results go (default build/packages): DIR/ARCH/
#                holds the .deb files, the .changes and .buildinfo, for amd64
#                the source package, and build.log
#
# The source package is the working tree as git sees it (tracked files and
# new ones that are not ignored), copied to DIR/ARCH/work; the upstream
# tarball is made from that copy without debian/. A build whose inputs are
# unchanged (same files, same contents, same arch) is not redone: DIR/ARCH/
# .stamp holds their hash. The last line on stdout for each ARCH is DIR/ARCH.
#
# Needs the Debian packages ci/install/deps.sh installs (debhelper, lintian,
# crossbuild-essential-arm64 and libc6:arm64 for dpkg-shlibdeps).
# Environment: JITFLUSH_PACKAGE_JOBS  parallel jobs per build (default 2)
#              JITFLUSH_RIG_QEMU     the qemu-aarch64 jitflush-rig ships
# Exit status: 0 built (and lintian clean), 1 a build or lintian failed,
# 2 usage, 3 debian/changelog's version is not the header's.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
out=$root/build/packages
arches=()
lintian=0
rig=1
jobs=${JITFLUSH_PACKAGE_JOBS:-2}

usage() { sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0" >&2; exit 2; }
while [ $# -gt 0 ]; do
  case "$1" in
    amd64|arm64) arches+=("$1"); shift ;;
    --lintian) lintian=1; shift ;;
    --no-rig) rig=0; shift ;;
    --out) [ $# -ge 2 ] || usage; out=$(mkdir -p "$2" && cd "$2" && pwd); shift 2 ;;
    *) usage ;;
  esac
done
[ "${#arches[@]}" -gt 0 ] || usage

say() { echo "build-packages: $*" >&2; }

# The one version: include/jitflush.h (CMakeLists.txt reads it too).
header_version=$(sed -n 's/^#define JITFLUSH_VERSION_STRING "\(.*\)"$/\1/p' "$root/include/jitflush.h")
deb_version=$(dpkg-parsechangelog -l "$root/debian/changelog" -SVersion)
upstream=${deb_version%-*}
if [ "$upstream" != "$header_version" ]; then
  say "debian/changelog is at $deb_version, but include/jitflush.h says $header_version: add a changelog entry (dch -v $header_version-1)"
  exit 3
fi

# The files of the source package, NUL-separated, relative to $root.
source_files() {
  if git -C "$root" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    git -C "$root" ls-files -z --cached --others --exclude-standard |
      while IFS= read -r -d '' f; do [ -e "$root/$f" ] || [ -L "$root/$f" ] && printf '%s\0' "$f"; done
  else
    (cd "$root" && find . -path ./build -prune -o -path ./.cache -prune -o -path ./.git -prune -o \
      \( -type f -o -type l \) -printf '%P\0')
  fi | sort -z
}

# The qemu-aarch64 jitflush-rig ships (JITFLUSH_RIG_QEMU, else
# ci/install/qemu.sh's, built when not cached): it must run here, so only
# the machine's own architecture gets the rig.
rig_qemu() {
  if [ -n "${JITFLUSH_RIG_QEMU:-}" ]; then
    [ -x "$JITFLUSH_RIG_QEMU" ] || { say "JITFLUSH_RIG_QEMU=$JITFLUSH_RIG_QEMU is not an executable"; exit 1; }
    echo "$JITFLUSH_RIG_QEMU"
    return
  fi
  local prefix
  prefix=$("$root/ci/install/qemu.sh" --cached 2>/dev/null) || {
    say "no plugin-enabled QEMU is cached: ci/install/qemu.sh builds one (about six minutes)"
    prefix=$("$root/ci/install/qemu.sh" | tail -n 1) || { say "ci/install/qemu.sh failed (above)"; exit 1; }
  }
  echo "$prefix/bin/qemu-aarch64"
}

build_one() {
  local arch=$1 dir=$out/$1 hash qemu=""
  if [ "$rig" = 1 ] && [ "$arch" = "$(dpkg --print-architecture)" ]; then
    qemu=$(rig_qemu)
  fi
  hash=$( (echo "$arch"; source_files | tr '\0' '\n'; source_files | (cd "$root" && xargs -0 sha256sum)
    [ -z "$qemu" ] || sha256sum <"$qemu") | sha256sum | cut -d' ' -f1)
  if [ -f "$dir/.stamp" ] && [ "$(cat "$dir/.stamp")" = "$hash" ] && ls "$dir"/*.changes >/dev/null 2>&1; then
    say "$arch: up to date ($dir)"
  else
    say "$arch: dpkg-buildpackage of jitflush $deb_version${qemu:+ with jitflush-rig} into $dir (about a minute on 2 cores${qemu:+, two with the rig})"
    rm -rf "$dir"
    mkdir -p "$dir/work"
    local src=$dir/work/jitflush-$upstream
    mkdir -p "$src"
    source_files | (cd "$root" && tar --null -T - -cf -) | tar -C "$src" -xf -
    local flags=(-us -uc -j"$jobs")
    [ -z "$qemu" ] || flags+=(-Ppkg.jitflush.rig)
    if [ "$arch" = amd64 ]; then
      # The upstream tarball: the same tree without debian/.
      tar -C "$dir/work" --exclude="jitflush-$upstream/debian" --sort=name --owner=0 --group=0 \
        -cJf "$dir/work/jitflush_$upstream.orig.tar.xz" "jitflush-$upstream"
    else
      flags+=(-b -a"$arch" -Pcross,nocheck)
    fi
    local rc=0
    if [ "$arch" = amd64 ]; then
      (cd "$src" && JITFLUSH_RIG_QEMU=$qemu dpkg-buildpackage "${flags[@]}") >"$dir/build.log" 2>&1 || rc=$?
    else
      (cd "$src" && DEB_BUILD_OPTIONS="nocheck ${DEB_BUILD_OPTIONS:-}" dpkg-buildpackage "${flags[@]}") \
        >"$dir/build.log" 2>&1 || rc=$?
    fi
    if [ "$rc" -ne 0 ]; then
      say "$arch: dpkg-buildpackage failed (status $rc); the last lines of $dir/build.log:"
      tail -n 30 "$dir/build.log" >&2
      exit 1
    fi
    find "$dir/work" -maxdepth 1 -type f -exec mv -t "$dir" {} +
    rm -rf "$dir/work"
    echo "$hash" >"$dir/.stamp"
  fi
  if [ "$lintian" = 1 ]; then
    # --fail-on: lintian's own verdict; the tags are printed either way.
    if ! lintian --fail-on error,warning --display-info "$dir"/*.changes >"$dir/lintian.txt" 2>&1; then
      say "$arch: lintian reports errors or warnings:"
      grep -E '^[EW]:' "$dir/lintian.txt" >&2 || cat "$dir/lintian.txt" >&2
      exit 1
    fi
    say "$arch: lintian: no error, no warning ($(grep -c '^[IPX]:' "$dir/lintian.txt" || true) info tags in $dir/lintian.txt)"
  fi
  echo "$dir"
}

for a in "${arches[@]}"; do
  build_one "$a"
done
