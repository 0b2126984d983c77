#!/usr/bin/env bash
# The rig's cost on real JITs (docs/BENCHMARKS.md, "Real JITs against plain
# QEMU"): CPU time and peak RSS of each workload under plain qemu-aarch64
# (the rig's own QEMU build, no -plugin), under the rig with the checker on
# and with it off, paired run by run.
#
#   ci/bench/realjit.sh [--runs N] [--warmup W] [--load K] [--rows REGEX] [--list]
#   ci/bench/realjit.sh --census [--rows REGEX]
#   ci/bench/realjit.sh --floor [--runs N] [--warmup W] [--load K] [--rows REGEX]
#
#   --runs N      counted rounds per row (default 5)
#   --warmup W    rounds run first and not counted (default 1; 0 for a long
#                 row, whose first run warms the page cache as well)
#   --load K      keep K spinning processes running while it measures (the
#                 "loaded" table; ci/check/repeat-under-load.sh's hogs);
#                 default 0, idle
#   --rows REGEX  only the rows whose name matches REGEX (grep -E)
#   --list        print each row, whether its program is ready and its
#                 command, and run nothing; exits 3 when a row is not ready
#   --census      time nothing: run each row once under plain QEMU with
#                 ci/bench/block_census.c (built here against the rig's QEMU
#                 plugin header) and print what the rig would have to
#                 instrument: blocks by what they can observe and whether
#                 their code was stored, stores by the class of their page
#                 (build/bench/realjit-census.md)
#   --floor       time the store floor instead of the rig: each round runs
#                 plain QEMU, plain QEMU with ci/bench/store_floor.c (the
#                 rig's store callbacks, one for one, each returning at once)
#                 and the rig with the checker off; prints floor / plain and
#                 the least checker-on / checker-off ratio those callbacks
#                 allow, (off + floor - plain) / off
#                 (build/bench/realjit-floor.md)
#
# Rows (programs built or fetched as the realjit test label does, and cached
# where it caches them):
#   pcre2        pcre2test -jit on PCRE2's testinput1 (the label's drop-in
#                build of Debian's PCRE2 source)
#   luajit       LuaJIT on tests/realjit/traces.lua (the label's drop-in build)
#   v8           Debian 12's arm64 node (V8) on tests/realjit/v8_loop.js
#   qemu_tcg     Debian 12's arm64 qemu-x86_64-static (QEMU's TCG, a JIT)
#                running tests/realjit/tcg_guest, an x86_64 program
#   racket       Debian 12's arm64 Racket CS 8.7 (Chez Scheme machine code,
#                all of it in memory the process stored) evaluating
#                tests/realjit/racket_eval.scm
# Debian's packages come from tests/realjit/fetch_debs.sh (cached sysroots);
# the PCRE2 and LuaJIT builds from the realjit label (ctest -L realjit),
# found in JITFLUSH_BENCH_REALJIT_WORK (default build/host/tests/realjit/work).
#
# Each round runs plain QEMU, the rig with the checker on, and the rig with
# it off, one after the other, so that a slow moment of the machine hits
# all three; the ratios are taken round by round and their median printed.
# CPU is user + system seconds of the whole process tree and peak RSS the
# largest single process's (GNU time, from wait4). Every run runs under
# setarch -R in build/bench/realjit/scratch, and must exit 0 (86 under the
# rig when it caught stale fetches) and print the row's expected output.
# Writes build/bench/realjit.md (the table) and realjit-runs.txt (every run).
#
# Environment: JITFLUSH_REALJIT_CACHE (default .cache, as the test suite),
# JITFLUSH_BENCH_SEED (rig seed, default 1).
# Exit status: 0 measured (the targets are printed, not enforced); 2 usage;
# 3 a row is not ready, a run failed or printed the wrong output.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
out=$root/build/bench
runs=5 warmup=1 load=0 rows_re=. list=0 census=0 floor=0
seed=${JITFLUSH_BENCH_SEED:-1}
cache=${JITFLUSH_REALJIT_CACHE:-$root/.cache}
work=${JITFLUSH_BENCH_REALJIT_WORK:-$root/build/host/tests/realjit/work}
me=ci/bench/realjit.sh

