#!/usr/bin/env bash
# Mutation check of the rig's coherence model: proves that the
# model's tests can fail. Each mutant below is one plausible bug in
# rig/model/model_coherence.c, model_coherence_pages.c, model_coherence_attribution.c,
# model_coherence_internal.h, model_coherence_quick.h or model_kernel_sync.c; the script applies it to a
# scratch copy of the model and its unit tests (never the tree), builds the
# model tests there with the host compilers (no CMake), runs the named
# killing tests, and requires one of them to fail.
# A mutant that survives, or whose text no longer applies, fails the run.
# The sibling ci/check/mutate-flush.sh does the same for the library's flush path.
#
# The unmutated model tests are built once, and every mutant's killers must
# pass against them. A mutant then recompiles only the objects whose
# unmutated build read the file it changes (gcc -MMD lists them: a .c file
# is its own object, a header every object that includes it, directly or
# not) and links them with the unmutated rest, about a second a mutant
# instead of two full builds. Mutants run JITFLUSH_JOBS (default nproc) at
# a time, each in its own folder; their results print in the list's order.
#
# Usage: ci/check/mutate-model.sh [MUTANT...]   (default: all; --list names them)
# Exit status: 0 every mutant killed, 1 a mutant survived or did not apply,
# 2 usage or setup error (a compiler, GLib or GoogleTest missing).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)

