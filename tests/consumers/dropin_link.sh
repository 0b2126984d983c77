#!/usr/bin/env bash
# The __clear_cache drop-in (JITFLUSH_PROVIDE_CLEAR_CACHE=ON) linked the ways
# docs/VENDORING.md's "Drop-in for __clear_cache" section says, and proof of
# which __clear_cache each program really calls, for unchanged code that uses __builtin___clear_cache
# (tests/patching/examples/dropin.c):
#
#   dropin_link.sh gcc|clang static|shared SRC WORK
#
# static: libjitflush.a before the compiler's runtime library (the driver
#   appends libgcc last, so "-ljitflush" after the source file is enough;
#   before an object or archive that calls the builtin it would be skipped,
#   see tests/realjit/check_link.sh).
#   Checked with the symbol table: the program's __clear_cache must be
#   jitflush's, a branch to jitflush_clear_cache.
# shared: libjitflush.so on the link line; the dynamic linker binds the
#   program's __clear_cache to it (checked with LD_DEBUG=bindings in the
#   guest's own ld.so under qemu-aarch64).
# Each mode also links the same program WITHOUT jitflush and requires the
# check to say "not jitflush's", so the check itself is known to work.
#
# Environment: QEMU (qemu-aarch64), SYSROOT (/usr/aarch64-linux-gnu).
# Exit status: 0 pass, 1 an expectation failed, 2 usage.
set -euo pipefail

[ $# -eq 4 ] || { echo "usage: dropin_link.sh gcc|clang static|shared SRC WORK" >&2; exit 2; }
compiler=$1 linkage=$2
src=$(cd "$3" && pwd)
work=$4/dropin-$compiler-$linkage
qemu=${QEMU:-qemu-aarch64}
sysroot=${SYSROOT:-/usr/aarch64-linux-gnu}
case "$compiler" in
  gcc) cc=(aarch64-linux-gnu-gcc) ;;
  clang) cc=(clang-14 --target=aarch64-linux-gnu) ;;
  *) echo "dropin_link.sh: compiler must be gcc or clang, not '$compiler'" >&2; exit 2 ;;
esac
case "$linkage" in
  static) shared=OFF ;;
  shared) shared=ON ;;
  *) echo "dropin_link.sh: linkage must be static or shared, not '$linkage'" >&2; exit 2 ;;
esac
command -v "${cc[0]}" >/dev/null || { echo "dropin_link.sh: ${cc[0]} not found (ci/install/deps.sh)" >&2; exit 2; }

fail() { echo "dropin_link.sh $compiler $linkage: FAIL: $*" >&2; exit 1; }
run() { echo "+ $*" >&2; "$@"; }

rm -rf "$work"
mkdir -p "$work"
run cmake -S "$src" -B "$work/lib" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_TOOLCHAIN_FILE="$src/cmake/aarch64-linux-gnu.cmake" -DBUILD_SHARED_LIBS=$shared \
  -DJITFLUSH_PROVIDE_CLEAR_CACHE=ON \
  -DJITFLUSH_BUILD_TESTS=OFF -DJITFLUSH_BUILD_CLI=OFF -DJITFLUSH_BUILD_RIG=OFF >/dev/null
run cmake --build "$work/lib" >/dev/null

example=$src/tests/patching/examples/dropin.c
with=$work/with-jitflush
without=$work/without-jitflush
# docs/VENDORING.md's link lines: the library anywhere before the runtime library
# the driver adds at the end.
run "${cc[@]}" -std=c11 -O2 -Wall -Wextra "$example" -L"$work/lib" -ljitflush -pthread -o "$with"
run "${cc[@]}" -std=c11 -O2 -Wall -Wextra "$example" -o "$without"

# Prints "jitflush" or "other" for the __clear_cache PROGRAM calls.
static_provider() {
  local prog=$1
  # jitflush's __clear_cache is a tail call of jitflush_clear_cache;
  # libgcc's is the maintenance loop itself.
  if aarch64-linux-gnu-objdump -d --disassemble=__clear_cache "$prog" |
      grep -Eq '\<b(l)?[[:space:]]+[0-9a-f]+ <jitflush_clear_cache>'; then
    echo jitflush
  else
    echo other
  fi
}
shared_provider() {
  local prog=$1 out
  out=$(LD_DEBUG=bindings LD_LIBRARY_PATH="$work/lib" "$qemu" -L "$sysroot" "$prog" 2>&1) ||
    fail "$prog exited with $? (output: $out)"
  if printf '%s\n' "$out" | grep -Eq "to [^ ]*libjitflush\.so[^ ]*.*symbol \`__clear_cache'"; then
    echo jitflush
  else
    echo other
  fi
}

if [ "$linkage" = static ]; then
  aarch64-linux-gnu-readelf -d "$with" | grep -q 'libjitflush' && fail "a static link still needs libjitflush.so"
  got=$(static_provider "$with")
  control=$(static_provider "$without")
else
  aarch64-linux-gnu-readelf -d "$with" | grep -q 'NEEDED.*libjitflush\.so' ||
    fail "the program does not need libjitflush.so"
  got=$(shared_provider "$with")
  control=$(shared_provider "$without")
fi
[ "$control" = other ] || fail "the check calls the program built without jitflush jitflush's: the check is broken"
[ "$got" = jitflush ] || fail "__clear_cache is not jitflush's: the drop-in lost the link to the runtime library"

# And the unchanged program works with it.
rc=0
LD_LIBRARY_PATH="$work/lib" "$qemu" -L "$sysroot" "$with" || rc=$?
[ "$rc" -eq 0 ] || fail "the program exited with $rc"
echo "dropin_link.sh $compiler $linkage: ok: __builtin___clear_cache calls jitflush's __clear_cache"
