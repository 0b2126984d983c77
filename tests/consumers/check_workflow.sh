#!/usr/bin/env bash
# Static check of the users' CI recipe beyond YAML style (yamllint does that):
#   - it parses as a workflow: triggers, jobs, steps, each step a run or uses;
#   - every run step is valid bash (bash -n);
#   - every jitflush path it names ("$JITFLUSH_DIR/ci/...") exists in this
#     tree, and every SoC in RIG_CONFIGS has a qemu-configs/<name>.conf, so a
#     renamed script or config breaks this test, not a user's CI;
#   - every action is pinned to a major version (@vN), or is jitflush's own
#     (uses: ./$JITFLUSH_DIR/actions/...), whose action.yml must exist;
#   - every SoC a matrix (soc:) or jitflush's action (config:) names has a
#     qemu-configs/<name>.conf.
#
#   check_workflow.sh examples/github-actions.yml REPO
# Exit status: 0 ok, 1 a check failed, 2 usage or no YAML parser.
set -euo pipefail
[ $# -eq 2 ] || { echo "usage: check_workflow.sh WORKFLOW.yml REPO" >&2; exit 2; }
workflow=$1
repo=$2

# Debian's python3 has PyYAML (python3-yaml, a yamllint dependency); a
# python3 earlier on PATH (pyenv, a venv) may not.
py=""
for cand in /usr/bin/python3 "$(command -v python3 || true)"; do
  if [ -n "$cand" ] && "$cand" -c 'import yaml' 2>/dev/null; then py=$cand; break; fi
done
[ -n "$py" ] || { echo "check_workflow.sh: no python3 with PyYAML (install python3-yaml)" >&2; exit 2; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Writes each run step to $tmp/step-N.sh and the env to $tmp/env, or fails
# with the reason the file is not a usable workflow.
"$py" - "$workflow" "$tmp" <<'PY'
import os, re, sys, yaml
path, out = sys.argv[1], sys.argv[2]
with open(path) as f:
    doc = yaml.safe_load(f)
def fail(msg):
    print(f"check_workflow.sh: {path}: {msg}", file=sys.stderr)
    sys.exit(1)
if not isinstance(doc, dict):
    fail("not a mapping")
# PyYAML reads an unquoted on: as the boolean True (YAML 1.1).
triggers = doc.get("on", doc.get(True))
if not isinstance(triggers, dict) or "push" not in triggers:
    fail("no 'on: push' trigger")
jobs = doc.get("jobs")
if not isinstance(jobs, dict) or not jobs:
    fail("no jobs")
env = doc.get("env") or {}
with open(os.path.join(out, "env"), "w") as f:
    for k, v in env.items():
        f.write(f"{k}={v}\n")
n = 0
for name, job in jobs.items():
    matrix = (job.get("strategy") or {}).get("matrix") or {}
    with open(os.path.join(out, "socs"), "a") as f:
        for soc in matrix.get("soc", []):
            f.write(f"{soc}\n")
    steps = job.get("steps")
    if not steps:
        fail(f"job {name} has no steps")
    for i, step in enumerate(steps):
        if ("run" in step) == ("uses" in step):
            fail(f"job {name} step {i + 1} needs exactly one of run/uses")
        uses = step.get("uses", "")
        if uses.startswith("./"):
            with open(os.path.join(out, "local"), "a") as f:
                f.write(uses[2:] + "\n")
            config = (step.get("with") or {}).get("config")
            if config and "${{" not in str(config):
                with open(os.path.join(out, "socs"), "a") as f:
                    f.write(f"{config}\n")
        elif uses and not re.search(r"@v[0-9]+$", uses):
            fail(f"job {name} step {i + 1}: '{uses}' is not pinned to a major version @vN")
        if "run" in step:
            n += 1
            with open(os.path.join(out, f"step-{n}.sh"), "w") as f:
                f.write(step["run"])
if n == 0:
    fail("no run steps")
PY

status=0
for step in "$tmp"/step-*.sh; do
  bash -n "$step" || { echo "check_workflow.sh: run step $(basename "$step" .sh) is not valid bash" >&2; status=1; }
done

jitflush_dir=$(sed -n 's/^JITFLUSH_DIR=//p' "$tmp/env")
[ -n "$jitflush_dir" ] || { echo "check_workflow.sh: env has no JITFLUSH_DIR" >&2; status=1; }
# "$JITFLUSH_DIR/some/path" with no further variables in the path.
# "$JITFLUSH_ROOT/..." (set by jitflush's action) is the same folder.
paths=$(cat "$tmp"/step-*.sh | grep -o '\$JITFLUSH_\(DIR\|ROOT\)/[A-Za-z0-9_./-]*' | sed 's/^\$JITFLUSH_[A-Z]*\///' | sort -u)
[ -n "$paths" ] || { echo "check_workflow.sh: the steps use no \$JITFLUSH_DIR paths" >&2; status=1; }
for p in $paths; do
  p=${p%/}
  [ -e "$repo/$p" ] || { echo "check_workflow.sh: the workflow uses \$JITFLUSH_DIR/$p, which is not in $repo" >&2; status=1; }
done
# jitflush's own action, used from the vendored copy.
for local in $(cat "$tmp/local" 2>/dev/null); do
  case "$local" in
    "$jitflush_dir"/*) [ -f "$repo/${local#"$jitflush_dir"/}/action.yml" ] ||
        { echo "check_workflow.sh: uses ./$local, but $repo/${local#"$jitflush_dir"/}/action.yml does not exist" >&2; status=1; } ;;
    *) echo "check_workflow.sh: uses ./$local, which is not under \$JITFLUSH_DIR ($jitflush_dir)" >&2; status=1 ;;
  esac
done
for soc in $(sed -n 's/^RIG_CONFIGS=//p' "$tmp/env") $(cat "$tmp/socs" 2>/dev/null); do
  [ -f "$repo/qemu-configs/$soc.conf" ] || { echo "check_workflow.sh: RIG_CONFIGS names $soc, but qemu-configs/$soc.conf does not exist" >&2; status=1; }
done
[ "$status" -eq 0 ] && echo "check_workflow.sh: $(ls "$tmp"/step-*.sh | wc -l) run steps, $(echo "$paths" | wc -w) jitflush paths: ok"
exit "$status"
