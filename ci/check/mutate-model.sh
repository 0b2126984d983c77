#!/usr/bin/env bash
# Mutation check of the rig's coherence model: proves that the
# model's tests can fail. Each mutant below is one plausible bug in
# rig/model/model_coherence.c, model_coherence_pages.c, model_coherence_attribution.c,
# model_coherence_internal.h, model_coherence_quick.h or model_kernel_sync.c; the script applies it to a
# scratch copy of the model and its unit tests (never the tree), builds the
# model tests there with the host compilers (no CMake, a few seconds per
# mutant), runs the named killing tests, and requires one of them to fail.
# A mutant that survives, or whose text no longer applies, fails the run.
# The sibling ci/check/mutate-flush.sh does the same for the library's flush path.
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
for w in "$@"; do
  printf '%s\n' "${mutants[@]}" | grep -q "^$w\^" ||
    { echo "ci/check/mutate-model.sh: no mutant '$w' (ci/check/mutate-model.sh --list)" >&2; exit 2; }
done
for tool in gcc g++ pkg-config; do
  command -v "$tool" >/dev/null || { echo "ci/check/mutate-model.sh: $tool is missing (ci/install/deps.sh)" >&2; exit 2; }
done
pkg-config --exists glib-2.0 || { echo "ci/check/mutate-model.sh: GLib is missing (ci/install/deps.sh)" >&2; exit 2; }

scratch=$(mktemp -d "${TMPDIR:-/tmp}/jitflush-mutate-model.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
mkdir -p "$scratch/emu" "$scratch/pristine"
cp "$root"/rig/model/model_coherence.c "$root"/rig/model/model_coherence_pages.c "$root"/rig/model/model_coherence_attribution.c \
  "$root"/rig/model/model_coherence.h "$root"/rig/model/model_coherence_internal.h "$root"/rig/model/model_coherence_quick.h \
  "$root"/rig/model/model_kernel_sync.c "$root"/rig/model/model_kernel_sync.h "$scratch/emu/"
cp "$scratch"/emu/* "$scratch/pristine/"
glib_cflags=$(pkg-config --cflags glib-2.0)
glib_libs=$(pkg-config --libs glib-2.0)

# The model's unit tests, built against the scratch model: the test
# objects once, the model (and the quick path its tests inline) per mutant.
gcc -std=c11 -O1 -w -I"$root/common" -c "$root/common/ctr.c" -o "$scratch/ctr.o"
model_sources="model_coherence model_coherence_pages model_coherence_attribution model_kernel_sync"
build() {
  for s in $model_sources; do
    gcc -std=c11 -O1 -w $glib_cflags -I"$scratch/emu" -I"$root/common" -I"$root/rig/shared" -c "$scratch/emu/$s.c" -o "$scratch/$s.o" || return 1
  done
  g++ -std=c++17 -O1 -w $glib_cflags -I"$scratch/emu" -I"$root/common" -I"$root/rig/shared" -c "$root/tests/emu/model/store_quick_test.cc" -o "$scratch/store_quick_test.o" &&
    g++ -o "$scratch/model_tests" "$scratch/coherence_test.o" "$scratch/store_quick_test.o" \
      "$scratch/kernel_sync_test.o" "$scratch/stale_words_test.o" "$scratch/record_memo_test.o" "$scratch/model_coherence.o" "$scratch/model_coherence_pages.o" \
      "$scratch/model_coherence_attribution.o" "$scratch/model_kernel_sync.o" "$scratch/ctr.o" -lgtest -lgtest_main -lpthread $glib_libs
}
g++ -std=c++17 -O1 -w $glib_cflags -I"$scratch/emu" -I"$root/common" -I"$root/rig/shared" -c "$root/tests/emu/model/coherence_test.cc" -o "$scratch/coherence_test.o"
g++ -std=c++17 -O1 -w $glib_cflags -I"$scratch/emu" -I"$root/common" -I"$root/rig/shared" -c "$root/tests/emu/model/kernel_sync_test.cc" -o "$scratch/kernel_sync_test.o"
g++ -std=c++17 -O1 -w $glib_cflags -I"$scratch/emu" -I"$root/common" -I"$root/rig/shared" -c "$root/tests/emu/model/stale_words_test.cc" -o "$scratch/stale_words_test.o"
g++ -std=c++17 -O1 -w $glib_cflags -I"$scratch/emu" -I"$root/common" -I"$root/rig/shared" -c "$root/tests/emu/model/record_memo_test.cc" -o "$scratch/record_memo_test.o"

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

# The unmutated model must pass its killers, or a "kill" means nothing.
build || { echo "ci/check/mutate-model.sh: the unmutated model tests do not build" >&2; exit 2; }
status=0
for m in "${mutants[@]}"; do
  IFS='^' read -r name file find repl kill why <<<"$m"
  if [ $# -gt 0 ] && ! printf '%s\n' "$@" | grep -qx "$name"; then
    continue
  fi
  cp "$scratch"/pristine/* "$scratch/emu/"
  build >/dev/null 2>&1
  if ! "$scratch/model_tests" --gtest_filter="$kill" >/dev/null 2>&1; then
    echo "MUTANT $name: its killers fail without the mutant ($kill)"; status=1; continue
  fi
  if ! apply "$scratch/emu/$file" "$find" "$repl"; then
    echo "MUTANT $name: did not apply"; status=1; continue
  fi
  if ! build >"$scratch/build.log" 2>&1; then
    echo "MUTANT $name: does not build"; sed -n 1,20p "$scratch/build.log"; status=1; continue
  fi
  if "$scratch/model_tests" --gtest_filter="$kill" >"$scratch/run.log" 2>&1; then
    echo "MUTANT $name: SURVIVED ($why)"; status=1
  else
    # A killer that crashes (a mutant that leaves memory unset) kills too,
    # and names no failed test.
    failed=$(grep -o '^\[  FAILED  \] [A-Za-z0-9_.]*' "$scratch/run.log" | head -1 | sed 's/^\[  FAILED  \] //' || true)
    echo "MUTANT $name: killed by ${failed:-a crash of $kill} ($why)"
  fi
done
exit $status
