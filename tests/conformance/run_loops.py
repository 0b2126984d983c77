#!/usr/bin/env python3
"""Runs loops_guest under the rig (tests/conformance/README.md, "A JIT's
loop"): each maintenance sequence in both layouts, on the cache
configuration it is written for. The ifetch model allows the old
instruction after the two short sequences, so the rig must report at least
one stale fetch per round (50); it forbids it after their neighbours with
a dsb, so the rig must report none.

Usage: run_loops.py RUNNER CONFIG_DIR GUEST on|full
Exit status 0 all as expected, 1 some not, 2 a failure to run.
"""
import json
import os
import subprocess
import sys
import tempfile

ROUNDS = 50
# sequence, configuration, herd7's verdict on the shape (jitflush's litmus
# tests and the catalogue, herd7-verdicts.tsv)
CASES = [
    ("isb", "conformance-idc1-dic1", "allowed"),           # DIC1.SM.B+isb
    ("dsb-isb", "conformance-idc1-dic1", "forbidden"),     # DIC1.SM.B+dsb.ish-isb
    ("ic-dsb-isb", "conformance-idc1-dic0", "allowed"),    # jf.IDC1.SM.B+ic-dsb-isb
    ("dsb-ic-dsb-isb", "conformance-idc1-dic0", "forbidden"),  # IDC1.SM.B+dsb.ish-ic.ivau-dsb.ish-isb
]


def main():
    runner, config_dir, guest, check = sys.argv[1:5]
    bad = 0
    with tempfile.TemporaryDirectory(prefix="jitflush-loops-") as work:
        for seq, conf, herd in CASES:
            for layout in ("mmap", "text"):
                report = os.path.join(work, "%s-%s.json" % (seq, layout))
                p = subprocess.run([runner, "--config", os.path.join(config_dir, conf + ".conf"),
                                    "--check", check, "--report", report, "--", guest, seq,
                                    layout], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                   text=True)
                if p.returncode not in (0, 86):
                    sys.stderr.write(p.stderr[-3000:])
                    print("run_loops.py: the rig exited %d on %s %s" % (p.returncode, seq, layout))
                    return 2
                stale = json.load(open(report))["stale_fetches"]
                ok = stale >= ROUNDS if herd == "allowed" else stale == 0
                print("%-15s %-5s herd7 %-9s rig: %3d stale fetches in %d rounds  %s" %
                      (seq, layout, herd, stale, ROUNDS, "ok" if ok else "WRONG"))
                bad += not ok
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
