#!/usr/bin/env bash
# ci/install/qemu.sh never caches a broken QEMU, and says what went wrong
# (docs/RIG.md, "Which QEMU"). Each case builds a small fake QEMU source
# tree as a release tarball into a private cache (JITFLUSH_QEMU_CACHE): its
# configure writes a build.ninja whose qemu-aarch64 is a script, so the
# cases reach every step of a build in a second.
#
#   build_qemu_test.sh REPO CASE
#
# CASE: checksum, unknown, not-tar, no-header, api-8, configure-fails,
#       plugin-does-not-load, probe-loads, cached-reused, no-source,
#       second-tarball, checksum-differs, version-conflict, failed-twice,
#       setup-step-tarball, build-sh-two-qemus.
# Exit 0 when the case behaves as documented; otherwise 1, saying how.
set -euo pipefail
repo=$1
case_name=$2
script="$repo/ci/install/qemu.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export JITFLUSH_QEMU_CACHE="$work/cache"

fail() { echo "FAIL ($case_name): $*" >&2; exit 1; }

# A fake QEMU tree qemu-VERSION/ with a plugin header of API API (none when
# empty), whose configure exits CONFIGURE_STATUS, and whose qemu-aarch64
# behaves as QEMU_KIND says: "noload" accepts -plugin but loads nothing,
# "loads" runs the probe plugin's install function through a host helper.
make_tree() {
  local version=$1 api=$2 configure_status=$3 qemu_kind=$4
  local t="$work/stage/qemu-$version"
  rm -rf "$work/stage"
  mkdir -p "$t/include/plugins"
  echo "$version" > "$t/VERSION"
  if [ -n "$api" ]; then
    # The real header's first lines matter to the probe: it compiles
    # against this one, which declares just what the probe uses.
    cat > "$t/include/plugins/qemu-plugin.h" <<EOF
#include <stdint.h>
#include <stdbool.h>
#define QEMU_PLUGIN_EXPORT __attribute__((visibility("default")))
typedef uint64_t qemu_plugin_id_t;
#define QEMU_PLUGIN_VERSION $api
typedef struct qemu_info_t { const char *target_name; struct { int min; int cur; } version; bool system_emulation; } qemu_info_t;
EOF
  fi
  cat > "$t/configure" <<EOF
#!/bin/sh
[ $configure_status -eq 0 ] || { echo "fake configure: failing as asked" >&2; exit $configure_status; }
cat > build.ninja <<'NINJA'
rule make_qemu
  command = cp ../fake-qemu qemu-aarch64 && chmod +x qemu-aarch64
build qemu-aarch64: make_qemu
NINJA
EOF
  chmod +x "$t/configure"
  case "$qemu_kind" in
    noload)
      cat > "$t/fake-qemu" <<'EOF'
#!/bin/sh
case "$1" in
  --version) echo "qemu-aarch64 version 0.0 (fake)"; exit 0 ;;
  -plugin) echo "qemu-aarch64: Could not load plugin $2: fake QEMU loads no plugin" >&2; exit 1 ;;
esac
EOF
      ;;
    loads)
      # dlopen the plugin and call its install function, as QEMU does.
      cat > "$work/loader.c" <<'EOF'
#include <dlfcn.h>
#include <stdio.h>
#include <stdbool.h>
typedef struct { const char *t; struct { int min; int cur; } v; bool s; } info;
int main(int argc, char **argv)
{
  (void)argc;
  void *h = dlopen(argv[1], RTLD_NOW);
  if (!h) { fprintf(stderr, "Could not load plugin %s: %s\n", argv[1], dlerror()); return 1; }
  int (*install)(unsigned long long, const info *, int, char **) =
      (int (*)(unsigned long long, const info *, int, char **))dlsym(h, "qemu_plugin_install");
  info i = {"aarch64", {2, 6}, false};
  return install ? install(1, &i, 0, NULL) : 1;
}
EOF
      cc -o "$work/loader" "$work/loader.c" -ldl
      cat > "$t/fake-qemu" <<EOF
#!/bin/sh
case "\$1" in
  --version) echo "qemu-aarch64 version 0.0 (fake)"; exit 0 ;;
  -plugin) [ -f "\$2" ] || { echo "Could not load plugin \$2" >&2; exit 1; }
           "$work/loader" "\$2"; echo "qemu-aarch64: \$3: Invalid ELF image for this architecture" >&2; exit 255 ;;
esac
EOF
      ;;
  esac
  tar -czf "$work/qemu-$version.tar.gz" -C "$work/stage" "qemu-$version"
}