need() { [ $# -ge 2 ] || { echo "$me: $1 needs a value" >&2; exit 2; }; }
usage() { sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0"; }
while [ $# -gt 0 ]; do
  case "$1" in
    --runs) need "$@"; runs=$2; shift 2 ;;
    --warmup) need "$@"; warmup=$2; shift 2 ;;
    --load) need "$@"; load=$2; shift 2 ;;
    --rows) need "$@"; rows_re=$2; shift 2 ;;
    --list) list=1; shift ;;
    --census) census=1; shift ;;
    --floor) floor=1; shift ;;
    -h|--help) usage; exit 0 ;;
    *) echo "$me: unknown argument '$1'" >&2; usage >&2; exit 2 ;;
  esac
done
case "$runs" in ''|*[!0-9]*|0) echo "$me: --runs takes a number of at least 1" >&2; exit 2 ;; esac
for v in "$load" "$warmup"; do
  case "$v" in ''|*[!0-9]*) echo "$me: --load and --warmup take numbers" >&2; exit 2 ;; esac
done

runner=$root/build/host/rig/jitflush-emu
config=$root/qemu-configs/exynos8890.conf
qemu=$(sed -n 's/^JITFLUSH_QEMU_AARCH64:FILEPATH=//p' "$root/build/host/CMakeCache.txt" 2>/dev/null || true)
[ -x "$runner" ] && [ -x "$qemu" ] ||
  { echo "$me: build/host's jitflush-emu and its QEMU are not built (ci/build.sh)" >&2; exit 3; }
rj=$root/tests/realjit

# Prints the sysroot of Debian package PACKAGE unpacked as NAME (cached;
# the first call downloads), or nothing when it cannot be made.
debs() { "$rj/fetch_debs.sh" "$cache" "$1" "$2" 2>/dev/null || true; }

