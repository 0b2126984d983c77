#!/usr/bin/env bash
# The benchmarks (docs/BENCHMARKS.md explains every
# number). Separate from ci/test.sh: it takes a few minutes and its timing
# parts depend on the machine.
#
#   ci/bench/run.sh                 build, then all three parts below
#   ci/bench/run.sh --counts-only   only the exact counts under the rig
#   ci/bench/run.sh --check         counts only, and fail unless they equal the
#                                   tables in docs/BENCHMARKS.md byte for byte
#   ci/bench/run.sh --write-doc     counts only, and rewrite those tables
#   ci/bench/run.sh --speed-only    only part 3, the rig's speed
#   ci/bench/run.sh --startup-only  only part 4, the rig's start-up cost
#   ci/bench/run.sh --memory-only   only part 5, the rig's memory under churn
#   ci/bench/run.sh --no-build      skip ci/build.sh (with any of the above)
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
#   3. rig      the rig's speed: CPU time and wall clock of jit_loop,
#               jit_stress and the real-JIT workloads of the hook file
#               (JITFLUSH_BENCH_WORKLOADS, see part 3) on plain QEMU, under
#               the rig with the checker off, and with it on (median of
#               JITFLUSH_BENCH_REPEAT interleaved rounds, default 3), ratios
#               side by side.
#   4. start-up the rig's start-up cost: a static "hello" under plain QEMU
#               and under jitflush-emu --summary=stale, as a test suite's
#               emulator setting runs it, with and without --store,
#               interleaved (ci/bench/startup.py; JITFLUSH_BENCH_STARTUP_ROUNDS
#               x _RUNS, default 5 x 40; JITFLUSH_BENCH_STARTUP_BEFORE=an
#               older jitflush-emu adds it as a way).
#   5. memory   peak RSS of build/host's emu guest mapping one page of code
#               at a new address JITFLUSH_BENCH_CHURN times (default
#               3,000,000: minutes), by mmap and by System V shmat, on
#               plain QEMU and under the rig with the checker off and on.
#
# Exit status: 0 ok; 1 a jitflush target was missed; 2 usage; 3 a run
# failed; 4 --check found the counts differ from docs/BENCHMARKS.md; or the
# failing build step's status.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
out=$root/build/bench
seed=${JITFLUSH_BENCH_SEED:-1}
repeat=${JITFLUSH_BENCH_REPEAT:-3}
mode=all
build=1

usage() { sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0"; }
for arg in "$@"; do
  case "$arg" in
    --counts-only) mode=counts ;;
    --speed-only) mode=speed ;;
    --startup-only) mode=startup ;;
    --memory-only) mode=memory ;;
    --check) mode=check ;;
    --write-doc) mode=write ;;
    --no-build) build=0 ;;
    -h|--help) usage; exit 0 ;;
    *) echo "ci/bench/run.sh: unknown argument '$arg'" >&2; usage >&2; exit 2 ;;
  esac
done

if [ "$build" -eq 1 ]; then
  "$root/ci/install/deps.sh"
  "$root/ci/build.sh" >/dev/null
fi
runner=$root/build/host/rig/jitflush-emu
guest=$root/build/aarch64/tests/bench/flush_bench
stress=$root/build/aarch64/tests/scenario/jit_stress
conf_facts=$root/build/host/tests/bench/conf_facts
needed=("$runner")
[ "$mode" = memory ] || needed+=("$guest" "$stress" "$conf_facts")
for f in "${needed[@]}"; do
  [ -x "$f" ] || { echo "ci/bench/run.sh: $f is not built (run ci/build.sh)" >&2; exit 3; }
done
mkdir -p "$out"
start=$(date +%s)

