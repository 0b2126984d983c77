# Sourced by ci/info.sh and ci/install/rig.sh: the setup steps of a
# first run. Each step that has work to do says so on one line before it
# starts (what it does, and what it took the first time on the 2-core
# machine where the figures below were measured); a step with nothing to do
# says nothing, so a run with everything cached prints only the program's
# output. The steps' own output goes to $jf_log, shown only on failure.
# The caller sets jf_me (its name in messages), jf_repo and jf_log.

# First-run times measured on 2 shared cores, 2026-11-23 (Debian 12):
jf_time_deps="about 30 s here"          # apt-get install of the missing packages
jf_time_qemu="about 2 min on 2 cores"   # apt-get source, configure, ninja qemu-aarch64
jf_time_info="about 10 s on 2 cores"    # build/aarch64, target jitflush-info only
jf_time_rig="about 15 s on 2 cores"     # the runner and the plugin, nothing else

jf_say() { echo "$jf_me: $*" >&2; }

# jf_run NAME CMD...: runs a step with its output in the log; on failure
# shows the log's tail and exits with the step's status.
jf_run() {
  local name=$1 rc=0
  shift
  "$@" >>"$jf_log" 2>&1 || rc=$?
  if [ "$rc" -ne 0 ]; then
    echo "$jf_me: $name failed (status $rc); the last lines of $jf_log:" >&2
    tail -n 40 "$jf_log" >&2
    exit "$rc"
  fi
}

# Debian packages: nothing to say when every one is installed.
jf_step_deps() {
  "$jf_repo/ci/install/deps.sh" --check && return 0
  jf_say "installing the missing Debian packages (ci/install/deps.sh), once: $jf_time_deps"
  jf_run ci/install/deps.sh "$jf_repo/ci/install/deps.sh"
}

# Sets jf_qemu to the plugin-enabled qemu-aarch64, building it if needed:
# from Debian's source package, or from the release tarball named by
# JITFLUSH_QEMU_TARBALL (with JITFLUSH_QEMU_TARBALL_SHA256 for a release
# ci/install/qemu.sh does not know), on a system without Debian's sources.
# The QEMU named (JITFLUSH_QEMU_TARBALL, JITFLUSH_QEMU_VERSION) is the one
# used, whatever else is cached, and a line says which; ci/install/qemu.sh
# refuses a tarball and a version that disagree.
jf_step_qemu() {
  local prefix from="Debian's source package" args=()
  if [ -n "${JITFLUSH_QEMU_TARBALL:-}" ]; then
    from=$(basename "$JITFLUSH_QEMU_TARBALL")
    args=(--tarball "$JITFLUSH_QEMU_TARBALL")
  fi
  if ! prefix=$("$jf_repo/ci/install/qemu.sh" --cached ${args[@]+"${args[@]}"}); then
    [ -z "${JITFLUSH_QEMU_TARBALL_SHA256:-}" ] || args+=(--sha256 "$JITFLUSH_QEMU_TARBALL_SHA256")
    jf_say "building QEMU with plugins for the rig from $from (ci/install/qemu.sh, cached in .cache/qemu), once: $jf_time_qemu"
    local out
    out=$(mktemp)
    jf_run ci/install/qemu.sh bash -c '"$1" "${@:3}" > "$2"' _ "$jf_repo/ci/install/qemu.sh" "$out" \
      ${args[@]+"${args[@]}"}
    prefix=$(tail -n 1 "$out")
    rm -f "$out"
  fi
  jf_qemu="$prefix/bin/qemu-aarch64"
  if [ ! -x "$jf_qemu" ]; then
    echo "$jf_me: ci/install/qemu.sh did not name a prefix with bin/qemu-aarch64 (got '$prefix')" >&2
    exit 1
  fi
  if [ -n "${JITFLUSH_QEMU_TARBALL:-}" ]; then
    jf_say "using QEMU $(basename "$prefix") built from $from (JITFLUSH_QEMU_TARBALL), in $prefix"
  elif [ -n "${JITFLUSH_QEMU_VERSION:-}" ]; then
    jf_say "using QEMU $(basename "$prefix") (JITFLUSH_QEMU_VERSION=$JITFLUSH_QEMU_VERSION), in $prefix"
  fi
}

# jf_step_build WHAT TIME DIR TARGET OUTPUT CONFIGURE-CMD...: brings TARGET
# of the tree DIR (its file: DIR/OUTPUT) up to date, configuring the tree
# first when it has none. It always runs the build (ninja decides what to
# do); whether to announce it is judged from timestamps against a stamp
# this step leaves after each good build, because a ninja dry run in a tree
# with CONFIGURE_DEPENDS globs stops at "Re-running CMake".
jf_step_build() {
  local what=$1 time=$2 dir=$3 target=$4 output=$5
  shift 5
  local stamp="$dir/.setup-step-$target" arg qemu="" had=""
  # A tree configured for another QEMU than this run's is configured again
  # (its plugin is then built against that QEMU's header), and says so.
  for arg in "$@"; do
    case "$arg" in -DJITFLUSH_QEMU_AARCH64=*) qemu=${arg#*=} ;; esac
  done
  [ ! -f "$dir/CMakeCache.txt" ] ||
    had=$(sed -n 's/^JITFLUSH_QEMU_AARCH64:[A-Z]*=//p' "$dir/CMakeCache.txt")
  if [ -f "$dir/build.ninja" ] && [ -n "$qemu" ] && [ "$had" != "$qemu" ]; then
    jf_say "configuring build/$(basename "$dir") again for $qemu (it was configured for ${had:-no QEMU})"
    jf_run "configuring $dir" "$@"
  fi
  if [ ! -f "$dir/build.ninja" ] || [ ! -e "$dir/$output" ]; then
    jf_say "building $what (build/$(basename "$dir")), once: $time"
    [ -f "$dir/build.ninja" ] || jf_run "configuring $dir" "$@"
  elif [ -n "$(find "$jf_repo/CMakeLists.txt" "$jf_repo/CMakePresets.json" "$jf_repo/cmake" \
                    "$jf_repo/include" "$jf_repo/lib" "$jf_repo/common" \
                    "$jf_repo/cli" "$jf_repo/rig" -newer "$stamp" -print -quit 2>/dev/null)" ] ||
       [ ! -e "$stamp" ]; then
    jf_say "rebuilding $what (build/$(basename "$dir")): sources changed since the last build"
  fi
  jf_run "building $target in $dir" cmake --build "$dir" --target "$target" -j "${JITFLUSH_JOBS:-2}"
  touch "$stamp"
}
