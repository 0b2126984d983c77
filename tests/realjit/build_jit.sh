#!/usr/bin/env bash
# Gets a real JIT's source from Debian's source package, cross-builds it for
# aarch64 with its JIT on (cached), and links its programs twice: as is
# (libgcc's __clear_cache) and with jitflush's drop-in. Also links one
# program with the drop-in placed FIRST on the link line, the mistake the
# link test shows to be silent (docs/RUNNING-YOUR-JIT.md).
#
#   build_jit.sh pcre2|luajit CACHE JITFLUSH_AARCH64_BUILD OUT
#
# CACHE   the repository's .cache folder; the build goes to
#         CACHE/realjit-<recipe>/<jit>/, where <recipe> is a hash of the
#         version asked for, the JIT's build function below and our sources
#         built into it, so a changed recipe builds anew and an unchanged one
#         never rebuilds (.complete stamp).
# JITFLUSH_AARCH64_BUILD  build/aarch64: libjitflush.a and
#         libjitflush_clear_cache_dropin.a.
# OUT     where the linked programs go (the host build tree). A program is
#         relinked only when it is older than what it is linked from.
#
# Source versions: JITFLUSH_REALJIT_PCRE2_VERSION / _LUAJIT_VERSION (Debian
# versions) override the pinned ones below; when the pinned one cannot be
# fetched, every other version apt knows is tried, newest first. PCRE2's
# .dsc is missing on some mirrors, so each version is tried as a full
# source package first and as the upstream tarball alone (--tar-only) next.
#
# Environment: JITFLUSH_JOBS (default nproc), AARCH64_CC (aarch64-linux-gnu-gcc).
# Exit status: 0 built, 1 a build or link failed, 2 usage, 3 no source.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
pcre2_pinned=${JITFLUSH_REALJIT_PCRE2_VERSION:-10.46-1~deb13u3}
luajit_pinned=${JITFLUSH_REALJIT_LUAJIT_VERSION:-2.1.0+openresty20251030-1}
cc=${AARCH64_CC:-aarch64-linux-gnu-gcc}
jobs=${JITFLUSH_JOBS:-$(nproc)}

[ $# -eq 4 ] || { echo "usage: build_jit.sh pcre2|luajit CACHE JITFLUSH_AARCH64_BUILD OUT" >&2; exit 2; }
jit=$1
mkdir -p "$2" "$4"
cache=$(cd "$2" && pwd) jf=$(cd "$3" && pwd) out=$(cd "$4" && pwd)
case "$jit" in
  pcre2) pkg=pcre2 pinned=$pcre2_pinned ;;
  luajit) pkg=luajit pinned=$luajit_pinned ;;
  *) echo "build_jit.sh: the JIT must be pcre2 or luajit, not '$jit'" >&2; exit 2 ;;
esac

log() { echo "build_jit.sh $jit: $*" >&2; }
die() { local rc=$1; shift; echo "build_jit.sh $jit: error: $*" >&2; exit "$rc"; }
run() { echo "+ $*" >&2; "$@"; }

command -v "$cc" >/dev/null || die 1 "$cc not found (ci/install/deps.sh installs gcc-aarch64-linux-gnu)"
for f in libjitflush.a libjitflush_clear_cache_dropin.a; do
  [ -f "$jf/$f" ] || die 1 "$jf/$f is missing: build the aarch64 tree first (ci/build.sh)"
done


# ---- Source -----------------------------------------------------------------

# Every source version apt knows for PKG, the pinned one first.
candidates() {
  echo "$pinned"
  apt-cache showsrc "$pkg" 2>/dev/null | awk '/^Version:/ {print $2}' | sort -u -r -V | grep -vxF "$pinned" || true
}

