#!/usr/bin/env bash
# zig, for its C compiler: `zig cc` carries the libc headers and import
# libraries of macOS and Windows (mingw-w64), which Debian ships for neither
# Apple platform and not for Windows on arm64. The portability tests
# (tests/portability) build the library with it for aarch64-macos,
# x86_64-macos and aarch64-windows-gnu. It comes from PyPI's `ziglang` wheel
# (a py3-none wheel that holds the zig binary and its lib/ folder) and is
# cached under .cache/zig/<version>/:
#
#   ziglang/zig   the compiler driver (zig cc, zig ar)
#   .complete     stamp, written after `zig version` printed the version below
#   .runtimes     stamp: the C runtimes of the targets below are built
#
# and, in .cache/zig/cache (zig's cache, which tests/portability/zig_check.sh
# uses too), the C runtimes zig builds from source the first time it links
# for a target (mingw-w64's CRT for aarch64-windows-gnu, libSystem's stubs
# for the macOS targets): built here, once, by linking a shared library and
# a program for each target as zig_check.sh does, so that no test's time
# limit covers that build (on a loaded 2-core machine it outlasted 600 s).
#
# ci/install/zig.sh          install when missing; prints nothing when cached
# ci/install/zig.sh --path   install nothing; print the zig binary's path and
#                            exit 0 when it and the runtimes are cached, exit
#                            1 with a message that names this script otherwise
#
# Exit status: 0 ready, 1 (--path) not installed, 3 pip could not fetch or
# install the wheel, 4 the installed zig is not the pinned version, 5 a
# target's C runtime did not build (the message names the target).
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
version=0.17.1
prefix=$repo/.cache/zig/$version
zig=$prefix/ziglang/zig
# The targets tests/portability links for (its CMakeLists.txt).
targets="aarch64-macos x86_64-macos aarch64-windows-gnu"
export ZIG_GLOBAL_CACHE_DIR=$repo/.cache/zig/cache ZIG_LOCAL_CACHE_DIR=$repo/.cache/zig/cache

ready() { [ -f "$prefix/.complete" ] && [ -x "$zig" ] && [ "$(cat "$prefix/.runtimes" 2>/dev/null)" = "$targets" ]; }

if [ "${1:-}" = "--path" ]; then
  if ready; then
    echo "$zig"
    exit 0
  fi
  echo "zig $version and its C runtimes for $targets are not in $prefix: run ci/install/zig.sh" \
    "(ci/test.sh does)" >&2
  exit 1
fi
[ $# -eq 0 ] || { echo "usage: ci/install/zig.sh [--path]" >&2; exit 2; }
ready && exit 0

# runtimes: links, for each target, a shared library and a program with the
# options zig_check.sh uses (zig builds a runtime per target and mode).
runtimes() {
  local tmp t
  tmp=$(mktemp -d)
  printf 'int jf_warm(void) { return 0; }\n' > "$tmp/lib.c"
  printf 'int main(void) { return 0; }\n' > "$tmp/main.c"
  for t in $targets; do
    if ! { "$zig" cc -target "$t" -shared -o "$tmp/lib-$t" "$tmp/lib.c" &&
           "$zig" cc -target "$t" -std=c11 -O2 -o "$tmp/main-$t" "$tmp/main.c"; } > "$tmp/log" 2>&1; then
      echo "ci/install/zig.sh: building zig's C runtime for $t failed:" >&2
      tail -n 5 "$tmp/log" >&2
      rm -rf "$tmp"
      exit 5
    fi
  done
  rm -rf "$tmp"
  echo "$targets" > "$prefix/.runtimes"
}

if [ -f "$prefix/.complete" ] && [ -x "$zig" ]; then
  echo "ci/install/zig.sh: building zig's C runtimes for $targets into .cache/zig/cache (once: 21 min on 2 cores at load 11 to 19)" >&2
  runtimes
  exit 0
fi

echo "ci/install/zig.sh: zig $version from the ziglang wheel into .cache/zig/$version (once, a 100 MB wheel, about 10 s)" >&2
mkdir -p "$repo/.cache/zig"
tmp=$(mktemp -d "$repo/.cache/zig/.install.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
# --no-deps: the wheel has none; --target: a plain folder, no venv needed.
if ! python3 -m pip install -q --disable-pip-version-check --no-deps --target "$tmp/prefix" \
    "ziglang==$version" >"$tmp/pip.log" 2>&1; then
  echo "ci/install/zig.sh: pip could not install ziglang==$version:" >&2
  tail -n 5 "$tmp/pip.log" >&2
  exit 3
fi
got=$("$tmp/prefix/ziglang/zig" version 2>&1 || true)
if [ "$got" != "$version" ]; then
  echo "ci/install/zig.sh: the wheel's zig says '$got', expected $version" >&2
  exit 4
fi
rm -rf "$prefix"
mv "$tmp/prefix" "$prefix"
touch "$prefix/.complete"
echo "ci/install/zig.sh: building zig's C runtimes for $targets into .cache/zig/cache (once: 21 min on 2 cores at load 11 to 19)" >&2
runtimes
