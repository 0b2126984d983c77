#!/usr/bin/env bash
# Builds a plugin-enabled qemu-aarch64 (linux-user only) from Debian's qemu
# source package and caches it under <repo>/.cache/qemu/<version>/:
#
#   bin/qemu-aarch64        the emulator, built with --enable-plugins
#   include/qemu-plugin.h   the plugin API header the rig's plugin compiles against
#   .complete               stamp, written only after the build was verified
#
# Why build at all: Debian's qemu-user / qemu-user-static are static builds
# without -plugin, and the rig's plugin needs qemu_plugin_write_register,
# which first shipped in QEMU 10.1.
#
# The last line on stdout is the absolute path of the cached prefix, so that
# other scripts can do   prefix=$(ci/build-qemu.sh | tail -1)
# Progress goes to stderr. A second run with a complete cache does no work.
#
# ci/build-qemu.sh --cached: build nothing and ask apt nothing; print the
# prefix and exit 0 when a complete build is cached, exit 1 otherwise.
#
# Environment:
#   JITFLUSH_QEMU_VERSION  try only this Debian version (e.g. 1:10.2.2+ds-1 or 10.2.2)
#   JITFLUSH_QEMU_JOBS     parallel build jobs (default 2: the CI machine has 2 cores)
#
# Exit status: 0 success, 3 no usable source version, 4 build or check failed.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
cache_root="$repo/.cache/qemu"
jobs=${JITFLUSH_QEMU_JOBS:-2}
min_upstream=10.1         # qemu_plugin_write_register
preferred_upstream=10.2.2 # the version the findings in docs/RIG.md were verified with

log() { echo "build-qemu: $*" >&2; }
die() { local rc=$1; shift; echo "build-qemu: error: $*" >&2; exit "$rc"; }

