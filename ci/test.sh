#!/usr/bin/env bash
# The README's test command: installs what is missing, builds QEMU with
# plugins (cached in .cache/), builds both trees and runs every test; then
# the host and hardening tests again under ASan+UBSan and under TSan
# (ci/sanitizers.sh: 4.7 to 6.5 minutes measured on 2 busy cores), and every
# libFuzzer target for a bounded time (ci/fuzz.sh --ctest:
# JITFLUSH_FUZZ_SECONDS each, default 60, two at a time: about 3.5 minutes
# with the build). All of it: about 16 minutes from an empty build/ once
# QEMU is cached, measured before tests/realjit existed; the realjit label
# (in the host tree's ctest) adds 3 to 4 minutes warm, 4.2 the first time,
# when it also builds PCRE2 and LuaJIT into .cache/realjit-*/
# (docs/RUNNING-YOUR-JIT.md).
# JITFLUSH_QUICK=1 skips the sanitizer and fuzzing stages.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)

"$root/ci/install-deps.sh"
"$root/ci/build.sh"

status=0
ctest --test-dir "$root/build/aarch64" --output-on-failure -j 2 || status=1
ctest --test-dir "$root/build/host" --output-on-failure -j 2 || status=1
if [ "${JITFLUSH_QUICK:-0}" != 1 ]; then
  "$root/ci/sanitizers.sh" || status=1
  "$root/ci/fuzz.sh" --ctest "${JITFLUSH_FUZZ_SECONDS:-60}" || status=1
fi
exit $status
