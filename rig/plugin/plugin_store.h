/*
 * Guest stores into the coherence model, mostly without the rig's lock
 * (plugin_store.c).
 */
#ifndef JITFLUSH_EMU_PLUGIN_STORE_H
#define JITFLUSH_EMU_PLUGIN_STORE_H

#include <stdint.h>

#include "model_coherence.h"
#include "plugin_rig.h"
#include "model_store_groups.h"

/* After the rig's model is created. */
struct plugin_store *plugin_store_new(struct plugin_rig *rig);
void plugin_store_free(struct plugin_store *st);

/* The memory callbacks' bodies (the QEMU glue registers them for
 * QEMU_PLUGIN_MEM_W only and passes the rig's store):
 *   own:   udata is the storing instruction's address (the writer);
 *   group: udata is plugin_store_group_record(G, INSN_PC), INSN_PC the block's
 *          instruction addresses (model_store_groups.h);
 *   span:  the store, or a group's leader, writes BYTES from the address of
 *          the access QEMU reports; udata is plugin_store_span_udata(WRITER_PC,
 *          BYTES), which is NULL when the two do not fit in a pointer (then
 *          use a group record). */
void plugin_store_on_store(struct plugin_store *st, unsigned vcpu, qemu_plugin_meminfo_t info,
                           uint64_t vaddr, void *udata);
void plugin_store_on_group(struct plugin_store *st, unsigned vcpu, uint64_t vaddr, void *udata);
void plugin_store_on_span(struct plugin_store *st, unsigned vcpu, uint64_t vaddr, void *udata);
void *plugin_store_group_record(struct plugin_store *st, const struct model_store_group *g,
                                const uint64_t *insn_pc);
void *plugin_store_span_udata(uint64_t writer_pc, uint32_t bytes);

/* The thread MT now runs on VCPU (on a CPU of MT's cluster) / VCPU runs no
 * thread (the rig's lock held): whom its stores are recorded for. */
void plugin_store_thread_placed(struct plugin_store *st, unsigned vcpu, struct model_thread *mt);
void plugin_store_thread_gone(struct plugin_store *st, unsigned vcpu);
/* The canonical addresses may be other now (lock held): every vCPU's
 * cached page records are dropped. */
void plugin_store_forget_pages(struct plugin_store *st);
/* PAGES (taken over) left the model because their memory was unmapped
 * (model_forget; lock held): they are freed as soon as no vCPU can
 * still be using one (plugin_store.c explains when). */
void plugin_store_retire(struct plugin_store *st, GPtrArray *pages);
/* FN(CTX, VADDR, BYTES, WRITER_PC) is called, under the lock and before
 * the model records it, for every store made on the locked path: stores
 * into pages with per-word records (code) and misses, so the first store
 * to a page after plugin_store_forget_pages (plugin_alias.c faults a forked
 * child's copy-on-write copy there, and marks the RX lines a store through
 * an RW view changed). */
void plugin_store_watch(struct plugin_store *st,
                        void (*fn)(void *ctx, uint64_t vaddr, unsigned bytes, uint64_t writer_pc),
                        void *ctx);
/* FN is called, under the lock and after the model recorded it, for every
 * store made on the locked path by a thread the model knows (MT on VCPU):
 * plugin_selfstore.c compares it with the running translation block. */
typedef void (*plugin_store_locked_fn)(struct plugin_rig *rig, unsigned vcpu,
                                       struct model_thread *mt, uint64_t vaddr, unsigned bytes,
                                       uint64_t writer_pc);
void plugin_store_after_locked(struct plugin_store *st, plugin_store_locked_fn fn);
/* From now on guest threads may store at the same time (the turns were
 * given up): every store takes the path that races are safe on. Stores
 * are serial until then, unless the rig runs in parallel. */
void plugin_store_parallel(struct plugin_store *st);
/* VCPU entered (ENTERED) or returned from a syscall: while there it holds
 * no page record. */
void plugin_store_syscall(struct plugin_store *st, unsigned vcpu, bool entered);

#endif /* JITFLUSH_EMU_PLUGIN_STORE_H */
