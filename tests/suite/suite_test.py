#!/usr/bin/python3
"""A project's own test suite on the rig, with one setting (docs/RIG.md,
"Test suites on the rig").

  suite_test.py cmake|meson|binfmt|cargo|cargo-jitflush RUNNER SOURCE AARCH64_BUILD WORK
  suite_test.py pcre2-build|pcre2-libgcc SEED|pcre2-dropin|pcre2-merge SEEDS...
                RUNNER SOURCE AARCH64_BUILD WORK PCRE2_JIT_LINK   (see below)

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

cargo   tests/suite/cargo-jit, a crate that JIT-compiles with cranelift-jit,
        cross-built for aarch64 (ci/install/rust-aarch64.sh: Debian's
        rustc-web and its arm64 standard library) and run with
        "cargo test" through CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_RUNNER:
        its test's results are right, and on the rig's Linux it passes:
        each round's code is on a page first made executable by
        cranelift-jit's mprotect, which Linux syncs (a note names that
        mprotect). With JITFLUSH_EMU_EXEC_MAP_SYNC=none the rig fails it
        with status 86: cranelift-jit's flush (wasmtime's
        jit-icache-coherence) issues "ic ivau" only, never "dc cvau", so
        on the Exynos 8890, whose cores lack IDC, the code it wrote was
        never cleaned (cranelift 0.135 is Wasmtime 48's release line:
        docs/BACKGROUND.md#src-wasmtime-41-48).
        Skipped (77) when rustc-web is not installed; fails when the
        toolchain or Cranelift's build is not ready
        (ci/install/rust-aarch64.sh --crates, run by ci/test.sh, does both).
cargo-jitflush  the pair: tests/suite/cargo-jit as it is, and
        tests/suite/cargo-jit-jitflush (the same program, its publish step
        flushing through the jitflush crate, bindings/rust), each test
        binary linked statically and run on the Exynos 8890 with
        exec-map-sync none. Unmodified: its own assertion passes, the rig
        fails it with 86 and exactly one finding, not-cleaned, no flush
        reached the words, written by glibc's memcpy (statically linked so
        that the copy routine has a symbol: Debian's arm64 libc.so.6 is
        stripped, and each of its store instructions would be a finding of
        its own). Modified: status 0, nothing stale, as many fetches checked
        as the unmodified run had, and dc cvau issued. Skips and fails as
        cargo does.

PCRE2's own CMake build and CTest suite, unchanged (docs/RIG.md): its
CMakeLists registers every test the old add_test way and runs pcre2test
from scripts, so ctest runs under "jitflush-emu --binfmt-run". The source
is the one tests/realjit/build_jit.sh fetched from Debian into .cache/
(PCRE2_JIT_LINK: its "jit" link, whose ../src it is).
pcre2-build   configures and builds it twice with aarch64-linux-gnu-rig.cmake,
              static, JIT on: as is (libgcc's __clear_cache) and with
              jitflush's drop-in at the end of every link.
pcre2-libgcc  ctest on the emulated Exynos 8890 with seed SEED: the JIT test
              fails with status 86, every stale process's findings are the
              geometry kind (libgcc's latched 128-byte stride).
pcre2-dropin  ctest with the drop-in: every test passes, nothing stale.
pcre2-merge   the libgcc stores of SEEDS merged: one finding, hit on every seed.
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
    # errors="replace": a test that hands an AArch64 file to the host's
    # shell (old_form, script) makes it echo the file's bytes back.
    return subprocess.run(cmd, env=full, cwd=cwd, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True, errors="replace")


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
    check_sarif_schema(log)
    return suite, log, r.stdout


def check_sarif_schema(log):
    """The merged log against the SARIF 2.1.0 schema that
    ci/install/sarif-tools.sh caches, when it and jsonschema are here."""
    schema = os.path.join(SOURCE, ".cache/sarif/sarif-2.1.0.json")
    try:
        import jsonschema
    except ImportError:
        print("suite_test: note: no jsonschema module, the merged SARIF log is not validated")
        return
    if not os.path.exists(schema):
        print("suite_test: note: no %s, the merged SARIF log is not validated" % schema)
        return
    with open(schema) as f:
        validator = jsonschema.Draft202012Validator(json.load(f))
    errors = list(validator.iter_errors(log))
    if errors:
        fail("the merged SARIF log is not valid SARIF 2.1.0: %s at %s"
             % (errors[0].message, list(errors[0].path)))


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
    if r.returncode == 9 and "jitflush-emu: --binfmt-run: " in r.stdout:
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


PCRE2_VARIANTS = {
    "libgcc": [],
    # After every object and archive that calls the builtin (docs/RUNNING-YOUR-JIT.md).
    "dropin": ["libjitflush_clear_cache_dropin.a", "libjitflush.a"],
}
GEOMETRY = "not-invalidated-in-geometry"


def pcre2_build(source, a64, work, src):
    for variant, libs in PCRE2_VARIANTS.items():
        build = os.path.join(work, "pcre2-" + variant)
        if not os.path.exists(os.path.join(build, "build.ninja")):
            extra = " ".join([os.path.join(a64, l) for l in libs] + ["-lpthread"])
            r = run(["cmake", "-S", src, "-B", build, "-G", "Ninja", "-DCMAKE_BUILD_TYPE=RelWithDebInfo",
                     "-DCMAKE_TOOLCHAIN_FILE=" + os.path.join(source, "cmake/aarch64-linux-gnu-rig.cmake"),
                     "-DJITFLUSH_EMU=" + RUNNER, "-DPCRE2_SUPPORT_JIT=ON",
                     "-DCMAKE_EXE_LINKER_FLAGS=-static", "-DCMAKE_C_STANDARD_LIBRARIES=" + extra])
            if r.returncode != 0:
                shutil.rmtree(build, ignore_errors=True)
                fail("PCRE2 configure (%s) failed:\n%s" % (variant, r.stdout))
        r = run(["cmake", "--build", build])
        if r.returncode != 0:
            fail("PCRE2 build (%s) failed:\n%s" % (variant, r.stdout))
        r = run(["aarch64-linux-gnu-nm", os.path.join(build, "pcre2_jit_test")])
        latched = "__aarch64_sync_cache_range" in r.stdout
        if latched != (variant == "libgcc"):
            fail("%s: pcre2_jit_test %s libgcc's __aarch64_sync_cache_range"
                 % (variant, "lacks" if variant == "libgcc" else "still has"))


def pcre2_ctest(work, variant, store, seed):
    shutil.rmtree(store, ignore_errors=True)
    r = run([RUNNER, "--binfmt-run", "--", "ctest", "--test-dir", os.path.join(work, "pcre2-" + variant),
             "--output-on-failure"],
            env={"JITFLUSH_EMU_STORE": store, "JITFLUSH_EMU_SEED": seed})
    if r.returncode == 9 and "jitflush-emu: --binfmt-run: " in r.stdout:
        print("suite_test: skipped: " + r.stdout.strip().splitlines()[-1])
        sys.exit(77)
    return r, ctest_results(r.stdout)


def pcre2_libgcc(work, seed):
    store = os.path.join(work, "store-pcre2-libgcc-seed" + seed)
    r, got = pcre2_ctest(work, "libgcc", store, seed)
    if got.get("pcre2_jit_test") != "Failed" or len(got) != 4:
        fail("seed %s: expected pcre2_jit_test to fail among 4 tests, got %s:\n%s"
             % (seed, got, r.stdout[-4000:]))
    jit = [rec for rec in records(store) if rec["argv"][0].endswith("/pcre2_jit_test")]
    if len(jit) != 1 or jit[0]["status"] != 86:
        fail("seed %s: pcre2_jit_test's record: %s" % (seed, jit))
    for rec in records(store):
        if rec["status"] != 86:
            continue
        with open(os.path.join(store, rec["report"])) as f:
            kinds = {fd["kind"] for fd in json.load(f)["findings"]}
        if kinds != {GEOMETRY}:
            fail("seed %s: %s found %s, expected only %s" % (seed, rec["argv"], kinds, GEOMETRY))


def pcre2_dropin(work):
    store = os.path.join(work, "store-pcre2-dropin")
    r, got = pcre2_ctest(work, "dropin", store, "1")
    want = {"pcre2_test": "Passed", "pcre2_grep_test": "Passed", "pcre2_jit_test": "Passed",
            "pcre2posix_test": "Passed"}
    if r.returncode != 0 or got != want:
        fail("with the drop-in every test must pass: %s\n%s" % (got, r.stdout[-4000:]))
    stale = [rec["argv"] for rec in records(store) if rec["status"] == 86]
    if stale or len(records(store)) < 4:
        fail("drop-in: stale processes %s, %d records" % (stale, len(records(store))))


def pcre2_merge(work, seeds):
    stores = [os.path.join(work, "store-pcre2-libgcc-seed" + s) for s in seeds]
    suite, log, out = merge(RUNNER, stores, work)
    findings = suite["findings"]
    if len(findings) != 1 or findings[0]["kind"] != GEOMETRY:
        fail("the merged suite report must have one geometry finding: %s"
             % json.dumps(findings, indent=1)[:4000])
    hit_seeds = {h["seed"] for h in findings[0]["hits"]}
    if hit_seeds != {int(s) for s in seeds}:
        fail("the finding was hit on seeds %s, expected %s" % (sorted(hit_seeds), seeds))
    if len(log["runs"][0]["results"]) != 1:
        fail("the merged SARIF log has %d results" % len(log["runs"][0]["results"]))
    print(out, end="")


def rust_toolchain(source):
    """JITFLUSH_RUSTC and JITFLUSH_RUST_SYSROOT. The toolchain and
    Cranelift's build are set up before the tests
    (ci/install/rust-aarch64.sh --crates, run by ci/test.sh), never inside
    a test's time limit."""
    r = subprocess.run(["bash", os.path.join(source, "ci/install/rust-aarch64.sh"), "--cached"],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if r.returncode == 3:
        print("suite_test: skipped: no Rust cross toolchain: " + r.stderr.strip()[-500:])
        sys.exit(77)
    if r.returncode != 0:
        fail("the Rust cross toolchain is not set up: " + r.stderr.strip()[-500:])
    return dict(line.split("=", 1) for line in r.stdout.split())


def cargo_suite(source, a64, work):
    tool = rust_toolchain(source)
    crate = os.path.join(work, "crate")
    shutil.rmtree(crate, ignore_errors=True)
    shutil.copytree(os.path.join(source, "tests/suite/cargo-jit"), crate,
                    ignore=shutil.ignore_patterns("Cargo.lock", "target"))
    store = os.path.join(work, "store")
    shutil.rmtree(store, ignore_errors=True)
    cargo = shutil.which("cargo") or os.path.expanduser("~/.cargo/bin/cargo")
    env = {"RUSTC": tool["JITFLUSH_RUSTC"],
           "RUSTFLAGS": "--sysroot=" + tool["JITFLUSH_RUST_SYSROOT"],
           # Cranelift takes minutes to build: once, in the shared cache.
           "CARGO_TARGET_DIR": os.path.join(source, ".cache/cargo-jit/target"),
           "CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_LINKER": "aarch64-linux-gnu-gcc",
           "CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_RUNNER": RUNNER + " --summary=stale --",
           "JITFLUSH_EMU_STORE": store}
    r = run([cargo, "build", "--tests", "--target", "aarch64-unknown-linux-gnu"], env=env, cwd=crate)
    if r.returncode != 0:
        fail("cargo build failed:\n" + r.stdout[-4000:])
    # On Linux: each round's code is on a page first made executable by
    # cranelift-jit's mprotect to RX, which the kernel syncs, so the code is
    # coherent although cranelift-jit never cleans it. --lib: the crate's
    # test (its doc-tests would need an aarch64 rustdoc).
    r = run([cargo, "test", "--lib", "--target", "aarch64-unknown-linux-gnu"], env=env, cwd=crate)
    if r.returncode != 0 or "test tests::jit_code_runs_as_compiled ... ok" not in r.stdout:
        fail("expected cargo test to pass on the rig's Linux:\n" + r.stdout[-4000:])
    recs = records(store)
    if not recs or any(rec["status"] != 0 for rec in recs):
        fail("expected every record of status 0: %s" % recs)
    # The note names the mprotect that published the code (a report of the
    # test binary run directly: a clean store entry has none).
    binary = [rec for rec in recs if "cranelift_jit_on_the_rig" in rec["argv"][0]]
    report = os.path.join(work, "cargo-linux.json")
    reports = []
    for rec in binary:
        run([RUNNER, "--config", rec["config"], "--report", report, "--"] + rec["argv"], cwd=crate)
        with open(report) as f:
            reports.append(json.load(f))
    notes = [n for rep in reports for n in rep["kernel_sync_notes"]]
    if (len(notes) != 1 or notes[0]["call"] != "mprotect"
            or "protect" not in (notes[0]["caller"] or {}).get("symbol", "")
            or notes[0]["pages"] != 8):
        fail("expected one note of cranelift-jit's mprotect publishing 8 pages: %s" % notes)
    # Without the kernel's help (macOS, Windows, the BSDs): cranelift-jit's
    # flush (wasmtime's jit-icache-coherence) issues "ic ivau" only, never
    # "dc cvau", so on the Exynos 8890, whose cores lack IDC, the code it
    # wrote was never cleaned.
    shutil.rmtree(store, ignore_errors=True)
    env["JITFLUSH_EMU_EXEC_MAP_SYNC"] = "none"
    r = run([cargo, "test", "--lib", "--target", "aarch64-unknown-linux-gnu"], env=env, cwd=crate)
    if r.returncode == 0 or "test tests::jit_code_runs_as_compiled ... ok" not in r.stdout:
        fail("expected the test to pass its own assertion and cargo test to fail (86):\n"
             + r.stdout[-4000:])
    recs = records(store)
    if len(recs) != 1 or recs[0]["status"] != 86:
        fail("expected one record of status 86: %s" % recs)
    with open(os.path.join(store, recs[0]["report"])) as f:
        kinds = {fd["kind"] for fd in json.load(f)["findings"]}
    if kinds != {"not-cleaned"}:
        fail("cranelift-jit's findings are %s, expected not-cleaned only" % kinds)
    if "STALE FETCH #1 not-cleaned" not in r.stdout:
        fail("the finding block is not in cargo test's output:\n" + r.stdout[-4000:])


def cargo_jitflush_pair(source, a64, work):
    tool = rust_toolchain(source)
    # Both crates side by side, as in the tree; the jitflush crate stays in
    # the tree (its build script amalgamates the library from it).
    for name in ("cargo-jit", "cargo-jit-jitflush"):
        dest = os.path.join(work, name)
        shutil.rmtree(dest, ignore_errors=True)
        shutil.copytree(os.path.join(source, "tests/suite", name), dest,
                        ignore=shutil.ignore_patterns("Cargo.lock", "target"))
    manifest = os.path.join(work, "cargo-jit-jitflush", "Cargo.toml")
    with open(manifest) as f:
        text = f.read()
    crate = os.path.join(source, "bindings/rust")
    if 'path = "../../../bindings/rust"' not in text:
        fail("%s no longer names ../../../bindings/rust" % manifest)
    with open(manifest, "w") as f:
        f.write(text.replace('path = "../../../bindings/rust"', 'path = "%s"' % crate))
    cargo = shutil.which("cargo") or os.path.expanduser("~/.cargo/bin/cargo")
    env = {"RUSTC": tool["JITFLUSH_RUSTC"],
           "RUSTFLAGS": "--sysroot=" + tool["JITFLUSH_RUST_SYSROOT"],
           "CARGO_TARGET_DIR": os.path.join(source, ".cache/cargo-jit/target"),
           "CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_LINKER": "aarch64-linux-gnu-gcc",
           "CARGO_NET_OFFLINE": "true"}
    config = os.path.join(source, "qemu-configs/exynos8890.conf")
    reports = {}
    for name in ("cargo-jit", "cargo-jit-jitflush"):
        # "cargo rustc": crt-static for the test binary alone, so that
        # Cranelift's cached build is used as it is.
        r = run([cargo, "rustc", "--lib", "--profile", "test", "--target", "aarch64-unknown-linux-gnu",
                 "--message-format=json-render-diagnostics", "--", "-C", "target-feature=+crt-static"],
                env=env, cwd=os.path.join(work, name))
        binaries = [m["executable"] for m in map(json.loads, (l for l in r.stdout.splitlines()
                                                            if l.startswith("{")))
                    if m.get("reason") == "compiler-artifact" and m.get("executable")]
        if r.returncode != 0 or len(binaries) != 1:
            fail("cargo rustc of %s failed (offline: ci/install/rust-aarch64.sh --crates fetches"
                 " the crates):\n%s" % (name, r.stdout[-4000:]))
        report = os.path.join(work, name + ".json")
        r = run([RUNNER, "--config", config, "--exec-map-sync", "none", "--report", report, "--",
                 binaries[0]], cwd=work)
        if "test tests::jit_code_runs_as_compiled ... ok" not in r.stdout:
            fail("%s: its test did not pass its own assertion:\n%s" % (name, r.stdout[-4000:]))
        with open(report) as f:
            reports[name] = (r.returncode, r.stdout, json.load(f))
    status, out, rep = reports["cargo-jit"]
    findings = rep["findings"]
    if status != 86 or len(findings) != 1 or "SUMMARY: jitflush-emu: 1 finding," not in out:
        fail("cranelift-jit as it is: expected status 86 and one finding, got %d and %d:\n%s"
             % (status, len(findings), out[-4000:]))
    finding = findings[0]
    writers = {(w["symbol"] or "").split("+")[0] for w in finding["writers"]}
    if finding["kind"] != "not-cleaned" or finding["flush"] is not None or \
            not all("memcpy" in w for w in writers):
        fail("cranelift-jit's finding: expected not-cleaned, no flush, written by memcpy: %s"
             % json.dumps(finding)[:4000])
    status, out, fixed = reports["cargo-jit-jitflush"]
    if status != 0 or fixed["findings"] or fixed["stale_fetches"] != 0:
        fail("cranelift-jit published through jitflush: expected clean, got status %d:\n%s"
             % (status, out[-4000:]))
    if fixed["fetch_checks"] != rep["fetch_checks"] or fixed["dc_ops"] == 0:
        fail("expected the same %d fetches checked and dc cvau issued: %d checked, %d dc ops"
             % (rep["fetch_checks"], fixed["fetch_checks"], fixed["dc_ops"]))
    print("cranelift-jit: %d stale fetches, one finding; through jitflush: %d fetches checked, clean"
          % (rep["stale_fetches"], fixed["fetch_checks"]))


def main(argv):
    global RUNNER, SOURCE
    if len(argv) >= 7 and argv[1].startswith("pcre2-"):
        what = argv[1]
        args = argv[2:]
        seeds = []
        while args and args[0].isdigit():
            seeds.append(args.pop(0))
        if len(args) != 5:
            print(__doc__, file=sys.stderr)
            sys.exit(2)
        RUNNER, source, a64, work, jit_link = args
        SOURCE = source
        os.makedirs(work, exist_ok=True)
        if what == "pcre2-build":
            pcre2_build(source, a64, work, os.path.realpath(os.path.join(jit_link, "..", "src")))
        elif what == "pcre2-libgcc" and len(seeds) == 1:
            pcre2_libgcc(work, seeds[0])
        elif what == "pcre2-dropin":
            pcre2_dropin(work)
        elif what == "pcre2-merge" and seeds:
            pcre2_merge(work, seeds)
        else:
            print(__doc__, file=sys.stderr)
            sys.exit(2)
        print("suite_test %s: ok" % what)
        return
    modes = {"cmake": cmake_suite, "meson": meson_suite, "binfmt": binfmt_suite, "cargo": cargo_suite,
             "cargo-jitflush": cargo_jitflush_pair}
    if len(argv) != 6 or argv[1] not in modes:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    what, RUNNER, source, a64, work = argv[1:]
    SOURCE = source
    os.makedirs(work, exist_ok=True)
    modes[what](source, a64, work)
    print("suite_test %s: ok" % what)


RUNNER = None
SOURCE = None
if __name__ == "__main__":
    main(sys.argv)
