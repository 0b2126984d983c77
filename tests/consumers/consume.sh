#!/usr/bin/env bash
# One consumer test: obtains jitflush one way, cross-builds examples/minimal_jit
# for aarch64 from a fresh build directory, and runs it under stock
# qemu-aarch64. Each step below is what docs/VENDORING.md's quick start for that
# way says, so the quick starts are tested as written.
#
#   consume.sh add_subdirectory|fetchcontent|copy-in          SRC WORK
#   consume.sh host-add_subdirectory                           SRC WORK
#
# host-add_subdirectory builds the same example for the machine itself
# (x86_64 here) with -Werror, and runs it natively.
#   consume.sh install relative|absolute                       SRC WORK
#   consume.sh find_package|pkg-config relative|absolute       SRC WORK
#   consume.sh library-alone static|shared                     SRC WORK
#
# library-alone: the library built and installed on its own, from a fresh
# build of the repository with the tests, the CLI and the rig off and a
# pkg-config that fails when called (the rig's GLib, json-glib, Capstone
# and libdw are looked up through it): nothing calls it, nothing of the
# rig's dependencies (nor a C++ compiler) is looked up, and the install
# holds exactly the library's files. static builds for this machine,
# shared for aarch64.
#
# install is the fixture of find_package and pkg-config: a fresh aarch64
# build of the library (and CLI) installed into WORK/install-<kind>/prefix,
# with CMAKE_INSTALL_LIBDIR relative (lib) or absolute and outside the
# prefix (the Nix layout, where ${prefix}/${libdir} would be wrong).
#
# Environment: QEMU (default qemu-aarch64), AARCH64_CC (aarch64-linux-gnu-gcc),
# SYSROOT (/usr/aarch64-linux-gnu).
# Exit status: 0 pass, 1 an expectation failed, 2 usage.
set -euo pipefail

mode=${1:-}
if [ "$mode" = install ] || [ "$mode" = find_package ] || [ "$mode" = pkg-config ]; then
  kind=${2:-}
  shift 2 || true
  case "$kind" in relative|absolute) ;; *) echo "consume.sh: $mode needs relative|absolute" >&2; exit 2 ;; esac
elif [ "$mode" = library-alone ]; then
  kind=${2:-}
  shift 2 || true
  case "$kind" in static|shared) ;; *) echo "consume.sh: $mode needs static|shared" >&2; exit 2 ;; esac
else
  shift || true
fi
[ $# -eq 2 ] || { echo "usage: consume.sh MODE [KIND] SRC WORK" >&2; exit 2; }
src=$(cd "$1" && pwd)
work=$2
qemu=${QEMU:-qemu-aarch64}
cc=${AARCH64_CC:-aarch64-linux-gnu-gcc}
sysroot=${SYSROOT:-/usr/aarch64-linux-gnu}
toolchain=$src/cmake/aarch64-linux-gnu.cmake
version=$(sed -n 's/^#define JITFLUSH_VERSION_STRING "\(.*\)"/\1/p' "$src/include/jitflush.h")

fail() { echo "consume.sh $mode: FAIL: $*" >&2; exit 1; }
run() { echo "+ $*" >&2; "$@"; }

# The example must run on the emulated aarch64 and say that every one of
# its rounds of rewritten code computed the right result.
run_example() {
  local exe=$1 out rc=0
  # Here-strings, not pipes, into grep -q: under pipefail a writer still
  # writing when grep -q exits at its match dies of SIGPIPE and fails the check.
  grep -q 'Machine:.*AArch64' <<<"$(aarch64-linux-gnu-readelf -h "$exe")" || fail "$exe is not an aarch64 executable"
  out=$("$qemu" -L "$sysroot" "$exe" 2>&1) || rc=$?
  echo "$out"
  [ "$rc" -eq 0 ] || fail "$exe exited with $rc"
  grep -q "^minimal_jit: ok: 8 rounds of 300 instructions on aarch64 (jitflush $version, aarch64-linux," <<<"$out" ||
    fail "$exe did not report 8 correct rounds on aarch64-linux with jitflush $version"
}

# A project that vendors jitflush must get the library and nothing else: no
# tests, CLI or rig built, and nothing of jitflush's installed.
check_not_top_level() {
  local build=$1
  for opt in JITFLUSH_BUILD_TESTS JITFLUSH_BUILD_CLI JITFLUSH_BUILD_RIG JITFLUSH_INSTALL; do
    grep -q "^$opt:BOOL=OFF$" "$build/CMakeCache.txt" || fail "$opt is not OFF inside another project"
  done
  [ ! -e "$build/jitflush/cli/jitflush-info" ] || fail "the CLI was built inside another project"
  run cmake --install "$build" --prefix "$build/install-check" >/dev/null
  if [ -d "$build/install-check" ] && [ -n "$(find "$build/install-check" -type f)" ]; then
    fail "cmake --install of the consumer installed jitflush files: $(find "$build/install-check" -type f | head -3)"
  fi
}

prefix_of() { echo "$work/install-$1/prefix"; }
libdir_of() {
  if [ "$1" = relative ]; then echo "$(prefix_of "$1")/lib"; else echo "$work/install-$1/nix-style-libdir"; fi
}

case "$mode" in
add_subdirectory)
  b=$work/add_subdirectory
  rm -rf "$b"
  run cmake -S "$src/examples" -B "$b" -G Ninja -DCMAKE_TOOLCHAIN_FILE="$toolchain" \
    -DJITFLUSH_FROM=add_subdirectory -DJITFLUSH_CHECKOUT="$src" >/dev/null
  run cmake --build "$b"
  check_not_top_level "$b"
  run_example "$b/minimal_jit"
  ;;

