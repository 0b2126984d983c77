#!/usr/bin/env bash
# The Debian packages (debian/, ci/gen/packages.sh), checked the way a
# user of each meets them:
#
#   check_packages.sh version REPO [CHANGELOG]
#       debian/changelog (or CHANGELOG) is at the version include/jitflush.h
#       gives, the one place the project keeps it
#   check_packages.sh build ARCH REPO OUT
#       ci/gen/packages.sh ARCH --out OUT (a no-op when nothing changed)
#   check_packages.sh lintian ARCH REPO OUT
#       lintian finds no error and no warning; and --show-overrides lists
#       the overridden tag, so it did read the packages
#   check_packages.sh contents ARCH REPO OUT
#       what each package holds: libjitflush<SONAME version> the shared
#       library whose SONAME its name carries; libjitflush-dev the header,
#       the static library, the .so link, jitflush.pc and the CMake package;
#       jitflush-info the program and its manual page, which names every
#       option of its --help; every version the header's; the exported
#       symbols exactly the header's functions
#   check_packages.sh consumer ARCH REPO OUT WORK
#       dpkg -x of libjitflush and libjitflush-dev (not the CLI) into a
#       scratch root; examples/minimal_jit.c built against it with
#       find_package(jitflush) and with pkg-config, -Werror, and run (arm64:
#       under qemu-aarch64 with the root as its sysroot), each loading the
#       package's libjitflush; with jitflush-info unpacked too,
#       find_package also gives jitflush::info
#   check_packages.sh rig-contents REPO OUT
#       jitflush-rig (amd64): the runner, the merge, the binfmt link, the
#       plugin and its private qemu-aarch64 in /usr/lib/jitflush-rig, the
#       configs, a manual page that lists every option and variable of the
#       packaged runner's --help; Depends names the libraries the rig loads
#       at first use
#   check_packages.sh fresh REPO OUT WORK RUNNER
#       a fresh Debian 12 root (ci/install/rootfs.sh: debootstrap), with no
#       repository inside: apt install ./jitflush-rig_*.deb there, then a
#       static aarch64 program the build never saw (held_out_jit.c) run by
#       jitflush-emu --config exynos8890 in that root ends with the summary
#       line and status the build's RUNNER gives it, and the same under
#       --binfmt-run; an unknown config name is status 2 with a message
#       naming the configs folder. Exit 77 (skipped) when not root or
#       without debootstrap.
#   check_packages.sh rig REPO OUT WORK RUNNER QEMU
#       the arm64 jitflush-info from its package, with the package's
#       libjitflush and the cross toolchain's arm64 libc in a scratch root,
#       run by the rig (RUNNER, jitflush-emu) on the emulated Exynos 8890
#
# Exit status: 0 pass, 1 a check failed, 2 usage.
set -euo pipefail

usage() { sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0" >&2; exit 2; }
[ $# -ge 2 ] || usage
mode=$1
shift
fail() { echo "check_packages.sh $mode: FAIL: $*" >&2; exit 1; }
run() { echo "+ $*" >&2; "$@"; }

header_version() {
  sed -n 's/^#define JITFLUSH_VERSION_STRING "\(.*\)"$/\1/p' "$1/include/jitflush.h"
}

multiarch() {
  case "$1" in
    amd64) echo x86_64-linux-gnu ;;
    arm64) echo aarch64-linux-gnu ;;
    *) echo "check_packages.sh: ARCH is amd64 or arm64, not '$1'" >&2; exit 2 ;;
  esac
}

# deb OUT PACKAGE: the path of PACKAGE's .deb in OUT (exactly one).
deb() {
  local f
  f=$(ls "$1"/"$2"_*.deb 2>/dev/null) || fail "no $2_*.deb in $1: the packages.build test builds them"
  [ "$(wc -l <<<"$f")" -eq 1 ] || fail "more than one $2_*.deb in $1"
  echo "$f"
}

# The library package's name comes from its SONAME (Debian Policy 8.1): a
# new SONAME is a new package, so the name is derived, never assumed.
lib_package() {
  local d
  d=$(ls "$1"/libjitflush[0-9]*_*.deb 2>/dev/null | grep -v -- '-dbgsym_' || true)
  [ -n "$d" ] && [ "$(wc -l <<<"$d")" -eq 1 ] || fail "expected one libjitflush<N> package in $1, found: ${d:-none}"
  dpkg-deb -f "$d" Package
}

