/*
 * What the files of the findings share (report_findings.c collects, and
 * report_findings_names.c, report_findings_explain.c and the three writers read): the
 * records of the collector, and its queries in the reports' order. Part
 * of the findings unit (tests/emu/check_structure.py, PART_OF): every
 * function declared here is defined in report_findings.c.
 */
#ifndef JITFLUSH_EMU_FINDINGS_INTERNAL_H
#define JITFLUSH_EMU_FINDINGS_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include <glib.h>
#include <json-glib/json-glib.h>

#include "report_findings.h"
#include "report_frame_names.h"

#define EXAMPLES_KEEP 5 /* example addresses per finding */
#define SEEN_SLOTS 4096 /* per finding: recently counted words */

/* A root cause (docs/FINDINGS.md, "How stale fetches are grouped"). */
struct finding_key {
  uint32_t kind;
  uint32_t stride;    /* the loop's step, 0 unknown */
  uint64_t flush_pc;  /* the maintenance instruction, 0 when none reached */
  uint64_t writer_pc; /* 0 unless FLUSH_PC is 0: the store stands in */
};

/* One caller of the flush routine: the return address its x30 held, the
 * one in the frame record at x29, and the one the unwind tables located
 * (0 without); AT is the one that names the caller (report_findings_resolve:
 * UNWOUND when known, else FRAME_LR when the symbols show the routine is
 * not a leaf, else LR). */
struct caller {
  uint64_t lr;
  uint64_t frame_lr;
  uint64_t unwound;
  uint64_t at;
  uint64_t count; /* stale fetches of words its calls should have covered */
};

/* One store that last wrote some of the finding's words. */
struct writer {
  uint64_t pc;
  unsigned words;
};

struct finding {
  struct finding_key key;
  uint64_t writer_pc;      /* the first store seen */
  unsigned fetch_cpu;      /* the first fetching CPU seen */
  unsigned writer_cluster; /* the cluster of the first store seen */
  unsigned line;
  bool line_of_cleaner;     /* LINE is the cleaning cluster's D line */
  unsigned cleaner_cluster; /* that cluster, when LINE_OF_CLEANER */
  uint64_t count;
  GHashTable *words; /* word address -> its writer when first fetched stale */
  GArray *callers;   /* struct caller, in the order first seen */
  guint last_caller; /* index of the previous record's caller */
  GArray *writers;   /* struct writer, most words first (settle) */
  uint64_t seen[SEEN_SLOTS];
  uint64_t examples[EXAMPLES_KEEP];
  unsigned nexamples;
};

struct stale_entry {
  uint64_t addr;
  unsigned cpu;
  unsigned thread;
  enum model_stale_kind kind;
};

struct ctr_site_key {
  uint64_t pc;
  uint64_t value;
  unsigned cpu;
};

struct ctr_site {
  struct ctr_site_key key;
  uint64_t count;
};

/* A thread's last stale fetch: the finding's key (settle may merge the
 * finding into another; the key still finds it) and when. */
struct last_stale {
  struct finding_key key;
  uint64_t va;
  uint64_t seq; /* stale_total right after it */
};

struct mapping {
  const char *path; /* in report_findings.strings, as are the others */
  uint64_t start, end, load_base;
  const char *build_id;
};

/* What a kernel note says, in every form (docs/FINDINGS.md). */
#define REPORT_KERNEL_NOTE_TEXT                                                                    \
  "the Linux kernel made this code coherent when it mapped the pages executable (arm64 "           \
  "__sync_icache_dcache): this holds on Linux only for pages never mapped executable since "       \
  "they were allocated or written by the kernel, and not on macOS, Windows or the BSDs; "          \
  "--exec-map-sync none reports such code"
/* What a run with [kernel] linux=3.18-anon-skip says of its kernel. */
#define REPORT_ANON_SKIP_TEXT                                                                      \
  "whose arm64 __sync_icache_dcache returns early for anonymous pages: no private page is "        \
  "synced when it is mapped executable"

/* What protects the people who run code with a latched stride until its
 * builders fix it (docs/FINDINGS.md, "Whose module it is"). */
#define REPORT_PROTECTION_TEXT                                                                     \
  "a Linux kernel that traps EL0 reads of CTR_EL0 on cores whose lines differ (arm64 Linux's "     \
  "mismatched cache type workaround) answers every read with the smallest lines, which every "     \
  "core's flush then steps by; the rig's ctr-trap=sanitize "                                       \
  "(qemu-configs/exynos8890-sanitized.conf) models such a kernel"