host-add_subdirectory)
  # The same consumer project for the build machine, warnings as errors:
  # a program that only links jitflush::jitflush builds cleanly there too.
  b=$work/host-add_subdirectory
  rm -rf "$b"
  run cmake -S "$src/examples" -B "$b" -G Ninja -DJITFLUSH_FROM=add_subdirectory -DJITFLUSH_CHECKOUT="$src" \
    -DCMAKE_C_FLAGS="-Wall -Wextra -Werror" >/dev/null
  log=$(cmake --build "$b" 2>&1) || { echo "$log"; fail "the host build failed"; }
  printf '%s\n' "$log" | grep -qi 'warning' && { echo "$log"; fail "the host build printed warnings"; }
  check_not_top_level "$b"
  arch=$(uname -m)
  out=$("$b/minimal_jit") || fail "$b/minimal_jit exited with $?"
  echo "$out"
  printf '%s\n' "$out" | grep -q "^minimal_jit: ok: 8 rounds of 300 instructions on $arch (jitflush $version," ||
    fail "minimal_jit did not report 8 correct rounds on $arch with jitflush $version"
  ;;

fetchcontent)
  b=$work/fetchcontent
  rm -rf "$b"
  mkdir -p "$b"
  # A release tarball of this tree (what a FetchContent user downloads),
  # without build trees, caches and git metadata.
  tarball=$b/jitflush-$version.tar.gz
  run tar -czf "$tarball" --exclude=./build --exclude=./.cache --exclude=./.git \
    --transform "s,^\\./,jitflush-$version/," -C "$src" .
  run cmake -S "$src/examples" -B "$b/build" -G Ninja -DCMAKE_TOOLCHAIN_FILE="$toolchain" \
    -DJITFLUSH_FROM=FetchContent -DJITFLUSH_URL="file://$tarball" >/dev/null
  run cmake --build "$b/build"
  [ -f "$b/build/_deps/jitflush-src/include/jitflush.h" ] || fail "FetchContent did not unpack the tarball into _deps/jitflush-src"
  check_not_top_level "$b/build"
  run_example "$b/build/minimal_jit"
  ;;

install)
  b=$work/install-$kind
  rm -rf "$b"
  libdir_args=()
  [ "$kind" = absolute ] && libdir_args=(-DCMAKE_INSTALL_LIBDIR="$(libdir_of absolute)")
  run cmake -S "$src" -B "$b/build" -G Ninja -DCMAKE_TOOLCHAIN_FILE="$toolchain" -DCMAKE_BUILD_TYPE=Release \
    -DJITFLUSH_BUILD_TESTS=OFF -DJITFLUSH_BUILD_RIG=OFF -DJITFLUSH_BUILD_CLI=ON \
    -DCMAKE_INSTALL_PREFIX="$(prefix_of "$kind")" "${libdir_args[@]}" >/dev/null
  run cmake --build "$b/build"
  run cmake --install "$b/build"
  libdir=$(libdir_of "$kind")
  prefix=$(prefix_of "$kind")
  for f in "$libdir/libjitflush.a" "$prefix/include/jitflush.h" "$prefix/bin/jitflush-info" \
           "$libdir/cmake/jitflush/jitflush-config.cmake" "$libdir/cmake/jitflush/jitflush-config-version.cmake" \
           "$libdir/cmake/jitflush/jitflush-targets.cmake" "$libdir/pkgconfig/jitflush.pc"; do
    [ -f "$f" ] || fail "not installed: $f"
  done
  ;;

