#!/usr/bin/env bash
# Builds jitflush for a platform this machine cannot run, with zig cc
# (ci/install/zig.sh), and proves from the linked files which operating
# system call jitflush_clear_cache reaches there (tests/portability/os_call.py).
#
#   zig_check.sh build   TARGET REPO WORK
#   zig_check.sh os-call TARGET REPO WORK
#   zig_check.sh mutant  TARGET REPO WORK
#
# TARGET: aarch64-macos, x86_64-macos or aarch64-windows-gnu.
#
# build: with -Wall -Wextra -Werror, compiles every library source of
#   cmake/JitflushSources.cmake's lists that CMake builds for a platform
#   other than AArch64 Linux (JITFLUSH_COMMON_SOURCES, _PORTABLE_, _IMPL_, _SYNC_),
#   the amalgamated copy-in (ci/gen/amalgamation.sh) and examples/minimal_jit.c;
#   checks that lib/api_from_hooks.c defines the API and exactly the
#   expected lib/platform_*.c the flush hook; links a
#   shared library (libjitflush.dylib / jitflush.dll with its import
#   library), a static archive, and minimal_jit three ways: against the
#   archive, against the shared library, and with the copy-in.
# os-call: in every linked file, the flush functions reach the platform's
#   call (Apple arm64: sys_icache_invalidate; Windows: FlushInstructionCache,
#   and FlushProcessWriteBuffers for jitflush_sync_cores; x86_64 macOS: no
#   import reached at all, a compiler barrier), and the program linked against the
#   shared library calls jitflush_clear_cache through its import.
# mutant: a scratch copy of the platform file with that call taken out (on
#   x86_64, with a call put in) must make os-call's check fail.
#
# Exit status: 0 pass, 1 a check failed (or zig is not installed), 2 usage.
set -euo pipefail

usage() { echo "usage: zig_check.sh build|os-call|mutant TARGET REPO WORK" >&2; exit 2; }
[ $# -eq 4 ] || usage
mode=$1 target=$2 root=$(cd "$3" && pwd) work=$4/$2
here=$(cd "$(dirname "$0")" && pwd)

# IMPL: the platform file that makes the OS call (its jf_platform_flush);
# API: the file that defines the public entry points from that hook.
api=api_from_hooks.c
case "$target" in
  aarch64-macos) impl=platform_apple_arm64.c os_call=sys_icache_invalidate ;;
  x86_64-macos) impl=platform_x86.c os_call=none ;;
  aarch64-windows-gnu) impl=platform_windows.c os_call=FlushInstructionCache ;;
  *) echo "zig_check.sh: unknown target '$target'" >&2; usage ;;
esac
case "$target" in
  *-macos) shlib=libjitflush.dylib exe= ;;
  *-windows-gnu) shlib=jitflush.dll exe=.exe ;;
esac

fail() { echo "zig_check.sh $mode $target: FAIL: $*" >&2; exit 1; }

zig=$("$root/ci/install/zig.sh" --path) || fail "zig is missing (see above): these checks cannot run without it"
# One cache for every build tree of this checkout, where ci/install/zig.sh
# built the targets' C runtimes once (--path fails until it has): the links
# here reuse them.
export ZIG_GLOBAL_CACHE_DIR=$root/.cache/zig/cache ZIG_LOCAL_CACHE_DIR=$root/.cache/zig/cache
cc=("$zig" cc -target "$target")
warn=(-std=c11 -Wall -Wextra -Werror -O2)
run() { "$@" || fail "$* exited with $?"; }

library_sources() {
  cmake -DNAMES="JITFLUSH_COMMON_SOURCES;JITFLUSH_PORTABLE_SOURCES;JITFLUSH_PLATFORM_SOURCES" \
    -P "$root/cmake/print-sources.cmake"
}

# link_shared OUT OBJECTS...
link_shared() {
  local out=$1
  shift
  case "$target" in
    *-macos) run "${cc[@]}" -shared -Wl,-install_name,@rpath/libjitflush.dylib -o "$out" "$@" ;;
    *-windows-gnu) run "${cc[@]}" -shared -Wl,--out-implib,"${out%/*}/libjitflush.dll.a" -o "$out" "$@" ;;
  esac
}

