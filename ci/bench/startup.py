#!/usr/bin/python3
"""The rig's start-up cost (docs/BENCHMARKS.md, "Start-up"): a test suite
runs hundreds of short processes, so what the rig adds to each matters.

  ci/bench/startup.py QEMU RUNNER HELLO [ROUNDS [RUNS]]

Runs the static AArch64 program HELLO under plain QEMU (no -plugin), under
the rig (jitflush-emu --summary=stale, as a suite's emulator setting runs
it) and under the rig adding its entry to a suite store (--store: a
clean run adds its record, a run with findings its JSON report and SARIF
log too), RUNS times each per round, the ways interleaved run by run,
ROUNDS rounds (default 5 x 40). With JITFLUSH_BENCH_STARTUP_BEFORE set to
another jitflush-emu (an older build), its rig and suite-store ways are
interleaved too, for a before/after comparison on the same load. Prints a Markdown table: per way the median wall clock and CPU
time (user + system of the whole process tree) of one run, in
milliseconds, the medians over the rounds of each round's median, and its
extra cost over plain QEMU, the median of the rounds' differences.
"""
import os
import shutil
import statistics
import sys
import tempfile
import time


def one(cmd):
    """(wall ms, CPU ms) of one run of CMD, stdout and stderr discarded."""
    start = time.perf_counter()
    pid = os.fork()
    if pid == 0:
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, 1)
        os.dup2(null, 2)
        os.execv(cmd[0], cmd)
    _, status, usage = os.wait4(pid, 0)
    wall = (time.perf_counter() - start) * 1000
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit("ci/bench/startup.py: %s failed (status %d)" % (" ".join(cmd), os.waitstatus_to_exitcode(status)))
    # wait4's usage covers the child and the children it waited for (QEMU).
    return wall, (usage.ru_utime + usage.ru_stime) * 1000


def main(argv):
    if len(argv) < 4:
        sys.exit(__doc__)
    qemu, runner, hello = argv[1:4]
    rounds = int(argv[4]) if len(argv) > 4 else 5
    runs = int(argv[5]) if len(argv) > 5 else 40
    store = tempfile.mkdtemp(prefix="jitflush-bench-store-")
    ways = {"plain QEMU": [qemu, hello], "rig": [runner, "--summary=stale", "--", hello],
            "rig, suite store": [runner, "--summary=stale", "--store", store, "--", hello]}
    before = os.environ.get("JITFLUSH_BENCH_STARTUP_BEFORE")
    if before:
        ways["rig, before (%s)" % before] = [before, "--summary=stale", "--", hello]
        ways["rig, suite store, before"] = [before, "--summary=stale", "--store",
                                            os.path.join(store, "before"), "--", hello]
    per_round = {w: [] for w in ways}
    try:
        for _ in range(rounds):
            samples = {w: [] for w in ways}
            for _ in range(runs):
                for w, cmd in ways.items():
                    samples[w].append(one(cmd))
            for w in ways:
                per_round[w].append((statistics.median(s[0] for s in samples[w]),
                                     statistics.median(s[1] for s in samples[w])))
    finally:
        shutil.rmtree(store, ignore_errors=True)
    plain = per_round["plain QEMU"]
    print("| way | wall ms | CPU ms | extra wall ms | extra CPU ms |")
    print("|---|---:|---:|---:|---:|")
    for w in ways:
        r = per_round[w]
        print("| %s | %.1f | %.1f | %.1f | %.1f |" %
              (w, statistics.median(x[0] for x in r), statistics.median(x[1] for x in r),
               statistics.median(x[0] - p[0] for x, p in zip(r, plain)),
               statistics.median(x[1] - p[1] for x, p in zip(r, plain))))
    print()
    print("(%d rounds of %d runs each way, interleaved; %s; load average %s)" %
          (rounds, runs, os.path.basename(hello), " ".join(open("/proc/loadavg").read().split()[:3])))

if __name__ == "__main__":
    main(sys.argv)
