#!/usr/bin/env bash
# Erlang's BEAM JIT as Debian 12 ships it (erlang-base, arm64, unpacked into
# a cached sysroot by fetch_debs.sh) under the rig, through rig_check.sh:
#
#   beam_check.sh CACHE RIG_CHECK_OPTIONS...
#
# beam.smp runs directly (erl and erlexec exec further aarch64 programs,
# which QEMU user mode cannot start without binfmt_misc), with the
# variables erlexec would set, in a UTS namespace whose host name has a dot
# (a name without one makes the VM start inet_gethost, another exec, and
# die at boot). The Erlang code it runs prints "sum 500500".
#
# Exit status: rig_check.sh's, 1 when the sysroot cannot be made, 77 when
# no UTS namespace can be created here (CTest shows it as skipped).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
[ $# -ge 2 ] || { echo "usage: beam_check.sh CACHE RIG_CHECK_OPTIONS..." >&2; exit 2; }
cache=$1
shift
root=$("$here/fetch_debs.sh" "$cache" beam erlang-base) || exit 1
erts=$(cd "$root/usr/lib/erlang" && ls -d erts-* | head -n 1)
[ -x "$root/usr/lib/erlang/$erts/bin/beam.smp" ] || { echo "beam_check.sh: no beam.smp in $root" >&2; exit 1; }
unshare --uts true 2>/dev/null || { echo "beam_check.sh: no UTS namespace here: skipped" >&2; exit 77; }
export BINDIR=/usr/lib/erlang/$erts/bin ROOTDIR=/usr/lib/erlang EMU=beam PROGNAME=erl HOME=/tmp
exec unshare --uts sh -c 'hostname rig.jitflush && exec "$@"' sh \
  "$here/rig_check.sh" "$@" --rig-arg "--sysroot=$root" -- \
  "$root/usr/lib/erlang/$erts/bin/beam.smp" -- -root /usr/lib/erlang -bindir "$BINDIR" \
  -progname erl -- -home /tmp -noshell -noinput \
  -eval 'io:format("sum ~p~n", [lists:sum(lists:seq(1, 1000))]), halt().'
