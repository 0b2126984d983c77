/*
 * Stores into the translation block that is running.
 *
 * linux-user QEMU notices a store to a page that holds translated code and
 * drops the page's translations, so the next execution of the code is a new
 * translation, which plugin_instrument.c checks. But QEMU has precise
 * self-modifying code only for the guests that need it (x86, s390x): on an
 * AArch64 guest the block that made the store runs on to its end from its
 * old translation. Its instructions after the store are fetched as they were
 * translated, the old encodings, and no later translation checks that
 * execution. The architecture allows exactly that: without the maintenance
 * and a context synchronisation a thread may fetch the old instruction it
 * just overwrote (herd7 -variant ifetch, the catalogue's SM.B+dsb.ish and
 * SM.B+dc.cvau-dsb.ish, on all three cache types). When the block was
 * translated on a page never stored to before (a program's own .text,
 * mapped writable), or while the word's sequence was complete, no fetch
 * check was planned for those words at all.
 *
 * So the start of every TB publishes its start and end in its vCPU's
 * entry (running_block, which the crash report reads too). Stores that
 * reach a page holding the running TB come through the store path's
 * locked branch: every store to a page with per-word records does, and so
 * does the first store to a page without a model record; this unit then
 * gives that page per-word records (model_word_now), which the lock-free
 * path refuses. Each word of the TB after the storing instruction that the
 * store overwrote is judged there and then, as the storing thread's fetch.
 * Its encoding does not matter: the concurrent modification rule never
 * covers the writer's own fetch (model_coherence.c, cmodx_covers). Judging
 * at the store rather than at the fetch can only be stricter: the
 * instructions between them in the block are no context synchronisation
 * (an isb ends a TB).
 */
#include "plugin_selfstore.h"

#include <string.h>

#include "report_findings.h"
#include "plugin_vcpu.h"

#define PAGE_MASK (~((UINT64_C(1) << MODEL_PAGE_SHIFT) - 1))

void plugin_selfstore_instrument_tb(struct plugin_rig *rig, struct qemu_plugin_tb *tb)
{
  uint64_t block = plugin_vcpu_block_word(qemu_plugin_tb_vaddr(tb), qemu_plugin_tb_n_insns(tb));
  qemu_plugin_register_vcpu_tb_exec_inline_per_vcpu(tb, QEMU_PLUGIN_INLINE_STORE_U64,
                                                    PLUGIN_VCPU_U64(rig, running_block), block);
}

/* The word at VA as memory holds it now (after the store). */
static bool word_in_memory(uint64_t va, uint32_t *word)
{
  GByteArray *buf = g_byte_array_sized_new(sizeof(*word));
  bool read = qemu_plugin_read_memory_vaddr(va, buf, sizeof(*word)) && buf->len == sizeof(*word);
  if (read) {
    memcpy(word, buf->data, sizeof(*word));
    *word = GUINT32_FROM_LE(*word);
  }
  g_byte_array_unref(buf);
  return read;
}

/* Notes that the word at VA of the TB that starts at START and runs on V
 * was judged at a store in this execution of the TB. */
static void mark_judged(struct plugin_vcpu *v, uint64_t start, uint64_t va)
{
  uint64_t insns = plugin_vcpu_clock_counts(v).insns;
  if (v->selfstore_insns != insns) {
    v->selfstore_insns = insns;
    memset(v->selfstore_judged, 0, sizeof(v->selfstore_judged));
  }
  uint64_t i = (va - start) / 4;
  if (i < PLUGIN_SELFSTORE_WORDS) {
    v->selfstore_judged[i / 64] |= UINT64_C(1) << (i % 64);
  }
}

bool plugin_selfstore_judged(const struct plugin_vcpu *v, uint64_t vaddr)
{
  uint64_t start = plugin_vcpu_block_start(v->running_block);
  if (vaddr < start || vaddr >= plugin_vcpu_block_end(v->running_block)) {
    return false;
  }
  uint64_t i = (vaddr - start) / 4;
  /* The bit first: the count is read only for a word some store judged. */
  return i < PLUGIN_SELFSTORE_WORDS && (v->selfstore_judged[i / 64] >> (i % 64) & 1) &&
         v->selfstore_insns == plugin_vcpu_clock_counts(v).insns;
}

void plugin_selfstore_on_store(struct plugin_rig *rig, unsigned vcpu, struct model_thread *mt,
                               uint64_t vaddr, unsigned bytes, uint64_t writer_pc)
{
  struct plugin_vcpu *v = plugin_vcpu(rig, vcpu);
  uint64_t start = plugin_vcpu_block_start(v->running_block);
  uint64_t tb_end = plugin_vcpu_block_end(v->running_block);
  if (writer_pc < start || writer_pc >= tb_end) {
    return; /* not a store of the running TB */
  }
  uint64_t end = vaddr + (bytes ? bytes : 1);
  uint64_t first_page = vaddr & PAGE_MASK, last_page = (end - 1) & PAGE_MASK;
  for (uint64_t va = (writer_pc & ~UINT64_C(3)) + 4; va < tb_end; va += 4) {
    if ((va & PAGE_MASK) < first_page || (va & PAGE_MASK) > last_page) {
      continue; /* another page: the store cannot reach it */
    }
    /* Per-word records for the page from now on, so that the TB's later
     * stores to it take the locked path too. */
    struct model_word *w = model_word_now(rig->model, va);
    if (!w || va + 4 <= vaddr || va >= end) {
      continue; /* not overwritten */
    }
    mark_judged(v, start, va);
    uint64_t view = model_view(rig->model, va);
    struct model_verdict verdict = model_fetch(rig->model, mt, w, view, false);
    uint32_t now = 0;
    if (verdict.kind != MODEL_FRESH && view == MODEL_OWN_VIEW && word_in_memory(va, &now) &&
        model_stale_benign(rig->model, mt, w, now, NULL)) {
      /* The old translation runs the word the store wrote again. */
      report_findings_benign(rig->findings, va);
      v->counts.benign_stale_fetches++;
    } else if (verdict.kind != MODEL_FRESH) {
      report_findings_record(rig->findings, va, mt->cpu, mt->serial, &verdict);
      v->counts.stale_fetches++;
      plugin_vcpu_note_host_thread(vcpu, mt->serial);
    }
  }
}
