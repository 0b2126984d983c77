#!/usr/bin/env bash
# Compiles every library source with a cross compiler, warnings as errors,
# to prove the per-platform files build where we cannot run them.
# Usage: compile_check.sh REPO_ROOT COMPILER EXPECTED_PLATFORM
#   EXPECTED_PLATFORM: the lib/platform_*.c whose body must be the one
#   compiled in: its jf_platform_flush serves the API that
#   lib/api_from_hooks.c defines.
set -euo pipefail
root=$1 cc=$2 impl=$3
if ! command -v "$cc" >/dev/null; then
  echo "compile_check: $cc is not installed (ci/install/deps.sh installs it)" >&2
  exit 2
fi
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for src in "$root"/lib/*.c "$root"/common/*.c; do
  "$cc" -std=c11 -Wall -Wextra -Werror -O2 -I"$root/include" -I"$root/lib" -I"$root/common" -c "$src" -o "$out/$(basename "$src").o"
done
# Exactly the expected files define the platform's flush and the public
# entry points.
defined_in() {
  for o in "$out"/*.o; do
    nm "$o" 2>/dev/null | awk -v f="$(basename "$o")" -v s="$1" '$2=="T" && $3 ~ ("^_?" s "$") {print f}'
  done
}
api=api_from_hooks.c
defs=$(defined_in jitflush_clear_cache)
if [ "$defs" != "$api.o" ]; then
  echo "compile_check: jitflush_clear_cache defined in '$defs', expected $api" >&2
  exit 1
fi
if [ "$(defined_in jf_platform_flush)" != "$impl.o" ]; then
  echo "compile_check: jf_platform_flush defined in '$(defined_in jf_platform_flush)', expected $impl" >&2
  exit 1
fi
echo "compile_check: $cc: every source compiles; $api provides the API, $impl the flush"