# name ^ file (under rig/model) ^ text to find (exactly once) ^ replacement ^
# killing tests (a GoogleTest filter) ^ why it is a bug
mutants=(
  "completion-by-dmb^model_coherence.c^  uint64_t now = event_time(m);\n  if (!full) {^  uint64_t now = event_time(m);\n  complete_ops(m, t->pending, now);\n  if (!full) {^Coherence.ACleanOrderedByADmbCompletesAtAnotherThreadsDsbOnly^a DMB completes cache maintenance (only a DSB does)"
  "dmb-st-orders-clean^model_coherence.c^  if (!full) {\n    return;\n  }^^Coherence.ACleanOrderedByADmbCompletesAtAnotherThreadsDsbOnly^a dmb st orders a clean before the flag"
  "no-isb-rule^model_coherence.c^  return t->sync_seq <= ready && t->fetched_store_seq <= ready ? MODEL_STALE_NOT_SYNCHRONISED^  return false ? MODEL_STALE_NOT_SYNCHRONISED^Coherence.KindNotSynchronised:Coherence.AnotherThreadsIsbDoesNotSynchroniseThisOne^a fetch needs no context synchronisation after the maintenance"
  "no-fetch-ordering^model_coherence.c^  return t->sync_seq <= ready && t->fetched_store_seq <= ready ? MODEL_STALE_NOT_SYNCHRONISED^  return t->sync_seq <= ready ? MODEL_STALE_NOT_SYNCHRONISED^Coherence.AFetchOfALaterStoreOrdersTheThreadsLaterFetches^fetches of a thread are not ordered (false positives on MP-inst)"
  "geometry-ignored^model_coherence.c^    for_each_word_in_line(m, va, m->geo[c].iline, mark_inval_issued, &issue);^    for_each_word_in_line(m, va, 128, mark_inval_issued, &issue);^Coherence.FreshAfterIsUnknownForAnInvalidateStrideThatSkipsALittleLine:Coherence.KindNotInvalidatedInGeometryNamesTheLoopAndItsStride^an invalidate covers the largest line, whatever the fetching core's IminLine"
  "idc-barrier-dropped^model_coherence.c^    return reader == w->writer_thread ? store_completion(m, w) : w->store_seq;^    return w->store_seq;^CoherenceIdcDic.TheStoreCompletesOnlyAtADsb:Coherence.IdcStillNeedsTheStoreCompletedBeforeTheInvalidate^under IDC the store counts without the dsb after it"
  "views-not-told-apart^model_coherence.c^!r->iview_set || r->iview == view) {^!r->iview_set || true) {^CoherenceViews.KindInvalidatedViaOtherExecViewOnlyOnVipt:CoherenceViews.InvalidatingThroughTheViewThatRunsTheCodeIsEnough^an ic ivau through one executable view reaches the lines another view fetched on a VIPT I-cache"
  "clean-ordering-dropped^model_coherence.c^  if (r->writer_exact && r->writer_thread != c->op->thread && c->op->order_seq < r->store_seq) {^  if (false) {^CleanOrdering.AnotherThreadsStoreNeedsTheCleanOrderedAfterIt^a thread's dc cleans another thread's store with nothing ordering it after the load that saw it (MP.RF+dmb.st+dmb.ld-dc-dsb-ic-dsb-isb is allowed)"
  "dependency-ignored^model_coherence.c^  uint64_t order = after_loads ? now : seen;^  uint64_t order = seen;^CleanOrdering.AnotherThreadsStoreNeedsTheCleanOrderedAfterIt^a dc whose address depends on the load that saw the store is not ordered after it (false positives on MP.RF+dmb.st+addr-cachesyncisb)"
  "summary-writer-trusted^model_coherence_pages.c^  r->writer_thread = s->writer_thread;\n^  r->writer_thread = s->writer_thread;\n  r->writer_exact = true;\n^CleanOrdering.TheWritersOwnCleanAndSummarisedWordsAreNotHeldToIt^the one writer a page summary keeps is taken for every word's (false positives when two threads wrote the page)"
  "kernel-syncs-every-exec-mapping^model_kernel_sync.c^  if (g_hash_table_contains(k->clean, key)) {\n    return false; /* PG_dcache_clean set: the kernel does nothing */\n  }\n^^KernelSync.ALaterExecMappingOfTheSamePageDoesNotSync^the kernel syncs a page at every exec mapping, not only while PG_dcache_clean is clear (the RX -> RW -> rewrite -> RX bug goes unseen)"
  "kernel-never-syncs^model_kernel_sync.c^  unsigned published = model_kernel_sync(k->m, canon);^  unsigned published = 0;^KernelSync.TheFirstExecMappingOfAFreshPagePublishesItForEveryThread^the kernel does no maintenance for user code (false positives on every Wasmtime-style JIT)"
  "kernel-write-keeps-flag^model_kernel_sync.c^  /* flush_dcache_folio: the next executable mapping syncs again. */\n  drop_pages(k->clean, start, end);^  (void)start;\n  (void)end;^KernelSync.AKernelWriteClearsTheFlag^a page the kernel wrote keeps PG_dcache_clean (flush_dcache_folio clears it)"
  "kernel-sync-misses-other-view^model_kernel_sync.c^    sync_page(k, canon, false, lazy);^    sync_page(k, va, false, lazy);^KernelSync.TheFaultOfALazyExecViewSyncsThePageBothViewsShow^the fault of an exec view syncs the page by its view address, not the page both views show"
  "rewrite-before-taken-for-known^model_coherence.c^  uint8_t before = w->insn_in_memory ? SEEN_ONE : SEEN_ANY;\n  uint32_t word = w->insn_in_memory ? w->insn : 0;^  uint8_t before = SEEN_ONE;\n  uint32_t word = w->insn;^StaleWords.AnUnfetchedWordBetweenTwoStoresIsUnknown^a word no translation showed is taken for the last one translated (an identical-looking rewrite over unknown bytes passes as benign)"
  "rewrite-before-taken-for-zeros^model_coherence.c^  uint8_t before = w->insn_in_memory ? SEEN_ONE : SEEN_ANY;^  uint8_t before = SEEN_ONE;^StaleWords.AnUntranslatedWordsOldContentIsNotTakenForZeros^a word no translation showed is taken for zeros (a zero word stored over unknown bytes passes as benign)"
  "unsynced-thread-sees-only-new^model_coherence.c^  return sync_seq > w->seen_after;^  return true;^StaleWords.AThreadNotSynchronisedSincePublicationMaySeeOlderVersions^a thread that did not synchronise after a publication is taken to see none of the versions before it"
  "quick-path-skips-wide-stores^model_coherence_quick.h^      __atomic_load_n(&page->densifying, __ATOMIC_ACQUIRE)) {^      __atomic_load_n(&page->densifying, __ATOMIC_ACQUIRE) || bytes > 8) {\n    if (bytes > 8) {\n      return true;\n    }^StoreQuick.RecordsWhatTheLockedStoreRecords^the lock-free path drops pair stores (stp of two X registers, 16 bytes)"
  "serial-path-skips-wide-stores^model_coherence_quick.h^      __atomic_load_n(&page->densifying, __ATOMIC_RELAXED)) {^      __atomic_load_n(&page->densifying, __ATOMIC_RELAXED) || bytes > 8) {\n    if (bytes > 8) {\n      return true;\n    }^StoreQuick.RecordsWhatTheLockedStoreRecords^the serial path (the turns' stores) drops pair stores"
  "serial-move-keeps-recent^model_coherence_quick.h^        __atomic_store_n(&page->recent[b], 0, __ATOMIC_RELAXED);^        (void)b;^StoreQuick.TheSerialPathMovesTheSummaryOnAsTheLockedStoreDoes^the serial path's move to a new time leaves the words stored before at the new time"
  "memo-ignores-writer-line^model_coherence_internal.h^  if (!memo->set || memo->from != w->rec || memo->variant != variant ||^  if (!memo->set || memo->from != w->rec ||^RecordMemo.AWordOutsideTheWritersLineIsNotTakenForCleaned^a line's words share one clean whether or not they lie in the writer's line"
  "loop-claim-skips-gap^model_coherence_attribution.c^    for_each_word(m, marked_end, va + s.stride, mark_site, &ahead);^    for_each_word(m, marked_end + line, va + s.stride, mark_site, &ahead);^Coherence.AStrideLargerThanEveryLineStillNamesTheLoopThatSkipped^a loop step claims only from a line past its own, so the words it stepped over name no loop"
  "claims-behind-every-step^model_coherence_attribution.c^    if (confirms) {^    if (true) {^Coherence.AWordStoredBehindARunningCleanLoopIsNotBlamedOnIt^every step of a loop claims the two steps behind it again, with its own time (a word stored after the loop passed it is blamed on the loop)"
  "memo-way-ignores-from^model_coherence_internal.h^  if (!memo->set || memo->from != w->rec || memo->variant != variant ||^  if (!memo->set || memo->variant != variant ||^RecordMemo.WordsThatCycleThroughManyStatesKeepTheirOwnWriters^a word takes the memo of another record that shares its way"
  "memo-repeats-other-views^model_coherence.c^  bool own = issue->alias || view_in_record(m, r, issue->cluster, issue->view);^  bool own = true;^RecordMemo.EachWordKeepsItsOwnSlotsForAnotherExecutableView^an ic through another executable view of a VIPT cluster is repeated from a neighbour's record"
  "store-memo-ignores-memory^model_coherence.c^         s->insn_in_memory == w->insn_in_memory && (!s->insn_in_memory || s->insn == w->insn);^         true;^RecordMemo.AStoreOverAnUntranslatedWordDoesNotRepeatATranslatedOnes^a store over a word whose encoding memory held repeats a store over one it did not"
  "store-memo-ignores-events^model_coherence.c^  return s->now == now && s->shared == m->shared && s->writer_pc == writer_pc &&^  return s->writer_pc == writer_pc &&^RecordMemo.AStoreAfterADsbDoesNotRepeatTheStoreBeforeIt^a store repeats one made before an event (a dsb that completed it under IDC)"
  "writers-table-kept^model_coherence_pages.c^  if (m->retire_writers) {^  if (false) {^StoreQuick.AWritersTableGoesToTheHookOnceThePageIsDense^a dense page keeps its table of writers, 8 KiB a page the words no longer need"
  "seed-memo-ignores-writer^model_coherence_pages.c^        memo[k].seed.writer_pc == seed.writer_pc) {^        true) {^StoreQuick.EachWordOfAStoreOnlyPageKeepsItsWriter^a page's words seeded from its summary take one writer"
)

