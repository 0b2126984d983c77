#!/usr/bin/python3
"""The jitflush crate (bindings/rust) in the test suite (label "rust").

  rust_test.py lock SOURCE
  rust_test.py host SOURCE WORK
  rust_test.py aarch64 SOURCE WORK RUNNER AARCH64_BUILD
  rust_test.py package SOURCE WORK
  rust_test.py abi-selftest SOURCE WORK

lock     Cargo.lock from the crates already downloaded (offline): the
         fixture of the others, which then build --locked. Fails, naming
         the setup step, when the cc crate is not in Cargo's cache
         (ci/install/rust-aarch64.sh --crates fetches it).
host     cargo test: the unit tests (layout, version, statuses, sources),
         tests/run_code.rs and the rustdoc example pass; and the crate
         builds and tests without its default features (no_std core).
aarch64  cross-built for aarch64-unknown-linux-gnu with Debian's rustc-web
         (ci/install/rust-aarch64.sh), cargo test with Cargo's runner set to
         the rig (CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_RUNNER: jitflush-emu
         on the Exynos 8890 with exec-map-sync none, so every flush must be
         the crate's): every test passes and nothing is stale; then the
         example "facts" under the rig prints what jitflush-info --json
         prints for the same SoC. Skipped (77) without rustc-web.
package  ci/gen/rust-crate.sh: "cargo package" offline (which builds the
         packaged crate on its own); the .crate holds the amalgamation, the
         same as ci/gen/amalgamation.sh makes now, and no file from outside.
abi-selftest  tests/rust/abi_check.py reports each of four wrong
         declarations in a copy of src/sys.rs.
Exits 0 when every assertion holds, 1 with the reason, 77 when skipped.
"""
import json
import os
import shutil
import subprocess
import sys
import tarfile

TARGET = "aarch64-unknown-linux-gnu"


# The suite tests' process runner and Rust toolchain check.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "suite"))
import suite_test  # noqa: E402  (tests/suite/suite_test.py)

rust_toolchain = suite_test.rust_toolchain


def fail(why):
    print("rust_test: " + why, file=sys.stderr)
    sys.exit(1)


def run(cmd, env=None, cwd=None):
    """suite_test.run (no JITFLUSH_EMU_* inherited), Cargo offline."""
    return suite_test.run(cmd, dict(env or {}, CARGO_NET_OFFLINE="true"), cwd)


def cargo():
    return shutil.which("cargo") or os.path.expanduser("~/.cargo/bin/cargo")


def passed(out, what):
    """The "test result" line of each test binary, in order."""
    results = [l for l in out.splitlines() if l.startswith("test result:")]
    if len(results) != len(what) or not all(r.startswith("test result: ok.") for r in results):
        fail("expected %d passing test binaries (%s):\n%s" % (len(what), ", ".join(what), out[-4000:]))
    for r, name in zip(results, what):
        if r.startswith("test result: ok. 0 passed"):
            fail("%s ran no test:\n%s" % (name, out[-4000:]))


def lock(source):
    crate = os.path.join(source, "bindings/rust")
    r = run([cargo(), "generate-lockfile", "--offline"], cwd=crate)
    if r.returncode != 0:
        fail("the crate's dependencies are not in Cargo's cache (run ci/install/rust-aarch64.sh"
             " --crates, which fetches them):\n" + r.stdout[-2000:])


def host(source, work):
    crate = os.path.join(source, "bindings/rust")
    env = {"CARGO_TARGET_DIR": os.path.join(work, "target")}
    r = run([cargo(), "test", "--locked"], env=env, cwd=crate)
    if r.returncode != 0:
        fail("cargo test failed:\n" + r.stdout[-4000:])
    passed(r.stdout, ["unit tests", "tests/run_code.rs", "doc-tests"])
    for name in ("layout_matches_the_c_compiler", "version_is_the_c_librarys",
                 "code_written_through_rw_runs_through_rx"):
        if "%s ... ok" % name not in r.stdout:
            fail("%s did not run:\n%s" % (name, r.stdout[-4000:]))
    r = run([cargo(), "test", "--locked", "--no-default-features", "--lib", "--tests"], env=env, cwd=crate)
    if r.returncode != 0:
        fail("cargo test --no-default-features failed:\n" + r.stdout[-4000:])
    passed(r.stdout, ["unit tests", "tests/run_code.rs"])


