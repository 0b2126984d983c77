# Real-JIT rows of ci/bench/run.sh's rig-speed table (sourced by it; see the
# hook comment there). The programs are the drop-in variants the realjit
# label links into build/host/tests/realjit/work/, from the sources it
# caches under .cache/realjit-*/; run that label (or ci/test.sh) first,
# otherwise each row says "not built". One row per workload the realjit
# label runs under the rig with jitflush dropped in (static: no sysroot),
# then two Debian JITs whose own flush is caught stale (the label's "stock"
# runs): their stale words are fetched over and over, the rig's stale path.
rj_work=$root/build/host/tests/realjit/work
rj_pcre2_data=$rj_work/pcre2/jit/testdata
workload "pcre2_jit_test (slice)" - "$rj_work/pcre2/pcre2_jit_slice-dropin" 0-109 120-249 260-689
workload "pcre2test -jit testinput1" - "$rj_work/pcre2/pcre2test-dropin" -q -jit \
  "$rj_pcre2_data/testinput1" /dev/null
workload "pcre2test -jit testinput4" - "$rj_work/pcre2/pcre2test-dropin" -q -jit \
  "$rj_pcre2_data/testinput4" /dev/null
workload "luajit traces.lua" - "$rj_work/luajit/luajit-dropin" "$root/tests/realjit/traces.lua"
# The issue's worst real-JIT baseline: 22x with the checker on before the
# fast path. testinput17 JIT-compiles every pattern itself (#pattern
# jitverify), so this is JIT code too, and the most store-heavy row: about
# 83 million guest stores in 470 million instructions.
workload "pcre2test testinput17" - "$rj_work/pcre2/pcre2test-dropin" -q \
  "$rj_pcre2_data/testinput17" /dev/null
# Stale on every fetch of some of their code (docs/FINDINGS.md): QEMU's TCG
# (static, built by the label) and HotSpot's template interpreter, both
# flushing through libgcc's __clear_cache with the stride it latched. The
# HotSpot sysroot is the one the label unpacked (fetch_debs.sh), its class
# the one it compiled.
workload "QEMU TCG stock (stale)" - "$rj_work/qemu_tcg/qemu-x86_64-static" \
  "$rj_work/qemu_tcg/tcg_guest"
rj_hotspot=$(ls -d "$root"/.cache/realjit-debs-*/hotspot/root 2>/dev/null | head -n 1)
rj_hotspot=${rj_hotspot:-$root/.cache/realjit-debs-none/hotspot/root}
workload "HotSpot -Xint stock (stale)" "$rj_hotspot" \
  "$rj_hotspot/usr/lib/jvm/java-17-openjdk-arm64/bin/java" -Xint -XX:-UsePerfData -Xshare:off \
  -cp "$rj_work/hotspot" Hello
