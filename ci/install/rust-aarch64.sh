#!/usr/bin/env bash
# A Rust toolchain that cross-builds for aarch64-unknown-linux-gnu without
# rustup's download server (which CI cannot reach): Debian 12's rustc-web
# (a current rustc, for the browsers' builds) from apt (and its cargo-web
# where the machine has no cargo), and the matching
# aarch64 standard library, unpacked from Debian's arm64 libstd-rust-web-dev
# into .cache/rust-aarch64/<version>/sysroot (never installed: no arm64
# dpkg architecture is added, the system's apt state is untouched).
#
#   eval "$(ci/install/rust-aarch64.sh)"   # sets JITFLUSH_RUSTC, JITFLUSH_RUST_SYSROOT
#
# Build with RUSTC=$JITFLUSH_RUSTC and, for the target only (cargo applies
# RUSTFLAGS to the target alone when --target is given),
# RUSTFLAGS="--sysroot=$JITFLUSH_RUST_SYSROOT".
#
#   ci/install/rust-aarch64.sh --crates   the same, then builds the
#       dependencies of tests/suite/cargo-jit (Cranelift) for the target
#       into .cache/cargo-jit/target, once (several minutes; ci/test.sh runs
#       it), so that suite.cargo builds only its own crate; fetches the
#       jitflush crate's dependencies (bindings/rust: the cc crate) into
#       Cargo's cache, so that the rust tests build offline; and builds
#       tests/suite/cargo-jit-jitflush's test binary on top of Cranelift's
#       build, once (about 3 minutes), so that suite.cargo.jitflush is warm
#   ci/install/rust-aarch64.sh --cached   installs and builds nothing: prints
#       the two lines when the toolchain and those crates are ready
#       (tests/suite/suite_test.py cargo asks this)
#
# Exit status: 0, 1 a step failed or (--cached) is not done (the message
# says which), 3 not Debian, or (--cached) rustc-web is not installed.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
say() { echo "ci/install/rust-aarch64.sh: $*" >&2; }
mode=${1:-}
case "$mode" in ""|--crates|--cached) ;; *) say "usage: ci/install/rust-aarch64.sh [--crates|--cached]"; exit 1 ;; esac
command -v dpkg-query >/dev/null || { say "needs Debian's apt and dpkg"; exit 3; }
crate=$root/tests/suite/cargo-jit
crates=$root/.cache/cargo-jit
# What the crates were built for: rustc-web's version and Cargo.toml.
crates_key() { echo "rustc-web $1, Cargo.toml $(sha256sum "$crate/Cargo.toml" | cut -d' ' -f1)"; }
if [ "$mode" = --cached ]; then
  dpkg-query -W -f='${Status}' rustc-web 2>/dev/null | grep -q "ok installed" ||
    { say "rustc-web is not installed: run ci/install/rust-aarch64.sh --crates (ci/test.sh does)"; exit 3; }
  version=$(dpkg-query -W -f='${Version}' rustc-web)
  sysroot=$root/.cache/rust-aarch64/$version/sysroot
  if [ ! -d "$sysroot/lib/rustlib/aarch64-unknown-linux-gnu/lib" ] ||
     [ "$(cat "$crates/.complete" 2>/dev/null)" != "$(crates_key "$version")" ]; then
    say "the aarch64 standard library or the cargo-jit crates are not built for rustc-web $version:" \
      "run ci/install/rust-aarch64.sh --crates (ci/test.sh does)"
    exit 1
  fi
  echo "JITFLUSH_RUSTC=$(command -v rustc-web 2>/dev/null || echo /usr/bin/rustc)"
  echo "JITFLUSH_RUST_SYSROOT=$sysroot"
  exit 0
fi
if ! dpkg-query -W -f='${Status}' rustc-web 2>/dev/null | grep -q "ok installed"; then
  [ "$(id -u)" -eq 0 ] || { say "rustc-web is not installed and only root can install it"; exit 1; }
  apt-get install -y -q --no-install-recommends rustc-web >&2 || { say "apt-get install rustc-web failed"; exit 1; }
fi
# Cargo: the machine's own (rustup's in ~/.cargo/bin), else Debian's
# cargo-web, the Cargo of rustc-web's version.
if ! command -v cargo >/dev/null && [ ! -x "$HOME/.cargo/bin/cargo" ]; then
  [ "$(id -u)" -eq 0 ] || { say "no cargo, and only root can install cargo-web"; exit 1; }
  apt-get install -y -q --no-install-recommends cargo-web >&2 || { say "apt-get install cargo-web failed"; exit 1; }
