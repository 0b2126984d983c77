#!/usr/bin/env bash
# Builds a plugin-enabled qemu-aarch64 (linux-user only) and caches it under
# <repo>/.cache/qemu/<version>/:
#
#   bin/qemu-aarch64        the emulator, built with --enable-plugins
#   include/qemu-plugin.h   the plugin API header the rig's plugin compiles against
#   .complete               stamp: where the source came from, its plugin API
#                           version and when; written last, only after a probe
#                           plugin built against that header loaded into that
#                           qemu-aarch64
#
# Two sources (docs/RIG.md, "Which QEMU"):
#   ci/install/qemu.sh                   Debian's qemu source package (apt-get
#                                        source): 10.2.2 when apt knows it,
#                                        else the newest version >= 10.1
#   ci/install/qemu.sh --tarball FILE [--sha256 HEX]
#                                        a QEMU release tarball
#                                        (qemu-X.Y.Z.tar.xz, from the QEMU
#                                        project's download page), on any
#                                        distribution; its SHA-256 must match
#                                        the table below, or HEX for a
#                                        tarball the table does not list
#
# Why build at all: Debian's qemu-user / qemu-user-static are static builds
# without -plugin, and the rig's plugin needs qemu_plugin_write_register,
# which first shipped in QEMU 10.1 (plugin API 5).
#
# The last line on stdout is the absolute path of the cached prefix, so that
# other scripts can do   prefix=$(ci/install/qemu.sh | tail -1)
# Progress goes to stderr. A second run with a complete cache does no work.
# A failed build leaves no .complete, so the next run builds again instead
# of using it, and the message names the step that failed.
#
# ci/install/qemu.sh --cached [--tarball FILE]: build nothing and ask apt
# nothing; print the prefix and exit 0 when a complete build of what is
# asked for is cached (with --tarball: one built from a file with FILE's
# SHA-256; with JITFLUSH_QEMU_VERSION: that version), exit 1 otherwise.
#
# The cache keys on what was asked for: a tarball's build is reused only
# for a file with the same SHA-256, whatever else is cached; a tarball of a
# version already cached from another source replaces that build (and says
# so). JITFLUSH_QEMU_VERSION with a tarball of another version is refused
# (exit 3, naming both). The sources of a build live in one work folder,
# <cache>/src/<name>; a build removes every work folder left before it
# starts and its own when it succeeds, so after a failure exactly one is
# left, the one the message names.
#
# Environment:
#   JITFLUSH_QEMU_VERSION  try only this Debian version (e.g. 1:10.2.2+ds-1 or 10.2.2);
#                          with --tarball, the version the tarball must hold
#   JITFLUSH_QEMU_JOBS     parallel build jobs (default 2: the CI machine has 2 cores)
#   JITFLUSH_QEMU_CACHE    the cache folder (default <repo>/.cache/qemu)
#
# Exit status: 0 success, 3 no usable source version, 4 build or check failed
# (the message names the step), 5 a tarball whose SHA-256 is wrong or not
# known (give --sha256), 64 usage error.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
cache_root=${JITFLUSH_QEMU_CACHE:-$repo/.cache/qemu}
jobs=${JITFLUSH_QEMU_JOBS:-2}
min_upstream=10.1         # qemu_plugin_write_register
preferred_upstream=10.2.2 # the version the findings in docs/RIG.md were verified with

# Release tarballs whose SHA-256 the script knows: version, file, SHA-256
# as the QEMU project publishes them. Any other needs --sha256.
known_tarballs="
10.2.2 qemu-10.2.2.tar.xz 784b296ff29c1417aa72323abcb2d2ea9ab9771724f577dcd785c3b04f21e176
"

log() { echo "ci/install/qemu.sh: $*" >&2; }
die() { local rc=$1; shift; echo "ci/install/qemu.sh: error: $*" >&2; exit "$rc"; }

usage() {
  sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0"
}

