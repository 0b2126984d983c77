//! Compiles the C library into the crate with the cc crate, from its
//! amalgamation (one C file and the public header, ci/gen/amalgamation.sh).
//!
//! Where the sources come from, first match:
//! 1. `JITFLUSH_AMALGAMATION_DIR`: a folder holding jitflush.c and jitflush.h.
//! 2. Inside jitflush's repository (`../../ci/gen/amalgamation.sh` exists):
//!    the script makes them into OUT_DIR from `lib/`, `common/` and
//!    `include/` at build time, so the crate always builds the tree it sits in.
//! 3. `csrc/`: the copy ci/gen/rust-crate.sh puts into the published crate.
//!
//! Also compiled: `abi/layout.c`, the sizes, offsets and constants the C
//! compiler gives the header's types (the test layout_matches_the_c_compiler).

use std::env;
use std::path::{Path, PathBuf};
use std::process::Command;

fn main() {
    let manifest = PathBuf::from(env::var_os("CARGO_MANIFEST_DIR").unwrap());
    let out = PathBuf::from(env::var_os("OUT_DIR").unwrap());
    println!("cargo:rerun-if-env-changed=JITFLUSH_AMALGAMATION_DIR");
    println!("cargo:rerun-if-changed=abi/layout.c");
    let repo = manifest.join("../..");
    let script = repo.join("ci/gen/amalgamation.sh");
    let src = if let Some(dir) = env::var_os("JITFLUSH_AMALGAMATION_DIR") {
        PathBuf::from(dir)
    } else if script.is_file() {
        for dir in [
            "lib",
            "common",
            "include",
            "cmake/JitflushSources.cmake",
            "ci/gen/amalgamation.sh",
        ] {
            println!("cargo:rerun-if-changed={}", repo.join(dir).display());
        }
        let dir = out.join("amalgamated");
        let status = Command::new("bash").arg(&script).arg(&dir).status();
        match status {
            Ok(s) if s.success() => dir,
            Ok(s) => panic!(
                "{} failed ({s}): it needs bash, cmake and a C preprocessor",
                script.display()
            ),
            Err(e) => panic!("cannot run bash {}: {e}", script.display()),
        }
    } else {
        println!("cargo:rerun-if-changed=csrc");
        manifest.join("csrc")
    };
    let c_file = src.join("jitflush.c");
    let header = src.join("jitflush.h");
    if !c_file.is_file() || !header.is_file() {
        panic!(
            "no jitflush.c and jitflush.h in {}: outside jitflush's repository the crate \
             needs the copy ci/gen/rust-crate.sh puts in csrc/",
            src.display()
        );
    }
    println!("cargo:rustc-env=JITFLUSH_C_VERSION={}", c_version(&header));

    cc::Build::new()
        .file(&c_file)
        .file(manifest.join("abi/layout.c"))
        .include(&src)
        .std("c11")
        .warnings(true)
        .compile("jitflush");
    // The AArch64 Linux probe runs on a helper thread (glibc before 2.34
    // keeps pthread_create in libpthread; a no_std program may not link it).
    let os = env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    if os == "linux" {
        println!("cargo:rustc-link-lib=pthread");
    }
    // For a C consumer of this crate's build (links = "jitflush"): DEP_JITFLUSH_INCLUDE.
    println!("cargo:include={}", src.display());
}

/// JITFLUSH_VERSION_STRING of the header the library is compiled from.
fn c_version(header: &Path) -> String {
    let text = std::fs::read_to_string(header).expect("read jitflush.h");
    text.lines()
        .find_map(|l| l.strip_prefix("#define JITFLUSH_VERSION_STRING "))
        .map(|v| v.trim().trim_matches('"').to_string())
        .expect("jitflush.h defines JITFLUSH_VERSION_STRING")
}
