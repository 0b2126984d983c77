/*
 * Findings: the rig's stale fetches grouped by root cause, the way a
 * sanitizer reports a bug once with a count rather than once per
 * occurrence (docs/FINDINGS.md). One finding per missing step (kind), per
 * maintenance instruction that should have covered the words (the flush
 * routine, whoever called it) and the stride its loop used; without one,
 * per writing store. The callers are listed inside. No QEMU here: the
 * plugin feeds it verdicts of the coherence model, tests feed it fixtures.
 *
 * The same records produce the three forms: members of the JSON report
 * (report_findings_json.h), the sanitizer-style blocks printed on stderr
 * (report_findings_text.h), and SARIF 2.1.0 (report_findings_sarif.h), once the code
 * they mention is named (report_findings_names.h).
 */
#ifndef JITFLUSH_EMU_FINDINGS_H
#define JITFLUSH_EMU_FINDINGS_H

#include <stdint.h>

#include <glib.h>

#include "model_coherence.h"
#include "rig_config.h"

#ifdef __cplusplus
extern "C" {
#endif

struct report_findings;

/* Root causes kept: a guest with more distinct ones (100,000 flush callers
 * each missing a step) would otherwise grow the rig, its stderr and its
 * report without bound. The stale fetches of the others are counted
 * (report_findings_omitted_stale), never dropped silently. */
#define REPORT_FINDINGS_KEEP 1000

/* CFG names the clusters' cores; it must outlive the object. */
struct report_findings *report_findings_new(const struct rig_config *cfg);
void report_findings_free(struct report_findings *f);

/* The site number (from 1) of maintenance at PC whose link register held
 * LR: the flush routine's caller is the call before LR (0: unknown). */
uint32_t report_findings_site(struct report_findings *f, uint64_t pc, uint64_t lr);
/* The same, with FRAME_LR the return address the frame record at x29 held
 * ([x29, #8]; 0 unknown): the caller when the flush routine is not a leaf
 * (docs/FINDINGS.md, "flush.caller"), decided once its code is named. */
uint32_t report_findings_site_framed(struct report_findings *f, uint64_t pc, uint64_t lr,
                                     uint64_t frame_lr);
/* The same, with UNWOUND the return address into the flush routine's
 * caller that its unwind tables located (report_symbols.h,
 * report_symbols_return_rule; 0 without): when given, it names the caller,
 * whatever the symbols say. */
uint32_t report_findings_site_unwound(struct report_findings *f, uint64_t pc, uint64_t lr,
                                      uint64_t frame_lr, uint64_t unwound);

/* One stale fetch of the word at VA by thread THREAD on CPU. */
void report_findings_record(struct report_findings *f, uint64_t va, unsigned cpu, unsigned thread,
                            const struct model_verdict *v);

/* What recording one stale fetch did, so that a later fetch of the same
 * word with the same verdict can be recorded without the lookups
 * (report_findings_repeat). */
struct report_stale_repeat {
  void *finding; /* NULL: not repeatable (a root cause past the cap) */
  uint64_t lr;   /* the flush routine's caller counted, when CALLER */
  uint64_t settles;
  uint32_t kind;
  bool caller;
  uint64_t frame_lr; /* with LR */
  uint64_t unwound;  /* with LR */
};

/* report_findings_record, filling R for report_findings_repeat. */
void report_findings_record_memo(struct report_findings *f, uint64_t va, unsigned cpu,
                                 unsigned thread, const struct model_verdict *v,
                                 struct report_stale_repeat *r);

/* Records one more stale fetch of the word at VA exactly as
 * report_findings_record would with the verdict R was made from; the caller
 * vouches that the verdict is the same. False, recording nothing, when R
 * no longer applies (the findings were settled since, or R was not
 * repeatable): then call report_findings_record_memo. */
bool report_findings_repeat(struct report_findings *f, const struct report_stale_repeat *r,
                            uint64_t va, unsigned cpu, unsigned thread);

/* N such fetches at once, as N calls in a row would record them; what the
 * report keeps of the first stale fetches is kept in call order, so a
 * caller that interleaves words batches only once
 * report_findings_keeps_more is false. */
bool report_findings_repeat_n(struct report_findings *f, const struct report_stale_repeat *r,
                              uint64_t va, unsigned cpu, unsigned thread, uint64_t n);
/* Whether report_findings_repeat would record with R now. */
bool report_findings_repeat_applies(const struct report_findings *f,
                                    const struct report_stale_repeat *r);
/* Whether the report still keeps each stale fetch in its first-words list. */
bool report_findings_keeps_more(const struct report_findings *f);

/* One executed mrs xN, ctr_el0 at PC on CPU, which returned VALUE. */
void report_findings_ctr_read(struct report_findings *f, uint64_t pc, unsigned cpu, uint64_t value);

/* The command line that reproduces the run (the runner's, with its seed
 * and policy written out), shown in each stderr block and in the SARIF
 * log's invocation. NULL: none (the default). Copied. */
void report_findings_set_reproduce(struct report_findings *f, const char *command);

/* The rerun line of each stderr block, when it is not the reproducing
 * command (the runner's "jitflush-emu --reproduce REPORT"), and, when not
 * NULL, UNRECORDED: what that line cannot restore (the environment, when
 * no report records it), shown under it. Both copied. */
void report_findings_set_rerun(struct report_findings *f, const char *command,
                               const char *unrecorded);

/* Forgets every stale fetch and CTR_EL0 read recorded so far, keeping the
 * sites (the model's records still name them): a forked process reports
 * only what it found itself (plugin_fork.c). */
void report_findings_restart(struct report_findings *f);

/* The root causes recorded so far, before settling: it grows by one with
 * each new one (cheap, for noticing a new finding as it is recorded). */
unsigned report_findings_recorded(const struct report_findings *f);

/* The root causes: settles first (a call of a flush routine too short to
 * show its stride joins the finding of the routine's one known stride). */
unsigned report_findings_count(struct report_findings *f);

/*
 * How the guest ended, for a crash tied to its cause (docs/FINDINGS.md,
 * "A crash"). NOTE_EXIT: the program called exit_group, a normal end.
 * NOTE_END, at exit: THREAD (its serial, -1 unknown) was the one running
 * on the host thread that ends the process, which for a fatal signal is the
 * thread that took it, and BLOCK the start of the last translation block
 * it ran (0 unknown). Without NOTE_EXIT before NOTE_END the guest died of a
 * signal, and the reports name THREAD's last stale fetch and its finding.
 */
void report_findings_note_exit(struct report_findings *f);
void report_findings_note_end(struct report_findings *f, int thread, uint64_t block);
/* Stale fetches of root causes beyond the first REPORT_FINDINGS_KEEP. */
uint64_t report_findings_omitted_stale(const struct report_findings *f);
uint64_t report_findings_stale_total(const struct report_findings *f);

/* One object the guest had mapped, for the report's "mappings": guest
 * address = ELF address + LOAD_BASE. Copied. */
void report_findings_add_mapping(struct report_findings *f, const char *path, uint64_t start,
                                 uint64_t end, uint64_t load_base, const char *build_id);

/* The kernel published code the program ran without maintaining it
 * itself (rig/model/model_kernel_sync.h): CALL ("mprotect", "mmap", "fault")
 * made by the instruction at PC, whose link register held LR, synced PAGES
 * pages holding WORDS such words. A note in the reports, not a finding.
 * CALL is copied. */
void report_findings_kernel_note(struct report_findings *f, const char *call, uint64_t pc,
                                 uint64_t lr, uint64_t pages, uint64_t words);

/* One more stale fetch of the word at VA whose every possibly-seen word is
 * the one it runs (model_coherence.h, model_stale_benign): not a finding, one
 * note for all of them in the reports. */
void report_findings_benign(struct report_findings *f, uint64_t va);
/* N of them at once. */
void report_findings_benign_n(struct report_findings *f, uint64_t va, uint64_t n);
uint64_t report_findings_benign_total(const struct report_findings *f);

/* Forgets the kernel notes added so far (written again with the reports). */
void report_findings_clear_kernel_notes(struct report_findings *f);
/* Forgets the mappings added so far: the reports may be written more than
 * once in a run (a checkpoint, then at exit), each time with the mappings
 * of that moment. */
void report_findings_clear_mappings(struct report_findings *f);

/* The directory SARIF locations are made relative to (--sarif-root): a
 * source file under it becomes a relative URI with uriBaseId SRCROOT.
 * NULL (the default): absolute file:// URIs. Copied. */
void report_findings_set_sarif_root(struct report_findings *f, const char *root);

#ifdef __cplusplus
}
#endif

#endif /* JITFLUSH_EMU_FINDINGS_H */
