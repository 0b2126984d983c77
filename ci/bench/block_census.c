/* A QEMU TCG plugin that counts, for one run of an aarch64 program under
 * plain qemu-aarch64, how many translation blocks and stores the rig would
 * have to instrument if it instrumented only what can observe the emulated
 * SoC (docs/BENCHMARKS.md, "What the rig instruments"). It is not the rig:
 * it models no core and judges nothing, it only classifies.
 *
 *   qemu-aarch64 -plugin block_census.so,out=FILE[,hot=N] PROGRAM...
 *
 * A block observes the SoC when one of its instructions can tell which core
 * runs it or what its caches hold: dc/ic and other SYS operations, mrs of
 * CTR_EL0, MIDR_EL1 or MPIDR_EL1, a barrier or isb, svc, the rig's region
 * markers, and the exclusive, acquire,
 * release and atomic memory instructions (the ones a publication can go
 * through). A block's code is "stored" when its page had been stored to
 * before QEMU translated it: such a block must be checked for stale words.
 * A store lands on a page of one of three classes: a page code was ever
 * fetched from in the run; a page that was mapped executable (mmap or
 * mprotect with PROT_EXEC) but never fetched from; or neither, a page no
 * fetch could ever see. Built and run by ci/bench/realjit.sh --census.
 */
#include <glib.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <qemu-plugin.h>

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

enum { QUIET, OBSERVING, STORED, STORED_OBSERVING, CLASSES };
static const char *const class_name[CLASSES] = {
    "quiet (never-stored code, observes nothing)", "observing, never-stored code",
    "stored code, observes nothing", "stored code, observing"};

struct vcpu_counts {
  uint64_t execs[CLASSES];
  uint64_t insns[CLASSES];
  uint64_t quiet_backward; /* executions of quiet blocks ending in a backward branch */
};

struct page {
  uint64_t stores;
  uint64_t sp_stores; /* of them, by an instruction whose base register is sp */
  bool fetched;
  bool exec_mapped;
};

static struct qemu_plugin_scoreboard *counts;
static GMutex lock;
static GHashTable *pages; /* page number -> struct page */
static uint64_t translated[CLASSES];
static char *out_path;
/* hot=N: the N blocks that executed the most instructions, with their code
 * (an exec callback per block: slower, for finding where a guest spins). */
static unsigned hot;
struct tb_count {
  uint64_t vaddr, execs;
  unsigned n, cls;
  char *disas;
};
static GPtrArray *tbs;
/* Per vCPU: the pending mmap/mprotect's protection and range. */
struct pending {
  int64_t num;
  uint64_t addr, len, prot;
};
static GArray *pending;

#define PAGE_SHIFT 12
#define PROT_EXEC_BIT 4
#define NR_MMAP 222
#define NR_MPROTECT 226
#define MAX_EXEC_PAGES (1u << 18) /* ignore larger mappings: a reservation */

static struct page *page_of(uint64_t pn)
{
  struct page *p = g_hash_table_lookup(pages, GSIZE_TO_POINTER(pn));
  if (!p) {
    p = g_new0(struct page, 1);
    g_hash_table_insert(pages, GSIZE_TO_POINTER(pn), p);
  }
  return p;
}

/* Whether the instruction can observe the emulated SoC (Arm ARM C4.1
 * encodings). */
static bool observes(uint32_t w)
{
  if ((w & 0xfffff01fu) == 0xd503301fu) /* dsb, dmb, isb, clrex, sb */
    return true;
  if ((w & 0xffd80000u) == 0xd5080000u) /* sys, sysl: dc, ic, at, tlbi */
    return true;
  uint32_t mrs = w & 0xffffffe0u;
  if (mrs == 0xd53b0020u || mrs == 0xd5380000u || mrs == 0xd53800a0u) /* ctr, midr, mpidr */
    return true;
  if (w == 0xd5032f9fu || w == 0xd5032fbfu) /* the rig's region markers, hint #0x7c/#0x7d */
    return true;
  if ((w & 0xffe0001fu) == 0xd4000001u) /* svc */
    return true;
  if ((w & 0x3f000000u) == 0x08000000u) /* exclusives, acquire/release, cas */
    return true;
  if ((w & 0x3f200c00u) == 0x38200000u) /* LSE atomics: ldadd, swp, ldapr */
    return true;
  return false;
}

/* Whether the instruction is a branch to a lower address. */
static bool backward_branch(uint32_t w)
{
  if ((w & 0x7c000000u) == 0x14000000u) /* b, bl */
    return (w >> 25) & 1;
  if ((w & 0xff000010u) == 0x54000000u || (w & 0x7e000000u) == 0x34000000u) /* b.cond, cbz */
    return (w >> 23) & 1;
  if ((w & 0x7e000000u) == 0x36000000u) /* tbz, tbnz */
    return (w >> 18) & 1;
  return false;
}