# row NAME SYSROOT EXPECT PROGRAM [ARGS...]: SYSROOT is "-" for a static
# program; EXPECT an extended regex the program's stdout must match ("":
# the exit status alone, pcre2test -q writing its results to /dev/null).
names=() sysroots=() expects=() commands=()
row() {
  echo "$1" | grep -Eq -- "$rows_re" || return 0
  names+=("$1") sysroots+=("$2") expects+=("$3")
  shift 3
  commands+=("$(printf '%q ' "$@")")
}
declare_rows() {
  local pcre2=$work/pcre2 v8 tcg racket
  row pcre2 - '' "$pcre2/pcre2test-dropin" -q -jit "$pcre2/jit/testdata/testinput1" /dev/null
  row luajit - '^round [0-9]+ checksum' "$work/luajit/luajit-dropin" "$rj/traces.lua"
  v8=$(debs v8 nodejs)
  row v8 "${v8:--}" '^sum 599996$' "${v8:-/nonexistent}/usr/bin/node" "$rj/v8_loop.js"
  tcg=$out/realjit/qemu_tcg
  if ! echo qemu_tcg | grep -Eq -- "$rows_re" ||
     ! "$rj/build_qemu_tcg.sh" "$cache" "$tcg" >/dev/null 2>&1; then
    tcg=/nonexistent
  fi
  row qemu_tcg - '^tcg_guest: [0-9a-f]{8}$' "$tcg/qemu-x86_64-static" "$tcg/tcg_guest"
  racket=$(debs racket racket)
  # -G: the sysroot's own config (etc/racket/config.rktd, whose
  # compiled-file-roots finds the compiled collections): the rig's -L
  # overlay shows the sysroot's lib/ and usr/ but not its etc/, and without
  # the config Racket compiles racket/base from source, 29 times the work.
  row racket "${racket:--}" '^total 379810000$' "${racket:-/nonexistent}/usr/bin/racket" \
    -G "${racket:-/nonexistent}/etc/racket" -l racket/base -f "$rj/racket_eval.scm"
}
mkdir -p "$out/realjit/scratch"
declare_rows
[ ${#names[@]} -gt 0 ] || { echo "$me: no row matches '$rows_re'" >&2; exit 2; }

ready() { local -a c; eval "c=(${commands[$1]})"; [ -f "${c[0]}" ] && [ -x "${c[0]}" ]; }
if [ "$list" = 1 ]; then
  status=0
  for i in "${!names[@]}"; do
    if ready "$i"; then state=ready; else state="not ready"; status=3; fi
    printf '%s\t%s\tsysroot %s\t%s\n' "${names[i]}" "$state" "${sysroots[i]}" "${commands[i]}"
  done
  exit $status
fi
for i in "${!names[@]}"; do
  ready "$i" || { echo "$me: row ${names[i]} is not ready: ${commands[i]%% *} (run ctest -L realjit first, or see --list)" >&2; exit 3; }
done

# plugin NAME SOURCES...: builds a measuring plugin against the rig's QEMU
# plugin header into $out/realjit/NAME.so and prints its path.
plugin() {
  local name=$1 header so=$out/realjit/$1.so
  shift
  header=$(sed -n 's/^JITFLUSH_QEMU_PLUGIN_HEADER:INTERNAL=//p' "$root/build/host/CMakeCache.txt")
  # shellcheck disable=SC2046
  cc -std=c11 -O2 -shared -fPIC -I"$(dirname "$header")" -I"$root/rig/model" \
    $(pkg-config --cflags glib-2.0) -o "$so" "$@" ||
    { echo "$me: cannot build the $name plugin" >&2; exit 3; }
  echo "$so"
}

[ "$census" = 0 ] || [ "$floor" = 0 ] || { echo "$me: --census and --floor are two runs" >&2; exit 2; }
if [ "$census" = 1 ]; then
  so=$(plugin block_census "$root/ci/bench/block_census.c")
  : >"$out/realjit-census.md"
  for i in "${!names[@]}"; do
    eval "c=(${commands[i]})"
    pre=("$qemu" -cpu cortex-a53 -plugin "$so,out=$out/realjit/census.tsv")
    [ "${sysroots[i]}" = - ] || pre+=(-L "${sysroots[i]}")
    (cd "$out/realjit/scratch" && exec setarch -R "${pre[@]}" "${c[@]}") >/dev/null 2>&1 ||
      { echo "$me: ${names[i]} failed under the census plugin" >&2; exit 3; }
    { echo "### ${names[i]}"; echo
      echo "| blocks | translated | executed | instructions executed |"
      echo "|---|---:|---:|---:|"
      sed 1d "$out/realjit/census.tsv" | awk -F'\t' '{ printf "| %s | %s | %s | %s |\n", $1, $2, $3, $4 }'
      echo; } | tee -a "$out/realjit-census.md"
  done
  exit 0
fi

if [ "$floor" = 1 ]; then
  floor_so=$(plugin store_floor "$root/ci/bench/store_floor.c" "$root/rig/model/model_store_groups.c")
fi

pids=()
stop_hogs() { [ ${#pids[@]} -eq 0 ] || { kill "${pids[@]}" 2>/dev/null || true; wait "${pids[@]}" 2>/dev/null || true; }; }
trap stop_hogs EXIT INT TERM
for ((k = 0; k < load; k++)); do
  (while :; do :; done) &
  pids+=($!)
done

log=$out/realjit-runs.txt
: >"$log"
# once WAY INDEX: one run; prints "CPU_SECONDS PEAK_KIB" and logs it.
once() {
  local way=$1 i=$2 rc=0 res
  local -a c pre=()
  eval "c=(${commands[i]})"
  case "$way" in
    plain|floor) pre=("$qemu" -cpu cortex-a53)
           [ "$way" = plain ] || pre+=(-plugin "$floor_so")
           [ "${sysroots[i]}" = - ] || pre+=(-L "${sysroots[i]}") ;;
    on|off) pre=("$runner" --config "$config" --seed "$seed" --check "$way")
            [ "${sysroots[i]}" = - ] || pre+=(--sysroot "${sysroots[i]}")
            pre+=(--) ;;
  esac
  (cd "$out/realjit/scratch" &&
   exec /usr/bin/time -o "$out/realjit/time" -f '%e %U %S %M' setarch -R "${pre[@]}" "${c[@]}") \
    >"$out/realjit/stdout" 2>"$out/realjit/stderr" || rc=$?
  res=$(tail -n 1 "$out/realjit/time" | awk '{ printf "%.2f %d %.2f", $2 + $3, $4, $1 }')
  echo "${names[i]} $way status $rc cpu/rss/wall $res" >>"$log"
  if [ "$rc" != 0 ] && { [ "$way" = plain ] || [ "$way" = floor ] || [ "$rc" != 86 ]; }; then
    tail -n 5 "$out/realjit/stderr" >&2
    echo "$me: ${names[i]} ($way) exited $rc" >&2; return 3
  fi
  [ -z "${expects[i]}" ] || grep -Eq -- "${expects[i]}" "$out/realjit/stdout" ||
    { echo "$me: ${names[i]} ($way) did not print /${expects[i]}/" >&2; return 3; }
  echo "${res% *}"
}

load_before=$(cut -d' ' -f1-3 /proc/loadavg)
table=()
for i in "${!names[@]}"; do
  rounds=()
  for r in $(seq $((1 - warmup)) "$runs"); do
    if [ "$floor" = 1 ]; then
      p=$(once plain "$i") && n=$(once floor "$i") && o=$(once off "$i") || exit 3
    else
      p=$(once plain "$i") && n=$(once on "$i") && o=$(once off "$i") || exit 3
    fi
    [ "$r" -lt 1 ] || rounds+=("$p $n $o")
  done
  # Each round: plain CPU and KiB, then the second way's (checker on, or
  # the floor), then checker off's.
  table+=("$(printf '%s\n' "${rounds[@]}" | awk -v name="${names[i]}" -v floor="$floor" '
    function median(a, k,   i, j, t) {
      for (i = 2; i <= k; i++) for (j = i; j > 1 && a[j - 1] > a[j]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
      return k % 2 ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2
    }
    function pos(x) { return x > 0 ? x : 0.01 }
    { k++; pc[k] = $1; pm[k] = $2; nc[k] = $3; nm[k] = $4; oc[k] = $5; om[k] = $6
      np[k] = $3 / pos($1); op[k] = $5 / pos($1); no[k] = $3 / pos($5); nr[k] = $4 / pos($2); orr[k] = $6 / pos($2)
      least[k] = ($5 + $3 - $1) / pos($5) }
    END {
      if (floor)
        printf "| %s | %.2f | %.2f | %.2f | %.2fx | %.2fx | %.2fx |",
          name, median(pc, k), median(nc, k), median(oc, k), median(np, k), median(op, k), median(least, k)
      else
        printf "| %s | %.2f | %.2f | %.2f | %.2fx | %.2fx | %.2fx | %.0f | %.0f | %.0f | %.2fx | %.2fx |",
          name, median(pc, k), median(nc, k), median(oc, k), median(np, k), median(op, k), median(no, k),
          median(pm, k) / 1024, median(nm, k) / 1024, median(om, k) / 1024, median(nr, k), median(orr, k) }')")
done
load_after=$(cut -d' ' -f1-3 /proc/loadavg)

if [ "$floor" = 1 ]; then
  {
    echo "## The store floor ($(basename "$config") for checker off, rig seed $seed, $(nproc) CPUs," \
         "$load hogs, median of $runs paired rounds; load average $load_before before, $load_after after)"
    echo
    echo "| row | plain CPU s | floor CPU s | off CPU s | floor / plain | off / plain | least on / off |"
    echo "|---|---:|---:|---:|---:|---:|---:|"
    printf '%s\n' "${table[@]}"
  } | tee "$out/realjit-floor.md"
  exit 0
fi

{
  echo "## Real JITs against plain QEMU ($(basename "$config"), rig seed $seed, $(nproc) CPUs," \
       "$load hogs, median of $runs paired rounds; load average $load_before before, $load_after after)"
  echo
  echo "| row | plain CPU s | on CPU s | off CPU s | on / plain | off / plain | on / off | plain MiB | on MiB | off MiB | on / plain RSS | off / plain RSS |"
  echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
  printf '%s\n' "${table[@]}"
} | tee "$out/realjit.md"