# "1:10.2.2+ds-1" -> "10.2.2"
upstream_of() { local v=${1#*:}; v=${v%%-*}; echo "${v%%+*}"; }

version_ge() { dpkg --compare-versions "$1" ge "$2"; }

# The plugin API versions the rig's plugin supports, from the one place
# that declares them (rig/plugin/plugin_qemu_api.h).
api_bound() { sed -n "s/^#define PLUGIN_QEMU_API_$1 \([0-9]*\).*/\1/p" "$repo/rig/plugin/plugin_qemu_api.h"; }

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

# The complete cached build made from a tarball whose SHA-256 is $1, if any.
tarball_prefix() {
  local stamp
  for stamp in "$cache_root"/*/.complete; do
    [ -f "$stamp" ] || continue
    if grep -q "^source: tarball .* sha256 $1\$" "$stamp" && is_complete "$(dirname "$stamp")"; then
      dirname "$stamp"
      return 0
    fi
  done
  return 1
}

# Fails, naming both, when JITFLUSH_QEMU_VERSION asks for another version
# than $1, the version of what $2 names.
same_version_as_asked() {
  local want=${JITFLUSH_QEMU_VERSION:+$(upstream_of "$JITFLUSH_QEMU_VERSION")}
  [ -z "$want" ] || [ "$want" = "$1" ] ||
    die 3 "JITFLUSH_QEMU_VERSION=$JITFLUSH_QEMU_VERSION asks for QEMU $want, but $2 is QEMU $1:" \
      "unset JITFLUSH_QEMU_VERSION or name a tarball of $want"
}

# A fresh work folder <cache>/src/$1, after removing every work folder a
# failed build left (the caller holds the lock: no other build is running).
new_work() {
  rm -rf "$cache_root/src"
  mkdir -p "$cache_root/src/$1"
  echo "$cache_root/src/$1"
}

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

# A plugin compiled against PREFIX's header loads into PREFIX's emulator:
# QEMU installs plugins before it loads the guest, so the probe's line
# comes even though /bin/true is not an AArch64 program.
probe_plugin() {
  local prefix=$1 work=$2 out
  local cflags
  cflags=$(pkg-config --cflags glib-2.0) || { log "pkg-config finds no glib-2.0 (install libglib2.0-dev)"; return 1; }
  # shellcheck disable=SC2086 # pkg-config's flags are words
  cc -shared -fPIC -Wall -Wextra -Werror -I"$prefix/include" $cflags \
    -o "$work/probe-plugin.so" "$here/qemu-probe-plugin.c" >&2 || return 1
  out=$("$prefix/bin/qemu-aarch64" -plugin "$work/probe-plugin.so" /bin/true 2>&1 || true)
  if ! printf '%s' "$out" | grep -q '^jitflush-probe: loaded'; then
    log "the probe plugin did not load: $out"
    return 1
  fi
  printf '%s\n' "$out" | grep '^jitflush-probe: loaded' >&2
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

# The plugin API header of the QEMU source TREE: include/plugins/ from QEMU
# 11.0, include/qemu/ before.
plugin_header() {
  local h
  for h in "$1/include/plugins/qemu-plugin.h" "$1/include/qemu/qemu-plugin.h"; do
    [ -f "$h" ] && { echo "$h"; return 0; }
  done
  return 1
}

# step NAME CMD...: runs one step of a build; on failure says which, and
# returns 2. (A function called in "if" or "||" runs with set -e off, so
# every step of build_tree goes through here.)
step() {
  local name=$1
  shift
  if ! "$@"; then
    log "step '$name' failed"
    return 2
  fi
}

configure_tree() {
  local tree=$1 prefix=$2 python=$3
  mkdir -p "$tree/build" &&
    (cd "$tree/build" && ../configure \
      --target-list=aarch64-linux-user \
      --enable-plugins \
      --disable-system --disable-tools --disable-docs \
      --without-default-features \
      --disable-install-blobs \
      --python="$python" \
      --prefix="$prefix" >&2)
}

# Whether HEADER's plugin API is one the rig's plugin supports.
api_supported() {
  local api min max
  api=$(sed -n 's/^#define QEMU_PLUGIN_VERSION \([0-9]*\).*/\1/p' "$1")
  min=$(api_bound MIN)
  max=$(api_bound MAX)
  if [ -z "$api" ] || [ "$api" -lt "$min" ] || [ "$api" -gt "$max" ]; then
    log "$1 is plugin API version ${api:-unknown}; the rig's plugin supports $min to $max"
    return 1
  fi
  echo "$api"
}

# build_tree TREE PREFIX ORIGIN: configures and builds the unpacked QEMU
# source TREE into PREFIX, checks it, and writes PREFIX/.complete naming
# ORIGIN. Returns 2, after naming the failed step, on any failure; PREFIX
# then has no .complete.
build_tree() {
  local tree=$1 prefix=$2 origin=$3
  local header python api
  rm -rf "$prefix"
  step "prefix" mkdir -p "$prefix/bin" "$prefix/include" || return 2
  header=$(plugin_header "$tree") ||
    { log "step 'header' failed: no include/plugins/qemu-plugin.h or include/qemu/qemu-plugin.h in $tree"; return 2; }
  api=$(api_supported "$header") || { log "step 'plugin API' failed"; return 2; }
  python=$(meson_python) ||
    { log "step 'meson' failed: no Python interpreter with meson >= 1.5 (install meson from bookworm-backports: ci/install/deps.sh)"; return 2; }
  log "configuring (aarch64-linux-user, plugins, plugin API $api) with $python"
  step "configure" configure_tree "$tree" "$prefix" "$python" || return 2
  log "building with -j$jobs (a few minutes)"
  step "build" ninja -C "$tree/build" -j"$jobs" qemu-aarch64 >&2 || return 2
  step "install qemu-aarch64" install -m 0755 "$tree/build/qemu-aarch64" "$prefix/bin/qemu-aarch64" || return 2
  step "install qemu-plugin.h" install -m 0644 "$header" "$prefix/include/qemu-plugin.h" || return 2
  step "verify -plugin" verify "$prefix/bin/qemu-aarch64" || return 2
  step "load a probe plugin" probe_plugin "$prefix" "$tree" || return 2
  step "write .complete" write_stamp "$prefix" "$origin" "$api" || return 2
  log "cached in $prefix"
}

write_stamp() {
  printf 'built: %s\nsource: %s\nplugin-api: %s\n' "$(date -u +%FT%TZ)" "$2" "$3" > "$1/.complete"
}

build_one() {
  local debver=$1
  local up prefix work
  up=$(upstream_of "$debver")
  prefix="$cache_root/$up"
  work=$(new_work "$up") || return 2

  log "fetching the qemu=$debver source package"
  if ! (cd "$work" && apt-get source --download-only "qemu=$debver" >&2); then
    log "cannot fetch qemu=$debver"
    rm -rf "$work"
    return 1
  fi
  local dsc
  dsc=$(ls "$work"/qemu_*.dsc 2>/dev/null | head -1)
  [ -n "$dsc" ] || { log "no .dsc for qemu=$debver"; rm -rf "$work"; return 1; }
  log "unpacking $(basename "$dsc")"
  # Debian's patches are applied too: this is the source Debian itself builds.
  step "unpack" bash -c 'cd "$1" && dpkg-source --no-check -x "$2" tree >&2' _ "$work" "$dsc" || return 2
  build_tree "$work/tree" "$prefix" "Debian source package qemu=$debver" || return 2
  # The unpacked tree and build folder are large; the prefix is all we keep.
  rm -rf "$work"
  echo "$prefix"
}

# The SHA-256 the table gives for the file named NAME, or nothing.
known_sha256() {
  printf '%s\n' "$known_tarballs" | awk -v f="$1" '$2 == f {print $3}'
}

# --tarball FILE [--sha256 HEX]: checks, unpacks and builds a release tarball.
build_tarball() {
  local file=$1 want=$2
  [ -f "$file" ] || die 64 "--tarball $file: no such file"
  local name got
  name=$(basename "$file")
  got=$(sha256sum "$file" | cut -d' ' -f1)
  if [ -z "$want" ]; then
    want=$(known_sha256 "$name")
    [ -n "$want" ] || die 5 "$name is not a QEMU release this script knows (it knows:" \
      "$(printf '%s\n' "$known_tarballs" | awk 'NF {printf " %s", $2}')); check its SHA-256" \
      "against the QEMU project's published one and pass it with --sha256 (this file's: $got)"
  fi
  [ "$got" = "$want" ] || die 5 "$name: SHA-256 $got, expected $want: not the release it claims to be"
  log "$name: SHA-256 $got, as expected"

  mkdir -p "$cache_root"
  exec 9>"$cache_root/.lock"
  flock 9
  local cached
  if cached=$(tarball_prefix "$got"); then
    same_version_as_asked "$(basename "$cached")" "$name"
    echo "$cached"
    return 0
  fi
  local work
  work=$(new_work tarball)
  log "unpacking $name"
  tar -xf "$file" -C "$work" || { rm -rf "$work"; die 4 "step 'unpack' failed: $name is not a readable tar archive"; }
  local tree version
  tree=$(find "$work" -mindepth 1 -maxdepth 1 -type d | head -1)
  if [ -z "$tree" ] || [ ! -f "$tree/VERSION" ] || [ ! -x "$tree/configure" ]; then
    rm -rf "$work"
    die 4 "step 'unpack' failed: $name holds no QEMU source tree (a folder with VERSION and configure)"
  fi
  version=$(tr -d '[:space:]' < "$tree/VERSION")
  ( same_version_as_asked "$version" "$name" ) || { rm -rf "$work"; exit 3; }
  if ! version_ge "$version" "$min_upstream"; then
    rm -rf "$work"
    die 3 "$name is QEMU $version, older than $min_upstream (the plugin needs qemu_plugin_write_register)"
  fi
  local prefix="$cache_root/$version"
  if [ -f "$prefix/.complete" ]; then
    log "replacing the QEMU $version cached in $prefix ($(sed -n 's/^source: //p' "$prefix/.complete"))" \
      "with a build of $name (sha256 $got)"
  fi
  if ! build_tree "$tree" "$prefix" "tarball $name sha256 $got"; then
    die 4 "building QEMU $version from $name failed (log above); its sources are kept in $work" \
      "(the next build removes them)"
  fi
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
  local tarball="" sha256="" cached=0
  while [ $# -gt 0 ]; do
    case "$1" in
      --cached) cached=1; shift ;;
      --tarball)
        [ $# -ge 2 ] || die 64 "--tarball needs a file"
        tarball=$2
        shift 2
        ;;
      --sha256)
        [ $# -ge 2 ] || die 64 "--sha256 needs a value"
        sha256=$(printf '%s' "$2" | tr 'A-F' 'a-f')
        printf '%s' "$sha256" | grep -qE '^[0-9a-f]{64}$' || die 64 "--sha256 $2: not 64 hex digits"
        shift 2
        ;;
      -h|--help) usage; return 0 ;;
      *) die 64 "unknown argument '$1' (see --help)" ;;
    esac
  done
  if [ "$cached" -eq 1 ]; then
    if [ -n "$tarball" ]; then
      [ -f "$tarball" ] || return 1
      local prefix
      prefix=$(tarball_prefix "$(sha256sum "$tarball" | cut -d' ' -f1)") || return 1
      ( same_version_as_asked "$(basename "$prefix")" "$(basename "$tarball")" ) 2>/dev/null || return 1
      echo "$prefix"
      return 0
    fi
    cached_prefix
    return
  fi
  if [ -n "$tarball" ]; then
    case "$tarball" in /*) ;; *) tarball="$PWD/$tarball" ;; esac
    build_tarball "$tarball" "$sha256"
    return
  fi
  [ -z "$sha256" ] || die 64 "--sha256 goes with --tarball"
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
      "${JITFLUSH_QEMU_VERSION:+(asked for $JITFLUSH_QEMU_VERSION)}. On Debian, ci/install/apt-sources.sh" \
      "adds deb-src lines for trixie and sid; on any other system (Ubuntu, a GitHub runner)," \
      "download QEMU's release tarball (qemu-$preferred_upstream.tar.xz, from the QEMU project's" \
      "download page) and run: ci/install/qemu.sh --tarball qemu-$preferred_upstream.tar.xz"
  fi

  log "candidates: $(echo $list)"
  local rc
  for v in $list; do
    rc=0
    build_one "$v" > "$cache_root/.built" || rc=$?
    if [ "$rc" -eq 0 ]; then
      tail -n 1 "$cache_root/.built"
      return 0
    fi
    if [ "$rc" -eq 1 ]; then
      log "skipping $v (source not available), trying the next candidate"
      continue
    fi
    die 4 "building qemu $v failed (the step is named above); its sources are kept in" \
      "$cache_root/src/$(upstream_of "$v") (the next build removes them)"
  done
  die 3 "none of the candidate qemu source versions could be fetched: $(echo $list)"
}

main "$@"
