#!/usr/bin/env bash
# Regenerates the expectation ("golden") files of jitflush-info's rig tests
# (tests/cli/cli_rig_test.cc, label cli-rig) from what the aarch64
# jitflush-info reports under the rig today:
#   tests/cli/golden/<config>.json           one per qemu-configs/*.conf
#   tests/cli/fixtures/<tree>/expected.json  one per sysfs fixture tree
# A file keeps its shape: the same fields stay checked, its "_" comments
# and its config stay, and only the checked values are taken from the run;
# a file is rewritten (one member a line, one CPU record a line) only when
# one of those values changed. A config without a golden file gets one with
# the usual fields and a "_facts" line asking for them to be checked.
#
# Golden files state facts (docs/BACKGROUND.md#architecture-facts): review
# every change with git diff before committing it, and explain it.
#
# The tests do the same when JITFLUSH_REGEN_GOLDENS=1 is in their
# environment (e.g. JITFLUSH_REGEN_GOLDENS=1 ctest --preset host -L cli-rig).
# The other generated expectations, docs/BENCHMARKS.md's count tables, are
# rewritten by ci/bench/run.sh --write-doc.
#
# Usage: ci/gen/goldens.sh [--no-build]   (--no-build: skip ci/build.sh)
# Exit status: 0 done (the files changed are listed), 1 a run failed or a
# regenerated file still does not match, 2 usage; or the build's status.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)

case "${1:-}" in
  "") "$root/ci/build.sh" >/dev/null ;;
  --no-build) ;;
  *) echo "usage: ci/gen/goldens.sh [--no-build]" >&2; exit 2 ;;
esac
test_bin="$root/build/host/tests/cli/jitflush_info_rig_test"
[ -x "$test_bin" ] || { echo "ci/gen/goldens.sh: $test_bin is not built (run ci/build.sh)" >&2; exit 2; }

status=0
JITFLUSH_REGEN_GOLDENS=1 "$test_bin" --gtest_brief=1 \
  --gtest_filter='Configs/Golden.*:Trees/Fixture.*' || status=1
git -C "$root" status --short -- tests/cli/golden tests/cli/fixtures
exit $status
