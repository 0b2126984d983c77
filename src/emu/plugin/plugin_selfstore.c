/*
 * Stores into the translation block that is running.
 *
 * linux-user QEMU notices a store to a page that holds translated code and
 * drops the page's translations, so the next execution of the code is a new
 * translation, which plugin_instrument.c checks. But QEMU has precise
 * self-modifying code only for the guests that need it (x86, s390x): on an
 * AArch64 guest the block that made the store runs on to its end from its
 * old translation. Its instructions after the store are fetched as they were
 * translated, the old encodings, and that execution is never checked by a
 * later translation. The architecture allows exactly that: without the
 * maintenance and a context synchronisation a thread may fetch the old
 * instruction it just overwrote (herd7 -variant ifetch, the catalogue's
 * SM.B+dsb.ish and SM.B+dc.cvau-dsb.ish, on all three cache types). When
 * the block was translated on a page never stored to before (a program's
 * own .text), or while the word's sequence was complete, no fetch check was
 * planned for those words at all.
 *
 * So a TB in which an instruction before the last may store keeps a record
 * of what was translated, and an inline store at its start publishes the
 * record in its vCPU's entry (running_tb). Stores that reach a page holding
 * the running TB come through the store path's locked branch: the first
 * store to a page without a model record always does, and this unit then
 * gives the TB's pages per-word records (jf_model_word_for_fetch), which
 * the lock-free path refuses. Each word of the TB after the storing
 * instruction that the store overwrote is judged there and then, as the
 * storing thread's fetch of the translated encoding. Judging at the store
 * rather than at the fetch can only be stricter: the instructions between
 * them in the block are no context synchronisation (an isb ends a TB).
 */
#include "plugin_selfstore.h"

#include "findings.h"
#include "keep.h"
#include "vcpu.h"

#define PAGE_MASK (~((UINT64_C(1) << JF_MODEL_PAGE_SHIFT) - 1))

struct selfstore_tb {
  uint64_t start; /* the TB's first instruction; the others follow, 4 bytes each */
  uint64_t end;
  size_t n;
  struct {
    uint32_t insn;
    bool cmodx_safe;
  } word[];
};

bool jf_selfstore_may_store(uint32_t word)
{
  /* Arm ARM C4.1, the top-level encoding table: op0 = x1x0 are loads and
   * stores (MOPS copies and sets included). */
  return ((word >> 25) & 0x5) == 0x4;
}

void jf_selfstore_instrument_tb(struct jf_rig *rig, struct qemu_plugin_tb *tb,
                                const uint32_t *words, const bool *cmodx_safe, size_t n)
{
  bool stores_before_last = false;
  for (size_t i = 0; i + 1 < n && !stores_before_last; i++) {
    stores_before_last = jf_selfstore_may_store(words[i]);
  }
  if (!stores_before_last) {
    /* No store can overwrite a later word: the entry may keep an older
     * TB's record, which no store of this one matches (its address is
     * outside that TB). */
    return;
  }
  struct selfstore_tb *r = g_malloc(sizeof(*r) + n * sizeof(r->word[0]));
  r->start = qemu_plugin_tb_vaddr(tb);
  r->end = r->start + 4 * (uint64_t)n;
  r->n = n;
  for (size_t i = 0; i < n; i++) {
    r->word[i].insn = words[i];
    r->word[i].cmodx_safe = cmodx_safe[i];
  }
  jf_keep_until_exit(rig->keep, r);
  qemu_plugin_register_vcpu_tb_exec_inline_per_vcpu(
      tb, QEMU_PLUGIN_INLINE_STORE_U64, JF_VCPU_U64(rig, running_tb), (uint64_t)(uintptr_t)r);
}

void jf_selfstore_on_store(struct jf_rig *rig, unsigned vcpu, struct jf_model_thread *mt,
                           uint64_t vaddr, unsigned bytes, uint64_t writer_pc)
{
  struct jf_vcpu *v = jf_vcpu(rig, vcpu);
  const struct selfstore_tb *r = (const void *)(uintptr_t)v->running_tb;
  if (!r || writer_pc < r->start || writer_pc >= r->end) {
    return; /* not a store of the running TB */
  }
  uint64_t end = vaddr + (bytes ? bytes : 1);
  uint64_t first_page = vaddr & PAGE_MASK, last_page = (end - 1) & PAGE_MASK;
  for (size_t i = (writer_pc - r->start) / 4 + 1; i < r->n; i++) {
    uint64_t va = r->start + 4 * (uint64_t)i;
    if ((va & PAGE_MASK) < first_page || (va & PAGE_MASK) > last_page) {
      continue; /* another page: the store cannot reach it */
    }
    /* As at translation: per-word records for the page from now on, so
     * that the TB's later stores to it take the locked path too. */
    struct jf_word *w =
        jf_model_word_for_fetch(rig->model, va, r->word[i].insn, r->word[i].cmodx_safe);
    if (!w || va + 4 <= vaddr || va >= end) {
      continue; /* not overwritten */
    }
    struct jf_verdict verdict =
        jf_model_fetch(rig->model, mt, w, jf_model_view(rig->model, va), r->word[i].cmodx_safe);
    if (verdict.kind != JF_FRESH) {
      emu_findings_record(rig->findings, va, mt->cpu, mt->serial, &verdict);
      v->counts.stale_fetches++;
      jf_vcpu_note_host_thread(vcpu, mt->serial);
    }
  }
}
