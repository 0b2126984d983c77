#!/usr/bin/env bash
# Runs the rig-driven tests N times in a row while spinning processes keep
# every host CPU busy (docs/RIG.md, "Reproducible runs").
# Every run must pass: ctest stops at the first failure of any test
# (--repeat until-fail:N), and the script exits with ctest's status.
#
#   ci/repeat-under-load.sh [--repeat N] [--spinners K] [--labels REGEX]
#                           [--exclude REGEX] [--build DIR]
#
# Defaults: N=20, K=2 per host CPU, the rig's labels without the real JITs
# and the suite (`scenario|patching|emu|bench|sarif|conformance|cli-rig`),
# the build tree build/host (built first by ci/build.sh or cmake). It prints
# the load average before and after and the wall time, for docs/RIG.md.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
repeat=20
spinners=$((2 * $(nproc)))
labels='scenario|patching|emu|bench|sarif|conformance|cli-rig'
exclude='realjit|suite'
build="$root/build/host"

usage() {
  sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
}

while [ $# -gt 0 ]; do
  case "$1" in
  --repeat) repeat=${2:?}; shift 2 ;;
  --spinners) spinners=${2:?}; shift 2 ;;
  --labels) labels=${2:?}; shift 2 ;;
  --exclude) exclude=${2:?}; shift 2 ;;
  --build) build=${2:?}; shift 2 ;;
  -h | --help) usage ;;
  *) echo "repeat-under-load.sh: unknown argument '$1'" >&2; usage ;;
  esac
done
case "$repeat$spinners" in
*[!0-9]*) echo "repeat-under-load.sh: --repeat and --spinners take numbers" >&2; exit 2 ;;
esac
if [ ! -f "$build/CTestTestfile.cmake" ]; then
  echo "repeat-under-load.sh: no test tree in $build (build it first: ci/build.sh)" >&2
  exit 2
fi

pids=()
stop_spinners() {
  if [ ${#pids[@]} -gt 0 ]; then
    kill "${pids[@]}" 2>/dev/null || true
    wait "${pids[@]}" 2>/dev/null || true
  fi
}
trap stop_spinners EXIT INT TERM

for ((i = 0; i < spinners; i++)); do
  (while :; do :; done) &
  pids+=($!)
done

echo "repeat-under-load: $repeat runs of -L '$labels' -LE '$exclude' with $spinners spinners" \
  "on $(nproc) CPUs; load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
start=$(date +%s)
status=0
ctest --test-dir "$build" -L "$labels" -LE "$exclude" -j "$(nproc)" \
  --repeat "until-fail:$repeat" --output-on-failure || status=$?
end=$(date +%s)
echo "repeat-under-load: status $status after $((end - start)) s;" \
  "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
exit $status
