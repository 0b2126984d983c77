#!/usr/bin/env bash
# Builds the host unit tests (tests/host) and the hardening tests
# (tests/hardening) twice more, each in its own tree, and runs them:
#   build/asan  AddressSanitizer + UndefinedBehaviorSanitizer, no recovery
#   build/tsan  ThreadSanitizer (the concurrency, fork and signal tests are
#               what it is for)
# The flags go on these trees' cmake command lines only; the project's
# CMakeLists never set global flags. The rig and the CLI are left out.
# Usage: ci/sanitizers.sh [asan] [tsan]      (default: both)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
jobs=${JITFLUSH_JOBS:-2}

kinds=("$@")
[ "${#kinds[@]}" -gt 0 ] || kinds=(asan tsan)

targets=(host_tests host_api_tests
         hardening_state_tests hardening_seccomp_tests
         hardening_range_tests)

# halt_on_error: a report is a failure, not a log line. die_after_fork=0:
# the fork tests create threads in a child forked from a multi-threaded
# parent, which POSIX allows and glibc supports; TSan would otherwise exit.
export ASAN_OPTIONS="halt_on_error=1:abort_on_error=1:detect_leaks=1:strict_string_checks=1"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1"
export TSAN_OPTIONS="halt_on_error=1:die_after_fork=0:second_deadlock_stack=1"

status=0
for kind in "${kinds[@]}"; do
  case "$kind" in
    asan) flags="-fsanitize=address,undefined -fno-sanitize-recover=all" ;;
    tsan) flags="-fsanitize=thread" ;;
    *) echo "ci/sanitizers.sh: unknown sanitizer build '$kind' (asan, tsan)" >&2; exit 2 ;;
  esac
  dir="$root/build/$kind"
  start=$(date +%s)
  cmake -S "$root" -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_C_FLAGS="$flags -fno-omit-frame-pointer" \
    -DCMAKE_CXX_FLAGS="$flags -fno-omit-frame-pointer" \
    -DCMAKE_EXE_LINKER_FLAGS="$flags" \
    -DJITFLUSH_BUILD_RIG=OFF -DJITFLUSH_BUILD_CLI=OFF -DJITFLUSH_BUILD_TESTS=ON >/dev/null
  cmake --build "$dir" -j "$jobs" --target "${targets[@]}"
  # Only what was built here: the host unit tests and the hardening tests
  # (the aarch64 seccomp runs need the cross build and are not registered).
  ctest --test-dir "$dir" -R '^(host|hardening)\.' -E 'NOT_BUILT|target_seccomp' \
        --output-on-failure -j "$jobs" || status=1
  echo "ci/sanitizers.sh: $kind took $(( $(date +%s) - start )) s"
done
exit $status
