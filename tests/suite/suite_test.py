#!/usr/bin/python3
"""A project's own test suite on the rig, with one setting (docs/RIG.md,
"Test suites on the rig").

  suite_test.py cmake|meson|binfmt RUNNER SOURCE AARCH64_BUILD WORK

cmake   builds tests/suite/cmake-project with cmake/aarch64-linux-gnu-rig.cmake
        and runs its ctest with the suite store in the environment: the
        flushed test passes (its stdout came through), the unflushed one
        fails with 86 and the finding blocks, the usage test's own status 64
        comes through (CTest's SKIP_RETURN_CODE), and the tests CMake does
        not hand to its emulator (the old add_test form, a script) do not
        reach the rig. Two seeds into two stores, then one merged report.
meson   the same suite under Meson with examples/meson-aarch64-rig.ini.
binfmt  the CMake suite under "jitflush-emu --binfmt-run -- ctest": every
        test reaches the rig, the old form and the script's program too,
        and the host's binfmt_misc has no registration afterwards.
Exits 0 when every assertion holds, 1 with the reason otherwise.
"""
import glob
import json
import os
import shutil
import subprocess
import sys


def fail(why):
    print("suite_test: " + why, file=sys.stderr)
    sys.exit(1)


def run(cmd, env=None, cwd=None):
    print("+ " + " ".join(cmd), file=sys.stderr)
    full = dict(os.environ)
    for key in [k for k in full if k.startswith("JITFLUSH_EMU_")]:
        del full[key]
    full.update(env or {})
    return subprocess.run(cmd, env=full, cwd=cwd, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True)


def records(store):
    """The store's records, by the program's first argument."""
    out = []
    for path in sorted(glob.glob(os.path.join(store, "*.run"))):
        with open(path) as f:
            out.append(json.load(f))
    return out


def expect_statuses(store, want):
    """WANT: sorted list of (argv tail, status) of the records."""
    got = sorted((" ".join(r["argv"][1:]), r["status"]) for r in records(store))
    if got != sorted(want):
        fail("store %s holds %s, expected %s" % (store, got, sorted(want)))


def merge(runner, stores, work):
    report = os.path.join(work, "suite.json")
    sarif = os.path.join(work, "suite.sarif")
    r = run([runner, "--merge", "--report", report, "--sarif", sarif] + stores)
    if r.returncode != 86:
        fail("merge: status %d, expected 86:\n%s" % (r.returncode, r.stdout))
    with open(report) as f:
        suite = json.load(f)
    with open(sarif) as f:
        log = json.load(f)
    return suite, log, r.stdout


def one_process_findings(store):
    for rec in records(store):
        if rec["status"] == 86:
            with open(os.path.join(store, rec["report"])) as f:
                return json.load(f)["findings"]
    fail("no stale process in " + store)


def check_merged(suite, log, stores, runs_per_finding):
    """Each root cause of one process is one merged finding hit by
    RUNS_PER_FINDING processes, its count the sum of theirs."""
    single = one_process_findings(stores[0])
    if len(suite["findings"]) != len(single):
        fail("merged %d findings, one process has %d: %s"
             % (len(suite["findings"]), len(single), json.dumps(suite["findings"], indent=1)))
    for f in suite["findings"]:
        if f["runs"] != runs_per_finding or len(f["hits"]) != runs_per_finding:
            fail("finding %s hit by %d processes, expected %d"
                 % (f["kind"], f["runs"], runs_per_finding))
        if f["count"] != sum(h["count"] for h in f["hits"]):
            fail("finding %s: count %d is not the sum of its hits" % (f["kind"], f["count"]))
        if not all("minimal_jit" in h["command"] for h in f["hits"]):
            fail("hits do not name the program: %s" % f["hits"])
    if len(log["runs"][0]["results"]) != len(single):
        fail("the SARIF log has %d results" % len(log["runs"][0]["results"]))


def build_cmake(source, a64, work):
    build = os.path.join(work, "build")
    shutil.rmtree(build, ignore_errors=True)
    r = run(["cmake", "-S", os.path.join(source, "tests/suite/cmake-project"), "-B", build,
             "-G", "Ninja", "-DCMAKE_TOOLCHAIN_FILE=" + os.path.join(source, "cmake/aarch64-linux-gnu-rig.cmake"),
             "-DJITFLUSH_EMU=" + RUNNER, "-DJITFLUSH_SOURCE=" + source,
             "-DJITFLUSH_AARCH64_LIB=" + os.path.join(a64, "libjitflush.a")])
    if r.returncode != 0:
        fail("cmake configure failed:\n" + r.stdout)
    r = run(["cmake", "--build", build])
    if r.returncode != 0:
        fail("cmake build failed:\n" + r.stdout)
    return build


def ctest_results(output):
    """{test: 'Passed'|'Failed'|'Skipped'|...} from ctest's progress lines."""
    out = {}
    for line in output.splitlines():
        if "Test #" in line and "..." in line:
            name = line.split(":", 1)[1].split("...")[0].strip()
            verdict = line.split("...")[-1].split()
            out[name] = "Passed" if "Passed" in verdict else \
                        "Skipped" if "Skipped" in line else "Failed"
    return out