static void on_store(unsigned int vcpu, qemu_plugin_meminfo_t info, uint64_t vaddr, void *udata)
{
  (void)vcpu;
  if (!qemu_plugin_mem_is_store(info))
    return;
  g_mutex_lock(&lock);
  struct page *p = page_of(vaddr >> PAGE_SHIFT);
  p->stores++;
  p->sp_stores += udata != NULL;
  g_mutex_unlock(&lock);
}

static void on_tb_exec(unsigned int vcpu, void *udata)
{
  (void)vcpu;
  __atomic_add_fetch(&((struct tb_count *)udata)->execs, 1, __ATOMIC_RELAXED);
}

static gint by_insns(gconstpointer a, gconstpointer b)
{
  const struct tb_count *x = *(struct tb_count *const *)a, *y = *(struct tb_count *const *)b;
  uint64_t i = x->execs * x->n, j = y->execs * y->n;
  return i < j ? 1 : i > j ? -1 : 0;
}

static void on_tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
  (void)id;
  size_t n = qemu_plugin_tb_n_insns(tb);
  bool observing = false, stored = false;
  uint32_t last = 0;
  g_mutex_lock(&lock);
  for (size_t i = 0; i < n; i++) {
    struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
    uint32_t w = 0;
    qemu_plugin_insn_data(insn, &w, sizeof w);
    struct page *p = page_of(qemu_plugin_insn_vaddr(insn) >> PAGE_SHIFT);
    stored |= p->stores != 0;
    p->fetched = true;
    observing |= observes(w);
    last = w;
    /* Loads and stores (op0 x1x0), base register Rn = 31: sp. */
    bool sp_base = (w & 0x0a000000u) == 0x08000000u && ((w >> 5) & 31) == 31;
    qemu_plugin_register_vcpu_mem_cb(insn, on_store, QEMU_PLUGIN_CB_NO_REGS, QEMU_PLUGIN_MEM_W,
                                     sp_base ? (void *)1 : NULL);
  }
  int c = (stored ? STORED : QUIET) + (observing ? 1 : 0);
  translated[c]++;
  if (hot) {
    struct tb_count *t = g_new0(struct tb_count, 1);
    GString *d = g_string_new(NULL);
    for (size_t i = 0; i < n && i < 12; i++) {
      char *one = qemu_plugin_insn_disas(qemu_plugin_tb_get_insn(tb, i));
      g_string_append_printf(d, "%s%s", i ? "; " : "", one);
      g_free(one);
    }
    *t = (struct tb_count){qemu_plugin_tb_vaddr(tb), 0, (unsigned)n, (unsigned)c,
                           g_string_free(d, FALSE)};
    g_ptr_array_add(tbs, t);
    qemu_plugin_register_vcpu_tb_exec_cb(tb, on_tb_exec, QEMU_PLUGIN_CB_NO_REGS, t);
  }
  g_mutex_unlock(&lock);
  qemu_plugin_register_vcpu_tb_exec_inline_per_vcpu(
      tb, QEMU_PLUGIN_INLINE_ADD_U64,
      qemu_plugin_scoreboard_u64_in_struct(counts, struct vcpu_counts, execs[c]), 1);
  qemu_plugin_register_vcpu_tb_exec_inline_per_vcpu(
      tb, QEMU_PLUGIN_INLINE_ADD_U64,
      qemu_plugin_scoreboard_u64_in_struct(counts, struct vcpu_counts, insns[c]), n);
  if (c == QUIET && backward_branch(last))
    qemu_plugin_register_vcpu_tb_exec_inline_per_vcpu(
        tb, QEMU_PLUGIN_INLINE_ADD_U64,
        qemu_plugin_scoreboard_u64_in_struct(counts, struct vcpu_counts, quiet_backward), 1);
}

static struct pending *pending_of(unsigned int vcpu)
{
  if (pending->len <= vcpu)
    g_array_set_size(pending, vcpu + 1);
  return &g_array_index(pending, struct pending, vcpu);
}

static void on_syscall(qemu_plugin_id_t id, unsigned int vcpu, int64_t num, uint64_t a1,
                       uint64_t a2, uint64_t a3, uint64_t a4, uint64_t a5, uint64_t a6, uint64_t a7,
                       uint64_t a8)
{
  (void)id, (void)a4, (void)a5, (void)a6, (void)a7, (void)a8;
  if (num != NR_MMAP && num != NR_MPROTECT)
    return;
  g_mutex_lock(&lock);
  *pending_of(vcpu) = (struct pending){num, a1, a2, a3};
  g_mutex_unlock(&lock);
}

