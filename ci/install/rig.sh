#!/usr/bin/env bash
# Installs the rig for use by a test suite, and prints the folder that holds
# jitflush-emu (with jitflush-emu-merge and the jitflush-emu-binfmt link)
# as its last line on stdout:
#
#   bin=$(ci/install/rig.sh) && export PATH="$bin:$PATH"
#
# The steps of a first run, each announced on stderr with what it took the
# first time (ci/install/setup-steps.sh): the Debian packages (ci/install/deps.sh,
# root), QEMU with plugins from Debian's source package (ci/install/qemu.sh,
# cached in .cache/qemu), then the runner, the merge and the plugin in
# build/rig. Later runs print only the folder. The GitHub action
# (actions/rig/action.yml) and examples/run-under-rig.sh use it.
#
# Exit status: 0, or the failing step's own (its log: build/rig-setup.log).
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$repo/build"
jf_me=ci/install/rig.sh
jf_repo=$repo
jf_log="$repo/build/rig-setup.log"
: > "$jf_log"
# shellcheck source=setup-steps.sh
. "$repo/ci/install/setup-steps.sh"
jf_step_deps
jf_step_qemu
# Only the rig: no tests, no CLI.
jf_step_build "the rig's runner and QEMU plugin" "$jf_time_rig" "$repo/build/rig" \
  jitflush-emu rig/jitflush-emu \
  cmake -S "$repo" -B "$repo/build/rig" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DJITFLUSH_BUILD_TESTS=OFF -DJITFLUSH_BUILD_CLI=OFF -DJITFLUSH_BUILD_RIG=ON \
    -DJITFLUSH_QEMU_AARCH64="$jf_qemu"
bin="$repo/build/rig/rig"
[ -x "$bin/jitflush-emu" ] || { echo "$jf_me: $bin/jitflush-emu was not built (see $jf_log)" >&2; exit 1; }
echo "$bin"
