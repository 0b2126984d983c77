#!/usr/bin/env bash
# actionlint on every GitHub workflow and action of the repository: the
# example workflows (examples/github-actions*.yml) as a user's repository
# would hold them, in .github/workflows with jitflush vendored at
# $JITFLUSH_DIR, so that actionlint also reads jitflush's own action
# (actions/rig/action.yml) where they use it and checks their inputs
# against it. Then once more with an input the action does not have, which
# actionlint must reject: the check itself can fail.
#
#   actionlint.sh ACTIONLINT REPO
# Exit status: 0 ok, 1 a finding (or the broken copy was accepted), 2 usage.
set -euo pipefail
[ $# -eq 2 ] || { echo "usage: actionlint.sh ACTIONLINT REPO" >&2; exit 2; }
actionlint=$(realpath "$1")
repo=$(cd "$2" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

mkdir -p "$tmp/.github/workflows" "$tmp/third_party"
ln -s "$repo" "$tmp/third_party/jitflush"
workflows=("$repo"/examples/github-actions*.yml)
cp "${workflows[@]}" "$tmp/.github/workflows/"
# Every workflow vendors jitflush where the symlink is.
for w in "${workflows[@]}"; do
  grep -q '^  JITFLUSH_DIR: third_party/jitflush$' "$w" ||
    { echo "actionlint.sh: $w does not set JITFLUSH_DIR: third_party/jitflush" >&2; exit 1; }
  grep -q 'uses: ./third_party/jitflush/actions/rig$' "$w" ||
    { echo "actionlint.sh: $w does not use jitflush's action" >&2; exit 1; }
done

status=0
(cd "$tmp" && git init -q . && "$actionlint") || status=1

# The broken copy: an input actions/rig does not declare.
sed -i 's|^\(\s*\)store: rig-store$|&\n\1no-such-input: 1|' "$tmp/.github/workflows/github-actions.yml"
if out=$(cd "$tmp" && "$actionlint" 2>&1); then
  echo "actionlint.sh: actionlint accepted an input actions/rig does not have" >&2
  status=1
elif ! grep -q 'input "no-such-input" is not defined in action "jitflush rig"' <<<"$out"; then
  echo "actionlint.sh: actionlint did not name the bad input:" >&2
  echo "$out" >&2
  status=1
fi
[ "$status" -eq 0 ] && echo "actionlint.sh: ${#workflows[@]} workflows and actions/rig/action.yml: ok"
exit "$status"
