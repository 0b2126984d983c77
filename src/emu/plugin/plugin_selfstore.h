/*
 * Stores into the translation block that is running (plugin_selfstore.c):
 * QEMU runs the rest of that block from its old translation, so the words
 * the store overwrote after the storing instruction are fetched old there
 * and are judged at the store.
 */
#ifndef JITFLUSH_EMU_PLUGIN_SELFSTORE_H
#define JITFLUSH_EMU_PLUGIN_SELFSTORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rig.h"

/* At translation, with the checker on: TB's N instructions, their encodings
 * WORDS and whether each is CMODX-safe. A TB in which an instruction before
 * the last may store gets a record of them, which its start publishes in
 * its vCPU's entry (running_tb). */
void jf_selfstore_instrument_tb(struct jf_rig *rig, struct qemu_plugin_tb *tb,
                                const uint32_t *words, const bool *cmodx_safe, size_t n);

/* A store of BYTES at VADDR by the instruction at WRITER_PC of the thread MT
 * on VCPU (the lock held), already recorded in the model: judges the words
 * of the running TB after WRITER_PC that it overwrote, as fetches of what
 * was translated there. */
void jf_selfstore_on_store(struct jf_rig *rig, unsigned vcpu, struct jf_model_thread *mt,
                           uint64_t vaddr, unsigned bytes, uint64_t writer_pc);

/* Whether the encoding WORD may store to memory: the load/store class of
 * the A64 encoding (loads included: the test needs to be cheap, not exact). */
bool jf_selfstore_may_store(uint32_t word);

#endif /* JITFLUSH_EMU_PLUGIN_SELFSTORE_H */
