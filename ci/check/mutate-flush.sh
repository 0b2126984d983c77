#!/usr/bin/env bash
# Mutation check: proves that the flush tests can fail. Each mutant below is
# one plausible bug in the flush path (the ones docs/BACKGROUND.md#the-problem lists
# and a few more); the script applies it to a scratch copy of the project
# (the library, tests/target and the presets, never the tree), rebuilds the
# target test binary for aarch64 there with the aarch64 preset, runs the
# killing tests under the rig until one fails, and prints which. A mutant
# that no test kills fails the run. ci/test.sh runs this unless
# JITFLUSH_QUICK=1.
#
# The scratch copy is a temporary folder removed when the script exits, by
# any path: no mutated libjitflush.a is left where a build or a user could
# find and link it. Only the logs stay, in build/mutate/; the run fails if
# anything else is left there or the copy survives.
#
# Needs ci/build.sh first: the rig (build/host/rig/jitflush-emu) is
# reused, not rebuilt.
# Usage: ci/check/mutate-flush.sh [MUTANT...]     (default: all; --list names them)
# Exit status: 0 every mutant killed, 1 a mutant survived or did not apply,
# or something mutated was left behind, 2 usage or setup error.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
work="$root/build/mutate" # the logs
runner="$root/build/host/rig/jitflush-emu"
jobs=${JITFLUSH_JOBS:-2}

# name ^ file ^ text to find (exactly once) ^ replacement ^ why it is a bug
# Fields are separated by ^ (the C texts contain | and &); \n is a newline.
mutants=(
  "noop-flush^lib/platform_aarch64_linux.c^if (!jf_range_last(begin, end, &last))^if (jf_range_last(begin, end, &last) || 1)^jitflush_clear_cache does nothing"
  "skip-dc^lib/flush_aarch64.S^        dc      cvau, x9^        nop^no clean to PoU: the I-side refetches stale memory"
  "skip-ic^lib/flush_aarch64.S^        ic      ivau, x9^        nop^no invalidate: the old lines stay in the I-cache"
  "drop-dsb-after-dc^lib/flush_aarch64.S^        dsb     ish\n        tbnz    w6, #FLAG_DIC, .Lsync^        nop\n        tbnz    w6, #FLAG_DIC, .Lsync^the invalidate may pass the clean"
  "drop-dsb-after-ic^lib/flush_aarch64.S^        b.ne    .Lic_loop\n        dsb     ish^        b.ne    .Lic_loop\n        nop^the invalidate has not completed at the isb"
  "drop-isb^lib/flush_aarch64.S^may hold old instructions.\n        isb^may hold old instructions.\n        nop^this core's pipeline keeps what it fetched"
  "max-not-min^lib/policy.c^if (*global == 0 || line < *global^if (*global == 0 || line > *global^the largest line over the cores: LITTLE lines skipped"
  "per-call-ctr^lib/platform_aarch64_linux.c^  const uint64_t w = atomic_load_explicit(&jf_geometry_word, memory_order_acquire);^  { struct jf_ctr here = jf_ctr_decode(jf_regs_read_ctr()); jf_flush_lines_aarch64(d_first, d_first + span, i_first, i_first + span, here.dline, here.iline, 0); return; }\n  const uint64_t w = atomic_load_explicit(&jf_geometry_word, memory_order_acquire);^this core's CTR_EL0 on every call (V8's way): wrong after a migration"
  "doubled-stride^lib/platform_aarch64_linux.c^(uintptr_t)1 << ((w >> JF_GW_DLOG2_SHIFT) & 0x1f),\n                         (uintptr_t)1 << ((w >> JF_GW_ILOG2_SHIFT) & 0x1f),^(uintptr_t)2 << ((w >> JF_GW_DLOG2_SHIFT) & 0x1f),\n                         (uintptr_t)2 << ((w >> JF_GW_ILOG2_SHIFT) & 0x1f),^every other line skipped (libgcc on the Exynos 8890)"
  "dual-rw-only^lib/platform_aarch64_linux.c^flush_views((uintptr_t)rw, (uintptr_t)rx, len - 1);^flush_views((uintptr_t)rw, (uintptr_t)rw, len - 1);^invalidate through the RW view: a VIPT I-cache keeps the RX lines"
  "idc-any-core^lib/policy.c^g->idc = g->idc && rec->idc;^g->idc = g->idc || rec->idc;^IDC ORed over the cores: the clean skipped where a core lacks IDC"
)

# config ^ test (tests/target/target_test.cc): the killers, tried in this
# order until one fails. A homogeneous Cortex-A53 (VIPT, 64-byte lines)
# sees every missing step; the stride mistakes need mismatched cores: the
# Exynos 8890 (128-byte big I-lines beside 64-byte LITTLE ones) and the
# Tegra186 (IDC on the Denver2 cores only).
killers=(
  "qemu-configs/models/cortex-a53.conf^TargetFlush.SmallJitRunsWhatItWrote"
  "qemu-configs/models/cortex-a53.conf^TargetFlush.DualMappedCodeRunsThroughTheExecutableView"
  "qemu-configs/exynos8890.conf^TargetFlush.SmallJitRunsWhatItWrote"
  "qemu-configs/tegra186.conf^TargetFlush.SmallJitRunsWhatItWrote"
)

