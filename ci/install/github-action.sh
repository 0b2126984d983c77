#!/usr/bin/env bash
# The GitHub action's install step (actions/rig/action.yml): installs the
# rig (ci/install/rig.sh), puts jitflush-emu in PATH and writes the rig's
# variables for the following steps. Inputs from the environment:
#
#   RIG_ROOT    the jitflush checkout
#   RIG_CONFIG  a qemu-configs/ name or a .conf path (relative to the workspace)
#   RIG_SEED, RIG_POLICY   empty: the config's own
#   RIG_STORE   the suite store folder (relative to the workspace)
#
# GITHUB_PATH, GITHUB_ENV and GITHUB_OUTPUT are the files GitHub reads
# after the step (outside GitHub, point them at any files). Exit status: 0,
# 2 an unknown config, or the failing install step's status.
set -euo pipefail
: "${RIG_ROOT:?}" "${RIG_CONFIG:?}" "${RIG_STORE:?}" "${GITHUB_PATH:?}" "${GITHUB_ENV:?}" "${GITHUB_OUTPUT:?}"

case "$RIG_CONFIG" in
  */*|*.conf) config=$(realpath -m "$RIG_CONFIG") ;;
  *) config="$RIG_ROOT/qemu-configs/$RIG_CONFIG.conf" ;;
esac
if [ ! -f "$config" ]; then
  echo "::error::jitflush rig: no config '$RIG_CONFIG' ($config); the names are those of $RIG_ROOT/qemu-configs/" >&2
  exit 2
fi
store=$(realpath -m "$RIG_STORE")

bin=$("$RIG_ROOT/ci/install/rig.sh" | tail -n 1)
echo "$bin" >> "$GITHUB_PATH"
{
  echo "JITFLUSH_ROOT=$RIG_ROOT"
  echo "JITFLUSH_EMU_CONFIG=$config"
  [ -z "${RIG_SEED:-}" ] || echo "JITFLUSH_EMU_SEED=$RIG_SEED"
  [ -z "${RIG_POLICY:-}" ] || echo "JITFLUSH_EMU_POLICY=$RIG_POLICY"
  echo "JITFLUSH_EMU_STORE=$store"
  # Cargo: the runner and the cross linker for aarch64 (docs/RIG.md).
  echo "CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_RUNNER=$bin/jitflush-emu --summary=stale --"
  echo "CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_LINKER=aarch64-linux-gnu-gcc"
} >> "$GITHUB_ENV"
{
  echo "runner=$bin/jitflush-emu"
  echo "store=$store"
} >> "$GITHUB_OUTPUT"
echo "jitflush rig: $bin/jitflush-emu on $config, store $store"
