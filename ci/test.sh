#!/usr/bin/env bash
# The README's test command: installs what is missing, builds QEMU with
# plugins (cached in .cache/), builds both trees and runs every test; then
# the host and hardening tests again under ASan+UBSan and under TSan
# (ci/check/sanitizers.sh: 4.7 to 6.5 minutes measured on 2 busy cores), and every
# libFuzzer target for a bounded time (ci/check/fuzz.sh --ctest:
# JITFLUSH_FUZZ_SECONDS each, default 30, two at a time: about 2.5 minutes
# with the build; a longer campaign is ci/check/fuzz.sh SECONDS), the mutation check (ci/check/mutate-flush.sh: every mutant of the
# flush path must fail a target test under the rig; about 1 minute; and
# ci/check/mutate-model.sh: every mutant of the rig's coherence model must fail a
# named model test; under a minute), and,
# in the host tree's ctest, the realjit label (PCRE2 and LuaJIT under the
# rig: 3 to 4 minutes warm, 4.2 the first time, when it also builds them
# into .cache/realjit-*/, docs/RUNNING-YOUR-JIT.md), and the suite label
# (docs/RIG.md#test-suites-on-the-rig): PCRE2's own CTest suite under the
# rig on two seeds (JITFLUSH_SUITE_PCRE2_SEEDS; about 8 minutes of
# the two cores), and a cranelift-jit
# crate under Cargo's runner. actionlint (ci/install/actionlint.sh) checks
# the example workflows and actions/rig.
# One-time toolchain work is done here, before any test, each step saying so
# on one line when it has work to do and cached after: zig and its C
# runtimes for the portability targets (ci/install/zig.sh), the Rust
# cross toolchain and Cranelift's first build (ci/install/rust-aarch64.sh
# --crates, 17 min at load 17 to 19), so that no test's time limit covers them.
# JITFLUSH_QUICK=1 skips the sanitizer, fuzzing and mutation stages.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)

"$root/ci/install/deps.sh"
"$root/ci/install/sarif-tools.sh"
"$root/ci/install/zig.sh"
"$root/ci/install/rust-aarch64.sh" --crates > /dev/null ||
  echo "ci/test.sh: the Rust cross toolchain is not set up (above): suite.cargo*, rust.* skip or fail" >&2
"$root/ci/install/actionlint.sh" >/dev/null
"$root/ci/build.sh"

status=0
cd "$root"
ctest --preset aarch64 || status=1
ctest --preset host || status=1
if [ "${JITFLUSH_QUICK:-0}" != 1 ]; then
  "$root/ci/check/sanitizers.sh" || status=1
  "$root/ci/check/fuzz.sh" --ctest "${JITFLUSH_FUZZ_SECONDS:-30}" || status=1
  "$root/ci/check/mutate-flush.sh" || status=1
  "$root/ci/check/mutate-model.sh" || status=1
fi
exit $status
