/*
 * Stores into the translation block that is running (plugin_selfstore.c):
 * QEMU runs the rest of that block from its old translation, so the words
 * the store overwrote after the storing instruction are fetched old there
 * and are judged at the store.
 */
#ifndef JITFLUSH_EMU_PLUGIN_SELFSTORE_H
#define JITFLUSH_EMU_PLUGIN_SELFSTORE_H

#include <stdbool.h>
#include <stdint.h>

#include "plugin_rig.h"

struct plugin_vcpu;

/* At translation, with the checker on: TB's start publishes its start and
 * end in its vCPU's entry (running_block; plugin_vcpu_block_start, _end),
 * where the crash report finds the block too. */
void plugin_selfstore_instrument_tb(struct plugin_rig *rig, struct qemu_plugin_tb *tb);

/* A store of BYTES at VADDR by the instruction at WRITER_PC of the thread MT
 * on VCPU (the lock held), already recorded in the model: judges the words
 * of the running TB after WRITER_PC that it overwrote, as that thread's
 * fetches of what was translated there (plugin_store_after_locked). */
void plugin_selfstore_on_store(struct plugin_rig *rig, unsigned vcpu, struct model_thread *mt,
                               uint64_t vaddr, unsigned bytes, uint64_t writer_pc);

/* Whether the word at VADDR, of the TB running on V, was judged at a
 * store into it earlier in this execution of the TB: its fetch from the old
 * translation was that judgement, and is not judged again (in either check
 * mode, docs/COHERENCE-MODEL.md#a-store-into-the-running-block). */
bool plugin_selfstore_judged(const struct plugin_vcpu *v, uint64_t vaddr);

#endif /* JITFLUSH_EMU_PLUGIN_SELFSTORE_H */
