#!/usr/bin/env bash
# Installs every Debian package jitflush's build, tests and rig need.
# Idempotent: apt-get skips what is already there. Needs root (CI runs as root).
# Usage: ci/install/deps.sh [--check] [--herd7]
#   --check: install nothing; exit 0 when every package is there, 1 when some
#   are missing (ci/info.sh uses it to say whether this step has work to do).
#   --herd7: also the OCaml packages that build herd7 for ci/gen/herd7-verdicts.sh
#   (regenerating the conformance suite's data by hand; CI does not).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)

# Build and host tests.
pkgs=(cmake ninja-build g++ gcc pkg-config googletest libgtest-dev libcapstone-dev)
# Cross toolchain for the aarch64 target build.
pkgs+=(gcc-aarch64-linux-gnu g++-aarch64-linux-gnu libc6-dev-arm64-cross)
# The rig: the plugin's deps and what QEMU's own build needs.
pkgs+=(libglib2.0-dev device-tree-compiler dpkg-dev python3-venv flex bison)
# The rig's findings name guest code with elfutils' libdwfl.
pkgs+=(libdw-dev libelf-dev)
# ... and demangles C++ and Rust names with libiberty's cplus_demangle.
pkgs+=(libiberty-dev)
# The rig writes its JSON report and SARIF from a data model with json-glib.
pkgs+=(libjson-glib-dev)
# Compile checks of the Windows and generic platform files.
pkgs+=(gcc-mingw-w64-x86-64-posix gcc-riscv64-linux-gnu libc6-dev-riscv64-cross)
# The zig cc checks for macOS and Windows arm64 (zig itself: ci/install/zig.sh)
# read the linked files with llvm-objdump, -nm, -readobj and -pdbutil.
pkgs+=(llvm-14)
# JSON in the C++ tests (scenario tests read the runner's report).
pkgs+=(nlohmann-json3-dev)
# Fuzzing and sanitizers.
pkgs+=(clang libclang-rt-14-dev)
# The formatting check (ci/check/format.sh, CTest label format).
pkgs+=(clang-format-14 clang-format-16)
# Static check of the users' CI recipe (examples/github-actions.yml).
pkgs+=(yamllint)
# Validation of jitflush-info --json against docs/jitflush-info.schema.json.
pkgs+=(python3-jsonschema)
# tests/realjit: PCRE2's and LuaJIT's builds (make; LuaJIT's source is .xz;
# dpkg-source from dpkg-dev above), their disassembly (objdump, nm) and the
# rig reports (python3).
pkgs+=(make xz-utils binutils-aarch64-linux-gnu python3)
# ci/bench/run.sh: the host micro-benchmark (Google Benchmark) and its plot.
pkgs+=(libbenchmark-dev gnuplot-nox)
# The Debian packages (ci/gen/packages.sh, tests/packages): debhelper and
# lintian, and Debian's cross toolchain for dpkg-buildpackage -aarm64. Not
# libc6:arm64 (multiarch): see debian/rules.
pkgs+=(debhelper lintian crossbuild-essential-arm64 dpkg-cross)
# The jitflush-rig package installed into a fresh Debian 12 root
# (ci/install/rootfs.sh, tests/packages).
pkgs+=(debootstrap)

# herd7 (herdtools7 tag 7.58) on Debian 12: tests/conformance/README.md.
for arg in "$@"; do
  if [ "$arg" = --herd7 ]; then
    pkgs+=(ocaml-nox ocaml-dune menhir libmenhir-ocaml-dev libzarith-ocaml-dev ocaml-findlib git)
  fi
done

installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }
version_at_least() { dpkg --compare-versions "$(dpkg-query -W -f='${Version}' "$1" 2>/dev/null || echo 0)" ge "$2"; }

missing=()
for p in "${pkgs[@]}"; do
  installed "$p" || missing+=("$p")
done
# Stock qemu-aarch64 for the target tests (plain TCG, no plugins): bookworm's
# 7.2 lacks the neoverse-n2 model they use. meson must be >= 1.5 to build
# QEMU >= 10.1 for the rig. Both come from bookworm-backports.
backports=()
version_at_least qemu-user 1:9 || backports+=(qemu-user)
version_at_least meson 1.5 || backports+=(meson)

if [ "${#missing[@]}" -eq 0 ] && [ "${#backports[@]}" -eq 0 ]; then
  exit 0
fi
case " $* " in *" --check "*) exit 1 ;; esac
if [ "$(id -u)" -ne 0 ]; then
  echo "ci/install/deps.sh: these Debian packages are missing and only root can install them: ${missing[*]} ${backports[*]}" >&2
  exit 3
fi
"$here/apt-sources.sh"
export DEBIAN_FRONTEND=noninteractive
if [ "${#missing[@]}" -gt 0 ]; then
  apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
if [ "${#backports[@]}" -gt 0 ]; then
  apt-get install -y -qq --no-install-recommends -t bookworm-backports "${backports[@]}"
fi