find_package)
  libdir=$(libdir_of "$kind")
  cmakedir=$libdir/cmake/jitflush
  [ -f "$cmakedir/jitflush-config.cmake" ] || fail "no installed package at $cmakedir (the install fixture failed?)"
  b=$work/find_package-$kind
  rm -rf "$b"
  # The cross toolchain searches packages only under its sysroot
  # (CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY), so name the package directory.
  run cmake -S "$src/examples" -B "$b" -G Ninja -DCMAKE_TOOLCHAIN_FILE="$toolchain" \
    -DJITFLUSH_FROM=find_package -Djitflush_DIR="$cmakedir" >/dev/null
  run cmake --build "$b"
  grep -qF "$libdir/libjitflush.a" "$b/build.ninja" || fail "minimal_jit is not linked with the installed $libdir/libjitflush.a"
  grep -q 'add_executable(jitflush::info IMPORTED)' "$cmakedir"/jitflush*-targets*.cmake ||
    fail "the package does not export jitflush::info"
  # Version requests, semantic versioning before 1.0: same minor only.
  run cmake -DDIR="$cmakedir" -DVERSION="$version" -P "$src/tests/consumers/check_version.cmake"
  run_example "$b/minimal_jit"
  ;;

pkg-config)
  libdir=$(libdir_of "$kind")
  [ -f "$libdir/pkgconfig/jitflush.pc" ] || fail "no installed jitflush.pc under $libdir (the install fixture failed?)"
  b=$work/pkg-config-$kind
  rm -rf "$b"
  mkdir -p "$b"
  # Only the installed package: not the machine's own .pc directories.
  export PKG_CONFIG_LIBDIR=$libdir/pkgconfig PKG_CONFIG_PATH=
  got=$(pkg-config --modversion jitflush) || fail "pkg-config cannot read jitflush.pc"
  [ "$got" = "$version" ] || fail "pkg-config --modversion says $got, the header $version"
  pc_libdir=$(pkg-config --variable=libdir jitflush)
  pc_includedir=$(pkg-config --variable=includedir jitflush)
  [ "$pc_libdir" = "$libdir" ] || fail "jitflush.pc libdir is '$pc_libdir', want '$libdir'"
  [ -f "$pc_includedir/jitflush.h" ] || fail "jitflush.pc includedir '$pc_includedir' has no jitflush.h"
  run make -C "$src/examples" pkg-config CC="$cc" CFLAGS="-O2 -Werror" O="$b"
  run_example "$b/minimal_jit"
  ;;

library-alone)
  b=$work/library-alone-$kind
  rm -rf "$b"
  mkdir -p "$b"
  # A pkg-config that records each call and fails.
  printf '#!/bin/sh\necho "$*" >>"%s"\nexit 1\n' "$b/pkg-config-calls" >"$b/pkg-config"
  chmod +x "$b/pkg-config"
  target_args=(-DBUILD_SHARED_LIBS=OFF)
  [ "$kind" = shared ] && target_args=(-DCMAKE_TOOLCHAIN_FILE="$toolchain" -DBUILD_SHARED_LIBS=ON)
  configure=(cmake -S "$src" -B "$b/build" -G Ninja -DCMAKE_BUILD_TYPE=Release
    -DJITFLUSH_BUILD_TESTS=OFF -DJITFLUSH_BUILD_CLI=OFF -DJITFLUSH_BUILD_RIG=OFF
    -DCMAKE_INSTALL_PREFIX="$b/prefix" -DCMAKE_INSTALL_LIBDIR=lib "${target_args[@]}")
  echo "+ PKG_CONFIG=$b/pkg-config ${configure[*]}" >&2
  log=$(env PKG_CONFIG="$b/pkg-config" "${configure[@]}" 2>&1) ||
    { echo "$log"; fail "the library alone does not configure"; }
  echo "$log"
  [ ! -e "$b/pkg-config-calls" ] || fail "configuring the library alone called pkg-config: $(cat "$b/pkg-config-calls")"
  # A C compiler is all it needs: the tests alone are C++.
  ! grep -q 'The CXX compiler identification' <<<"$log" || fail "configuring the library alone looked for a C++ compiler"
  # Neither the configure output nor the cache names a dependency of the rig.
  deps='glib|json-glib|capstone|libdw|libiberty|pkg-?config|qemu'
  found=$(grep -Ei "$deps" <<<"$log" || true)
  [ -z "$found" ] || fail "the configure output mentions the rig's dependencies: $(head -3 <<<"$found")"
  found=$(sed -n 's/^\([A-Za-z_][^:]*\):.*/\1/p' "$b/build/CMakeCache.txt" |
    grep -Ei 'pkg_config|glib|capstone|libdw|libiberty' || true)
  [ -z "$found" ] || fail "the cache holds lookups of the rig's dependencies: $(head -3 <<<"$found")"
  run cmake --build "$b/build"
  run cmake --install "$b/build" >/dev/null
  # Exactly the library's files: header, library, CMake package, pkg-config.
  want="include/jitflush.h