fi
version=$(dpkg-query -W -f='${Version}' rustc-web)
cache=$root/.cache/rust-aarch64/$version
sysroot=$cache/sysroot
target=aarch64-unknown-linux-gnu
if [ ! -d "$sysroot/lib/rustlib/$target/lib" ]; then
  work=$cache/apt
  rm -rf "$work"
  mkdir -p "$work/lists/partial" "$work/archives/partial" "$work/parts"
  : > "$work/status"
  # The system's own package sources, read by a private apt for arm64.
  cp /etc/apt/sources.list.d/*.sources /etc/apt/sources.list.d/*.list "$work/parts/" 2>/dev/null || true
  [ ! -f /etc/apt/sources.list ] || cp /etc/apt/sources.list "$work/parts/system.list"
  apt_arm64=(apt-get -q -o APT::Architecture=arm64 -o APT::Architectures::=arm64
             -o Dir::State="$work" -o Dir::State::Lists="$work/lists" -o Dir::State::status="$work/status"
             -o Dir::Cache="$work" -o Dir::Cache::archives="$work/archives"
             -o Dir::Etc::SourceList=/dev/null -o Dir::Etc::SourceParts="$work/parts"
             -o Debug::NoLocking=1)
  "${apt_arm64[@]}" update >&2 || { say "apt-get update for arm64 failed"; exit 1; }
  (cd "$work" && "${apt_arm64[@]}" download "libstd-rust-web-dev:arm64=$version" >&2) ||
    { say "no arm64 libstd-rust-web-dev $version (it must match rustc-web exactly)"; exit 1; }
  rm -rf "$cache/extract"
  dpkg-deb -x "$work"/libstd-rust-web-dev_*_arm64.deb "$cache/extract"
  lib=$(find "$cache/extract" -type d -path "*/rustlib/$target/lib" | head -n 1)
  [ -n "$lib" ] || { say "the package has no rustlib/$target/lib"; exit 1; }
  mkdir -p "$sysroot/lib/rustlib/$target"
  ln -sfn "$lib" "$sysroot/lib/rustlib/$target/lib"
  rm -rf "$work"
fi
rustc=$(command -v rustc-web 2>/dev/null || echo /usr/bin/rustc)
if [ "$mode" = --crates ] && [ "$(cat "$crates/.complete" 2>/dev/null)" != "$(crates_key "$version")" ]; then
  say "building tests/suite/cargo-jit's crates (Cranelift) for $target into .cache/cargo-jit (once: 17 min on 2 cores at load 17 to 19)"
  cargo=$(command -v cargo || echo "$HOME/.cargo/bin/cargo")
  rm -rf "$crates/warm"
  mkdir -p "$crates/warm"
  cp "$crate/Cargo.toml" "$crates/warm/"
  cp -r "$crate/src" "$crates/warm/src"
  # The environment tests/suite/suite_test.py builds with: the same target
  # folder, compiler and flags, so that its build reuses these.
  if ! (cd "$crates/warm" && RUSTC=$rustc RUSTFLAGS="--sysroot=$sysroot" CARGO_TARGET_DIR=$crates/target \
          CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_LINKER=aarch64-linux-gnu-gcc \
          "$cargo" build --tests --target "$target" >&2); then
    say "cargo build of the cargo-jit crates failed (above)"
    exit 1
  fi
  rm -rf "$crates/warm"
  crates_key "$version" > "$crates/.complete"
fi
if [ "$mode" = --crates ]; then
  cargo=$(command -v cargo || echo "$HOME/.cargo/bin/cargo")
  (cd "$root/bindings/rust" && "$cargo" fetch -q >&2) ||
    { say "cargo fetch of the jitflush crate's dependencies (bindings/rust) failed"; exit 1; }
  pair=$root/tests/suite/cargo-jit-jitflush
  pair_key="$(crates_key "$version"), $(sha256sum "$pair/Cargo.toml" | cut -d' ' -f1)"
  if [ "$(cat "$crates/.complete-jitflush" 2>/dev/null)" != "$pair_key" ]; then
    say "building tests/suite/cargo-jit-jitflush on Cranelift's build (once: about 3 min)"
    rm -rf "$crates/warm"
    mkdir -p "$crates/warm"
    cp -r "$crate" "$pair" "$crates/warm/"
    sed -i "s|path = \"../../../bindings/rust\"|path = \"$root/bindings/rust\"|" \
      "$crates/warm/cargo-jit-jitflush/Cargo.toml"
    # What tests/suite/suite_test.py cargo-jitflush builds, with its flags.
    if ! (cd "$crates/warm/cargo-jit-jitflush" && RUSTC=$rustc RUSTFLAGS="--sysroot=$sysroot" \
            CARGO_TARGET_DIR=$crates/target CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_LINKER=aarch64-linux-gnu-gcc \
            "$cargo" rustc --lib --profile test --target "$target" -- -C target-feature=+crt-static >&2); then
      say "cargo build of tests/suite/cargo-jit-jitflush failed (above)"
      exit 1
    fi
    rm -rf "$crates/warm"
    echo "$pair_key" > "$crates/.complete-jitflush"
  fi
fi
echo "JITFLUSH_RUSTC=$rustc"
echo "JITFLUSH_RUST_SYSROOT=$sysroot"