if [ "${1:-}" = "--list" ]; then
  for m in "${mutants[@]}"; do IFS='^' read -r name _ _ _ kill why <<<"$m"; printf '%-28s %s (killed by %s)\n' "$name" "$why" "$kill"; done
  exit 0
fi
# The selected mutants, in the list's order (the order their results print).
selected=()
for m in "${mutants[@]}"; do
  wanted=$(($# == 0))
  for w in "$@"; do [ "${m%%^*}" != "$w" ] || wanted=1; done
  [ "$wanted" = 0 ] || selected+=("$m")
done
for w in "$@"; do
  known=0
  for m in "${mutants[@]}"; do [ "${m%%^*}" != "$w" ] || known=1; done
  [ "$known" = 1 ] ||
    { echo "ci/check/mutate-model.sh: no mutant '$w' (ci/check/mutate-model.sh --list)" >&2; exit 2; }
done
for tool in gcc g++ pkg-config python3; do
  command -v "$tool" >/dev/null || { echo "ci/check/mutate-model.sh: $tool is missing (ci/install/deps.sh)" >&2; exit 2; }
done
pkg-config --exists glib-2.0 || { echo "ci/check/mutate-model.sh: GLib is missing (ci/install/deps.sh)" >&2; exit 2; }
read -ra glib_cflags <<<"$(pkg-config --cflags glib-2.0)"
read -ra glib_libs <<<"$(pkg-config --libs glib-2.0)"
jobs=${JITFLUSH_JOBS:-$(nproc 2>/dev/null || echo 1)}
[ "$jobs" -ge 1 ] 2>/dev/null || jobs=1

scratch=$(mktemp -d "${TMPDIR:-/tmp}/jitflush-mutate-model.XXXXXX")
# A setup error can leave mutants running: stop them before their folder goes.
# shellcheck disable=SC2317 # run by the EXIT trap
cleanup() {
  local pids
  read -ra pids <<<"$(jobs -p | tr '\n' ' ')"
  [ "${#pids[@]}" = 0 ] || kill "${pids[@]}" 2>/dev/null || true
  wait || true
  rm -rf "$scratch"
}
trap cleanup EXIT
pristine="$scratch/pristine"
mkdir -p "$pristine/src"
cp "$root"/rig/model/model_coherence.c "$root"/rig/model/model_coherence_pages.c "$root"/rig/model/model_coherence_attribution.c \
  "$root"/rig/model/model_coherence.h "$root"/rig/model/model_coherence_internal.h "$root"/rig/model/model_coherence_quick.h \
  "$root"/rig/model/model_kernel_sync.c "$root"/rig/model/model_kernel_sync.h "$pristine/src/"

# The model's unit tests: their objects, the tests' the slowest to build.
test_objects="coherence_test store_quick_test kernel_sync_test stale_words_test record_memo_test"
model_objects="model_coherence model_coherence_pages model_coherence_attribution model_kernel_sync ctr"
# compile DIR OBJECT: DIR/OBJECT.o from DIR/src (the model, scratch or
# mutated) or the tree (the tests, ctr.c). The paths are relative to DIR,
# so that OBJECT.d (gcc -MMD: the files the compile read) names the model's
# files as src/FILE whichever folder built it.
compile() {
  local flags=(-O1 -w "${glib_cflags[@]}" -Isrc -I"$root/common" -I"$root/rig/shared" -MMD)
  case $2 in
    ctr) (cd "$1" && gcc -std=c11 "${flags[@]}" -c "$root/common/ctr.c" -o ctr.o) ;;
    *_test) (cd "$1" && g++ -std=c++17 "${flags[@]}" -c "$root/tests/emu/model/$2.cc" -o "$2.o") ;;
    *) (cd "$1" && gcc -std=c11 "${flags[@]}" -c "src/$2.c" -o "$2.o") ;;
  esac
}
link() { # OUTPUT OBJECT-FILE...
  local out=$1
  shift
  g++ -o "$out" "$@" -lgtest -lgtest_main -lpthread "${glib_libs[@]}"
}
# reads OBJECT FILE: the unmutated compile of OBJECT read src/FILE, so a
# mutant of FILE must recompile it.
reads() {
  local deps
  deps=$(<"$pristine/$1.d")
  deps=${deps//[$'\n\\']/ }
  case " $deps " in *" src/$2 "*) return 0 ;; esac
  return 1
}