/* The note of report_findings_benign (docs/FINDINGS.md, "Rewrites with the
 * same bytes"). */
#define REPORT_BENIGN_NOTE_TEXT                                                                    \
  "every word these fetches may have seen stale is the instruction that was there: code "          \
  "rewritten with the same bytes cannot run anything else, so they are no finding; a word "        \
  "that held anything else (the page's first content, other code) is one"
/* report_findings_kernel_note. */
struct kernel_note {
  const char *call;
  uint64_t pc, lr, pages, words;
};
struct report_findings {
  const struct rig_config *cfg;
  GArray *sites;        /* struct site; index 0 unused */
  GHashTable *site_ids; /* struct site * -> id */
  GPtrArray *findings;  /* struct finding * */
  GPtrArray *absorbed;  /* findings merged into another by settle */
  GHashTable *by_key;   /* struct finding_key * -> struct finding * */
  struct finding *last;
  GArray *stale_kept; /* struct stale_entry */
  uint64_t stale_total;
  uint64_t omitted_stale; /* of root causes beyond REPORT_FINDINGS_KEEP */
  /* The strings mappings and kernel notes name, each kept once: the
   * notes and mappings are rewritten with every checkpoint, with the
   * same paths and calls. */
  GStringChunk *strings;
  char *reproduce;      /* report_findings_set_reproduce, or NULL */
  char *rerun;          /* report_findings_set_rerun, or NULL: reproduce */
  char *unrecorded;     /* report_findings_set_rerun, or NULL */
  char *sarif_root;     /* report_findings_set_sarif_root, or NULL */
  GPtrArray *ctr_sites; /* struct ctr_site * */
  GHashTable *ctr_by_key;
  GPtrArray *mappings; /* struct mapping * */
  GArray *last_stale;  /* struct last_stale, by thread serial (seq 0: none) */
  uint64_t settles;    /* settle's calls, for report_findings_repeat */
  bool exit_called;    /* report_findings_note_exit */
  bool end_noted;      /* report_findings_note_end */
  int end_thread;
  uint64_t end_block;
  GHashTable *frames; /* pc -> struct frame *, after resolve */
  /* struct kernel_note *, in the order noted. */
  GPtrArray *kernel_notes;
  /* report_findings_benign: how many, and the first one's word. */
  uint64_t benign_total;
  uint64_t benign_first;
};

/* Joins the strideless findings to their routine's stride, and puts each
 * finding's callers and writers in the order the reports show them. */
void report_findings_settle(struct report_findings *f);

/* Makes FD, a finding of F, part of INTO: its stale fetches, words,
 * callers and writers; FD's key then finds INTO. */
void report_findings_join(struct report_findings *f, struct finding *into, struct finding *fd);

/* FD's callers, most stale fetches first. */
void report_findings_sort_callers(struct finding *fd);

/* The findings, most stale fetches first (a new array of borrowed items). */
GPtrArray *report_findings_sorted(const struct report_findings *f);
/* ONE's object for every finding, most stale fetches first. */
JsonArray *report_findings_each(const struct report_findings *f,
                                JsonObject *(*one)(const struct report_findings *,
                                                   const struct finding *));

/* The core name of CLUSTER, and of CPU's cluster. */
const char *report_findings_core_of_cluster(const struct report_findings *f, unsigned cluster);
const char *report_findings_core_of_cpu(const struct report_findings *f, unsigned cpu);
/* Whether KIND's `line` is the writing core's D-cache line (the clean
 * steps), else the fetching core's I-cache line. */
bool report_findings_d_side(enum model_stale_kind kind);

/* The core name of the cluster whose line FD's `line` is: the fetching
 * CPU's (I side), the writer's or the cleaning CPU's (D side). */
const char *report_findings_line_core(const struct report_findings *f, const struct finding *fd);

/* Whether the guest died of a signal after stale fetches. */
bool report_findings_died(const struct report_findings *f);
/* The last stale fetch of the thread that ended the process, else NULL. */
const struct last_stale *report_findings_crash_stale(const struct report_findings *f);
/* The number (from 1, in the reports' order) of the finding KEY went to;
 * 0 when that root cause was not kept. */
unsigned report_findings_number(const struct report_findings *f, const struct finding_key *key);

#endif /* JITFLUSH_EMU_FINDINGS_INTERNAL_H */
