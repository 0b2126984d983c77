#!/usr/bin/env bash
# Runs jitflush-info --json one way and validates what it printed against
# docs/jitflush-info.schema.json (tests/cli/check_schema.py --mutants).
#
#   schema_check.sh OUT -- COMMAND...
#
# COMMAND is the CLI itself, or the rig running it. Its exit status is not
# judged here (1 is a legitimate answer on a machine whose stride cannot be
# established); its JSON must be valid whatever the answer.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
schema=$here/../../docs/jitflush-info.schema.json
[ $# -ge 3 ] && [ "$2" = "--" ] || { echo "usage: schema_check.sh OUT -- COMMAND..." >&2; exit 2; }
out=$1
shift 2
mkdir -p "$(dirname "$out")"
rc=0
"$@" > "$out" || rc=$?
case "$rc" in
  0|1) ;;
  *) echo "schema_check.sh: '$*' exited with $rc" >&2; exit 1 ;;
esac
/usr/bin/python3 "$here/check_schema.py" --mutants "$schema" "$out"
