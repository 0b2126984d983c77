#!/usr/bin/env python3
"""Runs stores_guest under the rig and checks that every kind of store it
makes is seen: the word each kind rewrote after publishing it, then ran
without maintenance, must be reported stale (tests/conformance/README.md).

Usage: run_stores.py RUNNER CONFIG GUEST on|full
Exit status 0 every kind seen, 1 some kind not seen, 2 a failure to run.
"""
import json
import os
import subprocess
import sys
import tempfile


def main():
    runner, config, guest, check = sys.argv[1:5]
    with tempfile.TemporaryDirectory(prefix="jitflush-stores-") as work:
        report = os.path.join(work, "report.json")
        p = subprocess.run([runner, "--config", config, "--check", check, "--report", report,
                            "--", guest], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           text=True)
        if p.returncode not in (0, 86):
            sys.stderr.write(p.stderr[-3000:])
            print("run_stores.py: the rig exited %d" % p.returncode)
            return 2
        stale = {int(s["addr"], 16) for s in json.load(open(report))["stale"]}
    kinds = [line.split() for line in p.stdout.splitlines() if line.startswith("K ")]
    if len(kinds) < 14:
        print("run_stores.py: the guest reported %d kinds, not 14:\n%s" % (len(kinds), p.stdout))
        return 2
    bad = 0
    for _, kind, addr, before, after in kinds:
        seen = int(addr, 16) in stale
        print("%-12s %s (ran %s, then %s)" % (kind, "seen" if seen else "NOT SEEN", before, after))
        bad += not seen
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