def aarch64(source, work, runner, a64):
    tool = rust_toolchain(source)
    crate = os.path.join(source, "bindings/rust")
    config = os.path.join(source, "qemu-configs/exynos8890.conf")
    store = os.path.join(work, "store")
    shutil.rmtree(store, ignore_errors=True)
    env = {"RUSTC": tool["JITFLUSH_RUSTC"],
           "RUSTFLAGS": "--sysroot=" + tool["JITFLUSH_RUST_SYSROOT"],
           "CARGO_TARGET_DIR": os.path.join(work, "target"),
           "CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_LINKER": "aarch64-linux-gnu-gcc",
           "CC_aarch64_unknown_linux_gnu": "aarch64-linux-gnu-gcc",
           "AR_aarch64_unknown_linux_gnu": "aarch64-linux-gnu-ar",
           "CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_RUNNER":
               "%s --config %s --exec-map-sync none --summary=stale --" % (runner, config),
           "JITFLUSH_EMU_STORE": store}
    # --lib --tests: the rustdoc example would need an aarch64 rustdoc run.
    r = run([cargo(), "test", "--locked", "--target", TARGET, "--lib", "--tests"], env=env, cwd=crate)
    if r.returncode != 0:
        fail("cargo test under the rig failed:\n" + r.stdout[-4000:])
    passed(r.stdout, ["unit tests", "tests/run_code.rs"])
    runs = [f for f in os.listdir(store) if f.endswith(".run")] if os.path.isdir(store) else []
    if len(runs) != 2:
        fail("expected the rig to record the 2 test binaries, found %d runs in %s" % (len(runs), store))
    r = run([cargo(), "build", "--locked", "--target", TARGET, "--example", "facts"], env=env, cwd=crate)
    if r.returncode != 0:
        fail("cargo build --example facts failed:\n" + r.stdout[-4000:])
    example = os.path.join(work, "target", TARGET, "debug", "examples", "facts")
    info = os.path.join(a64, "cli", "jitflush-info")
    got = {}
    for name, cmd in (("facts", [example]), ("jitflush-info", [info, "--json"])):
        r = subprocess.run([runner, "--config", config, "--summary=stale", "--"] + cmd,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        if r.returncode != 0:
            fail("%s under the rig: status %d\n%s" % (name, r.returncode, r.stderr[-2000:]))
        got[name] = json.loads(r.stdout)
    rust, c = got["facts"], got["jitflush-info"]
    for key in ("version", "platform", "method", "ncpus_possible", "truncated"):
        if rust[key] != c[key]:
            fail("%s: the crate says %r, jitflush-info %r" % (key, rust[key], c[key]))
    for key, value in rust["global"].items():
        if c["global"][key] != value:
            fail("global %s: the crate says %r, jitflush-info %r" % (key, value, c["global"][key]))
    if len(rust["cpus"]) != len(c["cpus"]):
        fail("%d CPUs from the crate, %d from jitflush-info" % (len(rust["cpus"]), len(c["cpus"])))
    for rc, cc in zip(rust["cpus"], c["cpus"]):
        for key, value in rc.items():
            if cc[key] != value:
                fail("cpu %d %s: the crate says %r, jitflush-info %r" % (rc["cpu"], key, value, cc[key]))
    # What the Exynos 8890 must give (qemu-configs/exynos8890.conf).
    g = rust["global"]
    if (g["iline"], g["dline"], g["heterogeneous"]) != (64, 64, True):
        fail("expected the Exynos 8890's 64/64 heterogeneous geometry: %s" % g)


def package(source, work):
    out = os.path.join(work, "crate")
    shutil.rmtree(out, ignore_errors=True)
    r = run([os.path.join(source, "ci/gen/rust-crate.sh"), out])
    if r.returncode != 0:
        fail("ci/gen/rust-crate.sh failed:\n" + r.stdout[-4000:])
    crates = [f for f in os.listdir(out) if f.endswith(".crate")]
    with open(os.path.join(source, "bindings/rust/Cargo.toml")) as f:
        version = next(l.split('"')[1] for l in f if l.startswith("version"))
    if crates != ["jitflush-%s.crate" % version]:
        fail("expected jitflush-%s.crate in %s, found %s" % (version, out, crates))
    amalg = os.path.join(work, "amalgamated")
    r = run([os.path.join(source, "ci/gen/amalgamation.sh"), amalg])
    if r.returncode != 0:
        fail("ci/gen/amalgamation.sh failed:\n" + r.stdout)
    prefix = "jitflush-%s/" % version
    with tarfile.open(os.path.join(out, crates[0])) as tar:
        names = tar.getnames()
        for name in ("csrc/jitflush.c", "csrc/jitflush.h", "build.rs", "src/lib.rs", "src/sys.rs",
                     "abi/layout.c", "README.md", "LICENSE", "Cargo.toml"):
            if prefix + name not in names:
                fail("the .crate has no %s: %s" % (name, names))
            if name.startswith("csrc/"):
                with open(os.path.join(amalg, name[5:]), "rb") as f:
                    if tar.extractfile(prefix + name).read() != f.read():
                        fail("the .crate's %s is not what ci/gen/amalgamation.sh makes now" % name)
        if any(not n.startswith(prefix) or ".." in n for n in names):
            fail("the .crate has a file outside its folder: %s" % names)


def abi_selftest(source, work):
    sys_rs = os.path.join(source, "bindings/rust/src/sys.rs")
    header = os.path.join(source, "include/jitflush.h")
    check = os.path.join(source, "tests/rust/abi_check.py")
    with open(sys_rs) as f:
        good = f.read()
    mutants = {
        "a missing function": ("    pub fn jitflush_midr_name(midr: u64) -> *const c_char;\n", "",
                               "has no extern declaration of it"),
        "a wrong parameter": ("rw: *const c_void, rx", "rw: *mut c_void, rx",
                              "jitflush_clear_cache_dual: the Rust declaration differs from the header"),
        "a missing field": ("    pub dic: bool,\n    pub idc_dic_source", "    pub idc_dic_source",
                            "struct jitflush_cpu_info: the header's fields"),
        "a wrong constant": ("JITFLUSH_SRC_CLUSTER: jitflush_source = 6", "JITFLUSH_SRC_CLUSTER: jitflush_source = 7",
                             "JITFLUSH_SRC_CLUSTER: the Rust value differs from the header"),
    }
    os.makedirs(work, exist_ok=True)
    for what, (old, new, message) in mutants.items():
        if good.count(old) != 1:
            fail("the mutant %r no longer applies to %s" % (what, sys_rs))
        bad = os.path.join(work, "sys.rs")
        with open(bad, "w") as f:
            f.write(good.replace(old, new))
        r = run([sys.executable, check, header, bad])
        if r.returncode != 1 or message not in r.stdout:
            fail("abi_check.py did not report %s (%r):\n%s" % (what, message, r.stdout))


def main(argv):
    if len(argv) >= 3 and argv[1] == "lock":
        return lock(argv[2])
    modes = {"host": (host, 4), "package": (package, 4), "abi-selftest": (abi_selftest, 4),
             "aarch64": (aarch64, 6)}
    if len(argv) < 2 or argv[1] not in modes or len(argv) != modes[argv[1]][1]:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    os.makedirs(argv[3], exist_ok=True)
    modes[argv[1]][0](*argv[2:])
    print("rust_test %s: ok" % argv[1])


if __name__ == "__main__":
    main(sys.argv)
