#!/usr/bin/env bash
# Builds the libFuzzer targets of tests/fuzz with clang (the fuzz preset,
# build/fuzz) and runs them through CTest: each target's seed replay
# (fuzz.<target>.seeds), then its bounded run (fuzz.<target>.run) of SECONDS.
# Seeds come from tests/fuzz/corpus/<target>/ and, for fuzz_emu_config, from
# every qemu-configs/ file, copied to build/fuzz/tests/fuzz/seeds/ when the
# tree is configured (neither is written to); what the fuzzer learns goes
# to build/fuzz/tests/fuzz/corpus/<target>/, a crashing input to
# build/fuzz/tests/fuzz/artifacts/<target>/. libFuzzer's final
# stats (exec counts) are in build/fuzz/Testing/Temporary/LastTest.log.
# Usage: ci/check/fuzz.sh [SECONDS] [TARGET...]   one target after another (default 60 s)
#        ci/check/fuzz.sh --ctest [SECONDS]       every target, two at a time (default 30 s;
#                                                 what ci/test.sh runs)
# JITFLUSH_FUZZ_ARGS adds libFuzzer flags to every run (e.g. -detect_leaks=0
# to look past a leak while it is being fixed).
# Exit status: 1 if any target crashed or failed an invariant, 2 usage.
set -euo pipefail
cd "$(dirname "$0")/../.."
jobs=${JITFLUSH_JOBS:-2}
ctest_mode=0
if [ "${1:-}" = "--ctest" ]; then
  ctest_mode=1
  shift
  seconds=${1:-30}
  [ "$#" -le 1 ] || { echo "ci/check/fuzz.sh: --ctest takes only SECONDS" >&2; exit 2; }
else
  seconds=${1:-60}
fi
case "$seconds" in
  ''|*[!0-9]*|0) echo "ci/check/fuzz.sh: SECONDS must be a positive whole number, not '$seconds'" >&2; exit 2 ;;
esac
shift || true
if ! command -v clang-14 >/dev/null || ! command -v clang++-14 >/dev/null; then
  echo "ci/check/fuzz.sh: clang-14 / clang++-14 not found (ci/install/deps.sh installs clang and libclang-rt-14-dev)" >&2
  exit 2
fi

cmake --preset fuzz -DJITFLUSH_FUZZ_SECONDS="$seconds" -DJITFLUSH_FUZZ_EXTRA_ARGS="${JITFLUSH_FUZZ_ARGS:-}" >/dev/null
cmake --build --preset fuzz -j "$jobs"

start=$(date +%s)
status=0
if [ "$ctest_mode" -eq 1 ] || [ "$#" -eq 0 ]; then
  [ "$ctest_mode" -eq 1 ] || jobs=1  # one long run after another
  ctest --preset fuzz -j "$jobs" || status=1
else
  # Each target's tests carry its name as a label (tests/fuzz/CMakeLists.txt).
  for t in "$@"; do
    ctest --preset fuzz -L "^$t\$" -j 1 || status=1
  done
fi
echo "ci/check/fuzz.sh: fuzz tests took $(( $(date +%s) - start )) s"
exit $status
