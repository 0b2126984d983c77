#!/usr/bin/env bash
# Makes the publishable jitflush crate (bindings/rust) offline:
#
#   ci/gen/rust-crate.sh [OUTDIR]   (default: build/crate)
#   -> OUTDIR/jitflush-VERSION.crate
#
# In the repository the crate's build script amalgamates the library from
# lib/, common/ and include/ at build time; a .crate holds no file from
# outside its folder, so this script copies the crate into a scratch folder,
# puts the amalgamation (ci/gen/amalgamation.sh) into its csrc/, and runs
# "cargo package --offline" there, which also builds the packaged crate on
# its own, as a user's build would (the cc crate must be in Cargo's cache:
# ci/install/rust-aarch64.sh --crates fetches it).
#
# Exit status: 0 ok, 1 a step failed (its output above), 2 usage.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
if [ $# -gt 1 ] || [ "${1:-}" = "-h" ] || [ "${1:-}" = "--help" ]; then
  sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0" >&2
  exit 2
fi
out=${1:-$root/build/crate}
say() { echo "ci/gen/rust-crate.sh: $*" >&2; }
cargo=$(command -v cargo || echo "$HOME/.cargo/bin/cargo")
mkdir -p "$out"
out=$(cd "$out" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
crate=$tmp/jitflush
mkdir -p "$crate"
# -L: LICENSE is a link to the repository's.
(cd "$root/bindings/rust" && cp -rL Cargo.toml build.rs README.md LICENSE src abi tests examples "$crate/")
"$root/ci/gen/amalgamation.sh" "$crate/csrc" >/dev/null || { say "the amalgamation failed"; exit 1; }
(cd "$crate" && "$cargo" package --offline --target-dir "$tmp/target" >&2) ||
  { say "cargo package failed (above)"; exit 1; }
version=$(sed -n 's/^version = "\(.*\)"/\1/p' "$crate/Cargo.toml" | head -n 1)
cp "$tmp/target/package/jitflush-$version.crate" "$out/"
echo "$out/jitflush-$version.crate"