check_version() {
  local repo=$1 changelog=${2:-$1/debian/changelog} header deb
  header=$(header_version "$repo")
  [ -n "$header" ] || fail "no JITFLUSH_VERSION_STRING in $repo/include/jitflush.h"
  deb=$(dpkg-parsechangelog -l "$changelog" -SVersion) || fail "dpkg-parsechangelog cannot read $changelog"
  [ "${deb%-*}" = "$header" ] ||
    fail "$changelog is at $deb, but include/jitflush.h says $header: add an entry (dch -v $header-1)"
  echo "check_packages.sh: debian/changelog $deb carries the header's version $header"
}

check_build() {
  local arch=$1 repo=$2 out=$3
  command -v dpkg-buildpackage >/dev/null && command -v dh >/dev/null ||
    fail "dpkg-buildpackage and debhelper are not installed (ci/install/deps.sh installs them)"
  run "$repo/ci/gen/packages.sh" "$arch" --out "$out" >/dev/null || fail "ci/gen/packages.sh $arch failed (above)"
}

check_lintian() {
  local arch=$1 repo=$2 out=$3
  command -v lintian >/dev/null || fail "lintian is not installed (ci/install/deps.sh installs it)"
  "$repo/ci/gen/packages.sh" --lintian "$arch" --out "$out" >/dev/null || fail "lintian (above)"
  # The overridden tag must show up as overridden: lintian really read
  # these packages, and the overrides are what silence it.
  local all
  all=$(lintian --show-overrides "$out/$arch"/*.changes 2>&1 || true)
  grep -q '^O: libjitflush-dev: initial-upload-closes-no-bugs' <<<"$all" ||
    fail "lintian --show-overrides did not list the overridden tag; it said: $all"
  echo "check_packages.sh: $arch: lintian reports no error and no warning (one tag overridden, with its reason)"
}

# has DEB PATH...: each PATH is in the package (a file or a link).
has() {
  local d=$1 list p
  shift
  list=$(dpkg-deb -c "$d" | awk '{print $6}' | sed 's|^\./|/|')
  for p in "$@"; do
    grep -qx -- "$p" <<<"$list" || fail "$(basename "$d") has no $p; it holds: $(tr '\n' ' ' <<<"$list")"
  done
}

check_contents() {
  local arch=$1 repo=$2 out=$3/$1 ma version lib tmp soname want
  ma=$(multiarch "$arch")
  version=$(header_version "$repo")
  lib=$(lib_package "$out")
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' RETURN
  dpkg -x "$(deb "$out" "$lib")" "$tmp"
  soname=$(readelf -d "$tmp/usr/lib/$ma/libjitflush.so.$version" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
  [ -n "$soname" ] || fail "$lib: usr/lib/$ma/libjitflush.so.$version has no SONAME"
  want=${soname#libjitflush.so.}
  want=libjitflush$want
  [ "$lib" = "$want" ] || fail "the library package is $lib, but its SONAME $soname calls for $want"
  has "$(deb "$out" "$lib")" "/usr/lib/$ma/libjitflush.so.$version" "/usr/lib/$ma/$soname"
  has "$(deb "$out" libjitflush-dev)" /usr/include/jitflush.h "/usr/lib/$ma/libjitflush.a" \
    "/usr/lib/$ma/libjitflush.so" "/usr/lib/$ma/pkgconfig/jitflush.pc" \
    "/usr/lib/$ma/cmake/jitflush/jitflush-config.cmake" \
    "/usr/lib/$ma/cmake/jitflush/jitflush-config-version.cmake" \
    "/usr/lib/$ma/cmake/jitflush/jitflush-targets.cmake"
  has "$(deb "$out" jitflush-info)" /usr/bin/jitflush-info /usr/share/man/man1/jitflush-info.1.gz \
    "/usr/lib/$ma/cmake/jitflush/jitflush-info-targets.cmake"
  local p d
  for p in "$lib" libjitflush-dev jitflush-info; do
    d=$(deb "$out" "$p")
    [ "$(dpkg-deb -f "$d" Architecture)" = "$arch" ] || fail "$p is not built for $arch"
    [ "$(dpkg-deb -f "$d" Version | sed 's/-[^-]*$//')" = "$version" ] ||
      fail "$p is at $(dpkg-deb -f "$d" Version), not the header's $version"
  done
  grep -q "$lib" <<<"$(dpkg-deb -f "$(deb "$out" jitflush-info)" Depends)" ||
    fail "jitflush-info does not depend on $lib"
  # The manual page describes every option the packaged CLI's --help lists
  # (amd64: the program runs here).
  if [ "$arch" = amd64 ]; then
    dpkg -x "$(deb "$out" jitflush-info)" "$tmp"
    local help man opt
    help=$(LD_LIBRARY_PATH=$tmp/usr/lib/$ma "$tmp/usr/bin/jitflush-info" --help) ||
      fail "the packaged jitflush-info --help failed"
    man=$(zcat "$tmp/usr/share/man/man1/jitflush-info.1.gz" | sed 's/\\-/-/g; s/\\f[BIRP]//g')
    for opt in $(grep -oE -- '--[a-z][a-z-]*' <<<"$help" | sort -u); do
      grep -q -- "$opt" <<<"$man" || fail "jitflush-info --help lists $opt, its manual page does not"
    done
  fi
  # The shared library exports the header's functions and nothing else.
  local exported declared
  exported=$(LC_ALL=C nm -D --defined-only "$tmp/usr/lib/$ma/libjitflush.so.$version" | awk '{print $3}' | sort)
  declared=$(grep -E '^[a-z].*\<jitflush_[a-z_0-9]+\(' "$repo/include/jitflush.h" | grep -v '^static inline' |
    grep -oE '\<jitflush_[a-z_0-9]+\(' | tr -d '(' | LC_ALL=C sort -u)
  [ "$exported" = "$declared" ] ||
    fail "libjitflush exports [$(echo $exported)], the header declares [$(echo $declared)]"
  echo "check_packages.sh: $arch: $lib (SONAME $soname), libjitflush-dev and jitflush-info $version hold what they should;"
  echo "  the library exports the header's $(wc -l <<<"$exported") functions and nothing else"
}

# unpack OUT ROOT PACKAGE...: dpkg -x each package's .deb into ROOT.
unpack() {
  local out=$1 root=$2 p
  shift 2
  for p in "$@"; do
    run dpkg -x "$(deb "$out" "$p")" "$root"
  done
}

# The arm64 C library of Debian's cross toolchain (libc6-arm64-cross, the
# loader and libraries under /usr/aarch64-linux-gnu/lib) copied into ROOT's
# lib/, where an arm64 system keeps them.
add_arm64_libc() {
  local root=$1 cross=/usr/aarch64-linux-gnu/lib
  [ -e "$cross/ld-linux-aarch64.so.1" ] && [ -e "$cross/libc.so.6" ] ||
    fail "no arm64 C library in $cross (libc6-arm64-cross; ci/install/deps.sh installs it)"
  mkdir -p "$root/lib"
  cp -a "$cross"/ld-linux-aarch64.so.1 "$cross"/lib*.so.* "$root/lib/"
}

# guest_loaded_from_root ROOT VERSION LD_DEBUG_OUTPUT: the aarch64 loader
# (ld.so's LD_DEBUG=libs lines, guest paths) mapped a libjitflush that QEMU
# can only have taken from ROOT: by a path inside ROOT, or by a system path
# whose file is in ROOT and not on this machine (QEMU -L falls back to the
# host's file when ROOT has none).
guest_loaded_from_root() {
  local root=$1 version=$2 path
  path=$(sed -n "s|.*calling init: \(/.*/libjitflush\.so\.${version%.*}\)\$|\1|p" <<<"$3" | head -n 1)
  if [ -z "$path" ]; then
    echo "no libjitflush among the libraries the loader initialised: $(grep 'calling init' <<<"$3" | tr -s ' \t' ' ')" >&2
    return 1
  fi
  case "$path" in
    "$root"/*) return 0 ;; # by its full path on this machine (a build tree's RUNPATH)
  esac
  [ -e "$root$path" ] || { echo "the guest loaded $path, which is not in $root" >&2; return 1; }
  [ ! -e "$path" ] || { echo "this machine has its own $path: which one the guest loaded is unknown" >&2; return 1; }
}

check_consumer() {
  local arch=$1 repo=$2 pkgs=$3/$1 work=$4/consumer-$1 ma version lib root
  ma=$(multiarch "$arch")
  version=$(header_version "$repo")
  lib=$(lib_package "$pkgs")
  rm -rf "$work"
  root=$work/root
  mkdir -p "$root"
  unpack "$pkgs" "$root" "$lib" libjitflush-dev
  [ "$arch" = arm64 ] && add_arm64_libc "$root"

  local cc=(cc) cmake_args=() toolchain
  if [ "$arch" = arm64 ]; then
    cc=(aarch64-linux-gnu-gcc)
    toolchain=$work/toolchain.cmake
    # The repository's cross toolchain, with the scratch root searched first.
    printf 'include(%s)\nlist(PREPEND CMAKE_FIND_ROOT_PATH %s)\n' \
      "$repo/cmake/aarch64-linux-gnu.cmake" "$root" >"$toolchain"
    cmake_args=(-DCMAKE_TOOLCHAIN_FILE="$toolchain" -DCMAKE_PREFIX_PATH=/usr)
  else
    cmake_args=(-DCMAKE_PREFIX_PATH="$root/usr")
  fi

  # find_package, as docs/VENDORING.md's "Installed, with find_package" says.
  mkdir -p "$work/cmake-project"
  cat >"$work/cmake-project/CMakeLists.txt" <<EOF
cmake_minimum_required(VERSION 3.21)
project(consumer C)
find_package(jitflush $version CONFIG REQUIRED)
add_executable(minimal_jit "$repo/examples/minimal_jit.c")
target_link_libraries(minimal_jit PRIVATE jitflush::jitflush)
target_compile_options(minimal_jit PRIVATE -std=c11 -Wall -Wextra -Werror)
if(EXPECT_INFO AND NOT TARGET jitflush::info)
  message(FATAL_ERROR "jitflush-info is unpacked, but find_package(jitflush) gave no jitflush::info")
elseif(NOT EXPECT_INFO AND TARGET jitflush::info)
  message(FATAL_ERROR "jitflush::info without the jitflush-info package")
endif()
file(WRITE "\${CMAKE_BINARY_DIR}/jitflush_dir.txt" "\${jitflush_DIR}")
EOF
  run cmake -S "$work/cmake-project" -B "$work/find_package" -G Ninja "${cmake_args[@]}" >/dev/null ||
    fail "find_package(jitflush) against the unpacked packages failed (above)"
  grep -qx "$root/usr/lib/$ma/cmake/jitflush" "$work/find_package/jitflush_dir.txt" ||
    fail "find_package found jitflush in $(cat "$work/find_package/jitflush_dir.txt"), not in the unpacked packages"
  run cmake --build "$work/find_package" >/dev/null || fail "the find_package consumer did not build"

  # pkg-config, against the unpacked root as its sysroot.
  local flags
  flags=$(PKG_CONFIG_SYSROOT_DIR=$root PKG_CONFIG_LIBDIR=$root/usr/lib/$ma/pkgconfig pkg-config --cflags --libs jitflush) ||
    fail "pkg-config cannot find jitflush.pc in the unpacked packages"
  grep -q -- "-L$root/usr/lib/$ma" <<<"$flags" || fail "pkg-config gave '$flags', not the unpacked library"
  mkdir -p "$work/pkg-config"
  # shellcheck disable=SC2086 # the flags are words
  run "${cc[@]}" -std=c11 -Wall -Wextra -Werror -O2 "$repo/examples/minimal_jit.c" $flags \
    -o "$work/pkg-config/minimal_jit" || fail "the pkg-config consumer did not build"

  local exe out platform
  for exe in "$work/find_package/minimal_jit" "$work/pkg-config/minimal_jit"; do
    if [ "$arch" = arm64 ]; then
      platform=aarch64-linux
      # The guest's loader says which libjitflush it mapped.
      out=$(LD_DEBUG=libs "${QEMU:-qemu-aarch64}" -L "$root" "$exe" 2>&1) || fail "$exe exited with $? under qemu-aarch64: $out"
    else
      platform=x86_64
      out=$(LD_DEBUG=libs LD_LIBRARY_PATH=$root/usr/lib/$ma "$exe" 2>&1) || fail "$exe exited with $?: $out"
    fi
    grep -q "^minimal_jit: ok: 8 rounds of 300 instructions on ${platform%%-*} (jitflush $version, $platform" <<<"$out" ||
      fail "$exe did not report 8 correct rounds: $out"
    if [ "$arch" = arm64 ]; then
      guest_loaded_from_root "$root" "$version" "$out" || fail "$exe did not load the package's libjitflush"
    else
      grep -Eq "calling init: $root/usr/lib/$ma/libjitflush\.so\.${version%.*}\$" <<<"$out" ||
        fail "$exe did not load the package's libjitflush: $(grep 'calling init' <<<"$out")"
    fi
  done

  # With the CLI's package unpacked too, find_package also gives jitflush::info.
  unpack "$pkgs" "$root" jitflush-info
  run cmake -S "$work/cmake-project" -B "$work/find_package-info" -G Ninja "${cmake_args[@]}" -DEXPECT_INFO=ON \
    >/dev/null || fail "find_package(jitflush) with jitflush-info unpacked failed (above)"
  echo "check_packages.sh: $arch: minimal_jit built with find_package and with pkg-config against the unpacked"
  echo "  $lib and libjitflush-dev, ran and loaded the package's library; jitflush::info comes with jitflush-info"
}

check_rig() {
  local repo=$1 out=$2/arm64 work=$3/rig runner=$4 qemu=$5 version lib root
  version=$(header_version "$repo")
  [ -x "$runner" ] || fail "the rig's runner $runner is not built (ci/build.sh builds it)"
  [ -x "$qemu" ] || fail "no plugin-enabled QEMU at $qemu (ci/install/qemu.sh builds it)"
  lib=$(lib_package "$out")
  rm -rf "$work"
  root=$work/root
  mkdir -p "$root"
  unpack "$out" "$root" "$lib" jitflush-info
  add_arm64_libc "$root"
  local rc=0 text
  text=$(LD_DEBUG=libs "$runner" --qemu "$qemu" --config "$repo/qemu-configs/exynos8890.conf" --sysroot "$root" \
    -- "$root/usr/bin/jitflush-info" 2>&1) || rc=$?
  printf '%s\n' "$text" | grep -v '^ *[0-9]*:' || true
  [ "$rc" -eq 0 ] || fail "jitflush-info from the arm64 package exited with $rc on the rig"
  guest_loaded_from_root "$root" "$version" "$text" || fail "jitflush-info did not load the package's libjitflush"
  grep -q "^jitflush-info $version  platform aarch64-linux, 8 possible CPUs" <<<"$text" ||
    fail "no 'jitflush-info $version  platform aarch64-linux, 8 possible CPUs' line"
  [ "$(grep -c 'Exynos M1   0x84448005 c  128 c' <<<"$text")" -eq 4 ] ||
    fail "the table does not show the four Exynos M1 cores with their 128-byte I-lines"
  [ "$(grep -c 'Cortex-A53  0x84448004 c  64 c' <<<"$text")" -eq 4 ] ||
    fail "the table does not show the four Cortex-A53 cores with their 64-byte I-lines"
  grep -q 'I-line 64 bytes (ctr_el0)  D-line 64 bytes (ctr_el0)' <<<"$text" ||
    fail "jitflush did not choose the A53s' 64-byte lines, read on the cores, for every flush"
  grep -q 'stale_fetches=0 ' <<<"$text" || fail "the rig's summary line does not say stale_fetches=0"
  echo "check_packages.sh: the arm64 jitflush-info package ran on the emulated Exynos 8890 with its package's libjitflush"
}

check_rig_contents() {
  local repo=$1 out=$2/amd64 d tmp
  d=$(deb "$out" jitflush-rig)
  has "$d" /usr/bin/jitflush-emu /usr/bin/jitflush-emu-merge /usr/bin/jitflush-emu-binfmt \
    /usr/lib/jitflush-rig/jitflush_plugin.so /usr/lib/jitflush-rig/qemu-aarch64 \
    /usr/share/jitflush-rig/configs/exynos8890.conf /usr/share/man/man1/jitflush-emu.1.gz \
    /usr/share/man/man1/jitflush-emu-merge.1.gz /usr/share/man/man1/jitflush-emu-binfmt.1.gz
  local conf
  for conf in "$repo"/qemu-configs/*.conf; do
    has "$d" "/usr/share/jitflush-rig/configs/$(basename "$conf")"
  done
  local depends
  depends=$(dpkg-deb -f "$d" Depends)
  for p in libcapstone libdw1 libjson-glib-1.0-0 libglib2.0-0; do
    grep -q "$p" <<<"$depends" || fail "jitflush-rig does not depend on $p: $depends"
  done
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' RETURN
  dpkg -x "$d" "$tmp"
  [ "$(readlink "$tmp/usr/bin/jitflush-emu-binfmt")" = jitflush-emu ] ||
    fail "/usr/bin/jitflush-emu-binfmt is not a link to jitflush-emu"
  local help man word
  help=$("$tmp/usr/bin/jitflush-emu" --help) || fail "the packaged jitflush-emu --help failed"
  man=$(zcat "$tmp/usr/share/man/man1/jitflush-emu.1.gz" | sed 's/\\-/-/g; s/\\f[BIRP]//g')
  for word in $(grep -oE -- '(--[a-z][a-z-]*|JITFLUSH_[A-Z_]+)' <<<"$help" | sort -u); do
    grep -q -- "$word" <<<"$man" || fail "jitflush-emu --help lists $word, its manual page does not"
  done
  for word in $(sed -n '/^Exit status:/,$p' <<<"$help" | grep -oE '^  [0-9]+ ' | sort -u); do
    grep -qx "\.B $word" <<<"$man" || fail "jitflush-emu --help lists exit status $word, the manual page does not"
  done
  echo "check_packages.sh: jitflush-rig holds the runner, the plugin, its qemu-aarch64, $(ls "$repo"/qemu-configs/*.conf | wc -l) configs"
  echo "  and a manual page with every option, variable and exit status of the packaged runner's --help"
}

# in_root ROOT CMD...: CMD with ROOT as the root of a mount namespace of its
# own, /proc mounted: pivot_root, not chroot, since a chrooted process may
# not create the user namespace --binfmt-run needs (user_namespaces(7)).
in_root() {
  local root=$1
  shift
  unshare --mount --propagation private sh -c '
    root=$1; shift
    mount --bind "$root" "$root" && mount -t proc proc "$root/proc" && mkdir -p "$root/.oldroot" &&
      cd "$root" && pivot_root . .oldroot && umount -l /.oldroot || exit 125
    exec "$@"' sh "$root" "$@"
}

check_fresh() {
  local repo=$1 out=$2/amd64 work=$3/fresh runner=$4 tarball root d
  [ "$(id -u)" -eq 0 ] || { echo "check_packages.sh fresh: SKIP: needs root (debootstrap, unshare)"; exit 77; }
  command -v debootstrap >/dev/null ||
    { echo "check_packages.sh fresh: SKIP: debootstrap is not installed (ci/install/deps.sh)"; exit 77; }
  [ -x "$runner" ] || fail "the rig's runner $runner is not built"
  d=$(deb "$out" jitflush-rig)
  tarball=$("$repo/ci/install/rootfs.sh" | tail -n 1) || fail "ci/install/rootfs.sh failed (above)"
  rm -rf "$work"
  root=$work/root
  mkdir -p "$root"
  tar -C "$root" -xf "$tarball"
  [ ! -e "$root/usr/bin/jitflush-emu" ] && [ ! -e "$root$repo" ] || fail "$tarball is not a fresh root"
  # The program sits in a folder of the same name here and in the root, and
  # both runs start there with the same environment: the guest then executes
  # the same instructions, and a seed the same turns (docs/RIG.md,
  # "Reproducible runs").
  local here
  here=$(mktemp -d /tmp/jitflush-fresh.XXXXXX)
  # shellcheck disable=SC2064 # $here is local: expanded now, removed at exit
  trap "rm -rf '$here'" EXIT
  aarch64-linux-gnu-gcc -static -O2 -o "$here/held_out_jit" "$repo/tests/packages/held_out_jit.c" ||
    fail "aarch64-linux-gnu-gcc -static cannot build held_out_jit.c"
  mkdir -p "$root/tmp/rig" "$root$here"
  cp "$here/held_out_jit" "$root$here/"
  cp "$d" "$root/tmp/rig/"
  cp /etc/resolv.conf "$root/etc/resolv.conf"
  local deb_name
  deb_name=$(basename "$d")
  # The root holds the package's dependencies (rootfs.sh): apt needs the
  # mirror only when one is new.
  if ! in_root "$root" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q "./tmp/rig/$deb_name" \
    >"$work/apt.log" 2>&1; then
    in_root "$root" sh -c "apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q ./tmp/rig/$deb_name" \
      >>"$work/apt.log" 2>&1 || { tail -n 20 "$work/apt.log" >&2; fail "apt install ./$deb_name failed in the fresh root"; }
  fi
  echo "+ (fresh root) apt install ./tmp/rig/$deb_name: $(grep -c '^Setting up' "$work/apt.log") packages set up" >&2

  local want got rc_want=0 rc_got=0 rc_binfmt=0 binfmt path=/usr/sbin:/usr/bin:/sbin:/bin
  # shellcheck disable=SC2016 # expanded by that sh
  local run='cd "$1" && shift && exec "$@"'
  want=$(env -i PATH=$path sh -c "$run" sh "$here" "$runner" --config exynos8890 -- "$here/held_out_jit" \
    2>&1 >/dev/null) || rc_want=$?
  got=$(in_root "$root" env -i PATH=$path sh -c "$run" sh "$here" jitflush-emu --config exynos8890 -- \
    "$here/held_out_jit" 2>&1 >/dev/null) || rc_got=$?
  binfmt=$(in_root "$root" env -i PATH=$path sh -c "$run" sh "$here" jitflush-emu --binfmt-run -- \
    "$here/held_out_jit" 2>&1 >/dev/null) || rc_binfmt=$?
  echo "build:   status $rc_want: $(tail -n 1 <<<"$want")"
  echo "package: status $rc_got: $(tail -n 1 <<<"$got")"
  echo "binfmt:  status $rc_binfmt: $(tail -n 1 <<<"$binfmt")"
  grep -q '^jitflush-emu: stale_fetches=[1-9].* findings=1$' <<<"$(tail -n 1 <<<"$want")" ||
    fail "the build's runner did not find held_out_jit's one stale flush: $want"
  [ "$rc_got" -eq "$rc_want" ] && [ "$(tail -n 1 <<<"$got")" = "$(tail -n 1 <<<"$want")" ] ||
    fail "the package in the fresh root gave another run than the build: $got"
  [ "$rc_binfmt" -eq "$rc_want" ] && [ "$(tail -n 1 <<<"$binfmt")" = "$(tail -n 1 <<<"$want")" ] ||
    fail "--binfmt-run in the fresh root gave another run than the build: $binfmt"

  local rc=0 text
  text=$(in_root "$root" jitflush-emu --config no-such-soc -- "$here/held_out_jit" 2>&1) || rc=$?
  [ "$rc" -eq 2 ] && grep -q "^jitflush-emu: no config named 'no-such-soc' in /usr/share/jitflush-rig/configs (it holds: .*exynos8890," <<<"$text" ||
    fail "an unknown config name gave status $rc: $text"
  echo "check_packages.sh: jitflush-rig installed into a fresh Debian 12 root ran held_out_jit as the build does,"
  echo "  also under --binfmt-run; an unknown config name is status 2 naming the installed configs"
}

# REPO, the first argument after ARCH (or after the mode), made absolute.
case "$mode" in
  version|rig|rig-contents|fresh) [ $# -ge 1 ] && set -- "$(cd "$1" && pwd)" "${@:2}" ;;
  build|lintian|contents|consumer) [ $# -ge 2 ] && set -- "$1" "$(cd "$2" && pwd)" "${@:3}" ;;
esac
case "$mode" in
  version) [ $# -ge 1 ] && [ $# -le 2 ] || usage; check_version "$@" ;;
  build) [ $# -eq 3 ] || usage; check_build "$@" ;;
  lintian) [ $# -eq 3 ] || usage; check_lintian "$@" ;;
  contents) [ $# -eq 3 ] || usage; check_contents "$@" ;;
  consumer) [ $# -eq 4 ] || usage; check_consumer "$@" ;;
  rig) [ $# -eq 5 ] || usage; check_rig "$@" ;;
  rig-contents) [ $# -eq 2 ] || usage; check_rig_contents "$@" ;;
  fresh) [ $# -eq 4 ] || usage; check_fresh "$@" ;;
  *) usage ;;
esac