def cmake_suite(source, a64, work):
    build = build_cmake(source, a64, work)
    stores = []
    for seed in ("1", "2"):
        store = os.path.join(work, "store-seed" + seed)
        shutil.rmtree(store, ignore_errors=True)
        r = run(["ctest", "--test-dir", build, "--output-on-failure"],
                env={"JITFLUSH_EMU_STORE": store, "JITFLUSH_EMU_SEED": seed})
        got = ctest_results(r.stdout)
        want = {"flushed": "Passed", "unflushed": "Failed", "usage": "Skipped",
                "old_form": "Failed", "script": "Failed"}
        if got != want:
            fail("ctest results %s, expected %s:\n%s" % (got, want, r.stdout))
        if "STALE FETCH #1" not in r.stdout or "jitflush-emu: stale_fetches=" not in r.stdout:
            fail("the unflushed test's output lacks the finding blocks:\n" + r.stdout)
        # Only the three tests CMake hands to its emulator reached the rig.
        expect_statuses(store, [("", 0), ("--no-flush", 86), ("a b", 64)])
        stores.append(store)
    suite, log, _ = merge(RUNNER, stores, work)
    if suite["processes"] != 6 or suite["processes_stale"] != 2:
        fail("merged processes %d, stale %d" % (suite["processes"], suite["processes_stale"]))
    check_merged(suite, log, stores, 2)


def meson_suite(source, a64, work):
    project = os.path.join(work, "project")
    shutil.rmtree(project, ignore_errors=True)
    shutil.copytree(os.path.join(source, "tests/suite/meson-project"), project)
    shutil.copy(os.path.join(source, "examples/minimal_jit.c"), project)
    build = os.path.join(work, "build")
    path = os.path.dirname(RUNNER) + os.pathsep + os.environ.get("PATH", "")
    r = run(["meson", "setup", build, "--cross-file",
             os.path.join(source, "examples/meson-aarch64-rig.ini"),
             "-Djitflush_source=" + source, "-Djitflush_lib=" + os.path.join(a64, "libjitflush.a")],
            env={"PATH": path}, cwd=project)
    if r.returncode != 0:
        fail("meson setup failed:\n" + r.stdout)
    store = os.path.join(work, "store")
    shutil.rmtree(store, ignore_errors=True)
    r = run(["meson", "test", "-C", build, "--print-errorlogs"],
            env={"PATH": path, "JITFLUSH_EMU_STORE": store})
    lines = r.stdout.splitlines()
    ok = [l for l in lines if " flushed " in l and " OK " in l]
    bad = [l for l in lines if " unflushed " in l and " FAIL " in l and "86" in l]
    if r.returncode == 0 or not ok or not bad:
        fail("meson test: expected flushed OK and unflushed FAIL with 86:\n" + r.stdout)
    expect_statuses(store, [("", 0), ("--no-flush", 86)])
    suite, log, _ = merge(RUNNER, [store], work)
    check_merged(suite, log, [store], 1)


def binfmt_suite(source, a64, work):
    if os.path.exists("/proc/sys/fs/binfmt_misc/jitflush-emu"):
        fail("the host already has a jitflush-emu registration: this test must not touch it")
    build = build_cmake(source, a64, work)
    store = os.path.join(work, "store")
    shutil.rmtree(store, ignore_errors=True)
    r = run([RUNNER, "--binfmt-run", "--", "ctest", "--test-dir", build, "--output-on-failure"],
            env={"JITFLUSH_EMU_STORE": store})
    if r.returncode == 8 and "cannot" in r.stdout:
        print("suite_test: skipped: " + r.stdout.strip().splitlines()[-1])
        sys.exit(77)
    got = ctest_results(r.stdout)
    want = {"flushed": "Passed", "unflushed": "Failed", "usage": "Skipped",
            "old_form": "Passed", "script": "Failed"}
    if got != want:
        fail("ctest results %s, expected %s:\n%s" % (got, want, r.stdout))
    # Every test reached the rig: the old form and the script's program
    # through binfmt_misc, the others through the emulator setting.
    expect_statuses(store, [("", 0), ("", 0), ("--no-flush", 86), ("--no-flush", 86),
                            ("a b", 64)])
    if os.path.exists("/proc/sys/fs/binfmt_misc/jitflush-emu"):
        fail("a registration was left behind on the host")
    suite, log, _ = merge(RUNNER, [store], work)
    check_merged(suite, log, [store], 2)


def main(argv):
    global RUNNER
    if len(argv) != 6 or argv[1] not in ("cmake", "meson", "binfmt"):
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    what, RUNNER, source, a64, work = argv[1:]
    os.makedirs(work, exist_ok=True)
    {"cmake": cmake_suite, "meson": meson_suite, "binfmt": binfmt_suite}[what](source, a64, work)
    print("suite_test %s: ok" % what)


RUNNER = None
if __name__ == "__main__":
    main(sys.argv)
