#!/usr/bin/env bash
# The qemu_tcg workload's two programs (docs/RUNNING-YOUR-JIT.md):
# Debian 12's arm64 qemu-x86_64-static (fetch_debs.sh, cached) linked as
# OUT/qemu-x86_64-static, and tcg_guest.c built static for x86_64 with the
# host's compiler as OUT/tcg_guest.
#
#   build_qemu_tcg.sh CACHE OUT
#
# Environment: CC (default gcc). Exit status: 0 ready, 1 a step failed,
# 2 usage.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
[ $# -eq 2 ] || { echo "usage: build_qemu_tcg.sh CACHE OUT" >&2; exit 2; }
mkdir -p "$2"
out=$(cd "$2" && pwd)
root=$("$here/fetch_debs.sh" "$1" qemu_tcg qemu-user-static) || exit 1
[ -x "$root/usr/bin/qemu-x86_64-static" ] ||
  { echo "build_qemu_tcg.sh: $root/usr/bin/qemu-x86_64-static is missing" >&2; exit 1; }
ln -sfn "$root/usr/bin/qemu-x86_64-static" "$out/qemu-x86_64-static"
if [ ! "$out/tcg_guest" -nt "$here/tcg_guest.c" ]; then
  "${CC:-gcc}" -static -O1 -o "$out/tcg_guest" "$here/tcg_guest.c"
fi