lib/cmake/jitflush/jitflush-config-version.cmake
lib/cmake/jitflush/jitflush-config.cmake
lib/cmake/jitflush/jitflush-targets-release.cmake
lib/cmake/jitflush/jitflush-targets.cmake"
  major_minor=${version%.*}
  if [ "$kind" = static ]; then
    want="$want
lib/libjitflush.a"
  else
    want="$want
lib/libjitflush.so
lib/libjitflush.so.$major_minor
lib/libjitflush.so.$version"
  fi
  want="$want
lib/pkgconfig/jitflush.pc"
  got=$(cd "$b/prefix" && find . \( -type f -o -type l \) | sed 's,^\./,,' | LC_ALL=C sort)
  want=$(LC_ALL=C sort <<<"$want")
  [ "$got" = "$want" ] || fail "the install is not exactly the library's files:
$(diff <(echo "$want") <(echo "$got") | sed -n 's/^[<>]/  &/p')  (< expected, > installed)"
  echo "installed, exactly: $(tr '\n' ' ' <<<"$got")"
  ;;

copy-in)
  b=$work/copy-in
  rm -rf "$b"
  run "$src/ci/gen/amalgamation.sh" "$b/third_party/jitflush" >/dev/null
  [ "$(ls "$b/third_party/jitflush")" = "$(printf 'jitflush.c\njitflush.h')" ] ||
    fail "ci/gen/amalgamation.sh should write exactly jitflush.c and jitflush.h"
  # Compiles alone, with no build system and no include path but its own
  # folder, warning-free, for x86_64 and aarch64; the AArch64 flush loop is
  # in the aarch64 object only (the platform guards survived).
  for c in cc "$cc"; do
    obj=$b/jitflush-$(basename "$c").o
    (cd "$b/third_party/jitflush" && run "$c" -std=c11 -O2 -Wall -Wextra -Werror -c jitflush.c -o "$obj")
  done
  if command -v clang >/dev/null; then
    (cd "$b/third_party/jitflush" && run clang -std=c11 -O2 -Wall -Wextra -Werror -c jitflush.c -o "$b/jitflush-clang.o")
  fi
  aarch64-linux-gnu-objdump -d "$b/jitflush-$(basename "$cc").o" > "$b/aarch64.dis"
  for insn in 'dc[[:space:]]+cvau' 'dc[[:space:]]+civac' 'ic[[:space:]]+ivau' 'dsb[[:space:]]+ish' 'isb' 'mrs[[:space:]]+x[0-9]+, ctr_el0'; do
    grep -Eq "$insn" "$b/aarch64.dis" || fail "the aarch64 object has no '$insn'"
  done
  ! nm "$b/jitflush-cc.o" | grep -q jf_flush_lines_aarch64 || fail "the x86_64 object contains the AArch64 flush loop"
  # The same example, the Makefile way: natively (x86 code path) and for aarch64.
  mkdir -p "$b/native"
  run make -C "$src/examples" copy-in CC=cc CFLAGS="-O2 -Werror" JITFLUSH="$b/third_party/jitflush" O="$b/native"
  native_out=$("$b/native/minimal_jit") || fail "the native copy-in build failed to run"
  echo "$native_out"
  grep -q '^minimal_jit: ok: 8 rounds' <<<"$native_out" || fail "native minimal_jit did not report 8 correct rounds"
  run make -C "$src/examples" copy-in CC="$cc" CFLAGS="-O2 -Werror" JITFLUSH="$b/third_party/jitflush" O="$b"
  run_example "$b/minimal_jit"
  ;;

*)
  echo "consume.sh: unknown mode '$mode'" >&2
  exit 2
  ;;
esac
echo "consume.sh $mode${kind:+ $kind}: PASS"
