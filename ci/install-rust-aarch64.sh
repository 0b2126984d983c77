#!/usr/bin/env bash
# A Rust toolchain that cross-builds for aarch64-unknown-linux-gnu without
# rustup's download server (which CI cannot reach): Debian 12's rustc-web
# (a current rustc, for the browsers' builds) from apt, and the matching
# aarch64 standard library, unpacked from Debian's arm64 libstd-rust-web-dev
# into .cache/rust-aarch64/<version>/sysroot (never installed: no arm64
# dpkg architecture is added, the system's apt state is untouched).
#
#   eval "$(ci/install-rust-aarch64.sh)"   # sets JITFLUSH_RUSTC, JITFLUSH_RUST_SYSROOT
#
# Build with RUSTC=$JITFLUSH_RUSTC and, for the target only (cargo applies
# RUSTFLAGS to the target alone when --target is given),
# RUSTFLAGS="--sysroot=$JITFLUSH_RUST_SYSROOT".
# Exit status: 0, 1 a step failed (the message says which), 3 not Debian.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
say() { echo "ci/install-rust-aarch64.sh: $*" >&2; }
command -v dpkg-query >/dev/null || { say "needs Debian's apt and dpkg"; exit 3; }
if ! dpkg-query -W -f='${Status}' rustc-web 2>/dev/null | grep -q "ok installed"; then
  [ "$(id -u)" -eq 0 ] || { say "rustc-web is not installed and only root can install it"; exit 1; }
  apt-get install -y -q --no-install-recommends rustc-web >&2 || { say "apt-get install rustc-web failed"; exit 1; }
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
echo "JITFLUSH_RUSTC=$(command -v rustc-web 2>/dev/null || echo /usr/bin/rustc)"
echo "JITFLUSH_RUST_SYSROOT=$sysroot"
