#!/usr/bin/env bash
# The README's test command: installs what is missing, builds QEMU with
# plugins (cached in .cache/), builds both trees and runs every test.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)

"$root/ci/install-deps.sh"
"$root/ci/build.sh"

status=0
ctest --test-dir "$root/build/aarch64" --output-on-failure -j 2 || status=1
ctest --test-dir "$root/build/host" --output-on-failure -j 2 || status=1
exit $status
