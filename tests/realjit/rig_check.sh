#!/usr/bin/env bash
# Runs one of a real JIT's own tests under the rig and checks both what the
# rig saw and what the test itself says:
#
#   rig_check.sh --rig JITFLUSH_EMU --config CONF --seed N --report FILE.json
#                --expect clean|caught|either [OUTPUT CHECKS] -- PROGRAM [ARGS...]
#
# --expect clean    the rig exits 0 (so the program did too) and the report
#                   says stale_fetches=0
#          caught   the rig exits 86 and the report says stale_fetches > 0
#          either   one of the two (a libgcc variant on a seed where the
#                   first CTR_EL0 read may land on either kind of core)
# Output checks (QEMU keeps fetch coherent whatever the rig reports, so the
# program's results must be right in every case; at least one is required):
#   --file GOT WANT          after the run, file GOT must equal file WANT
#   --stdout-regex RE        the program's stdout must match RE (grep -E)
#   --stderr-regex RE        the program's stderr must match RE (grep -E)
#   --same-stdout-with ARG   stdout must equal that of PROGRAM ARG ARGS...
#                            under stock QEMU (QEMU, default qemu-aarch64):
#                            LuaJIT's -joff run
# --rig-arg ARG passes ARG to the rig (repeatable): --sysroot=DIR for a JIT
# unpacked from Debian's packages.
# The program runs in a scratch folder of its own, REPORT without .json plus
# ".cwd", so that files it writes by a relative name (pcre2test's "#save
# testsaved1" in testinput17) land there, never in the source tree or in a
# folder that parallel runs share. Give absolute paths.
# Exit status: 0 pass, 1 an expectation failed, 2 usage.
set -euo pipefail

usage() { echo "usage: rig_check.sh --rig EMU --config CONF --seed N --report FILE --expect clean|caught|either [--file GOT WANT] [--stdout-regex RE] [--stderr-regex RE] [--same-stdout-with ARG] [--rig-arg ARG]... -- PROGRAM [ARGS...]" >&2; exit 2; }

rig="" config="" seed="" report="" expect=""
files=() stdout_res=() stderr_res=() ref_arg="" rig_args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --rig) rig=$2; shift 2 ;;
    --config) config=$2; shift 2 ;;
    --seed) seed=$2; shift 2 ;;
    --report) report=$2; shift 2 ;;
    --expect) expect=$2; shift 2 ;;
    --file) files+=("$2" "$3"); shift 3 ;;
    --stdout-regex) stdout_res+=("$2"); shift 2 ;;
    --stderr-regex) stderr_res+=("$2"); shift 2 ;;
    --same-stdout-with) ref_arg=$2; shift 2 ;;
    --rig-arg) rig_args+=("$2"); shift 2 ;;
    --) shift; break ;;
    *) usage ;;
  esac
done
[ -n "$rig" ] && [ -n "$config" ] && [ -n "$seed" ] && [ -n "$report" ] && [ $# -ge 1 ] || usage
case "$expect" in clean | caught | either) ;; *) usage ;; esac
[ ${#files[@]} -gt 0 ] || [ ${#stdout_res[@]} -gt 0 ] || [ ${#stderr_res[@]} -gt 0 ] || [ -n "$ref_arg" ] ||
  { echo "rig_check.sh: give at least one output check: the program's own verdict is what is tested" >&2; exit 2; }

name=$(basename "$report" .json)
fail() { echo "rig_check.sh: $name: FAIL: $*" >&2; exit 1; }

work=$(dirname "$report")
scratch=${report%.json}.cwd
rm -rf "$scratch"
mkdir -p "$work" "$scratch"
out=${report%.json}.stdout err=${report%.json}.stderr
rm -f "$report" "$out" "$err"
for ((i = 0; i < ${#files[@]}; i += 2)); do rm -f "${files[i]}"; done

start=$(date +%s%N)
rc=0
# setarch -R: without the host's address randomisation, QEMU maps the
# guest's memory at the same addresses every run; with it, LuaJIT's
# machine code moved between runs and the same rig seed was caught in one
# run and clean in the next.
(cd "$scratch" && exec setarch -R "$rig" --config "$config" --seed "$seed" --report "$report" ${rig_args[@]+"${rig_args[@]}"} -- "$@") \
  >"$out" 2>"$err" || rc=$?
ms=$(( ($(date +%s%N) - start) / 1000000 ))
summary=$(grep '^jitflush-emu: stale_fetches=' "$err" | tail -n 1 || true)
printf '%s: status %s in %d.%01d s\n%s\n' "$name" "$rc" $((ms / 1000)) $((ms % 1000 / 100)) "$summary"

[ -f "$report" ] || { tail -n 20 "$err" >&2; fail "the rig wrote no report (status $rc)"; }
stale=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["stale_fetches"])' "$report") ||
  fail "cannot read stale_fetches from $report"

case "$expect" in
  clean)
    [ "$rc" -eq 0 ] || { tail -n 20 "$err" >&2; fail "status $rc, expected 0 (clean, and the program's own status 0)"; }
    [ "$stale" -eq 0 ] || fail "stale_fetches=$stale, expected 0" ;;
  caught)
    [ "$rc" -eq 86 ] || { tail -n 20 "$err" >&2; fail "status $rc, expected 86 (stale fetches caught)"; }
    [ "$stale" -gt 0 ] || fail "status 86 but stale_fetches=$stale" ;;
  either)
    case "$rc" in
      0) [ "$stale" -eq 0 ] || fail "status 0 but stale_fetches=$stale" ;;
      86) [ "$stale" -gt 0 ] || fail "status 86 but stale_fetches=$stale" ;;
      *) tail -n 20 "$err" >&2; fail "status $rc, expected 0 or 86" ;;
    esac ;;
esac

# The JIT's own verdict on its results.
for ((i = 0; i < ${#files[@]}; i += 2)); do
  got=${files[i]} want=${files[i + 1]}
  [ -f "$got" ] || fail "the program wrote no $got"
  diff -u "$want" "$got" >"$got.diff" || { head -n 40 "$got.diff" >&2; fail "$got differs from $want"; }
done
for re in "${stdout_res[@]}"; do
  grep -Eq -- "$re" "$out" || { tail -n 20 "$out" >&2; fail "stdout does not match '$re'"; }
done
for re in "${stderr_res[@]}"; do
  grep -Eq -- "$re" "$err" || { tail -n 20 "$err" >&2; fail "stderr does not match '$re'"; }
done
if [ -n "$ref_arg" ]; then
  prog=$1; shift
  (cd "$scratch" && exec "${QEMU:-qemu-aarch64}" "$prog" "$ref_arg" "$@") >"$out.ref" 2>/dev/null || fail "the reference run ($prog $ref_arg) failed"
  [ -s "$out.ref" ] || fail "the reference run printed nothing"
  diff -u "$out.ref" "$out" >&2 || fail "stdout differs from the $ref_arg run's"
fi
echo "rig_check.sh: $name: ok (expected $expect; stale_fetches=$stale)"
