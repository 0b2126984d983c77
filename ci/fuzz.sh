#!/usr/bin/env bash
# Builds the libFuzzer targets of tests/fuzz with clang in build/fuzz and
# runs each for SECONDS (default 60), one after the other. Seeds come from
# tests/fuzz/corpus/<target>/ (never written to); what the fuzzer learns
# goes to build/fuzz/tests/fuzz/corpus/<target>/, a crashing input to
# build/fuzz/tests/fuzz/artifacts/<target>/ (the same folders the CTest
# runs use, so each run starts from what the earlier ones found). Exit status 1 if any target crashed or
# failed an invariant, 2 on a usage error.
# Usage: ci/fuzz.sh [SECONDS] [TARGET...]
#        ci/fuzz.sh --ctest [SECONDS]
# --ctest: what ci/test.sh runs. Builds every target and runs the CTest
# tests of build/fuzz, two at a time: the seed replays, then each target's
# bounded run (fuzz.<target>.run) of SECONDS (default 30) each.
# JITFLUSH_FUZZ_ARGS adds libFuzzer flags to every run (e.g. -jobs=2, or
# -detect_leaks=0 to look past a leak while it is being fixed); not used
# with --ctest.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
jobs=${JITFLUSH_JOBS:-2}
ctest_mode=0
if [ "${1:-}" = "--ctest" ]; then
  ctest_mode=1
  shift
  seconds=${1:-30}
  [ "$#" -le 1 ] || { echo "ci/fuzz.sh: --ctest takes only SECONDS" >&2; exit 2; }
else
  seconds=${1:-60}
fi
case "$seconds" in
  ''|*[!0-9]*|0) echo "ci/fuzz.sh: SECONDS must be a positive whole number, not '$seconds'" >&2; exit 2 ;;
esac
shift || true

cc=${CC:-clang-14}
cxx=${CXX:-clang++-14}
if ! command -v "$cc" >/dev/null || ! command -v "$cxx" >/dev/null; then
  echo "ci/fuzz.sh: $cc / $cxx not found (ci/install-deps.sh installs clang and libclang-rt-14-dev)" >&2
  exit 2
fi

dir="$root/build/fuzz"
CC="$cc" CXX="$cxx" cmake -S "$root" -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DJITFLUSH_BUILD_FUZZERS=ON -DJITFLUSH_BUILD_TESTS=ON -DJITFLUSH_FUZZ_SECONDS="$seconds" \
  -DJITFLUSH_BUILD_RIG=OFF -DJITFLUSH_BUILD_CLI=OFF >/dev/null

targets=("$@")
if [ "${#targets[@]}" -eq 0 ]; then
  targets=(fuzz_cpulist fuzz_sysfs fuzz_ctr_midr fuzz_policy)
  # Only when src/emu/emu_config.c and GLib were there at configure time.
  if grep -q 'fuzz_emu_config' "$dir/build.ninja"; then
    targets+=(fuzz_emu_config)
  fi
fi
cmake --build "$dir" -j "$jobs" --target "${targets[@]}"

if [ "$ctest_mode" -eq 1 ]; then
  start=$(date +%s)
  rc=0
  ctest --test-dir "$dir" -L '^fuzz$' --output-on-failure -j "$jobs" || rc=$?
  # libFuzzer's final stats, per target, from the log CTest keeps.
  sed -n -e 's/^[0-9]*\/[0-9]* Test: fuzz\.\(.*\)\.run$/\1/p' \
         -e 's/^stat::number_of_executed_units: *\(.*\)/  \1 execs/p' \
         "$dir/Testing/Temporary/LastTest.log" | paste -d' ' - - || true
  echo "ci/fuzz.sh: fuzz tests took $(( $(date +%s) - start )) s"
  exit $(( rc == 0 ? 0 : 1 ))
fi

status=0
summary=()
for t in "${targets[@]}"; do
  seeds="$root/tests/fuzz/corpus/$t"
  work="$dir/tests/fuzz/corpus/$t"
  artifacts="$dir/tests/fuzz/artifacts/$t/"
  mkdir -p "$work" "$artifacts"
  log="$dir/$t.log"
  start=$(date +%s)
  rc=0
  # -timeout: one input taking 10 s is a hang; -rss_limit_mb: a leak.
  "$dir/tests/fuzz/$t" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 -artifact_prefix="$artifacts" ${JITFLUSH_FUZZ_ARGS:-} "$work" "$seeds" \
    >"$log" 2>&1 || rc=$?
  took=$(( $(date +%s) - start ))
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
  corpus=$(find "$work" -type f | wc -l)
  if [ "$rc" -ne 0 ]; then
    status=1
    echo "ci/fuzz.sh: $t FAILED (exit $rc); see $log and $artifacts" >&2
    grep -E 'invariant failed|ERROR: |SUMMARY: ' "$log" | head -n 5 >&2 || true
  fi
  summary+=("$(printf '%-16s %6ss %12s execs %6s corpus  %s' "$t" "$took" "${execs:-?}" "$corpus" \
               "$([ "$rc" -eq 0 ] && echo ok || echo CRASH)")")
done
printf '%s\n' "${summary[@]}"
exit $status