# build_ok TARBALL: builds it (its own SHA-256 given) and checks the
# printed prefix is the tarball's version's and its stamp names the file.
build_ok() {
  local file=$1 version
  version=$(basename "$file" .tar.gz)
  version=${version#qemu-}
  run --tarball "$file" --sha256 "$(sha "$file")"
  [ "$rc" -eq 0 ] || fail "building $(basename "$file"): status $rc: $err"
  [ "$(tail -n 1 "$work/out")" = "$JITFLUSH_QEMU_CACHE/$version" ] ||
    fail "building $(basename "$file") printed '$(tail -n 1 "$work/out")'"
  grep -qx "source: tarball $(basename "$file") sha256 $(sha "$file")" \
    "$JITFLUSH_QEMU_CACHE/$version/.complete" || fail ".complete: $(cat "$JITFLUSH_QEMU_CACHE/$version/.complete")"
}

sha() { sha256sum "$1" | cut -d' ' -f1; }

# run ARGS...: the script's status in $rc and its stderr in $err.
run() {
  rc=0
  "$script" "$@" > "$work/out" 2> "$work/err" || rc=$?
  err=$(cat "$work/err")
}

expect() {
  local status=$1 text=$2
  [ "$rc" -eq "$status" ] || fail "status $rc, expected $status; stderr: $err"
  printf '%s' "$err" | grep -qF -- "$text" || fail "stderr lacks '$text': $err"
}

no_stamp() {
  if compgen -G "$JITFLUSH_QEMU_CACHE/*/.complete" > /dev/null; then
    fail "a .complete was written: $(ls "$JITFLUSH_QEMU_CACHE"/*/.complete)"
  fi
}

case "$case_name" in
  checksum)
    make_tree 10.2.90 6 0 loads
    run --tarball "$work/qemu-10.2.90.tar.gz" --sha256 "$(printf '0%.0s' {1..64})"
    expect 5 "SHA-256 $(sha "$work/qemu-10.2.90.tar.gz"), expected 0000"
    no_stamp
    ;;
  unknown)
    make_tree 10.2.90 6 0 loads
    run --tarball "$work/qemu-10.2.90.tar.gz"
    expect 5 "qemu-10.2.90.tar.gz is not a QEMU release this script knows"
    expect 5 "pass it with --sha256 (this file's: $(sha "$work/qemu-10.2.90.tar.gz"))"
    ;;
  not-tar)
    echo "not a tar archive" > "$work/qemu-10.2.90.tar.gz"
    run --tarball "$work/qemu-10.2.90.tar.gz" --sha256 "$(sha "$work/qemu-10.2.90.tar.gz")"
    expect 4 "step 'unpack' failed"
    no_stamp
    ;;
  no-header)
    make_tree 10.2.90 "" 0 loads
    run --tarball "$work/qemu-10.2.90.tar.gz" --sha256 "$(sha "$work/qemu-10.2.90.tar.gz")"
    expect 4 "step 'header' failed: no include/plugins/qemu-plugin.h or include/qemu/qemu-plugin.h"
    no_stamp
    ;;
  api-8)
    make_tree 10.2.90 8 0 loads
    run --tarball "$work/qemu-10.2.90.tar.gz" --sha256 "$(sha "$work/qemu-10.2.90.tar.gz")"
    expect 4 "is plugin API version 8; the rig's plugin supports 5 to 7"
    expect 4 "step 'plugin API' failed"
    no_stamp
    ;;
  configure-fails)
    make_tree 10.2.90 6 3 loads
    run --tarball "$work/qemu-10.2.90.tar.gz" --sha256 "$(sha "$work/qemu-10.2.90.tar.gz")"
    expect 4 "step 'configure' failed"
    no_stamp
    # Nothing cached: --cached finds no build.
    "$script" --cached > /dev/null 2>&1 && fail "--cached found a build after a failed one"
    ;;
  plugin-does-not-load)
    make_tree 10.2.90 6 0 noload
    run --tarball "$work/qemu-10.2.90.tar.gz" --sha256 "$(sha "$work/qemu-10.2.90.tar.gz")"
    expect 4 "step 'load a probe plugin' failed"
    no_stamp
    ;;
  probe-loads)
    make_tree 10.2.90 6 0 loads
    run --tarball "$work/qemu-10.2.90.tar.gz" --sha256 "$(sha "$work/qemu-10.2.90.tar.gz")"
    expect 0 "jitflush-probe: loaded, built for plugin API 6, QEMU offers 2-6"
    prefix=$(tail -n 1 "$work/out")
    [ "$prefix" = "$JITFLUSH_QEMU_CACHE/10.2.90" ] || fail "printed prefix '$prefix'"
    grep -qx "plugin-api: 6" "$prefix/.complete" || fail ".complete: $(cat "$prefix/.complete")"
    grep -qx "source: tarball qemu-10.2.90.tar.gz sha256 $(sha "$work/qemu-10.2.90.tar.gz")" \
      "$prefix/.complete" || fail ".complete: $(cat "$prefix/.complete")"
    cmp -s "$prefix/include/qemu-plugin.h" "$work/stage/qemu-10.2.90/include/plugins/qemu-plugin.h" ||
      fail "the header cached is not the tree's"
    ;;
  cached-reused)
    make_tree 10.2.90 6 0 loads
    sum=$(sha "$work/qemu-10.2.90.tar.gz")
    run --tarball "$work/qemu-10.2.90.tar.gz" --sha256 "$sum"
    expect 0 "cached in"
    stamp=$(cat "$JITFLUSH_QEMU_CACHE/10.2.90/.complete")
    run --tarball "$work/qemu-10.2.90.tar.gz" --sha256 "$sum"
    [ "$rc" -eq 0 ] || fail "second run: status $rc: $err"
    printf '%s' "$err" | grep -q "configuring" && fail "second run built again: $err"
    [ "$(cat "$JITFLUSH_QEMU_CACHE/10.2.90/.complete")" = "$stamp" ] || fail "the stamp changed"
    ;;
  no-source)
    # No apt source of QEMU >= 10.1 and nothing cached: exit 3 naming the
    # tarball route (an apt-cache that knows no qemu stands for Ubuntu's).
    mkdir -p "$work/bin"
    printf '#!/bin/sh\nexit 0\n' > "$work/bin/apt-cache"
    chmod +x "$work/bin/apt-cache"
    rc=0
    PATH="$work/bin:$PATH" "$script" > /dev/null 2> "$work/err" || rc=$?
    err=$(cat "$work/err")
    expect 3 "ci/install/qemu.sh --tarball qemu-10.2.2.tar.xz"
    ;;
  second-tarball)
    # A tarball of another version while one is cached: --cached does not
    # offer the cached one, and the build is of the tarball named.
    make_tree 10.2.90 6 0 loads
    build_ok "$work/qemu-10.2.90.tar.gz"
    make_tree 10.2.91 6 0 loads
    if out=$("$script" --cached --tarball "$work/qemu-10.2.91.tar.gz" 2>&1); then
      fail "--cached --tarball qemu-10.2.91.tar.gz offered a build of another tarball: $out"
    fi
    build_ok "$work/qemu-10.2.91.tar.gz"
    printf '%s' "$err" | grep -q "configuring" || fail "qemu-10.2.91.tar.gz was not built: $err"
    [ "$("$script" --cached --tarball "$work/qemu-10.2.91.tar.gz")" = "$JITFLUSH_QEMU_CACHE/10.2.91" ] ||
      fail "--cached --tarball does not find the build of qemu-10.2.91.tar.gz"
    ;;
  checksum-differs)
    # A cached build of a version from one tarball, then another tarball of
    # that version (another SHA-256): built again, saying what it replaces.
    make_tree 10.2.90 6 0 loads
    build_ok "$work/qemu-10.2.90.tar.gz"
    first=$(sha "$work/qemu-10.2.90.tar.gz")
    sleep 1 # another mtime in the archive: another SHA-256
    make_tree 10.2.90 6 0 loads
    [ "$(sha "$work/qemu-10.2.90.tar.gz")" != "$first" ] || fail "the second tarball has the same SHA-256"
    "$script" --cached --tarball "$work/qemu-10.2.90.tar.gz" > /dev/null 2>&1 &&
      fail "--cached offered the build of a tarball with another SHA-256"
    build_ok "$work/qemu-10.2.90.tar.gz"
    expect 0 "replacing the QEMU 10.2.90 cached in $JITFLUSH_QEMU_CACHE/10.2.90 (tarball qemu-10.2.90.tar.gz sha256 $first)"
    ;;
  version-conflict)
    # JITFLUSH_QEMU_VERSION and a tarball of another version: refused,
    # naming both, whether the tarball is built yet or not.
    make_tree 10.2.90 6 0 loads
    export JITFLUSH_QEMU_VERSION=10.2.2
    run --tarball "$work/qemu-10.2.90.tar.gz" --sha256 "$(sha "$work/qemu-10.2.90.tar.gz")"
    expect 3 "JITFLUSH_QEMU_VERSION=10.2.2 asks for QEMU 10.2.2, but qemu-10.2.90.tar.gz is QEMU 10.2.90"
    no_stamp
    unset JITFLUSH_QEMU_VERSION
    build_ok "$work/qemu-10.2.90.tar.gz"
    export JITFLUSH_QEMU_VERSION=10.2.2
    run --tarball "$work/qemu-10.2.90.tar.gz" --sha256 "$(sha "$work/qemu-10.2.90.tar.gz")"
    expect 3 "JITFLUSH_QEMU_VERSION=10.2.2 asks for QEMU 10.2.2, but qemu-10.2.90.tar.gz is QEMU 10.2.90"
    "$script" --cached --tarball "$work/qemu-10.2.90.tar.gz" > /dev/null 2>&1 &&
      fail "--cached offered QEMU 10.2.90 for JITFLUSH_QEMU_VERSION=10.2.2"
    ;;
  failed-twice)
    # Two failed builds in a row leave one work folder, the one named.
    make_tree 10.2.90 6 3 loads
    for attempt in 1 2; do
      run --tarball "$work/qemu-10.2.90.tar.gz" --sha256 "$(sha "$work/qemu-10.2.90.tar.gz")"
      expect 4 "step 'configure' failed"
      kept=$(find "$JITFLUSH_QEMU_CACHE/src" -mindepth 1 -maxdepth 1)
      [ "$(printf '%s\n' "$kept" | grep -c .)" -eq 1 ] ||
        fail "after failed build $attempt the cache holds these work folders: $kept"
      expect 4 "its sources are kept in $kept (the next build removes them)"
    done
    # And a good build after them leaves none.
    make_tree 10.2.90 6 0 loads
    build_ok "$work/qemu-10.2.90.tar.gz"
    [ -z "$(find "$JITFLUSH_QEMU_CACHE/src" -mindepth 1 -maxdepth 1 2>/dev/null)" ] ||
      fail "a good build left: $(ls "$JITFLUSH_QEMU_CACHE/src")"
    ;;
  setup-step-tarball)
    # ci/info.sh's QEMU step (ci/install/setup-steps.sh) with JITFLUSH_QEMU_TARBALL
    # naming another version than the one cached: that version is built
    # and used, and the step says so.
    make_tree 10.2.90 6 0 loads
    build_ok "$work/qemu-10.2.90.tar.gz"
    make_tree 10.2.91 6 0 loads
    rc=0
    jf_qemu=$(JITFLUSH_QEMU_TARBALL="$work/qemu-10.2.91.tar.gz" \
      JITFLUSH_QEMU_TARBALL_SHA256="$(sha "$work/qemu-10.2.91.tar.gz")" bash -c '
        jf_me=test jf_repo=$1 jf_log=$2
        . "$1/ci/install/setup-steps.sh"
        jf_step_qemu
        echo "$jf_qemu"' _ "$repo" "$work/setup.log" 2> "$work/err") || rc=$?
    err=$(cat "$work/err")
    [ "$jf_qemu" = "$JITFLUSH_QEMU_CACHE/10.2.91/bin/qemu-aarch64" ] ||
      fail "the setup step chose '$jf_qemu' (status $rc): $err"
    expect 0 "test: using QEMU 10.2.91 built from qemu-10.2.91.tar.gz (JITFLUSH_QEMU_TARBALL)"
    ;;
  build-sh-two-qemus)
    # ci/build.sh in a tree configured with -DJITFLUSH_QEMU_AARCH64=<a QEMU
    # of the user's> while JITFLUSH_QEMU_TARBALL names another: refused
    # before anything is built, naming both.
    mkdir -p "$work/repo/build/host"
    cp -r "$repo/ci" "$work/repo/ci"
    echo "JITFLUSH_QEMU_AARCH64:FILEPATH=/opt/qemu/bin/qemu-aarch64" > "$work/repo/build/host/CMakeCache.txt"
    rc=0
    JITFLUSH_QEMU_TARBALL="$work/qemu-11.0.0.tar.xz" "$work/repo/ci/build.sh" > /dev/null 2> "$work/err" || rc=$?
    err=$(cat "$work/err")
    expect 3 "build/host is configured with -DJITFLUSH_QEMU_AARCH64=/opt/qemu/bin/qemu-aarch64, and JITFLUSH_QEMU_TARBALL=$work/qemu-11.0.0.tar.xz names another QEMU"
    [ ! -d "$work/repo/build/aarch64" ] || fail "ci/build.sh built before refusing"
    ;;
  *) echo "unknown case $case_name" >&2; exit 2 ;;
esac
echo "ok ($case_name)"
