#!/usr/bin/env bash
# The benchmarks of DESIGN.md section 6 (docs/BENCHMARKS.md explains every
# number). Separate from ci/test.sh: it takes a few minutes and its timing
# parts depend on the machine.
#
#   ci/bench.sh                 build, then all three parts below
#   ci/bench.sh --counts-only   only the exact counts under the rig
#   ci/bench.sh --check         counts only, and fail unless they equal the
#                               tables in docs/BENCHMARKS.md byte for byte
#   ci/bench.sh --write-doc     counts only, and rewrite those tables
#   ci/bench.sh --no-build      skip ci/build.sh (with any of the above)
#
# Parts:
#   1. counts   build/aarch64's flush_bench under the rig (jitflush-emu) for
#               every routine of tests/scenario on four SoCs and four sizes:
#               DC/IC ops per flush and their ratio to the minimum,
#               instructions outside the maintenance loops, mrs ctr_el0
#               (kernel traps on the sanitising config), stale fetches, and
#               the first call's init cost. Writes build/bench/counts.md and
#               build/bench/ops-per-flush.png; checks jitflush's targets.
#   2. host     build/host's Google Benchmark of the x86_64 path (skipped,
#               with a note, when libbenchmark-dev was not found).
#   3. rig      wall clock of tests/scenario/jit_stress on plain QEMU, under
#               the rig with the checker off, and with it on (median of
#               JITFLUSH_BENCH_REPEAT runs, default 3).
#
# Exit status: 0 ok; 1 a jitflush target was missed; 2 usage; 3 a run
# failed; 4 --check found the counts differ from docs/BENCHMARKS.md; or the
# failing build step's status.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=$root/build/bench
seed=${JITFLUSH_BENCH_SEED:-1}
repeat=${JITFLUSH_BENCH_REPEAT:-3}
mode=all
build=1

usage() { sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0"; }
for arg in "$@"; do
  case "$arg" in
    --counts-only) mode=counts ;;
    --check) mode=check ;;
    --write-doc) mode=write ;;
    --no-build) build=0 ;;
    -h|--help) usage; exit 0 ;;
    *) echo "ci/bench.sh: unknown argument '$arg'" >&2; usage >&2; exit 2 ;;
  esac
done

if [ "$build" -eq 1 ]; then
  "$root/ci/install-deps.sh"
  "$root/ci/build.sh" >/dev/null
fi
runner=$root/build/host/src/emu/jitflush-emu
guest=$root/build/aarch64/tests/bench/flush_bench
stress=$root/build/aarch64/tests/scenario/jit_stress
conf_facts=$root/build/host/tests/bench/conf_facts
for f in "$runner" "$guest" "$stress" "$conf_facts"; do
  [ -x "$f" ] || { echo "ci/bench.sh: $f is not built (run ci/build.sh)" >&2; exit 3; }
done
mkdir -p "$out"
start=$(date +%s)

# ---- 1. counts ---------------------------------------------------------------
doc_args=()
case "$mode" in
  check) doc_args=(--check "$root/docs/BENCHMARKS.md") ;;
  write) doc_args=(--write-doc "$root/docs/BENCHMARKS.md") ;;
esac
status=0
python3 "$root/ci/bench_counts.py" --runner "$runner" --guest "$guest" --conf-facts "$conf_facts" \
  --out "$out" --seed "$seed" \
  ${doc_args[@]+"${doc_args[@]}"} || status=$?
if [ "$mode" != all ]; then
  echo "ci/bench.sh: took $(( $(date +%s) - start )) s"
  exit $status
fi

# ---- 2. host micro-benchmark -------------------------------------------------
host_bench=$root/build/host/tests/bench/host_bench
if [ -x "$host_bench" ]; then
  echo
  echo "## Host path (Google Benchmark, $(uname -m))"
  "$host_bench" --benchmark_min_time=0.2 --benchmark_out="$out/host_bench.json" \
    --benchmark_out_format=json 2>&1 | tee "$out/host_bench.txt" || status=3
else
  echo "ci/bench.sh: host_bench not built (install libbenchmark-dev and rebuild); part 2 skipped" >&2
fi

# ---- 3. the rig's own speed --------------------------------------------------
qemu=$(sed -n 's/^JITFLUSH_QEMU_AARCH64:FILEPATH=//p' "$root/build/host/CMakeCache.txt")
[ -x "$qemu" ] || { echo "ci/bench.sh: no plugin-enabled QEMU in build/host's cache" >&2; exit 3; }
config=$root/qemu-configs/exynos8890.conf
stress_args=(--impl=jitflush --threads=4 --iterations=1500 --seed=1)

# Median wall-clock seconds of REPEAT runs of the command.
median_seconds() {
  local times=() t0 t1
  for _ in $(seq "$repeat"); do
    t0=$(date +%s.%N)
    "$@" >/dev/null 2>&1 || { echo "ci/bench.sh: failed: $*" >&2; exit 3; }
    t1=$(date +%s.%N)
    times+=("$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')")
  done
  printf '%s\n' "${times[@]}" | sort -g | sed -n "$(( (repeat + 1) / 2 ))p"
}
echo
echo "## Rig speed: jit_stress ${stress_args[*]} ($(nproc) CPUs, $(uname -m), median of $repeat)"
plain=$(median_seconds "$qemu" -cpu cortex-a53 "$stress" "${stress_args[@]}")
off=$(median_seconds "$runner" --config "$config" --check off -- "$stress" "${stress_args[@]}")
on=$(median_seconds "$runner" --config "$config" -- "$stress" "${stress_args[@]}")
{
  echo "| run | seconds | slowdown |"
  echo "|---|---:|---:|"
  printf '| plain qemu-aarch64 (no plugin) | %.2f | 1.0x |\n' "$plain"
  awk -v p="$plain" -v off="$off" -v on="$on" 'BEGIN {
    printf "| rig, checker off | %.2f | %.1fx |\n", off, off / p
    printf "| rig, checker on | %.2f | %.1fx |\n", on, on / p }'
} | tee "$out/rig_speed.md"
echo "ci/bench.sh: took $(( $(date +%s) - start )) s"
exit $status