# ---- 4. start-up (run last in a full run) ------------------------------------
startup() {
  local qemu hello=$out/hello
  qemu=$(sed -n 's/^JITFLUSH_QEMU_AARCH64:FILEPATH=//p' "$root/build/host/CMakeCache.txt")
  [ -x "$qemu" ] || { echo "ci/bench/run.sh: no plugin-enabled QEMU in build/host's cache" >&2; exit 3; }
  printf '#include <stdio.h>\nint main(void) { puts("hello"); return 0; }\n' > "$out/hello.c"
  aarch64-linux-gnu-gcc -O2 -static -o "$hello" "$out/hello.c" || exit 3
  echo
  echo "## Start-up (exynos8890.conf, $(nproc) CPUs, $(uname -m))"
  # The same folder for every run; the runner's default config.
  (cd "$out" && python3 "$root/ci/bench/startup.py" "$qemu" "$runner" "$hello" \
     "${JITFLUSH_BENCH_STARTUP_ROUNDS:-5}" "${JITFLUSH_BENCH_STARTUP_RUNS:-40}") | tee "$out/startup.md" || exit 3
}
if [ "$mode" = startup ]; then
  startup
  echo "ci/bench/run.sh: took $(( $(date +%s) - start )) s"
  exit 0
fi

# ---- 1. counts ---------------------------------------------------------------
doc_args=()
case "$mode" in
  check) doc_args=(--check "$root/docs/BENCHMARKS.md") ;;
  write) doc_args=(--write-doc "$root/docs/BENCHMARKS.md") ;;
esac
status=0
if [ "$mode" != speed ] && [ "$mode" != memory ]; then
python3 "$root/ci/bench/counts.py" --runner "$runner" --guest "$guest" --conf-facts "$conf_facts" \
  --out "$out" --seed "$seed" \
  ${doc_args[@]+"${doc_args[@]}"} || status=$?
if [ "$mode" != all ]; then
  echo "ci/bench/run.sh: took $(( $(date +%s) - start )) s"
  exit $status
fi
fi

# ---- 2. host micro-benchmark -------------------------------------------------
host_bench=$root/build/host/tests/bench/host_bench
if [ "$mode" = speed ] || [ "$mode" = memory ]; then
  :
elif [ -x "$host_bench" ]; then
  echo
  echo "## Host path (Google Benchmark, $(uname -m))"
  "$host_bench" --benchmark_min_time=0.2 --benchmark_out="$out/host_bench.json" \
    --benchmark_out_format=json 2>&1 | tee "$out/host_bench.txt" || status=3
else
  echo "ci/bench/run.sh: host_bench not built (install libbenchmark-dev and rebuild); part 2 skipped" >&2
fi

# ---- 3. the rig's own speed -------------------------------------------------
# Each workload three ways: plain qemu-aarch64 (the same binary, without
# -plugin), the rig with --check off, and the rig with the checker on, one
# after the other in each of REPEAT rounds. Per way the median over the
# rounds of wall clock and of CPU time (user + sys of QEMU and everything
# it ran, from wait4's rusage through GNU time): the machine is shared, and
# CPU time is what a busy neighbour disturbs least. Ratios are over plain
# QEMU, CPU time first, each the median of the rounds' own ratios. Rows:
#   jit_loop     tests/bench/jit_loop: a JIT-written 3-instruction counting
#                loop, nearly every executed instruction JIT code (worst case)
#   jit_loop --no-flush  the same loop never flushed, so that every fetch
#                is stale: the checker's stale path, which a user runs the
#                rig to meet
#   stored_heap  tests/bench/stored_heap: closures whose code and data share
#                their lines in a heap the guest stores to all the time (a
#                Scheme system's shape): nearly every fetch is checked
#   jit_stress   tests/scenario/jit_stress: 6000 functions JIT-written,
#                flushed and run by one thread (with several threads the
#                readers spin while they wait, and their CPU time measures
#                the host's scheduler more than the rig)
#   ...          every workload the hook file declares (below)
# Hook for real JITs (tests/realjit/, built elsewhere and cached under
# .cache/realjit*): JITFLUSH_BENCH_WORKLOADS names a bash file, by default
# tests/realjit/bench-workloads.sh when it exists, which ci/bench/run.sh sources
# after defining
#     workload NAME SYSROOT PROGRAM [ARGS...]
# one call per row. SYSROOT is passed to plain QEMU as -L and to the rig as
# --sysroot ("-" for a static program). A PROGRAM that is not an executable
# file gives a "not built" row instead of a failure. Every run's current
# folder is build/bench/scratch, so that a file a workload writes by a
# relative name (pcre2test's "#save testsaved1" in testinput17) lands
# there, not where the user stands: give the hook's paths from $root.
qemu=$(sed -n 's/^JITFLUSH_QEMU_AARCH64:FILEPATH=//p' "$root/build/host/CMakeCache.txt")
[ -x "$qemu" ] || { echo "ci/bench/run.sh: no plugin-enabled QEMU in build/host's cache" >&2; exit 3; }
config=$root/qemu-configs/exynos8890.conf
loop=$root/build/aarch64/tests/bench/jit_loop
heap=$root/build/aarch64/tests/bench/stored_heap
[ -x "$loop" ] || [ "$mode" = memory ] ||
  { echo "ci/bench/run.sh: $loop is not built (run ci/build.sh)" >&2; exit 3; }