# A pool of $jobs background jobs, started as "slot; CMD & pids+=("$!")":
# slot waits until fewer than $jobs of them run. It counts the live ones
# (kill -0) rather than wait -n's returns, which can include jobs that
# ended before it was called; wait -n's 127 (no child left) ends the wait
# whatever kill -0 says, should a pid have gone to another process.
pids=()
prune() { # keeps in pids the jobs still running
  local p live=()
  for p in "${pids[@]}"; do
    if kill -0 "$p" 2>/dev/null; then live+=("$p"); fi
  done
  pids=("${live[@]}")
}
slot() {
  prune
  while [ "${#pids[@]}" -ge "$jobs" ]; do
    wait -n || [ "$?" != 127 ] || return 0
    prune
  done
}

apply() { # FILE FIND REPLACE: exactly one occurrence, else fail
  python3 - "$1" "$2" "$3" <<'PY'
import sys
path, find, repl = sys.argv[1], sys.argv[2].replace("\\n", "\n"), sys.argv[3].replace("\\n", "\n")
text = open(path).read()
if text.count(find) != 1:
    sys.exit("the text to mutate occurs %d times" % text.count(find))
open(path, "w").write(text.replace(find, repl))
PY
}

# The unmutated model tests, built once: every mutant's killers run against
# them first, and every mutant links the objects its file does not reach.
# The slowest first, so that the parallel compiles end together. A failed
# compile leaves no object (gcc removes it), which is how the loop after
# the wait tells.
for o in $test_objects $model_objects; do
  slot
  compile "$pristine" "$o" >"$pristine/$o.log" 2>&1 &
  pids+=("$!")