build() {
  rm -rf "$work"
  mkdir -p "$work/obj"
  local src n=0
  for src in $(library_sources); do
    run "${cc[@]}" "${warn[@]}" -fPIC -I"$root/include" -I"$root/lib" -I"$root/common" -c "$root/$src" \
      -o "$work/obj/$(basename "$src").o"
    n=$((n + 1))
  done
  # Exactly the expected files define the public entry points and the
  # platform's flush.
  local defs
  defs=$(cd "$work/obj" && for o in *.o; do
    "${LLVM_NM:-llvm-nm-14}" --defined-only "$o" | awk -v f="${o%.o}" '$3 ~ /^_?jitflush_clear_cache$/ {print f}'
  done)
  [ "$defs" = "$api" ] || fail "jitflush_clear_cache is defined in '$defs', expected $api"
  defs=$(cd "$work/obj" && for o in *.o; do
    "${LLVM_NM:-llvm-nm-14}" --defined-only "$o" | awk -v f="${o%.o}" '$3 ~ /^_?jf_platform_flush$/ {print f}'
  done)
  [ "$defs" = "$impl" ] || fail "jf_platform_flush is defined in '$defs', expected $impl"

  link_shared "$work/$shlib" "$work"/obj/*.o
  run "$zig" ar rcs "$work/libjitflush.a" "$work"/obj/*.o
  run "${cc[@]}" "${warn[@]}" -I"$root/include" "$root/examples/minimal_jit.c" "$work/libjitflush.a" \
    -o "$work/minimal_jit$exe"
  case "$target" in
    *-macos) run "${cc[@]}" "${warn[@]}" -I"$root/include" "$root/examples/minimal_jit.c" -L"$work" -ljitflush \
               -o "$work/minimal_jit_shared$exe" ;;
    *) run "${cc[@]}" "${warn[@]}" -I"$root/include" "$root/examples/minimal_jit.c" "$work/libjitflush.dll.a" \
         -o "$work/minimal_jit_shared$exe" ;;
  esac

  # The copy-in: one C file and the header, as a user compiles them.
  run "$root/ci/gen/amalgamation.sh" "$work/amalgamated" >/dev/null
  run "${cc[@]}" "${warn[@]}" -I"$work/amalgamated" -c "$work/amalgamated/jitflush.c" -o "$work/copy-in.o"
  run "${cc[@]}" "${warn[@]}" -I"$work/amalgamated" "$root/examples/minimal_jit.c" "$work/copy-in.o" \
    -o "$work/minimal_jit_copyin$exe"

  echo "zig_check.sh: $target: $n library sources, the copy-in and examples/minimal_jit.c compile with -Werror;"
  echo "  $api provides the API, $impl the flush; linked $shlib, libjitflush.a and minimal_jit against each and with the copy-in"
}

# expect FILE FUNCTION CALL
expect() {
  [ -f "$work/$1" ] || fail "$work/$1 is missing: run the build step first (the .build test)"
  python3 "$here/os_call.py" "$work/$1" "$2" "$3" || fail "$1: $2 does not reach $3 (above)"
}

os_call_checks() {
  local f
  for f in "$shlib" "minimal_jit$exe" "minimal_jit_copyin$exe"; do
    expect "$f" jitflush_clear_cache "$os_call"
  done
  expect "$shlib" jitflush_clear_cache_dual "$os_call"
  case "$target" in
    *-windows-gnu) expect "$shlib" jitflush_sync_cores FlushProcessWriteBuffers ;;
  esac
  # The program linked against the shared library takes the flush from it.
  expect "minimal_jit_shared$exe" main jitflush_clear_cache
}

mutant() {
  [ -d "$work/obj" ] || fail "$work/obj is missing: run the build step first (the .build test)"
  local m=$work/mutant
  rm -rf "$m"
  mkdir -p "$m/obj"
  cp "$work"/obj/*.o "$m/obj/"
  case "$os_call" in
    none) # a compiler barrier that became a call
      sed 's/^  (void)begin;$/  extern int puts(const char *); puts((const char *)begin);/' \
        "$root/lib/$impl" >"$m/$impl" ;;
    *) # the OS call dropped, its arguments still evaluated
      sed "s/\\b$os_call(/(void)(/" "$root/lib/$impl" >"$m/$impl" ;;
  esac
  ! cmp -s "$root/lib/$impl" "$m/$impl" || fail "the mutation no longer applies to lib/$impl: update zig_check.sh"
  # No -Werror: the mutant's unused values may warn; it only has to link.
  run "${cc[@]}" -std=c11 -O2 -fPIC -w -I"$root/include" -I"$root/lib" -I"$root/common" -c "$m/$impl" -o "$m/obj/$impl.o"
  link_shared "$m/$shlib" "$m"/obj/*.o
  local out rc=0
  out=$(python3 "$here/os_call.py" "$m/$shlib" jitflush_clear_cache "$os_call" 2>&1) || rc=$?
  printf '%s\n' "$out"
  [ "$rc" -eq 1 ] || fail "the check passed a mutant of lib/$impl (status $rc): it cannot fail"
  case "$out" in
    *"FAIL: jitflush_clear_cache"*) ;;
    *) fail "the check failed on the mutant, but not with its verdict" ;;
  esac
  echo "zig_check.sh: $target: the check rejects lib/$impl with its call changed"
}

case "$mode" in
  build) build ;;
  os-call) os_call_checks ;;
  mutant) mutant ;;
  *) usage ;;
esac
