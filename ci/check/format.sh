#!/usr/bin/env bash
# Checks (or fixes) the formatting of the C and C++ sources with
# clang-format-14 and the repository's .clang-format.
#
#   ci/check/format.sh                 check the files ci/check/format-files.txt
#                                      lists
#   ci/check/format.sh --check FILE... check these files instead
#   ci/check/format.sh --fix           reformat the listed files in place
#   ci/check/format.sh --fix --all     reformat every C and C++ file of lib/,
#                                      common/, cli/, rig/, include/, tests/
#                                      and examples/, and make
#                                      ci/check/format-files.txt list them all
#                                      (by glob)
#
# Braces too: every if, else, for, while and do body of lib/, common/, cli/, rig/ and include/
# is a block, the one brace style (clang-format 16's InsertBraces, which
# clang-format 14 lacks, applied with the same style and then formatted by
# clang-format-14 again: a file is braced when that changes nothing).
#
# The CTest test format.check (label format) runs the first form.
# Exit status: 0 formatted, 1 some file is not (each is named, with a diff),
# 2 usage or clang-format-14 missing.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
list="$root/ci/check/format-files.txt"
clang_format=${CLANG_FORMAT:-clang-format-14}
clang_format_braces=${CLANG_FORMAT_BRACES:-clang-format-16}
all_globs=('lib/**/*.c' 'lib/**/*.h' 'common/**/*.c' 'common/**/*.h' 'cli/**/*.c' 'cli/**/*.h'
           'rig/**/*.c' 'rig/**/*.h' 'include/**/*.h' 'tests/**/*.c' 'tests/**/*.h'
           'tests/**/*.cc' 'examples/**/*.c')

mode=check
all=0
files=()
while [ $# -gt 0 ]; do
  case "$1" in
    --check) mode=check ;;
    --fix) mode=fix ;;
    --all) all=1 ;;
    -h|--help) sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0"; exit 0 ;;
    -*) echo "ci/check/format.sh: unknown option '$1'" >&2; exit 2 ;;
    *) files+=("$1") ;;
  esac
  shift
done
command -v "$clang_format" >/dev/null ||
  { echo "ci/check/format.sh: $clang_format not found (ci/install/deps.sh installs clang-format-14)" >&2; exit 2; }
command -v "$clang_format_braces" >/dev/null ||
  { echo "ci/check/format.sh: $clang_format_braces not found (ci/install/deps.sh installs clang-format-16)" >&2; exit 2; }
# .clang-format as one inline style, with InsertBraces (a key clang-format
# 14 would reject in the file itself).
braces_style="{$(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$root/.clang-format" | paste -sd, -), InsertBraces: true}"

# FILE with braces inserted, in clang-format-14's layout.
braced() {
  "$clang_format_braces" --style="$braces_style" --assume-filename="$1" < "$1" |
    "$clang_format" --style="file:$root/.clang-format" --assume-filename="$1"
}

cd "$root"
shopt -s globstar nullglob
if [ "${#files[@]}" -eq 0 ]; then
  if [ "$all" -eq 1 ]; then
    globs=("${all_globs[@]}")
  else
    mapfile -t globs < <(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$list")
  fi
  for g in "${globs[@]}"; do
    # Unquoted on purpose: the line is a glob. A glob that matches nothing
    # is a stale list entry.
    matched=($g)
    [ "${#matched[@]}" -gt 0 ] || { echo "ci/check/format.sh: $list: '$g' matches no file" >&2; exit 1; }
    files+=("${matched[@]}")
  done
fi

status=0
for f in "${files[@]}"; do
  case "${f#"$root"/}" in lib/*|common/*|cli/*|rig/*|include/*) with_braces=1 ;; *) with_braces=0 ;; esac
  if [ "$mode" = fix ]; then
    if [ "$with_braces" -eq 1 ]; then
      braced "$f" > "$f.braced" && mv "$f.braced" "$f"
    fi
    "$clang_format" --style="file:$root/.clang-format" -i "$f"
  elif ! "$clang_format" --style="file:$root/.clang-format" "$f" | diff -u --label "$f" --label "$f (formatted)" "$f" -; then
    status=1
  elif [ "$with_braces" -eq 1 ] && ! braced "$f" | diff -u --label "$f" --label "$f (braced)" "$f" -; then
    status=1
  fi
done
if [ "$mode" = fix ] && [ "$all" -eq 1 ]; then
  { sed -n '/^#/p' "$list"; printf '%s\n' "${all_globs[@]}"; } > "$list.new"
  mv "$list.new" "$list"
fi
if [ "$status" -ne 0 ]; then
  echo "ci/check/format.sh: the files above are not formatted; bash ci/check/format.sh --fix formats them" >&2
fi
exit $status
