#!/usr/bin/env bash
# What the deterministic schedule costs (docs/BENCHMARKS.md, "The
# deterministic schedule"): each workload under the rig with
# --schedule turns (the default) and --schedule parallel, one after the
# other in each of REPEAT rounds (JITFLUSH_BENCH_REPEAT, default 5); per way
# the median CPU time (user + sys of the process tree, GNU time) and wall
# clock, and the median of the rounds' turns / parallel ratios.
#
#   ci/bench/schedule.sh           after ci/build.sh
#
# Exit status: 0 ok; 3 a run failed or a program is not built.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
repeat=${JITFLUSH_BENCH_REPEAT:-5}
runner=$root/build/host/rig/jitflush-emu
stress=$root/build/aarch64/tests/scenario/jit_stress
guest=$root/build/host/tests/emu/emu_guest_aarch64
config=$root/qemu-configs/exynos8890.conf
for f in "$runner" "$stress" "$guest"; do
  [ -x "$f" ] || { echo "ci/bench/schedule.sh: $f is not built (run ci/build.sh)" >&2; exit 3; }
done

# "WALL CPU" of one rig run; the rig's status is the program's or 86.
time_once() {
  local line
  line=$(/usr/bin/time -f 'jfbench %e %U %S' sh -c '"$@"; s=$?; [ $s -eq 0 ] || [ $s -eq 86 ]' sh \
           "$@" 2>&1 >/dev/null | grep '^jfbench ' | tail -n 1) ||
    { echo "ci/bench/schedule.sh: failed: $*" >&2; return 3; }
  echo "$line" | awk '{ printf "%s %.2f\n", $2, $3 + $4 }'
}

row() {
  local name=$1; shift
  local rounds=() t p
  for _ in $(seq "$repeat"); do
    t=$(time_once "$runner" --config "$config" --schedule turns -- "$@") || exit 3
    p=$(time_once "$runner" --config "$config" --schedule parallel -- "$@") || exit 3
    rounds+=("$t $p")
  done
  printf '%s\n' "${rounds[@]}" | awk -v name="$name" '
    function median(a, k,   i, j, x) {
      for (i = 2; i <= k; i++) for (j = i; j > 1 && a[j - 1] > a[j]; j--) { x = a[j]; a[j] = a[j - 1]; a[j - 1] = x }
      return a[int((k + 1) / 2)]
    }
    function floor1(x) { return x > 0 ? x : 0.01 }
    { k++; tw[k] = $1; tc[k] = $2; pw[k] = $3; pc[k] = $4; rc[k] = $2 / floor1($4); rw[k] = $1 / floor1($3) }
    END { printf "| %s | %.2f / %.2f | %.2f / %.2f | %.2fx / %.2fx |\n", name, median(tc, k), median(tw, k),
            median(pc, k), median(pw, k), median(rc, k), median(rw, k) }'
}

echo "## The deterministic schedule ($config, $(nproc) CPUs, median of $repeat interleaved rounds; seconds as CPU / wall)"
echo "| workload | turns | parallel | turns / parallel |"
echo "|---|---:|---:|---:|"
row "jit_stress, 1 thread" "$stress" --impl=jitflush --threads=1 --iterations=6000 --seed=1
row "jit_stress, 4 threads" "$stress" --impl=jitflush --threads=4 --iterations=1500 --seed=1
row "publish, 3 spinning readers" "$guest" publish 3 400
