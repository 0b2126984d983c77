#!/usr/bin/env bash
# Generates the copy-in form of jitflush: one header and one C file that a
# project compiles with no build system at all (LuaJIT-style makefiles,
# emulators with their own build):
#
#   ci/gen/amalgamation.sh [OUTDIR]  (default: build/amalgamated)
#   -> OUTDIR/jitflush.h   the public header, unchanged
#   -> OUTDIR/jitflush.c   every library source, internal headers inlined
#
#   cc -std=c11 -O2 -c OUTDIR/jitflush.c -o jitflush.o     # x86_64, aarch64, ...
#   (on Linux link with -pthread: the AArch64 probe runs on a helper thread)
#
# Why one C file rather than "copy lib/ and common/": users compile what they were given
# with the flags their project already uses; one file with no include path
# and no assembler step is the least they can get wrong.
#
# The file lists come from cmake/JitflushSources.cmake (the one source of
# truth, which CMakeLists.txt includes; CMake evaluates it here too):
# JITFLUSH_COMMON_SOURCES, JITFLUSH_PORTABLE_SOURCES and
# JITFLUSH_PLATFORM_SOURCES go in as they are (each platform file guards
# itself, lib/platform.h), JITFLUSH_PROBE_SOURCES, JITFLUSH_SEAM_SOURCES and
# lib/flush_aarch64.S go inside the AArch64 Linux guard, as CMake adds them
# only for that target. lib/flush_aarch64.S is run through the C
# preprocessor here and becomes a top-level __asm__ block, so the exact
# instruction sequence tests/static checks is the one users compile.
# A lib/*.c or common/*.c file that is in none of the lists (other than the optional
# __clear_cache drop-in) stops the script: it would be silently missing.
#
# Environment: CPP  the preprocessor for the .S (default: cc -E)
# Exit status: 0 ok, 2 usage, 3 the source tree is not what this script expects.
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:-$root/build/amalgamated}
if [ $# -gt 1 ] || [ "${1:-}" = "-h" ] || [ "${1:-}" = "--help" ]; then
  sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0" >&2
  exit 2
fi
cpp_cmd=${CPP:-cc -E}

die() { echo "ci/gen/amalgamation.sh: $*" >&2; exit 3; }

# Prints the files of one list of cmake/JitflushSources.cmake, as CMake
# itself evaluates it.
cmake_list() {
  local files
  files=$(cmake -DNAMES="$1" -P "$root/cmake/print-sources.cmake") || die "cannot read the list $1"
  [ -n "$files" ] || die "cmake/JitflushSources.cmake has an empty $1"
  echo "$files"
}

portable=$(cmake_list JITFLUSH_COMMON_SOURCES; cmake_list JITFLUSH_PORTABLE_SOURCES)
seams=$(cmake_list JITFLUSH_SEAM_SOURCES)
unguarded=$(cmake_list JITFLUSH_PLATFORM_SOURCES)
aarch64_only=$(cmake_list JITFLUSH_PROBE_SOURCES)
# The seams (lib/fs_posix.c -> jf_fs_*, lib/os_linux.c -> jf_os_*, ...)
# exist only on AArch64 Linux. A "portable" file that calls one (the sysfs
# reader) is needed only by the probe there; outside the guard it would be
# an undefined reference in the one object users link. CMake's static
# archive hides this (an unused member is never linked); one C file cannot.
seam_calls=$(for f in $seams; do b=${f##*/}; printf 'jf_%s_|' "${b%%_*}"; done)
seam_calls="(${seam_calls%|})"
for f in $portable; do
  if grep -Eq "$seam_calls" "$root/$f"; then
    aarch64_only="$aarch64_only $f"
  else
    unguarded="$unguarded $f"
  fi
done
aarch64_only="$aarch64_only $seams"
asm_file=lib/flush_aarch64.S
[ -f "$root/$asm_file" ] || die "$asm_file not found"

for f in $unguarded $aarch64_only; do
  [ -f "$root/$f" ] || die "cmake/JitflushSources.cmake lists $f, which does not exist"
done
# Matched in the shell, not with "printf ... | grep -q": grep -q exits at
# the first match, and under pipefail the printf that then writes into a
# closed pipe (SIGPIPE) failed the check about once in 100 runs.
listed=$'\n'$(printf '%s\n' $unguarded $aarch64_only)$'\n'
for f in "$root"/lib/*.c "$root"/common/*.c; do
  rel=${f#"$root"/}
  [ "$rel" = lib/clear_cache_dropin.c ] && continue
  case $listed in
    *$'\n'"$rel"$'\n'*) ;;
    *) die "$rel is in none of the CMake source lists this script reads; update ci/gen/amalgamation.sh" ;;
  esac
done

mkdir -p "$out"
tmp=$(mktemp "$out/.jitflush.c.XXXXXX")
trap 'rm -f "$tmp"' EXIT

# Copies a file, replacing every quoted #include of a jitflush header by a
# comment (the headers are emitted once, up front) and every _GNU_SOURCE
# definition by a comment (it must precede the first system header of the
# whole file, so it is defined once at the top).
strip_local() {
  awk -v name="$1" '
    /^[ \t]*#[ \t]*include[ \t]*"/ { inc = $0; sub(/^[^"]*"/, "", inc); sub(/".*$/, "", inc)
                                     print "/* #include \"" inc "\": inlined above */"; next }
    /^[ \t]*#[ \t]*define[ \t]+_GNU_SOURCE([ \t]|$)/ { print "/* _GNU_SOURCE: defined at the top */"; next }
    { print }' "$2"
}

# The private headers (common/ and lib/) in an order where each one follows
# the headers it includes (they include each other by bare name, e.g.
# "cpuset.h"; no two of them share a name).
header_order() {
  local done_names="" done_paths="" pending h dep ok
  pending=$(cd "$root" && ls common/*.h lib/*.h)
  while [ -n "$pending" ]; do
    local next="" progressed=0
    for h in $pending; do
      ok=1
      for dep in $(sed -n 's/^[ \t]*#[ \t]*include[ \t]*"\([^"]*\)".*/\1/p' "$root/$h"); do
        [ "$dep" = jitflush.h ] && continue
        case " $done_names " in *" $dep "*) ;; *) ok=0 ;; esac
      done
      if [ $ok = 1 ]; then
        done_names="$done_names ${h##*/}"
        done_paths="$done_paths $h"
        progressed=1
      else
        next="$next $h"
      fi
    done
    [ $progressed = 1 ] || die "the private headers include each other in a cycle:$next"
    pending=$next
  done
  echo $done_paths
}

# lib/flush_aarch64.S as a top-level asm block: preprocessed for AArch64
# Linux (its #if guard and #defines resolved), comments and the
# .note.GNU-stack line dropped (the C compiler emits its own), each line a
# string. pushsection/popsection hand the compiler back the section it was
# in, which it assumes never changes under it.
asm_block() {
  local pre
  pre=$($cpp_cmd -P -undef -x assembler-with-cpp -D__aarch64__=1 -D__linux__=1 "$root/$asm_file") ||
    die "cannot preprocess $asm_file with: $cpp_cmd"
  # A here-string, not a pipe: see the note on the source-list check.
  grep -q 'jf_flush_lines_aarch64:' <<<"$pre" ||
    die "$asm_file preprocessed to nothing (is its guard still __aarch64__ && __linux__?)"
  echo "__asm__("
  echo "    \".pushsection .text\\n\""
  printf '%s\n' "$pre" | awk '
    /^[ \t]*$/ { next }
    /\.note\.GNU-stack/ { next }
    { gsub(/\\/, "\\\\"); gsub(/"/, "\\\""); sub(/[ \t]+$/, ""); print "    \"" $0 "\\n\"" }'
  echo "    \".popsection\\n\");"
}

{
  cat <<EOF
/*
 * jitflush $(sed -n 's/^#define JITFLUSH_VERSION_STRING "\(.*\)"/\1/p' "$root/include/jitflush.h"), amalgamated: the whole library in one C file.
 * Generated by ci/gen/amalgamation.sh from the jitflush source tree; do not edit,
 * regenerate. Keep jitflush.h next to this file.
 *
 * SPDX-License-Identifier: MIT (jitflush's LICENSE, reproduced here so the
 * two copied files carry it):
 *
$(sed 's/^/ * /; s/ *$//' "$root/LICENSE")
 *
 *   cc -std=c11 -O2 -c jitflush.c           (Linux: link the program with -pthread)
 *
 * Every platform's code is here behind its own guard, so the same file is
 * correct on AArch64 Linux/Android, x86, Windows, Apple arm64 and others.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1 /* syscall(), getauxval, O_CLOEXEC, CPU affinity under -std=c11 */
#endif

#include "jitflush.h"
EOF
  # The internal headers' static inline helpers (jf_range_last) are unused
  # on platforms whose code does not call them. In their own header no
  # compiler warns; inlined into this file, clang's -Wunused-function would.
  echo
  echo "#if defined(__clang__)"
  echo "#pragma clang diagnostic push"
  echo "#pragma clang diagnostic ignored \"-Wunused-function\""
  echo "#endif"
  for h in $(header_order); do
    echo
    echo "/* ======== $h ======== */"
    strip_local "$h" "$root/$h"
  done
  echo
  echo "#if defined(__clang__)"
  echo "#pragma clang diagnostic pop"
  echo "#endif"
  for f in $unguarded; do
    echo
    echo "/* ======== $f ======== */"
    strip_local "$f" "$root/$f"
  done
  echo
  echo "/* ======== AArch64 Linux/Android only: the probe, its seams, the flush loop ======== */"
  echo "#if defined(__aarch64__) && defined(__linux__)"
  for f in $aarch64_only; do
    echo
    echo "/* ======== $f ======== */"
    strip_local "$f" "$root/$f"
  done
  echo
  echo "/* ======== $asm_file (preprocessed for AArch64 Linux) ======== */"
  asm_block
  echo "#endif /* __aarch64__ && __linux__ */"
} > "$tmp"

mv "$tmp" "$out/jitflush.c"
trap - EXIT
cp "$root/include/jitflush.h" "$out/jitflush.h"
echo "$out/jitflush.c"
