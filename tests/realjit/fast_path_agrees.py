#!/usr/bin/env python3
"""The checker's fast path against its reference, on a real JIT.

    fast_path_agrees.py --rig EMU --config CONF --seed N --work DIR -- PROGRAM [ARGS...]

Runs PROGRAM under the rig twice with the same seed, once with the default
checker (an inline comparison per word or per translation block, blocks
holding loads and stores included, and no comparison at all for words that
every live thread is already synchronised past) and once with --check
full (the model on every fetch of a checked word), and requires the same
exit status, counters, stale words and findings. tests/scenario's
FastPathAgreesWithFullCheck does the same on guests written here, whose
JIT code has no loads or stores; this runs the code PCRE2 and LuaJIT
generate. Random migrations are off (migrate-every=0 in a copy of CONF):
QEMU splits code into blocks by the size of their instrumentation, so they
would fall at other instructions in the two runs. The adversarial moves,
at mrs ctr_el0 and at maintenance, are exact and expose libgcc's stride.
"@OUT@" in ARGS is replaced by a file of each run's own.

Exit status: 0 they agree (and the run caught something), 1 they do not,
2 usage or the rig did not run.
"""
import argparse
import json
import os
import re
import subprocess
import sys

COUNTERS = ("stale_fetches", "fetch_checks", "migrations", "ctr_reads", "dc_ops", "ic_ops", "isb")
STALE_EXIT = 86


def config_without_migrations(src, dst):
    with open(src) as f:
        text = f.read()
    text, n = re.subn(r"(?m)^migrate-every\s*=.*$", "migrate-every=0", text)
    if n == 0:
        text = re.sub(r"(?m)^\[sched\]\s*$", "[sched]\nmigrate-every=0", text, count=1)
        if "migrate-every=0" not in text:
            text += "\n[sched]\nmigrate-every=0\n"
    with open(dst, "w") as f:
        f.write(text)


def mapped(v):
    """The address a JSON string names, when it lies in a guest mapping."""
    if isinstance(v, str) and v.startswith("0x"):
        try:
            a = int(v, 16)
        except ValueError:
            return None
        # Static code sits near 4 MiB; mmap'd JIT code near 2^47.
        return a if a >= 1 << 40 else None
    return None


def rebased(member):
    """MEMBER with every mapped address rewritten as its offset from the
    lowest one: even with setarch -R, QEMU does not always place the
    guest's mappings at the same addresses in two runs (seen about once in
    five under load), and FastPathAgreesWithFullCheck rebases the same way."""
    found = []

    def collect(v):
        a = mapped(v)
        if a is not None:
            found.append(a)
        elif isinstance(v, dict):
            for x in v.values():
                collect(x)
        elif isinstance(v, list):
            for x in v:
                collect(x)

    def rewrite(v, base):
        a = mapped(v)
        if a is not None:
            return "map+0x%x" % (a - base)
        if isinstance(v, dict):
            return {k: rewrite(x, base) for k, x in v.items()}
        if isinstance(v, list):
            return [rewrite(x, base) for x in v]
        return v

    collect(member)
    return rewrite(member, min(found)) if found else member


def without_writers(member):
    """MEMBER without the findings' per-word "writers" lists: the store
    that wrote a word comes from store capture (plugin_store.c), which
    attributes some words differently with and without the fast path (seen
    on LuaJIT: two stores of asm_ir swap 66 words); the fast path's own
    verdicts, counts and first writer are still compared."""
    if isinstance(member, list):
        return [{k: v for k, v in x.items() if k != "writers"} if isinstance(x, dict) else x
                for x in member]
    return member


def run(args, config, check, work):
    report = os.path.join(work, f"fastpath-{check}.json")
    program = [a.replace("@OUT@", os.path.join(work, f"fastpath-{check}.out")) for a in args.program]
    if os.path.exists(report):
        os.remove(report)
    # setarch -R: the same guest addresses in both runs, mostly (rebased).
    cmd = ["setarch", "-R", args.rig, "--config", config, "--seed", str(args.seed),
           "--report", report, "--check", check, "--"] + program
    with open(os.path.join(work, f"fastpath-{check}.stderr"), "w") as err:
        # In WORK: a file the program writes by a relative name stays there.
        status = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=err, cwd=work).returncode
    if status not in (0, STALE_EXIT) or not os.path.exists(report):
        print(f"fast_path_agrees.py: --check {check} exited {status} without a report "
              f"(see {err.name})", file=sys.stderr)
        sys.exit(2)
    with open(report) as f:
        return status, json.load(f)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rig", required=True)
    p.add_argument("--config", required=True)
    p.add_argument("--seed", type=int, required=True)
    p.add_argument("--work", required=True)
    p.add_argument("program", nargs="+")
    args = p.parse_args()
    os.makedirs(args.work, exist_ok=True)
    config = os.path.join(args.work, "fastpath.conf")
    config_without_migrations(args.config, config)

    fast_status, fast = run(args, config, "on", args.work)
    full_status, full = run(args, config, "full", args.work)

    problems = []
    if full_status != STALE_EXIT or full["stale_fetches"] == 0 or not full.get("findings"):
        problems.append(f"the reference caught nothing (status {full_status}, "
                        f"stale_fetches={full['stale_fetches']}): nothing to compare")
    if fast_status != full_status:
        problems.append(f"status {fast_status} with the fast path, {full_status} with --check full")
    for key in COUNTERS:
        if fast[key] != full[key]:
            problems.append(f"{key}: {fast[key]} fast, {full[key]} full")
    for member in ("stale", "findings"):
        a, b = rebased(without_writers(fast.get(member))), rebased(without_writers(full.get(member)))
        if a != b:
            problems.append(f"the reports' \"{member}\" differ:\n  fast: "
                            f"{json.dumps(a)[:2000]}\n  full: {json.dumps(b)[:2000]}")
    name = os.path.basename(args.program[0])
    if problems:
        for line in problems:
            print(f"fast_path_agrees.py: {name}: {line}", file=sys.stderr)
        return 1
    print(f"fast_path_agrees.py: {name}: the fast path and --check full agree "
          f"(stale_fetches={full['stale_fetches']}, findings={len(full['findings'])}, "
          f"fetch_checks={full['fetch_checks']})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
