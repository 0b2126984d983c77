/*
 * Guest stores into the coherence model. Every storing instruction runs
 * this callback, once per access (an stp is two), so it is the hottest
 * one the rig has: a store-heavy program (PCRE2's interpreter, a JIT
 * compiler) makes tens of millions of them. Taking jf_lock and a hash
 * lookup for each was most of the checker's cost there.
 *
 * So each vCPU keeps a small direct-mapped cache, page number -> the
 * model's page record (jf_model_store_page), filled under jf_lock when a
 * store misses it, and records a store on a cached page with
 * jf_model_store_quick, without any lock. The model refuses the quick path
 * for pages that have per-word records (code, or pages that were
 * maintained) and for stores that leave an aligned block; those, and
 * misses, take jf_lock and jf_model_store as before. The verdicts are the
 * same either way (coherence.c, "Concurrency").
 *
 * A cache's entries are keyed by the guest address, the model's by the
 * canonical one (plugin_alias.c): when the double mappings change, every
 * cache is refilled (the generation check).
 */
#include <string.h>

#include "coherence_quick.h"
#include "plugin.h"

/* Slots per vCPU: a program's hot store targets (stack, a few heap pages,
 * a JIT's buffer) rarely collide in 64. */
#define STORE_CACHE_SLOTS 64
/* vCPUs with a cache; a guest with more live threads than this takes the
 * locked path for the others. */
#define STORE_CACHE_VCPUS 256
/* The cluster of a vCPU that runs no thread. */
#define NO_THREAD UINT_MAX

struct store_cache {
  unsigned cluster;    /* atomic: the cluster of the thread on the vCPU */
  uint64_t generation; /* jf_alias_generation() when SLOT was filled */
  struct {
    uint64_t page_number; /* + 1; 0 = empty */
    struct jf_model_page *page;
  } slot[STORE_CACHE_SLOTS];
};

/* Written under jf_lock, each entry once; read by the vCPU it belongs to. */
static struct store_cache *caches[STORE_CACHE_VCPUS];
/* jf_model's clock (jf_store_init), read by every quick store. */
static const uint64_t *model_clock;

void jf_store_init(void)
{
  model_clock = jf_model_clock(jf_model);
}

void jf_store_thread_placed(unsigned vcpu, unsigned cluster)
{
  if (vcpu >= STORE_CACHE_VCPUS) {
    return;
  }
  struct store_cache *c = caches[vcpu];
  if (!c) {
    c = g_new0(struct store_cache, 1);
    c->cluster = NO_THREAD;
    __atomic_store_n(&caches[vcpu], c, __ATOMIC_RELEASE);
  }
  __atomic_store_n(&c->cluster, cluster, __ATOMIC_RELAXED);
}

void jf_store_thread_gone(unsigned vcpu)
{
  if (vcpu < STORE_CACHE_VCPUS && caches[vcpu]) {
    __atomic_store_n(&caches[vcpu]->cluster, NO_THREAD, __ATOMIC_RELAXED);
  }
}

void jf_store_free(void)
{
  model_clock = NULL;
  for (unsigned i = 0; i < STORE_CACHE_VCPUS; i++) {
    g_clear_pointer(&caches[i], g_free);
  }
}

/* The locked path. PAGE is VADDR's cached record, or NULL: then it is
 * looked up, and C's slot for it filled. */
__attribute__((noinline, cold)) static void store_locked(unsigned vcpu, struct store_cache *c,
                                                         struct jf_model_page *page, uint64_t vaddr,
                                                         unsigned bytes, uint64_t writer_pc)
{
  g_mutex_lock(&jf_lock);
  struct jf_thread *t = jf_sched_thread(vcpu);
  if (t && page) {
    jf_model_store_on_page(jf_model, &t->mt, page, vaddr, bytes, writer_pc);
  } else if (t) {
    jf_model_store(jf_model, &t->mt, vaddr, bytes, writer_pc);
    if (c) {
      uint64_t generation = jf_alias_generation();
      if (c->generation != generation) {
        memset(c->slot, 0, sizeof(c->slot));
        c->generation = generation;
      }
      uint64_t page_number = vaddr >> JF_MODEL_PAGE_SHIFT;
      size_t i = page_number % STORE_CACHE_SLOTS;
      c->slot[i].page_number = page_number + 1;
      c->slot[i].page = jf_model_store_page(jf_model, vaddr);
    }
  }
  g_mutex_unlock(&jf_lock);
}

/* Registered for QEMU_PLUGIN_MEM_W only. UDATA is the storing
 * instruction's address (the finding's writer). */
void jf_store_on_store(unsigned vcpu, qemu_plugin_meminfo_t info, uint64_t vaddr, void *udata)
{
  unsigned bytes = 1u << qemu_plugin_mem_size_shift(info);
  uint64_t writer_pc = (uint64_t)(uintptr_t)udata;
  struct store_cache *c =
      vcpu < STORE_CACHE_VCPUS ? __atomic_load_n(&caches[vcpu], __ATOMIC_ACQUIRE) : NULL;
  struct jf_model_page *page = NULL;
  if (c) {
    uint64_t page_number = vaddr >> JF_MODEL_PAGE_SHIFT;
    size_t i = page_number % STORE_CACHE_SLOTS;
    unsigned cluster = __atomic_load_n(&c->cluster, __ATOMIC_RELAXED);
    if (c->slot[i].page_number == page_number + 1 && c->generation == jf_alias_generation()) {
      page = c->slot[i].page;
      if (cluster != NO_THREAD &&
          jf_model_store_quick(model_clock, page, vaddr, bytes, writer_pc, cluster)) {
        return;
      }
    }
  }
  /* A miss, a page with per-word records, or a store that leaves its
   * block: under the lock. */
  store_locked(vcpu, c, page, vaddr, bytes, writer_pc);
}