if [ "${1:-}" = "--list" ]; then
  for m in "${mutants[@]}"; do IFS='^' read -r name _ _ _ why <<<"$m"; printf '%-20s %s\n' "$name" "$why"; done
  exit 0
fi
want=("$@")
for w in "${want[@]}"; do
  printf '%s\n' "${mutants[@]}" | grep -q "^$w\^" ||
    { echo "ci/check/mutate-flush.sh: no mutant '$w' (ci/check/mutate-flush.sh --list)" >&2; exit 2; }
done

[ -x "$runner" ] || { echo "ci/check/mutate-flush.sh: $runner is missing: run ci/build.sh first" >&2; exit 2; }

# The scratch project: the library, tests/target and the presets, copied;
# pristine/ keeps the sources to restore after each mutant. The aarch64
# preset builds it in tree/build/aarch64, and only target_tests is built.
rm -rf "$work"
mkdir -p "$work"
scratch=$(mktemp -d "${TMPDIR:-/tmp}/jitflush-mutate.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
tree="$scratch/tree"
mkdir -p "$tree/tests" "$scratch/pristine"
cp -r "$root/CMakeLists.txt" "$root/CMakePresets.json" "$root/cmake" "$root/include" "$root/lib" "$root/common" "$tree/"
cp -r "$root/tests/CMakeLists.txt" "$root/tests/common" "$root/tests/target" "$tree/tests/"
cp -r "$tree/lib" "$tree/common" "$scratch/pristine/"
(cd "$tree" && cmake --preset aarch64) >"$work/configure.log" 2>&1 ||
  { cat "$work/configure.log" >&2; exit 2; }
target_tests="$tree/build/aarch64/tests/target/target_tests"
build() { (cd "$tree" && cmake --build --preset aarch64 --target target_tests -j "$jobs") >"$work/build.log" 2>&1; }

# Replaces the one occurrence of $2 in $1 by $3 (\n: newline), or fails.
apply() {
  python3 - "$@" <<'PY'
import sys
path, old, new = sys.argv[1], sys.argv[2].replace("\\n", "\n"), sys.argv[3].replace("\\n", "\n")
text = open(path).read()
if text.count(old) != 1:
    sys.exit(f"found {text.count(old)} times in {path}: {old!r}")
open(path, "w").write(text.replace(old, new))
PY
}

# Puts the pristine file back with a new mtime, so that ninja rebuilds it
# (a copy with the old mtime would look older than the mutant's object).
restore() {
  cp "$scratch/pristine/$1" "$tree/$1"
  touch "$tree/$1"
}

# Runs one killer; returns 0 when the test binary passed.
run_killer() {
  local config=$1 filter=$2
  "$runner" --config "$root/$config" -- "$target_tests" --gtest_filter="$filter" >"$work/run.log" 2>&1
}

start=$(date +%s)
status=0
# The unmutated library must pass every killer, or a kill proves nothing.
build || { cat "$work/build.log" >&2; exit 2; }
for k in "${killers[@]}"; do
  IFS='^' read -r config filter <<<"$k"
  run_killer "$config" "$filter" || {
    echo "ci/check/mutate-flush.sh: the unmutated library fails $filter on $config; see $work/run.log" >&2
    exit 1
  }
done

for m in "${mutants[@]}"; do
  IFS='^' read -r name file old new why <<<"$m"
  if [ "${#want[@]}" -gt 0 ] && [[ " ${want[*]} " != *" $name "* ]]; then continue; fi
  if ! apply "$tree/$file" "$old" "$new" 2>"$work/apply.log"; then
    echo "MUTANT $name: did not apply ($(cat "$work/apply.log")); update ci/check/mutate-flush.sh"
    status=1
    restore "$file"
    continue
  fi
  killer=""
  if build; then
    for k in "${killers[@]}"; do
      IFS='^' read -r config filter <<<"$k"
      rc=0
      run_killer "$config" "$filter" || rc=$?
      if [ "$rc" -ne 0 ]; then
        # 86: the rig saw a stale fetch; anything else: the test failed or crashed.
        killer="$filter on ${config#qemu-configs/} (exit $rc; $(tail -n 1 "$work/run.log" | grep -o 'stale_fetches=[0-9]*' || echo 'see run.log'))"
        break
      fi
    done
  else
    echo "MUTANT $name: does not build (see $work/build.log); update ci/check/mutate-flush.sh"
    status=1
    restore "$file"
    continue
  fi
  if [ -n "$killer" ]; then
    printf 'MUTANT %-20s killed by %s\n' "$name" "$killer"
  else
    printf 'MUTANT %-20s SURVIVED every killer: %s\n' "$name" "$why"
    status=1
  fi
  restore "$file"
done

# Nothing mutated may outlive the run: the scratch copy goes, and
# build/mutate/ holds logs only.
rm -rf "$scratch"
left=$(find "$work" -type f ! -name '*.log'; [ ! -e "$scratch" ] || echo "$scratch")
if [ -n "$left" ]; then
  echo "ci/check/mutate-flush.sh: left behind after the run (a build could link a mutant):" >&2
  echo "$left" >&2
  status=1
fi
echo "ci/check/mutate-flush.sh: took $(( $(date +%s) - start )) s"
exit $status