# "1:10.2.2+ds-1" -> "10.2.2"
upstream_of() { local v=${1#*:}; v=${v%%-*}; echo "${v%%+*}"; }

version_ge() { dpkg --compare-versions "$1" ge "$2"; }

# The candidate Debian versions in the order we try them: the preferred
# upstream release first, then every other version >= min_upstream, newest
# first. apt-cache madison lists both binary and source entries; we want the
# source ones.
candidates() {
  if [ -n "${JITFLUSH_QEMU_VERSION:-}" ]; then
    local want=$JITFLUSH_QEMU_VERSION
    apt-cache madison qemu 2>/dev/null | awk -F'|' '/Sources/ {gsub(/ /,"",$2); print $2}' |
      while read -r v; do
        if [ "$v" = "$want" ] || [ "$(upstream_of "$v")" = "$want" ]; then echo "$v"; fi
      done
    return
  fi
  local all
  all=$(apt-cache madison qemu 2>/dev/null | awk -F'|' '/Sources/ {gsub(/ /,"",$2); print $2}' | sort -u)
  local v
  for v in $all; do
    [ "$(upstream_of "$v")" = "$preferred_upstream" ] && echo "$v"
  done
  for v in $all; do
    local up
    up=$(upstream_of "$v")
    [ "$up" = "$preferred_upstream" ] && continue
    version_ge "$up" "$min_upstream" && echo "$v"
  done | sort -r -V
}

is_complete() { [ -f "$1/.complete" ] && [ -x "$1/bin/qemu-aarch64" ] && [ -f "$1/include/qemu-plugin.h" ]; }

# The emulator must run, say which version it is, and accept -plugin (a build
# without plugin support rejects the option before looking at the file).
verify() {
  local qemu=$1
  "$qemu" --version >&2 || return 1
  local out
  out=$("$qemu" -plugin /nonexistent-plugin.so /bin/true 2>&1 || true)
  # Expected: "Could not load plugin /nonexistent-plugin.so: ...".
  if printf '%s' "$out" | grep -qi 'unknown option' || ! printf '%s' "$out" | grep -qi 'plugin'; then
    log "qemu-aarch64 does not accept -plugin: $out"
    return 1
  fi
}

# QEMU's configure runs meson through the Python it is given, inside a venv
# that sees the system site-packages; the source package ships no meson wheel
# (python/wheels is empty), so that Python must be able to import a meson
# >= 1.5. A python3 first on PATH (pyenv, a venv) often cannot, so look for
# the one that can.
meson_python() {
  local py
  for py in /usr/bin/python3 "$(command -v python3 || true)"; do
    [ -n "$py" ] && [ -x "$py" ] || continue
    if "$py" -c 'import sys, mesonbuild.coredata as c
v = tuple(int(x) for x in c.version.split(".")[:2])
sys.exit(0 if v >= (1, 5) else 1)' 2>/dev/null; then
      echo "$py"
      return 0
    fi
  done
  return 1
}

build_one() {
  local debver=$1
  local up prefix work
  up=$(upstream_of "$debver")
  prefix="$cache_root/$up"
  work="$cache_root/src/$up"
  rm -rf "$work"
  mkdir -p "$work" "$prefix/bin" "$prefix/include"

  log "fetching the qemu=$debver source package"
  if ! (cd "$work" && apt-get source --download-only "qemu=$debver" >&2); then
    log "cannot fetch qemu=$debver"
    return 1
  fi
  local dsc
  dsc=$(ls "$work"/qemu_*.dsc 2>/dev/null | head -1)
  [ -n "$dsc" ] || { log "no .dsc for qemu=$debver"; return 1; }
  log "unpacking $(basename "$dsc")"
  # Debian's patches are applied too: this is the source Debian itself builds.
  (cd "$work" && dpkg-source --no-check -x "$dsc" tree >&2) || { log "cannot unpack $dsc"; return 1; }

  # The header is all the plugin's compile needs: publish it before the long build.
  cp "$work/tree/include/qemu/qemu-plugin.h" "$prefix/include/qemu-plugin.h"
  log "header ready: $prefix/include/qemu-plugin.h"

  mkdir -p "$work/tree/build"
  local python
  python=$(meson_python) || { log "no Python interpreter with meson >= 1.5 (install meson from bookworm-backports: ci/install-deps.sh)"; return 2; }
  log "configuring (aarch64-linux-user, plugins) with $python"
  (cd "$work/tree/build" && ../configure \
      --target-list=aarch64-linux-user \
      --enable-plugins \
      --disable-system --disable-tools --disable-docs \
      --without-default-features \
      --disable-install-blobs \
      --python="$python" \
      --prefix="$prefix" >&2) || { log "configure failed for $up"; return 2; }
  log "building with -j$jobs (a few minutes)"
  (cd "$work/tree/build" && ninja -j"$jobs" qemu-aarch64 >&2) || { log "build failed for $up"; return 2; }

  install -m 0755 "$work/tree/build/qemu-aarch64" "$prefix/bin/qemu-aarch64"
  verify "$prefix/bin/qemu-aarch64" || return 2
  date -u +%FT%TZ > "$prefix/.complete"
  # The unpacked tree and build folder are large; the prefix is all we keep.
  rm -rf "$work"
  echo "$prefix"
}

# A complete cached build usable without asking apt: the preferred release
# (or JITFLUSH_QEMU_VERSION's), else any complete one >= min_upstream.
cached_prefix() {
  local want=${JITFLUSH_QEMU_VERSION:+$(upstream_of "$JITFLUSH_QEMU_VERSION")}
  if is_complete "$cache_root/${want:-$preferred_upstream}"; then
    echo "$cache_root/${want:-$preferred_upstream}"
    return 0
  fi
  [ -z "$want" ] || return 1
  local d
  for d in "$cache_root"/*/; do
    d=${d%/}
    if is_complete "$d" && version_ge "$(basename "$d")" "$min_upstream"; then
      echo "$d"
      return 0
    fi
  done
  return 1
}

main() {
  if [ "${1:-}" = "--cached" ]; then
    cached_prefix
    return
  fi
  mkdir -p "$cache_root"
  # Several helpers and CI steps may run this at once: one builder at a time.
  exec 9>"$cache_root/.lock"
  flock 9

  # Fastest path: the preferred release is built (no apt query needed).
  if [ -z "${JITFLUSH_QEMU_VERSION:-}" ] && is_complete "$cache_root/$preferred_upstream"; then
    echo "$cache_root/$preferred_upstream"
    return 0
  fi

  local list
  list=$(candidates || true)

  # Fast path: a candidate that is already built.
  local v up
  for v in $list; do
    up=$(upstream_of "$v")
    if is_complete "$cache_root/$up"; then
      echo "$cache_root/$up"
      return 0
    fi
  done
  if [ -n "${JITFLUSH_QEMU_VERSION:-}" ]; then
    up=$(upstream_of "$JITFLUSH_QEMU_VERSION")
    version_ge "$up" "$min_upstream" ||
      die 3 "JITFLUSH_QEMU_VERSION=$JITFLUSH_QEMU_VERSION is older than $min_upstream (the plugin needs qemu_plugin_write_register)"
    if [ -z "$list" ]; then
      is_complete "$cache_root/$up" && { echo "$cache_root/$up"; return 0; }
      die 3 "qemu $JITFLUSH_QEMU_VERSION is not a source version apt knows (apt-cache madison qemu)"
    fi
  fi
  # No apt information (offline, sources not set up): any complete cache >= min.
  if [ -z "$list" ]; then
    local d
    for d in "$cache_root"/*/; do
      d=${d%/}
      up=$(basename "$d")
      if is_complete "$d" && version_ge "$up" "$min_upstream"; then
        echo "$d"
        return 0
      fi
    done
    die 3 "no qemu source version >= $min_upstream is known to apt" \
      "${JITFLUSH_QEMU_VERSION:+(asked for $JITFLUSH_QEMU_VERSION)}; run ci/apt-sources.sh (it adds deb-src for trixie and sid)"
  fi

  log "candidates: $(echo $list)"
  local out rc
  for v in $list; do
    rc=0
    out=$(build_one "$v") || rc=$?
    if [ "$rc" -eq 0 ]; then
      echo "$out"
      return 0
    fi
    if [ "$rc" -eq 1 ]; then
      log "skipping $v (source not available), trying the next candidate"
      continue
    fi
    die 4 "building qemu $v failed (log above); the sources are kept in $cache_root/src/$(upstream_of "$v")"
  done
  die 3 "none of the candidate qemu source versions could be fetched: $(echo $list)"
}

main "$@"
