#!/usr/bin/python3
"""The rig's start-up cost (docs/BENCHMARKS.md, "Start-up"): a test suite
runs hundreds of short processes, so what the rig adds to each matters.

  bench_startup.py QEMU RUNNER HELLO [ROUNDS [RUNS]]

Runs the static AArch64 program HELLO under plain QEMU (no -plugin) and
under the rig (jitflush-emu --summary=stale, as a suite's emulator setting
runs it), RUNS times each per round, the two ways interleaved run by run,
ROUNDS rounds (default 5 x 40). Prints a Markdown table: per way the
median wall clock and CPU time (user + system of the whole process tree)
of one run, in milliseconds, the medians over the rounds of each round's
median; and the rig's extra cost, the median of the rounds' differences.
"""
import os
import statistics
import sys
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
        sys.exit("bench_startup.py: %s failed (status %d)" % (" ".join(cmd), os.waitstatus_to_exitcode(status)))
    # wait4's usage covers the child and the children it waited for (QEMU).
    return wall, (usage.ru_utime + usage.ru_stime) * 1000


def main(argv):
    if len(argv) < 4:
        sys.exit(__doc__)
    qemu, runner, hello = argv[1:4]
    rounds = int(argv[4]) if len(argv) > 4 else 5
    runs = int(argv[5]) if len(argv) > 5 else 40
    ways = {"plain QEMU": [qemu, hello], "rig": [runner, "--summary=stale", "--", hello]}
    per_round = {w: [] for w in ways}
    for _ in range(rounds):
        samples = {w: [] for w in ways}
        for _ in range(runs):
            for w, cmd in ways.items():
                samples[w].append(one(cmd))
        for w in ways:
            per_round[w].append((statistics.median(s[0] for s in samples[w]),
                                 statistics.median(s[1] for s in samples[w])))
    med = {w: (statistics.median(r[0] for r in per_round[w]), statistics.median(r[1] for r in per_round[w]))
           for w in ways}
    extra_wall = statistics.median(r[0] - p[0] for r, p in zip(per_round["rig"], per_round["plain QEMU"]))
    extra_cpu = statistics.median(r[1] - p[1] for r, p in zip(per_round["rig"], per_round["plain QEMU"]))
    print("| way | wall ms | CPU ms |")
    print("|---|---:|---:|")
    for w in ways:
        print("| %s | %.1f | %.1f |" % (w, med[w][0], med[w][1]))
    print("| rig's extra cost | %.1f | %.1f |" % (extra_wall, extra_cpu))
    print()
    print("(%d rounds of %d runs each way, interleaved; %s)" % (rounds, runs, os.path.basename(hello)))


if __name__ == "__main__":
    main(sys.argv)