# Fetches PKG=VERSION into the current folder: the full source package, or
# failing that the upstream tarball alone. Prints "full" or "tar".
fetch_version() {
  local v=$1
  if apt-get source --download-only "$pkg=$v" >fetch.log 2>&1; then echo full; return 0; fi
  rm -f ./*.dsc ./*.debian.tar.* ./*.diff.gz
  if apt-get source --download-only --tar-only "$pkg=$v" >>fetch.log 2>&1; then echo tar; return 0; fi
  return 1
}

# Unpacks the fetched files into ./src (Debian's patches applied when the
# .dsc came too).
unpack() {
  local how=$1
  rm -rf src
  if [ "$how" = full ]; then
    dpkg-source --no-check -x ./*.dsc src >/dev/null
  else
    mkdir src
    tar -xf ./*.orig.tar.* -C src --strip-components=1
  fi
}

get_source() {
  [ -f "$dir/src/.unpacked" ] && return 0
  if [ -z "$(apt-cache showsrc "$pkg" 2>/dev/null)" ]; then
    # A fresh machine: the deb-src entries (trixie, sid) come from ci/.
    [ "$(id -u)" -eq 0 ] || die 3 "apt knows no source package '$pkg' and only root can add the deb-src entries: run ci/install/apt-sources.sh as root"
    log "no deb-src entry for $pkg yet: adding them (ci/install/apt-sources.sh)"
    "$repo/ci/install/apt-sources.sh"
    [ -n "$(apt-cache showsrc "$pkg" 2>/dev/null)" ] || apt-get update -qq
    [ -n "$(apt-cache showsrc "$pkg" 2>/dev/null)" ] ||
      die 3 "apt still knows no source package '$pkg' after ci/install/apt-sources.sh and apt-get update"
  fi
  local fetch=$dir/fetch
  rm -rf "$fetch"
  mkdir -p "$fetch"
  fetch_any "$fetch" && return 0
  # The index may name files the mirror no longer has: refresh it once.
  if [ "$(id -u)" -eq 0 ]; then
    log "no version could be fetched; running apt-get update and trying again"
    apt-get update -qq && fetch_any "$fetch" && return 0
  fi
  die 3 "cannot fetch the source of $pkg: tried $(candidates | tr '\n' ' ')each as a source package and as --tar-only; the last attempt said: $(grep -E '^(E|W):' "$fetch/fetch.log" | tail -n 2 | tr '\n' ' ')"
}

# Tries every candidate version into FETCH; unpacks the first that came.
fetch_any() {
  local fetch=$1 v how
  for v in $(candidates); do
    rm -f "$fetch"/*
    if how=$(cd "$fetch" && fetch_version "$v"); then
      [ "$v" = "$pinned" ] || log "the pinned version $pinned could not be fetched; using $v"
      log "source: $pkg $v ($how)"
      (cd "$fetch" && unpack "$how")
      rm -rf "$dir/src"
      mv "$fetch/src" "$dir/src"
      echo "$pkg $v ($how)" > "$dir/src/.unpacked"
      return 0
    fi
  done
  return 1
}

# ---- Build (cached) ---------------------------------------------------------

# PCRE2 with autotools, 8-bit library only, JIT on; its own test programs
# pcre2test and (as pcre2_jit_slice, see pcre2_jit_slice.c) pcre2_jit_test.
build_pcre2() {
  local b=$dir/build
  rm -rf "$b"
  mkdir -p "$b"
  (cd "$b" && run "$dir/src/configure" --host=aarch64-linux-gnu CC="$cc" CFLAGS="-O2 -g" \
     --enable-jit --disable-shared --enable-static --disable-pcre2grep-jit >configure.log 2>&1) ||
    die 1 "PCRE2's configure failed: see $b/configure.log"
  grep -q '^#define SUPPORT_JIT' "$b/src/config.h" || die 1 "PCRE2 was configured without its JIT"
  run make -C "$b" -j "$jobs" libpcre2-8.la libpcre2-posix.la pcre2test >"$b/make.log" 2>&1 ||
    die 1 "PCRE2's build failed: see $b/make.log"
  run "$cc" -O2 -g -DHAVE_CONFIG_H -I"$b/src" -I"$dir/src/src" -c "$here/pcre2_jit_slice.c" -o "$b/pcre2_jit_slice.o"
  local o=$dir/out
  mkdir -p "$o"
  cp "$b/.libs/libpcre2-8.a" "$b/.libs/libpcre2-posix.a" "$b/src/pcre2test-pcre2test.o" "$b/pcre2_jit_slice.o" "$o/"
  rm -rf "$o/testdata"
  cp -r "$dir/src/testdata" "$o/testdata"
}

# LuaJIT's own makefile, cross: the build-time tools for the host (HOST_CC),
# the VM for aarch64, static, JIT on (the default). LUAJIT_SECURITY_PRNG=0
# seeds LuaJIT's PRNG with a constant instead of /dev/urandom: the PRNG
# picks where machine code is mapped, and a rig run must be reproducible
# for a seed to mean anything (with a random seed the same rig seed was
# caught in one run and clean in the next).
build_luajit() {
  local b=$dir/build
  rm -rf "$b"
  cp -a "$dir/src" "$b"
  run make -C "$b" -j "$jobs" HOST_CC=gcc CROSS="${cc%gcc}" TARGET_SYS=Linux BUILDMODE=static \
    CCDEBUG=-g XCFLAGS=-DLUAJIT_SECURITY_PRNG=0 >"$b/make.log" 2>&1 || die 1 "LuaJIT's build failed: see $b/make.log"
  grep -q 'LJ_HASJIT' "$b/src/lj_arch.h" || die 1 "unexpected LuaJIT tree: no LJ_HASJIT in lj_arch.h"
  local o=$dir/out
  mkdir -p "$o"
  cp "$b/src/libluajit.a" "$b/src/luajit.o" "$o/"
}

# The recipe: the version asked for, the build function and the sources of
# ours that go into the JIT's programs. Comments elsewhere do not rebuild.
recipe=$({ echo "$pkg $pinned"; declare -f "build_$jit"; [ "$jit" != pcre2 ] || cat "$here/pcre2_jit_slice.c"; } |
  sha256sum | cut -c1-12)
dir=$cache/realjit-$recipe/$jit
mkdir -p "$dir"

# One builder at a time per recipe: the cache may be shared by worktrees.
exec 9>"$dir.lock"
flock 9
if [ ! -f "$dir/.complete" ]; then
  start=$(date +%s)
  get_source
  "build_$jit"
  rm -rf "$dir/build" "$dir/fetch"
  cat "$dir/src/.unpacked" > "$dir/.complete"
  log "built in $(( $(date +%s) - start )) s: $dir"
else
  log "cached: $(cat "$dir/.complete"), $dir"
fi
exec 9>&-

# ---- Link the variants (in OUT) ---------------------------------------------

o=$dir/out
mkdir -p "$out"
dropin=("$jf/libjitflush_clear_cache_dropin.a" "$jf/libjitflush.a")

# link NAME -- OBJECTS_AND_ARCHIVES...; the link's stderr is kept in
# NAME.link.log for the link test.
link() {
  local name=$1; shift; shift
  local inputs=() a
  for a in "$@"; do [ -f "$a" ] && inputs+=("$a"); done
  if [ -x "$out/$name" ] && [ -z "$(find "${inputs[@]}" -newer "$out/$name" 2>/dev/null)" ]; then
    return 0
  fi
  echo "+ $cc -static -o $name $*" >&2
  "$cc" -static -o "$out/$name.tmp" "$@" 2>"$out/$name.link.log" ||
    { cat "$out/$name.link.log" >&2; die 1 "linking $name failed"; }
  mv "$out/$name.tmp" "$out/$name"
}

case "$jit" in
  pcre2)
    for p in pcre2test:pcre2test-pcre2test.o pcre2_jit_slice:pcre2_jit_slice.o; do
      name=${p%%:*} obj=$o/${p#*:}
      # Every object and archive that calls __builtin___clear_cache first,
      # then the drop-in, then what the drop-in needs.
      link "$name-libgcc" -- "$obj" "$o/libpcre2-posix.a" "$o/libpcre2-8.a" -pthread
      link "$name-dropin" -- "$obj" "$o/libpcre2-posix.a" "$o/libpcre2-8.a" "${dropin[@]}" -pthread
    done
    link pcre2_jit_slice-dropin-first -- "${dropin[@]}" "$o/pcre2_jit_slice.o" "$o/libpcre2-8.a" -pthread
    ;;
  luajit)
    link luajit-libgcc -- "$o/luajit.o" "$o/libluajit.a" -lm -ldl -pthread
    link luajit-dropin -- "$o/luajit.o" "$o/libluajit.a" "${dropin[@]}" -lm -ldl -pthread
    link luajit-dropin-first -- "${dropin[@]}" "$o/luajit.o" "$o/libluajit.a" -lm -ldl -pthread
    ;;
esac
# The link test and the rig tests find the JIT's own files here.
ln -sfn "$o" "$out/jit"
log "programs in $out"
