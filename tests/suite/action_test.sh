#!/usr/bin/env bash
# jitflush's GitHub action (actions/rig/action.yml) without GitHub: its
# install step, ci/install/github-action.sh, run as the action runs it, with GitHub's
# command files (GITHUB_PATH, GITHUB_ENV, GITHUB_OUTPUT) in a scratch
# folder; then the variables it exported, applied as GitHub applies them to
# the following steps, must make a plain "jitflush-emu -- PROGRAM" run on
# the SoC and seed asked for and add its entry to the store.
#
#   action_test.sh REPO PROGRAM WORK
# Exit status: 0 ok, 1 a check failed, 2 usage.
set -euo pipefail
[ $# -eq 3 ] || { echo "usage: action_test.sh REPO PROGRAM WORK" >&2; exit 2; }
repo=$(cd "$1" && pwd) program=$2 work=$3
fail() { echo "action_test.sh: $*" >&2; exit 1; }
rm -rf "$work"
mkdir -p "$work"
cd "$work"
export GITHUB_PATH=$work/path GITHUB_ENV=$work/env GITHUB_OUTPUT=$work/output
: > "$GITHUB_PATH"; : > "$GITHUB_ENV"; : > "$GITHUB_OUTPUT"

# The action hands its inputs to the step as these variables.
action=$repo/actions/rig/action.yml
for v in RIG_CONFIG RIG_SEED RIG_POLICY RIG_STORE RIG_ROOT; do
  grep -q "^        $v: \${{ " "$action" || fail "action.yml does not pass $v to its install step"
done
grep -q 'run: bash "$RIG_ROOT/ci/install/github-action.sh"$' "$action" || fail "action.yml does not run ci/install/github-action.sh"

# An unknown SoC is refused before anything is installed.
rc=0
RIG_ROOT=$repo RIG_CONFIG=no-such-soc RIG_STORE=s bash "$repo/ci/install/github-action.sh" 2>err || rc=$?
[ "$rc" -eq 2 ] && grep -q "no config 'no-such-soc'" err || fail "an unknown config gave status $rc: $(cat err)"

RIG_ROOT=$repo RIG_CONFIG=tegra186 RIG_SEED=3 RIG_POLICY= RIG_STORE=rig-store \
  bash "$repo/ci/install/github-action.sh" >log 2>&1 || fail "the install step failed: $(tail -n 20 log)"
bin=$(cat "$GITHUB_PATH")
[ -x "$bin/jitflush-emu" ] && [ -x "$bin/jitflush-emu-merge" ] || fail "GITHUB_PATH names '$bin', which has no jitflush-emu"
want_env="JITFLUSH_ROOT=$repo
JITFLUSH_EMU_CONFIG=$repo/qemu-configs/tegra186.conf
JITFLUSH_EMU_SEED=3
JITFLUSH_EMU_STORE=$work/rig-store
CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_RUNNER=$bin/jitflush-emu --summary=stale --
CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_LINKER=aarch64-linux-gnu-gcc"
[ "$(cat "$GITHUB_ENV")" = "$want_env" ] || fail "GITHUB_ENV is
$(cat "$GITHUB_ENV")
expected
$want_env"
grep -qx "runner=$bin/jitflush-emu" "$GITHUB_OUTPUT" || fail "no runner output: $(cat "$GITHUB_OUTPUT")"

# A later step: PATH and the variables as GitHub sets them.
(
  export PATH="$bin:$PATH"
  while IFS= read -r line; do export "${line?}"; done < "$GITHUB_ENV"
  jitflush-emu -- "$program" >run.out 2>run.err
) || fail "the program failed on the rig: $(tail -n 5 run.err)"
records=("$work"/rig-store/*.run)
[ "${#records[@]}" -eq 1 ] && [ -f "${records[0]}" ] || fail "the store has ${#records[@]} records"
grep -q "qemu-configs/tegra186.conf --seed 3 " "${records[0]}" || fail "not run on tegra186 with seed 3: $(cat "${records[0]}")"
echo "action_test.sh: ok"
