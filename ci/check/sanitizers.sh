#!/usr/bin/env bash
# Builds the host unit tests (tests/host) and the hardening tests
# (tests/hardening) twice more, each in its own tree, and runs them (the
# tests labelled host or hardening, but not target), with the asan and tsan
# presets:
#   build/asan  AddressSanitizer + UndefinedBehaviorSanitizer, no recovery
#   build/tsan  ThreadSanitizer (the concurrency, fork and signal tests are
#               what it is for)
# Each is the workflow preset of that name (configure, build, test); the
# flags, the build targets, the test filter and the *SAN_OPTIONS live in
# CMakePresets.json, and the project's CMakeLists never set global flags.
# The rig and the CLI are left out. JITFLUSH_JOBS (default 2) is the build's
# parallelism; the tests run two at a time (the test presets' jobs).
# Usage: ci/check/sanitizers.sh [asan] [tsan]      (default: both)
# Exit status: 0 both clean, 1 a build failed or a test failed, 2 usage.
set -euo pipefail
cd "$(dirname "$0")/../.."
export CMAKE_BUILD_PARALLEL_LEVEL=${JITFLUSH_JOBS:-2}

kinds=("$@")
[ "${#kinds[@]}" -gt 0 ] || kinds=(asan tsan)

status=0
for kind in "${kinds[@]}"; do
  case "$kind" in
    asan|tsan) ;;
    *) echo "ci/check/sanitizers.sh: unknown sanitizer build '$kind' (asan, tsan)" >&2; exit 2 ;;
  esac
  start=$(date +%s)
  cmake --workflow --preset "$kind" || status=1
  echo "ci/check/sanitizers.sh: $kind took $(( $(date +%s) - start )) s"
done
exit $status
