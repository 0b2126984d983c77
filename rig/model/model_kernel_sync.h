/*
 * The Linux kernel's own cache maintenance for user code, on its own: no
 * QEMU, no configuration file. The plugin tells it which pages the kernel
 * wrote, freed or mapped executable; it keeps each page's PG_dcache_clean
 * flag as arm64 Linux does and makes the coherence model's words coherent
 * (model_kernel_sync) exactly when the kernel would
 * (docs/COHERENCE-MODEL.md, "What Linux does for you"; model_kernel_sync.c cites
 * the kernel; tests/emu/model/kernel_sync_test.cc checks each rule).
 *
 * Pages are keyed as the coherence model keys them, by canonical address,
 * so the RW and RX views of a shared memfd page are one page with one
 * flag. Views are virtual addresses: an executable view of shared memory
 * is faulted in lazily, and the kernel syncs the page at that fault.
 */
#ifndef JITFLUSH_EMU_KERNEL_SYNC_H
#define JITFLUSH_EMU_KERNEL_SYNC_H

#include <stdbool.h>
#include <stdint.h>

#include <glib.h>

#include "model_coherence.h"

#ifdef __cplusplus
extern "C" {
#endif

struct model_kernel;

/* What the kernel does, by the rig's [kernel] exec-map-sync setting. */
enum model_kernel_sync_mode {
  MODEL_KERNEL_SYNC_LINUX, /* the kernel syncs, and the model counts on it */
  MODEL_KERNEL_SYNC_NONE,  /* assume no OS help: kernel-synced words are
                           reported as kernel-sync-assumed */
};

/* Which arm64 __sync_icache_dcache the kernel has (model_kernel_sync.c cites
 * the trees): today's syncs every page; the v3.11-v4.6 one returned at once
 * for a page without a mapping, which anonymous memory is. */
enum model_kernel_version {
  MODEL_KERNEL_6X,        /* default */
  MODEL_KERNEL_ANON_SKIP, /* "no flushing needed for anonymous pages" */
};

/* One place whose exec mapping made the kernel publish code the program
 * had not maintained itself: the system call (CALL, a name) made by the
 * instruction at PC whose link register held LR. */
struct model_kernel_note {
  const char *call; /* "mprotect", "mmap", "fault" (a lazy exec view), ... */
  uint64_t pc;
  uint64_t lr;
  uint64_t pages; /* pages it published */
  uint64_t words; /* stored words the kernel made coherent */
  bool fetched;   /* the program then fetched from one of those pages */
};

/* M must outlive the object. Sets M's trust (model_trust_kernel_sync). */
struct model_kernel *model_kernel_new(struct model *m, enum model_kernel_sync_mode mode);
void model_kernel_free(struct model_kernel *k);
/* The kernel's version, MODEL_KERNEL_6X until set. */
void model_kernel_set_version(struct model_kernel *k, enum model_kernel_version version);

/*
 * A user-executable mapping of the canonical page holding CANON appears
 * now (mmap with PROT_EXEC, mprotect adding it, the fault of a lazily
 * mapped executable view), made by CALL at PC/LR: the page is synced when
 * its flag is clear, and the flag is set. ANON: private memory (anonymous,
 * or a private file page the program wrote, so a copy), whose canonical
 * address is its own and which an anon-skip kernel never syncs. Returns
 * whether it synced.
 */
bool model_kernel_exec_mapped(struct model_kernel *k, uint64_t canon, bool anon, const char *call,
                              uint64_t pc, uint64_t lr);
/* The private pages of [VA, VA + LEN) are mapped without PROT_EXEC now
 * (mmap, mprotect) or are unmapped. */
void model_kernel_not_exec(struct model_kernel *k, uint64_t va, uint64_t len);

/*
 * Copy-on-write after fork, in the forked child: every private page the
 * child holds (IS_PRIVATE says which of the canonical pages the model and
 * the flags know are), is shared with the parent, and the child's first
 * store to one (model_kernel_store) gets a copy of its own.
 */
void model_kernel_forked(struct model_kernel *k, bool (*is_private)(uint64_t canon, void *ctx),
                         void *ctx);
/* Whether a store may still fault a copy (model_kernel_store has work). */
bool model_kernel_cow_pending(const struct model_kernel *k);
/* A store by the instruction at PC to the canonical address CANON, before
 * the model records it: the write fault of a page shared since the fork
 * copies it (wp_page_copy); the copy's flag is clear, and when the page is
 * mapped executable the fault's set_ptes syncs the copy before the store
 * lands. Returns whether it synced. */
bool model_kernel_store(struct model_kernel *k, uint64_t canon, uint64_t pc);
/* The kernel wrote the canonical range [START, END) (a page-cache write, a
 * read into shared file pages, shmem zeroing): the pages' flags clear. */
void model_kernel_written(struct model_kernel *k, uint64_t start, uint64_t end);
/* The canonical range [START, END) holds new pages (unmapped, or mapped
 * afresh): their flags clear. (Kernel writes into an executable mapping,
 * ptrace POKETEXT or /proc/PID/mem, need no call: model_kernel_sync.c.) */
void model_kernel_fresh(struct model_kernel *k, uint64_t start, uint64_t end);

/* mremap moved the canonical range [OLD, OLD + LEN) to NEW: the pages and
 * their flags move (move_ptes writes no page, so no flag changes). */
void model_kernel_move(struct model_kernel *k, uint64_t old, uint64_t new_start, uint64_t len);

/* An executable view [VA, VA + LEN) of shared memory was mapped and is not
 * faulted in yet: its pages sync at their first fetch (model_kernel_fetch).
 * CALL at PC/LR made it. */
void model_kernel_lazy_view(struct model_kernel *k, uint64_t va, uint64_t len, const char *call,
                            uint64_t pc, uint64_t lr);
/* The view pages of [VA, VA + LEN) are unmapped, or not executable any more. */
void model_kernel_view_gone(struct model_kernel *k, uint64_t va, uint64_t len);
/* A fetch (a translation) at VA, whose canonical address is CANON: the
 * fault of a lazy view page syncs it; and a page the kernel published is
 * noted as run. Call before asking the model about the word. */
void model_kernel_fetch(struct model_kernel *k, uint64_t va, uint64_t canon);

/* The places that published code, in the order first seen (struct
 * model_kernel_note, owned by K). */
const GArray *model_kernel_notes(const struct model_kernel *k);

#ifdef __cplusplus
}
#endif

#endif /* JITFLUSH_EMU_KERNEL_SYNC_H */