static void on_syscall_ret(qemu_plugin_id_t id, unsigned int vcpu, int64_t num, int64_t ret)
{
  (void)id;
  if (num != NR_MMAP && num != NR_MPROTECT)
    return;
  g_mutex_lock(&lock);
  struct pending *p = pending_of(vcpu);
  uint64_t addr = num == NR_MMAP ? (uint64_t)ret : p->addr;
  uint64_t n = (p->len + (1u << PAGE_SHIFT) - 1) >> PAGE_SHIFT;
  if (p->num == num && ret >= 0 && (p->prot & PROT_EXEC_BIT) && n <= MAX_EXEC_PAGES)
    for (uint64_t i = 0; i < n; i++)
      page_of((addr >> PAGE_SHIFT) + i)->exec_mapped = true;
  p->num = -1;
  g_mutex_unlock(&lock);
}

static void on_exit(qemu_plugin_id_t id, void *udata)
{
  (void)id, (void)udata;
  struct vcpu_counts sum = {0};
  for (int v = 0; v < qemu_plugin_num_vcpus(); v++) {
    struct vcpu_counts *c = qemu_plugin_scoreboard_find(counts, v);
    for (int k = 0; k < CLASSES; k++) {
      sum.execs[k] += c->execs[k];
      sum.insns[k] += c->insns[k];
    }
    sum.quiet_backward += c->quiet_backward;
  }
  uint64_t st[3] = {0}, pg[3] = {0}, sp[3] = {0};
  GHashTableIter it;
  gpointer key, value;
  g_hash_table_iter_init(&it, pages);
  while (g_hash_table_iter_next(&it, &key, &value)) {
    struct page *p = value;
    int k = p->fetched ? 0 : p->exec_mapped ? 1 : 2;
    st[k] += p->stores;
    sp[k] += p->sp_stores;
    pg[k] += p->stores != 0;
  }
  FILE *f = out_path ? fopen(out_path, "w") : stderr;
  if (!f)
    f = stderr;
  fprintf(f, "class\ttranslated\texecuted\tinsns\n");
  for (int k = 0; k < CLASSES; k++)
    fprintf(f, "%s\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\n", class_name[k], translated[k],
            sum.execs[k], sum.insns[k]);
  fprintf(f, "quiet executions ending in a backward branch\t\t%" PRIu64 "\t\n", sum.quiet_backward);
  fprintf(f, "stores to pages code was fetched from\t%" PRIu64 " pages\t%" PRIu64 "\t\n", pg[0],
          st[0]);
  fprintf(
      f, "stores to executable-mapped pages never fetched from\t%" PRIu64 " pages\t%" PRIu64 "\t\n",
      pg[1], st[1]);
  fprintf(
      f, "stores to pages never executable, never fetched from\t%" PRIu64 " pages\t%" PRIu64 "\t\n",
      pg[2], st[2]);
  fprintf(f, "of those three, stores through sp\t\t%" PRIu64 " / %" PRIu64 " / %" PRIu64 "\t\n",
          sp[0], sp[1], sp[2]);
  if (hot) {
    g_ptr_array_sort(tbs, by_insns);
    for (unsigned i = 0; i < hot && i < tbs->len; i++) {
      struct tb_count *t = g_ptr_array_index(tbs, i);
      fprintf(f, "hot block 0x%" PRIx64 "\t%u insns, %s\t%" PRIu64 "\t%s\n", t->vaddr, t->n,
              class_name[t->cls], t->execs, t->disas);
    }
  }
  if (f != stderr)
    fclose(f);
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info, int argc,
                                           char **argv)
{
  (void)info;
  for (int i = 0; i < argc; i++) {
    if (g_str_has_prefix(argv[i], "out=")) {
      out_path = g_strdup(argv[i] + 4);
    } else if (g_str_has_prefix(argv[i], "hot=")) {
      hot = (unsigned)g_ascii_strtoull(argv[i] + 4, NULL, 10);
    } else {
      fprintf(stderr, "block_census: unknown argument '%s' (out=FILE, hot=N)\n", argv[i]);
      return -1;
    }
  }
  tbs = g_ptr_array_new();
  pages = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, g_free);
  pending = g_array_new(FALSE, TRUE, sizeof(struct pending));
  counts = qemu_plugin_scoreboard_new(sizeof(struct vcpu_counts));
  qemu_plugin_register_vcpu_tb_trans_cb(id, on_tb_trans);
  qemu_plugin_register_vcpu_syscall_cb(id, on_syscall);
  qemu_plugin_register_vcpu_syscall_ret_cb(id, on_syscall_ret);
  qemu_plugin_register_atexit_cb(id, on_exit, NULL);
  return 0;
}
