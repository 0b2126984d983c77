#!/usr/bin/env python3
"""Runs loops_guest under the rig (tests/conformance/README.md, the row of
loops_guest.c, "a JIT's loop"): each maintenance sequence in the three layouts, on the cache
configuration it is written for. The ifetch model allows the old
instruction after the two short sequences, so the rig must report at least
one stale fetch per round (50); it forbids it after their neighbours with
a dsb, so the rig must report none. In the fresh layout a whole function
of 256 words is written each round into a page nothing fetched from or
stored to: every fetch of every word in every round may be stale (stale
fetches and benign ones, of the same bytes again, add up to 50 x 256), and
every word of the first version, which replaced the page's zeros, is a
stale fetch that can run something else.

Usage: run_loops.py RUNNER CONFIG_DIR GUEST on|full
Exit status 0 all as expected, 1 some not, 2 a failure to run.
"""
import json
import os
import subprocess
import sys
import tempfile

ROUNDS = 50
FRESH_WORDS = 256
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
            for layout in ("mmap", "text", "fresh"):
                report = os.path.join(work, "%s-%s.json" % (seq, layout))
                p = subprocess.run([runner, "--config", os.path.join(config_dir, conf + ".conf"),
                                    "--check", check, "--report", report, "--", guest, seq,
                                    layout], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                   text=True)
                if p.returncode not in (0, 86):
                    sys.stderr.write(p.stderr[-3000:])
                    print("run_loops.py: the rig exited %d on %s %s" % (p.returncode, seq, layout))
                    return 2
                counts = json.load(open(report))
                stale = counts["stale_fetches"]
                benign = counts.get("benign_stale_fetches", 0)
                if herd == "forbidden":
                    ok = stale == 0 and benign == 0
                elif layout == "fresh":
                    ok = stale + benign == ROUNDS * FRESH_WORDS and stale >= FRESH_WORDS
                else:
                    ok = stale >= ROUNDS
                print("%-15s %-5s herd7 %-9s rig: %5d stale fetches (%d benign) in %d rounds  %s" %
                      (seq, layout, herd, stale, benign, ROUNDS, "ok" if ok else "WRONG"))
                bad += not ok
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
