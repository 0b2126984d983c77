#!/usr/bin/env bash
# Checks that ci/ and what names it agree:
#   - ci/README.md, the index, has a row for every file under ci/ and a
#     row names no file that is not there;
#   - every ci/ path that a text file of the repository names exists. Not
#     checked: CHANGELOG.md (history names paths as they were),
#     tests/suite/cargo-jit/Cargo.toml (ci/install/rust-aarch64.sh keys the
#     cached Cranelift build by its hash, so even a comment there changes
#     only together with that build) and tests/consumers/check_links.py
#     (its self-test writes a tree of its own, with a ci/ of its own).
#
#   ci/check/paths.sh [ROOT]      (default: this repository)
#
# The CTest tests ci.paths* (label ci) run it on the repository and on a
# small tree with one of each mistake. Exit status: 0 they agree, 1 a row
# or a path is wrong (each is named), 2 usage.
set -euo pipefail
root=${1:-$(cd "$(dirname "$0")/../.." && pwd)}
[ $# -le 1 ] && [ -f "$root/ci/README.md" ] ||
  { echo "usage: ci/check/paths.sh [ROOT] (ROOT holds ci/README.md)" >&2; exit 2; }
root=$(cd "$root" && pwd)
cd "$root"

# The files: git's when ROOT is a work tree's top, else everything but the
# build trees and the caches.
if [ "$(git rev-parse --show-toplevel 2>/dev/null)" = "$root" ]; then
  mapfile -t files < <(git ls-files)
else
  mapfile -t files < <(find . \( -name .git -o -name .cache -o -name 'build*' \) -prune -o -type f -print |
    sed 's|^\./||' | sort)
fi

status=0
# The index: the first cell of each row names a file relative to ci/.
mapfile -t rows < <(sed -n 's/^| `\([^`]*\)` |.*/\1/p' ci/README.md)
for f in "${files[@]}"; do
  case "$f" in ci/README.md) continue ;; ci/*) ;; *) continue ;; esac
  found=0
  for r in "${rows[@]}"; do [ "ci/$r" = "$f" ] && { found=1; break; }; done
  [ "$found" = 1 ] || { echo "ci/check/paths.sh: $f has no row in ci/README.md" >&2; status=1; }
done
for r in "${rows[@]}"; do
  [ -f "ci/$r" ] || { echo "ci/check/paths.sh: ci/README.md has a row for ci/$r, which does not exist" >&2; status=1; }
done

# Every ci/ path named elsewhere (not after a letter, a digit, '_', '.' or
# '-': .ci/run is not one).
for f in "${files[@]}"; do
  case "$f" in CHANGELOG.md|tests/suite/cargo-jit/Cargo.toml|tests/consumers/check_links.py) continue ;; esac
  [ -f "$f" ] && grep -Iq 'ci/' "$f" 2>/dev/null || continue
  while IFS=: read -r line path; do
    [ -e "$path" ] || { echo "ci/check/paths.sh: $f:$line names $path, which does not exist" >&2; status=1; }
  done < <(grep -noE '(^|[^A-Za-z0-9_.-])ci/[A-Za-z0-9_./-]*[A-Za-z0-9_]' "$f" |
             sed -E 's/^([0-9]+):[^c]*/\1:/' | sort -u)
done
exit $status