done
wait
pids=()
built=()
for o in $test_objects $model_objects; do
  [ -e "$pristine/$o.o" ] || { cat "$pristine/$o.log" >&2; built=(); break; }
  built+=("$pristine/$o.o")
done
if [ "${#built[@]}" = 0 ] || ! link "$pristine/model_tests" "${built[@]}"; then
  echo "ci/check/mutate-model.sh: the unmutated model tests do not build" >&2; exit 2
fi

# check_mutant DIR MUTANT: prints its one result (and a failed build's log)
# and returns 0 when the mutant is killed, 1 when not, 2 on a setup error.
check_mutant() {
  local dir=$1 name file find repl kill why o broken='' failed objs=()
  IFS='^' read -r name file find repl kill why <<<"$2"
  # The unmutated model must pass the killers, or a "kill" means nothing.
  # (One build serves every mutant: the check only reads it.)
  if ! "$pristine/model_tests" --gtest_filter="$kill" >/dev/null 2>&1; then
    echo "MUTANT $name: its killers fail without the mutant ($kill)"; return 1
  fi
  mkdir -p "$dir/src" && cp "$pristine"/src/* "$dir/src/" || return 2
  if ! apply "$dir/src/$file" "$find" "$repl"; then
    echo "MUTANT $name: did not apply"; return 1
  fi
  # The model first, so that a mutant that does not build shows its own
  # file's errors first.
  for o in $model_objects $test_objects; do
    if reads "$o" "$file"; then
      compile "$dir" "$o" >>"$dir/build.log" 2>&1 || { broken=1; break; }
      objs+=("$dir/$o.o")
    else
      objs+=("$pristine/$o.o")
    fi
  done
  if [ -n "$broken" ] || ! link "$dir/model_tests" "${objs[@]}" >>"$dir/build.log" 2>&1; then
    echo "MUTANT $name: does not build"; sed -n 1,20p "$dir/build.log"; return 1
  fi
  if "$dir/model_tests" --gtest_filter="$kill" >"$dir/run.log" 2>&1; then
    echo "MUTANT $name: SURVIVED ($why)"; return 1
  fi
  # A killer that crashes (a mutant that leaves memory unset) kills too,
  # and names no failed test.
  failed=$(grep -o '^\[  FAILED  \] [A-Za-z0-9_.]*' "$dir/run.log" | head -1 | sed 's/^\[  FAILED  \] //' || true)
  echo "MUTANT $name: killed by ${failed:-a crash of $kill} ($why)"
}
# run_mutant I: checks selected[I] in the background, in $scratch/I; its
# output and status go to files there, and "done" last, for the printer.
run_mutant() {
  local dir="$scratch/$1" rc=0
  mkdir -p "$dir"
  check_mutant "$dir" "${selected[$1]}" >"$dir/out" 2>"$dir/err" || rc=$?
  echo "$rc" >"$dir/status"
  : >"$dir/done"
}
# print_ready: prints the finished results that no unfinished one precedes,
# so that the output reads as a serial run's would.
status=0
next=0
print_ready() {
  local rc
  while [ "$next" -lt "${#selected[@]}" ] && [ -e "$scratch/$next/done" ]; do
    cat "$scratch/$next/err" >&2
    cat "$scratch/$next/out"
    rc=$(cat "$scratch/$next/status")
    if [ "$rc" = 2 ]; then status=2; elif [ "$rc" != 0 ] && [ "$status" = 0 ]; then status=1; fi
    next=$((next + 1))
  done
}
# The mutants of a header start first: they recompile most (the quick
# path's, store_quick_test.cc too), and would otherwise end the run alone.
headers=()
others=()
for i in "${!selected[@]}"; do
  IFS='^' read -r _ file _ <<<"${selected[$i]}"
  case $file in *.h) headers+=("$i") ;; *) others+=("$i") ;; esac
done
order=("${headers[@]}" "${others[@]}")
for i in "${order[@]}"; do
  slot
  run_mutant "$i" &
  pids+=("$!")
  print_ready
done
while [ "${#pids[@]}" -gt 0 ]; do
  wait -n || [ "$?" != 127 ] || break
  prune
  print_ready
done
wait
print_ready
if [ "$next" -lt "${#selected[@]}" ]; then
  echo "ci/check/mutate-model.sh: the check of mutant ${selected[$next]%%^*} stopped short" >&2; exit 2
fi
exit $status
