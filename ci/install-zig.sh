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
#
# ci/install-zig.sh          install when missing; prints nothing when cached
# ci/install-zig.sh --path   install nothing; print the zig binary's path and
#                            exit 0 when it is cached, exit 1 with a message
#                            that names this script otherwise
#
# Exit status: 0 ready, 1 (--path) not installed, 3 pip could not fetch or
# install the wheel, 4 the installed zig is not the pinned version.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
version=0.17.1
prefix=$repo/.cache/zig/$version
zig=$prefix/ziglang/zig

if [ "${1:-}" = "--path" ]; then
  if [ -f "$prefix/.complete" ] && [ -x "$zig" ]; then
    echo "$zig"
    exit 0
  fi
  echo "zig $version is not installed in $prefix: run ci/install-zig.sh (ci/test.sh does)" >&2
  exit 1
fi
[ $# -eq 0 ] || { echo "usage: ci/install-zig.sh [--path]" >&2; exit 2; }
[ -f "$prefix/.complete" ] && [ -x "$zig" ] && exit 0

echo "install-zig: zig $version from the ziglang wheel into .cache/zig/$version (once, a 100 MB wheel, about 10 s)" >&2
mkdir -p "$repo/.cache/zig"
tmp=$(mktemp -d "$repo/.cache/zig/.install.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
# --no-deps: the wheel has none; --target: a plain folder, no venv needed.
if ! python3 -m pip install -q --disable-pip-version-check --no-deps --target "$tmp/prefix" \
    "ziglang==$version" >"$tmp/pip.log" 2>&1; then
  echo "install-zig: pip could not install ziglang==$version:" >&2
  tail -n 5 "$tmp/pip.log" >&2
  exit 3
fi
got=$("$tmp/prefix/ziglang/zig" version 2>&1 || true)
if [ "$got" != "$version" ]; then
  echo "install-zig: the wheel's zig says '$got', expected $version" >&2
  exit 4
fi
rm -rf "$prefix"
mv "$tmp/prefix" "$prefix"
touch "$prefix/.complete"
