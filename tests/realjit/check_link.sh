#!/usr/bin/env bash
# Proves which __clear_cache each variant of a real JIT's program calls,
# from the static programs' code (build_jit.sh links them):
#
#   check_link.sh DIR PROGRAM ARCHIVE
#
# DIR/PROGRAM-libgcc, DIR/PROGRAM-dropin and DIR/PROGRAM-dropin-first are
# the same objects linked as is, with the drop-in after every object and
# archive, and with the drop-in first. ARCHIVE is the JIT's library (e.g.
# libpcre2-8.a): the functions that call __clear_cache must be its own.
#
# Expected:
#   libgcc       __clear_cache is libgcc's: a branch to
#                __aarch64_sync_cache_range; no jitflush code at all.
#   dropin       __clear_cache branches to jitflush_clear_cache; libgcc's
#                __aarch64_sync_cache_range is not linked in at all.
#   dropin-first __clear_cache is libgcc's again, and the link printed
#                nothing that the plain link did not: the mistake is silent.
#   all three    the JIT's own functions call __clear_cache, from the same
#                call sites.
# Exit status: 0 pass, 1 an expectation failed, 2 usage.
set -euo pipefail

[ $# -eq 3 ] || { echo "usage: check_link.sh DIR PROGRAM ARCHIVE" >&2; exit 2; }
dir=$1 prog=$2 archive=$3
objdump=${AARCH64_OBJDUMP:-aarch64-linux-gnu-objdump}
nm=${AARCH64_NM:-aarch64-linux-gnu-nm}

fail() { echo "check_link.sh $prog: FAIL: $*" >&2; exit 1; }

# The instruction(s) of __clear_cache in a program.
clear_cache_body() {
  "$objdump" -d --disassemble=__clear_cache "$1" |
    awk '/^[0-9a-f]+ <__clear_cache>:/ {on=1; next} /^$/ {on=0} on'
}

# "libgcc", "jitflush" or "unknown": whose __clear_cache PROGRAM has.
provider() {
  local body
  body=$(clear_cache_body "$1")
  if printf '%s\n' "$body" | grep -Eq '\<b(l)?[[:space:]]+[0-9a-f]+ <jitflush_clear_cache>'; then
    echo jitflush
  elif printf '%s\n' "$body" | grep -Eq '\<b(l)?[[:space:]]+[0-9a-f]+ <__aarch64_sync_cache_range>'; then
    echo libgcc
  else
    echo unknown
  fi
}

# The functions with a call (or tail call) of __clear_cache, one per line,
# each with its number of call sites.
callers() {
  "$objdump" -d "$1" | awk '
    /^[0-9a-f]+ <.*>:$/ { fn = $2; gsub(/[<>:]/, "", fn) }
    /[[:space:]](b|bl)[[:space:]]+[0-9a-f]+ <__clear_cache>/ && fn != "__clear_cache" { n[fn]++ }
    END { for (f in n) print f, n[f] }' | sort
}

has_symbol() { "$nm" "$1" | awk -v s="$2" '$3 == s {found=1} END {exit !found}'; }

for v in libgcc dropin dropin-first; do
  [ -x "$dir/$prog-$v" ] || fail "$dir/$prog-$v is missing (build_jit.sh links it)"
done
libgcc=$dir/$prog-libgcc dropin=$dir/$prog-dropin first=$dir/$prog-dropin-first

# The checker knows both kinds, so neither verdict below comes for free.
[ "$(provider "$libgcc")" = libgcc ] || fail "the plain link's __clear_cache is not libgcc's: $(clear_cache_body "$libgcc" | head -n 3)"
has_symbol "$libgcc" jitflush_clear_cache && fail "the plain link contains jitflush code"
[ "$(provider "$dropin")" = jitflush ] ||
  fail "with the drop-in after the JIT's archives, __clear_cache is not jitflush's: $(clear_cache_body "$dropin" | head -n 3)"
has_symbol "$dropin" __aarch64_sync_cache_range &&
  fail "with the drop-in, libgcc's __aarch64_sync_cache_range is still linked in"

# Placed first, the drop-in's archive member is not needed yet when the
# linker reads it, so libgcc's __clear_cache satisfies the JIT's later call.
[ "$(provider "$first")" = libgcc ] ||
  fail "with the drop-in placed first, __clear_cache is $(provider "$first")'s, expected libgcc's (docs/VENDORING.md's warning would be wrong)"
if grep -Eiq 'clear_cache|multiple definition' "$first.link.log"; then
  fail "the drop-in-first link warned: $(cat "$first.link.log")"
fi
# Same warnings as the plain link (LuaJIT's static dlopen warning, say), no more.
diff <(sed "s#$prog-dropin-first#PROG#g" "$first.link.log" | sort) \
     <(sed "s#$prog-libgcc#PROG#g" "$libgcc.link.log" | sort) >/dev/null ||
  fail "the drop-in-first link printed something the plain link did not: $(cat "$first.link.log")"

# The JIT itself calls __clear_cache, from functions of its own archive.
sites=$(callers "$libgcc")
[ -n "$sites" ] || fail "nothing in $prog calls __clear_cache: the JIT flushes some other way"
[ "$(callers "$dropin")" = "$sites" ] || fail "the variants call __clear_cache from different places"
own=$("$nm" --defined-only "$archive" 2>/dev/null | awk '$2 ~ /^[tT]$/ {print $3}' | sort -u)
while read -r fn _; do
  printf '%s\n' "$own" | grep -qxF "$fn" || fail "$fn calls __clear_cache but is not defined in $(basename "$archive")"
done <<<"$sites"

echo "check_link.sh $prog: ok: callers of __clear_cache: $(tr '\n' ' ' <<<"$sites")"
echo "  $prog-libgcc: libgcc's __clear_cache; $prog-dropin: jitflush's; $prog-dropin-first: libgcc's, with no warning"