# Prints "WALL CPU" of one run of the command, in seconds.
time_once() {
  local line
  line=$(/usr/bin/time -f 'jfbench %e %U %S' "$@" 2>&1 >/dev/null | grep '^jfbench ' | tail -n 1) ||
    { echo "ci/bench/run.sh: failed: $*" >&2; return 3; }
  echo "$line" | awk '{ printf "%s %.2f\n", $2, $3 + $4 }'
}

rows=()
workload() {
  local name=$1 sysroot=$2; shift 2
  if [ ! -x "$1" ] || [ ! -f "$1" ]; then
    rows+=("| $name | not built ($1) | | | | |")
    return
  fi
  local plain_l=() rig_s=()
  if [ "$sysroot" != - ]; then plain_l=(-L "$sysroot"); rig_s=(--sysroot "$sysroot"); fi
  # The three ways run one after the other in each round, so that a slow
  # moment of the machine hits all three, and each ratio is the median of
  # the rounds' ratios. The rig's status is the program's, or 86 when a
  # fetch was stale: a workload with findings is still a speed measurement.
  local rounds=() p o n
  for _ in $(seq "$repeat"); do
    p=$(time_once "$qemu" -cpu cortex-a53 "${plain_l[@]+"${plain_l[@]}"}" "$@") || exit 3
    o=$(time_once sh -c '"$@"; s=$?; [ $s -eq 0 ] || [ $s -eq 86 ]' sh "$runner" --config "$config" \
          --check off "${rig_s[@]+"${rig_s[@]}"}" -- "$@") || exit 3
    n=$(time_once sh -c '"$@"; s=$?; [ $s -eq 0 ] || [ $s -eq 86 ]' sh "$runner" --config "$config" \
          "${rig_s[@]+"${rig_s[@]}"}" -- "$@") || exit 3
    rounds+=("$p $o $n")
  done
  rows+=("$(printf '%s\n' "${rounds[@]}" | awk -v name="$name" '
    function median(a, k,   i, j, t) {
      for (i = 2; i <= k; i++) for (j = i; j > 1 && a[j - 1] > a[j]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
      return a[int((k + 1) / 2)]
    }
    function floor1(x) { return x > 0 ? x : 0.01 }
    { k++; pw[k] = $1; pc[k] = $2; ow[k] = $3; oc[k] = $4; nw[k] = $5; nc[k] = $6
      roc[k] = $4 / floor1($2); row[k] = $3 / floor1($1); rnc[k] = $6 / floor1($2); rnw[k] = $5 / floor1($1) }
    END {
      printf "| %s | %.2f / %.2f | %.2f / %.2f | %.2f / %.2f | %.1fx / %.1fx | %.1fx / %.1fx |",
        name, median(pc, k), median(pw, k), median(oc, k), median(ow, k), median(nc, k), median(nw, k),
        median(roc, k), median(row, k), median(rnc, k), median(rnw, k) }')")
}

hook=${JITFLUSH_BENCH_WORKLOADS:-$root/tests/realjit/bench-workloads.sh}
case "$hook" in /*) ;; *) hook=$PWD/$hook ;; esac
mkdir -p "$out/scratch"
cd "$out/scratch"
if [ "$mode" != memory ]; then

echo
echo "## Rig speed ($config, $(nproc) CPUs, $(uname -m), median of $repeat interleaved rounds; seconds as CPU / wall)"
workload jit_loop - "$loop" --iterations=100000000
# The same loop never flushed: every fetch stale (the rig's stale path).
workload "jit_loop --no-flush (all stale)" - "$loop" --iterations=100000000 --no-flush
workload stored_heap - "$heap"
workload jit_stress - "$stress" --impl=jitflush --threads=1 --iterations=6000 --seed=1
if [ -f "$hook" ]; then
  # shellcheck source=/dev/null
  . "$hook"
elif [ -n "${JITFLUSH_BENCH_WORKLOADS:-}" ]; then
  echo "ci/bench/run.sh: JITFLUSH_BENCH_WORKLOADS=$hook is not a file" >&2; exit 2
else
  echo "ci/bench/run.sh: no real-JIT workloads ($hook absent; see JITFLUSH_BENCH_WORKLOADS)" >&2
fi
{
  echo "| workload | plain QEMU | rig, checker off | rig, checker on | off / plain | on / plain |"
  echo "|---|---:|---:|---:|---:|---:|"
  printf '%s\n' "${rows[@]}"
} | tee "$out/rig_speed.md"
fi

# ---- 5. the rig's memory under map/unmap churn --------------------------------
# The guest of the rig's end-to-end tests maps one page of code at a new
# address CHURN times (remap-churn: written, flushed, run, then unmapped,
# replaced or moved), the pattern that grew the rig by gigabytes while the
# model kept a record per page ever mapped. Peak RSS is GNU time's maximum
# resident set of the run's largest process (QEMU), in MB.
if [ "$mode" = all ] || [ "$mode" = memory ]; then
  churn=${JITFLUSH_BENCH_CHURN:-3000000}
  churn_guest=$root/build/host/tests/emu/emu_guest_aarch64
  [ -x "$churn_guest" ] || { echo "ci/bench/run.sh: $churn_guest is not built (needs aarch64-linux-gnu-gcc)" >&2; exit 3; }
  peak_once() {
    /usr/bin/time -f 'jfbench %e %M' "$@" 2>&1 >/dev/null | grep '^jfbench ' | tail -n 1 |
      awk '{ printf "%.0f s, %.0f MB", $2, $3 / 1024 }'
  }
  # shm-churn: the same with System V segments (shmat at a new address,
  # shmdt), whose records are freed at the detach.
  mem_rows=()
  for workload in remap-churn shm-churn; do
    plain=$(peak_once "$qemu" -cpu cortex-a53 -L /usr/aarch64-linux-gnu "$churn_guest" "$workload" "$churn")
    off=$(peak_once "$runner" --config "$config" --check off -- "$churn_guest" "$workload" "$churn")
    on=$(peak_once "$runner" --config "$config" --report "$out/$workload.json" -- "$churn_guest" "$workload" "$churn")
    pages=$(sed -n 's/.*"model_pages_peak": *\([0-9]*\).*/\1/p' "$out/$workload.json")
    mem_rows+=("| $workload $churn | $plain | $off | $on | $pages |")
  done
  # And a guest whose code lives in memory it stores to (stored_heap,
  # above): the model keeps a record of every word it checks.
  if [ -x "$heap" ]; then
    plain=$(peak_once "$qemu" -cpu cortex-a53 "$heap")
    off=$(peak_once "$runner" --config "$config" --check off -- "$heap")
    on=$(peak_once "$runner" --config "$config" --report "$out/stored_heap.json" -- "$heap")
    pages=$(sed -n 's/.*"model_pages_peak": *\([0-9]*\).*/\1/p' "$out/stored_heap.json")
    mem_rows+=("| stored_heap | $plain | $off | $on | $pages |")
  fi
  echo
  echo "## Rig memory under map/unmap churn ($churn mappings, $config)"
  {
    echo "| run | plain QEMU | rig, checker off | rig, checker on | model_pages_peak |"
    echo "|---|---:|---:|---:|---:|"
    printf '%s\n' "${mem_rows[@]}"
  } | tee "$out/rig_memory.md"
fi

if [ "$mode" = all ]; then
  startup
fi
echo "ci/bench/run.sh: took $(( $(date +%s) - start )) s"
exit $status
