#!/usr/bin/env python3
"""Runs the conformance guest of one cache configuration under the rig and
compares the rig's verdict on every described test with herd7's
(tests/conformance/README.md).

Usage: run_conformance.py --runner JITFLUSH_EMU --config CONF --guest GUEST
           --catalogue catalogue.txt --cache-config 00|10|11 --check on|full
           [--known known-divergences.txt] [--only LIST] [--per-run]

--only LIST: the guest was generated for the tests LIST names (gen_guest.py
--only). --per-run: the guest runs its blocks in place (gen_guest.py
--layout text), one run per process: `GUEST TEST RUN`, exit status 3 when
TEST has no order RUN.

A test's rig verdict is "allowed" when some order of its threads makes
every register and memory condition of the outcome hold and the rig
reported stale every fetch that the outcome needs to be of the old
instruction; a test with no order that makes the register and memory
conditions hold is not expressed (its outcome needs a data result that no
sequential order of the threads gives). Exit status 0 when every expressed
test agrees with herd7 or is listed in the known divergences with the
reason; 1 on a disagreement not listed, or a listed one that now agrees; 2
on a failure to run.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

STALE_KEPT = 100  # the report's "stale" array keeps the first 100 (docs/RIG.md)


def herd_verdicts(catalogue, cache_config):
    verdicts, cur = {}, None
    for line in open(catalogue):
        s = line.split()
        if not s:
            continue
        if s[0] == "test":
            cur = {"name": s[1]}
        elif s[0] in ("config", "herd", "from") and cur is not None:
            cur[s[0]] = s[1]
        elif s[0] == "end":
            if cur["config"] == cache_config:
                if cur["name"] in verdicts:
                    sys.exit("run_conformance.py: two tests named %s in %s" % (cur["name"], catalogue))
                verdicts[cur["name"]] = cur
            cur = None
    return verdicts


def run_guest(args, report, guest_args, ok=(0, 86)):
    cmd = [args.runner, "--config", args.config, "--check", args.check, "--report", report,
           "--", args.guest] + guest_args
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if p.returncode not in ok:
        sys.stderr.write(p.stderr[-4000:])
        sys.exit("run_conformance.py: %s exited %d" % (" ".join(cmd), p.returncode))
    return p


def run_chunk(args, first, count, work):
    report = os.path.join(work, "report-%d-%d.json" % (first, count))
    p = run_guest(args, report, [str(first), str(count)])
    stale = json.load(open(report))["stale"]
    if len(stale) >= STALE_KEPT and count > 1:
        half = count // 2
        return run_chunk(args, first, half, work) + run_chunk(args, first + half, count - half,
                                                              work)
    if len(stale) >= STALE_KEPT:
        sys.exit("run_conformance.py: test %d alone has %d stale fetches or more" %
                 (first, STALE_KEPT))
    return parse_runs(p.stdout, stale)


def run_in_place(args, test, work):
    """Every run of TEST, one process each (the guest exits 3 past the last)."""
    runs = []
    for k in range(10000):
        report = os.path.join(work, "report-%d-%d.json" % (test, k))
        p = run_guest(args, report, [str(test), str(k)], ok=(0, 3, 86))
        if p.returncode == 3:
            return runs
        stale = json.load(open(report))["stale"]
        if len(stale) >= STALE_KEPT:
            sys.exit("run_conformance.py: test %d run %d has %d stale fetches or more" %
                     (test, k, STALE_KEPT))
        runs += parse_runs(p.stdout, stale)
    return runs


def parse_runs(stdout, stale):
    seen = {(s["cpu"], int(s["addr"], 16)) for s in stale}
    runs = []
    for line in stdout.splitlines():
        f = line.split()
        if not f or f[0] != "R":
            continue
        need = []
        for item in f[6:]:
            cpu, addr = item.split(":")
            need.append((int(cpu), int(addr, 16)))
        runs.append({"test": f[1], "order": f[2], "premise": f[3] == "1",
                     "stale": all(n in seen for n in need), "need": need})
    return runs


def main():
    ap = argparse.ArgumentParser()
    for opt in ("runner", "config", "guest", "catalogue", "cache-config"):
        ap.add_argument("--" + opt, required=True)
    ap.add_argument("--check", default="on")
    ap.add_argument("--known")
    ap.add_argument("--chunk", type=int, default=24)
    ap.add_argument("--only")
    ap.add_argument("--per-run", action="store_true")
    args = ap.parse_args()
    herd = herd_verdicts(args.catalogue, args.cache_config)
    if args.only:
        only = set()
        for line in open(args.only):
            name = line.split("#", 1)[0].strip()
            if name:
                only.add(name)
        herd = {name: t for name, t in herd.items() if name in only}
    names = list(herd)  # the guest's tables come from the same file, in its order
    known = {}
    if args.known:
        for line in open(args.known):
            s = line.split(None, 2)
            if s and not s[0].startswith("#") and s[0] == args.cache_config:
                known[s[1]] = s[2].strip() if len(s) > 2 else ""
    with tempfile.TemporaryDirectory(prefix="jitflush-conformance-") as work:
        runs = []
        if args.per_run:
            for test in range(len(names)):
                runs += run_in_place(args, test, work)
        else:
            for first in range(0, len(names), args.chunk):
                runs += run_chunk(args, first, min(args.chunk, len(names) - first), work)
    by_test = {}
    for r in runs:
        if r["test"] not in herd:
            sys.exit("run_conformance.py: the guest ran %s, not in %s (rebuild the guest)" %
                     (r["test"], args.catalogue))
        by_test.setdefault(r["test"], []).append(r)
    agree, disagree, unexpressed, fixed = [], [], [], []
    for name in names:
        rs = by_test.get(name, [])
        if not rs:
            sys.exit("run_conformance.py: no run of %s" % name)
        if not any(r["premise"] for r in rs):
            unexpressed.append(name)
            continue
        rig = "allowed" if any(r["premise"] and r["stale"] for r in rs) else "forbidden"
        want = herd[name]["herd"]
        line = "%-70s herd7 %-9s rig %-9s" % (name, want, rig)
        if rig == want:
            agree.append(line)
            if name in known:
                fixed.append(name)
        else:
            disagree.append((name, line))
    print("config %s, --check %s: %d tests; %d expressed: %d agree, %d disagree; "
          "%d not expressed (no order of the threads gives the outcome's data)" %
          (args.cache_config, args.check, len(names), len(agree) + len(disagree), len(agree),
           len(disagree), len(unexpressed)))
    for line in agree:
        print("  agree     " + line)
    for name in unexpressed:
        print("  not expressed " + name)
    bad = False
    for name, line in disagree:
        if name in known:
            print("  KNOWN     %s (%s)" % (line, known[name]))
        else:
            print("  DISAGREE  " + line)
            bad = True
    for name in fixed:
        print("  NOW AGREES, remove from %s: %s" % (args.known, name))
        bad = True
    for name in known:
        if name not in herd:
            print("  UNKNOWN TEST in %s: %s" % (args.known, name))
            bad = True
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
