/*
 * Findings (findings.h). A stale fetch is cheap to record because a JIT
 * with one short flush executes its stale words millions of times: the
 * finding of the previous record and a small direct-mapped memory of the
 * words already counted skip both hash lookups on repeats.
 *
 * A finding is one root cause: a missing step (kind), the maintenance
 * instruction that should have covered the words (the flush routine, from
 * whichever caller) and the stride of its loop, or when none reached them
 * the store that wrote them. Cores and callers hit by the same root cause
 * share the finding; its callers and writers are listed inside.
 */
#include <inttypes.h>
#include <string.h>

#include "emu_json.h"
#include "findings.h"
#include "internal/ctr.h"

#define STALE_KEEP 100  /* the report's per-word "stale" list */
#define EXAMPLES_KEEP 5 /* example addresses per finding */
#define SEEN_SLOTS 4096 /* per finding: recently counted words */
#define CALLERS_SHOWN 5 /* callers in a stderr block (the JSON has all) */
#define WRITERS_SHOWN 3 /* writers in a stderr block */

struct site {
  uint64_t pc;
  uint64_t lr;
};

/* A root cause (docs/FINDINGS.md, "How stale fetches are grouped"). */
struct finding_key {
  uint32_t kind;
  uint32_t stride;    /* the loop's step, 0 unknown */
  uint64_t flush_pc;  /* the maintenance instruction, 0 when none reached */
  uint64_t writer_pc; /* 0 unless FLUSH_PC is 0: the store stands in */
};

/* One caller of the flush routine (the return address its x30 held). */
struct caller {
  uint64_t lr;
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
  enum jf_stale_kind kind;
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
  char *path;
  uint64_t start, end, load_base;
  char *build_id;
};

struct emu_findings {
  const struct emu_config *cfg;
  GArray *sites;        /* struct site; index 0 unused */
  GHashTable *site_ids; /* struct site * -> id */
  GPtrArray *findings;  /* struct finding * */
  GPtrArray *absorbed;  /* findings merged into another by settle */
  GHashTable *by_key;   /* struct finding_key * -> struct finding * */
  struct finding *last;
  GArray *stale_kept; /* struct stale_entry */
  uint64_t stale_total;
  uint64_t omitted_stale; /* of root causes beyond EMU_FINDINGS_KEEP */
  char *reproduce;        /* emu_findings_set_reproduce, or NULL */
  char *sarif_root;       /* emu_findings_set_sarif_root, or NULL */
  GPtrArray *ctr_sites;   /* struct ctr_site * */
  GHashTable *ctr_by_key;
  GPtrArray *mappings; /* struct mapping * */
  GArray *last_stale;  /* struct last_stale, by thread serial (seq 0: none) */
  uint64_t settles;    /* settle's calls, for emu_findings_repeat */
  bool exit_called;    /* emu_findings_note_exit */
  bool end_noted;      /* emu_findings_note_end */
  int end_thread;
  uint64_t end_block;
  GHashTable *frames; /* pc -> struct frame *, after resolve */
};

/* ---- hashing --------------------------------------------------------------- */

static guint mix(uint64_t h)
{
  h ^= h >> 33;
  h *= UINT64_C(0xff51afd7ed558ccd);
  h ^= h >> 33;
  return (guint)h;
}

static guint site_hash(gconstpointer p)
{
  const struct site *s = p;
  return mix(s->pc * 31 + s->lr);
}

static gboolean site_equal(gconstpointer a, gconstpointer b)
{
  return memcmp(a, b, sizeof(struct site)) == 0;
}

static guint finding_key_hash(gconstpointer p)
{
  const struct finding_key *k = p;
  return mix(((uint64_t)k->kind << 56) ^ ((uint64_t)k->stride << 32) ^ k->flush_pc ^
             (k->writer_pc * 7));
}

static gboolean finding_key_equal(gconstpointer a, gconstpointer b)
{
  const struct finding_key *x = a, *y = b;
  return x->kind == y->kind && x->stride == y->stride && x->flush_pc == y->flush_pc &&
         x->writer_pc == y->writer_pc;
}

static guint ctr_key_hash(gconstpointer p)
{
  const struct ctr_site_key *k = p;
  return mix(k->pc ^ (k->value * 7) ^ ((uint64_t)k->cpu << 40));
}

static gboolean ctr_key_equal(gconstpointer a, gconstpointer b)
{
  const struct ctr_site_key *x = a, *y = b;
  return x->pc == y->pc && x->value == y->value && x->cpu == y->cpu;
}

/* ---- life ------------------------------------------------------------------ */

static void finding_free(gpointer p)
{
  struct finding *f = p;
  g_hash_table_destroy(f->words);
  g_array_unref(f->callers);
  if (f->writers) {
    g_array_unref(f->writers);
  }
  g_free(f);
}

static void frame_free(gpointer p)
{
  struct emu_frame_names *fr = p;
  g_free(fr->symbol);
  g_free(fr->raw_symbol);
  g_free(fr->location);
  g_free(fr->module);
  g_free(fr);
}

static void mapping_free(gpointer p)
{
  struct mapping *m = p;
  g_free(m->path);
  g_free(m->build_id);
  g_free(m);
}

struct emu_findings *emu_findings_new(const struct emu_config *cfg)
{
  struct emu_findings *f = g_new0(struct emu_findings, 1);
  f->cfg = cfg;
  f->sites = g_array_new(false, true, sizeof(struct site));
  g_array_set_size(f->sites, 1);
  f->site_ids = g_hash_table_new_full(site_hash, site_equal, g_free, NULL);
  f->findings = g_ptr_array_new_with_free_func(finding_free);
  f->absorbed = g_ptr_array_new_with_free_func(finding_free);
  f->by_key = g_hash_table_new(finding_key_hash, finding_key_equal);
  f->stale_kept = g_array_new(false, true, sizeof(struct stale_entry));
  f->ctr_sites = g_ptr_array_new_with_free_func(g_free);
  f->ctr_by_key = g_hash_table_new(ctr_key_hash, ctr_key_equal);
  f->mappings = g_ptr_array_new_with_free_func(mapping_free);
  f->last_stale = g_array_new(false, true, sizeof(struct last_stale));
  f->frames = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, frame_free);
  return f;
}

void emu_findings_free(struct emu_findings *f)
{
  if (!f) {
    return;
  }
  /* The indexes first: they point into the arrays. */
  g_clear_pointer(&f->site_ids, g_hash_table_destroy);
  g_clear_pointer(&f->by_key, g_hash_table_destroy);
  g_clear_pointer(&f->ctr_by_key, g_hash_table_destroy);
  g_clear_pointer(&f->frames, g_hash_table_destroy);
  g_clear_pointer(&f->sites, g_array_unref);
  g_clear_pointer(&f->findings, g_ptr_array_unref);
  g_clear_pointer(&f->absorbed, g_ptr_array_unref);
  g_clear_pointer(&f->stale_kept, g_array_unref);
  g_clear_pointer(&f->ctr_sites, g_ptr_array_unref);
  g_clear_pointer(&f->mappings, g_ptr_array_unref);
  g_clear_pointer(&f->last_stale, g_array_unref);
  g_free(f->reproduce);
  g_free(f->sarif_root);
  g_free(f);
}

/* ---- recording ------------------------------------------------------------- */

void emu_findings_restart(struct emu_findings *f)
{
  g_hash_table_remove_all(f->by_key);
  g_ptr_array_set_size(f->findings, 0);
  f->last = NULL;
  g_array_set_size(f->stale_kept, 0);
  f->stale_total = 0;
  f->omitted_stale = 0;
  g_hash_table_remove_all(f->ctr_by_key);
  g_ptr_array_set_size(f->ctr_sites, 0);
}

uint32_t emu_findings_site(struct emu_findings *f, uint64_t pc, uint64_t lr)
{
  struct site key = {pc, lr};
  gpointer id = g_hash_table_lookup(f->site_ids, &key);
  if (id) {
    return GPOINTER_TO_UINT(id);
  }
  uint32_t n = f->sites->len;
  g_array_append_val(f->sites, key);
  g_hash_table_insert(f->site_ids, g_memdup2(&key, sizeof(key)), GUINT_TO_POINTER(n));
  return n;
}

static struct finding *finding_new(const struct finding_key *key, unsigned cpu,
                                   const struct jf_verdict *v)
{
  struct finding *fd = g_new0(struct finding, 1);
  fd->key = *key;
  fd->writer_pc = v->writer_pc;
  fd->fetch_cpu = cpu;
  fd->writer_cluster = v->writer_cluster;
  fd->line = v->line;
  fd->words = g_hash_table_new(g_direct_hash, g_direct_equal);
  fd->callers = g_array_new(false, false, sizeof(struct caller));
  memset(fd->seen, 0xff, sizeof(fd->seen));
  return fd;
}

static struct finding *finding_for(struct emu_findings *f, const struct finding_key *key,
                                   unsigned cpu, const struct jf_verdict *v)
{
  if (f->last && finding_key_equal(&f->last->key, key)) {
    return f->last;
  }
  struct finding *fd = g_hash_table_lookup(f->by_key, key);
  if (!fd && f->findings->len >= EMU_FINDINGS_KEEP) {
    return NULL;
  }
  if (!fd) {
    fd = finding_new(key, cpu, v);
    g_ptr_array_add(f->findings, fd);
    g_hash_table_insert(f->by_key, &fd->key, fd);
  }
  f->last = fd;
  return fd;
}

/* Counts N stale fetches for the caller LR: callers are few, and a JIT
 * re-runs the same stale words, so the previous one is checked first. */
static void count_caller(struct finding *fd, uint64_t lr, uint64_t n)
{
  GArray *c = fd->callers;
  if (fd->last_caller < c->len && g_array_index(c, struct caller, fd->last_caller).lr == lr) {
    g_array_index(c, struct caller, fd->last_caller).count += n;
    return;
  }
  for (guint i = 0; i < c->len; i++) {
    if (g_array_index(c, struct caller, i).lr == lr) {
      g_array_index(c, struct caller, i).count += n;
      fd->last_caller = i;
      return;
    }
  }
  struct caller one = {lr, n};
  g_array_append_val(c, one);
  fd->last_caller = c->len - 1;
}

/* What every stale fetch records before its finding: the totals, the
 * report's first words and the thread's last stale fetch. */
static void record_fetch(struct emu_findings *f, uint64_t va, unsigned cpu, unsigned thread,
                         enum jf_stale_kind kind, const struct finding_key *key)
{
  f->stale_total++;
  if (f->stale_kept->len < STALE_KEEP) {
    struct stale_entry e = {va, cpu, thread, kind};
    g_array_append_val(f->stale_kept, e);
  }
  if (thread >= f->last_stale->len) {
    g_array_set_size(f->last_stale, thread + 1);
  }
  struct last_stale *last = &g_array_index(f->last_stale, struct last_stale, thread);
  last->key = *key;
  last->va = va;
  last->seq = f->stale_total;
}

void emu_findings_record_memo(struct emu_findings *f, uint64_t va, unsigned cpu, unsigned thread,
                              const struct jf_verdict *v, struct emu_stale_repeat *r)
{
  const struct site *s = &g_array_index(f->sites, struct site, v->flush_site);
  struct finding_key key = {
      .kind = v->kind,
      .stride = v->stride,
      .flush_pc = v->flush_site == JF_MODEL_NO_SITE ? 0 : s->pc,
      .writer_pc = v->flush_site == JF_MODEL_NO_SITE ? v->writer_pc : 0,
  };
  record_fetch(f, va, cpu, thread, v->kind, &key);
  struct finding *fd = finding_for(f, &key, cpu, v);
  if (r) {
    *r = (struct emu_stale_repeat){fd, s->lr, f->settles, v->kind,
                                   v->flush_site != JF_MODEL_NO_SITE};
  }
  if (!fd) {
    f->omitted_stale++;
    return;
  }
  fd->count++;
  if (v->line < fd->line) {
    /* The smallest line missed is the one a stride stepped over: cores and
     * writers with larger lines share the root cause but not the reason. */
    fd->line = v->line;
    fd->fetch_cpu = cpu;
    fd->writer_cluster = v->writer_cluster;
  }
  if (v->flush_site != JF_MODEL_NO_SITE) {
    count_caller(fd, s->lr, 1);
  }
  uint64_t *slot = &fd->seen[(va >> 2) % SEEN_SLOTS];
  if (*slot == va) {
    return;
  }
  *slot = va;
  /* A word's writer is the store that had last written it when it was
   * first fetched stale: the same with the fast path as with check=full,
   * which call the model at different fetches. */
  if (g_hash_table_contains(fd->words, GSIZE_TO_POINTER(va))) {
    return;
  }
  g_hash_table_insert(fd->words, GSIZE_TO_POINTER(va), GSIZE_TO_POINTER(v->writer_pc));
  if (fd->nexamples < EXAMPLES_KEEP) {
    fd->examples[fd->nexamples++] = va;
  }
}

void emu_findings_record(struct emu_findings *f, uint64_t va, unsigned cpu, unsigned thread,
                         const struct jf_verdict *v)
{
  emu_findings_record_memo(f, va, cpu, thread, v, NULL);
}

/* The same steps as emu_findings_record_memo with the same verdict, less
 * what the first fetch already settled: the key is the finding's own (no
 * settle since), the line cannot shrink, and VA is among its words. */
bool emu_findings_repeat(struct emu_findings *f, const struct emu_stale_repeat *r, uint64_t va,
                         unsigned cpu, unsigned thread)
{
  struct finding *fd = r->finding;
  if (!fd || r->settles != f->settles) {
    return false;
  }
  record_fetch(f, va, cpu, thread, r->kind, &fd->key);
  f->last = fd;
  fd->count++;
  if (r->caller) {
    count_caller(fd, r->lr, 1);
  }
  fd->seen[(va >> 2) % SEEN_SLOTS] = va;
  return true;
}

void emu_findings_ctr_read(struct emu_findings *f, uint64_t pc, unsigned cpu, uint64_t value)
{
  struct ctr_site_key key = {pc, value, cpu};
  struct ctr_site *s = g_hash_table_lookup(f->ctr_by_key, &key);
  if (!s) {
    s = g_new0(struct ctr_site, 1);
    s->key = key;
    g_ptr_array_add(f->ctr_sites, s);
    g_hash_table_insert(f->ctr_by_key, &s->key, s);
  }
  s->count++;
}

void emu_findings_add_mapping(struct emu_findings *f, const char *path, uint64_t start,
                              uint64_t end, uint64_t load_base, const char *build_id)
{
  struct mapping *m = g_new0(struct mapping, 1);
  m->path = g_strdup(path);
  m->start = start;
  m->end = end;
  m->load_base = load_base;
  m->build_id = g_strdup(build_id);
  g_ptr_array_add(f->mappings, m);
}

void emu_findings_set_reproduce(struct emu_findings *f, const char *command)
{
  g_free(f->reproduce);
  f->reproduce = g_strdup(command);
}

void emu_findings_set_sarif_root(struct emu_findings *f, const char *root)
{
  g_free(f->sarif_root);
  f->sarif_root = root ? g_strdup(root) : NULL;
  /* "dir/" and "dir" name the same root. */
  while (f->sarif_root && strlen(f->sarif_root) > 1 && g_str_has_suffix(f->sarif_root, "/")) {
    f->sarif_root[strlen(f->sarif_root) - 1] = '\0';
  }
}

void emu_findings_note_exit(struct emu_findings *f)
{
  f->exit_called = true;
}

void emu_findings_note_end(struct emu_findings *f, int thread, uint64_t block)
{
  f->end_noted = true;
  f->end_thread = thread;
  f->end_block = block;
}

uint64_t emu_findings_omitted_stale(const struct emu_findings *f)
{
  return f->omitted_stale;
}

uint64_t emu_findings_stale_total(const struct emu_findings *f)
{
  return f->stale_total;
}

/* ---- settling ---------------------------------------------------------------- */

/*
 * A call of a flush routine that made one or two operations shows no
 * stride of its own (coherence.c, "Loop recognition"), yet it is the same
 * bug as the routine's other calls when the routine used one stride all
 * run: such a finding joins the one of the same kind and routine with that
 * stride. With several strides seen (a per-call CTR_EL0 read, migrated
 * between calls) nothing is guessed and it stays apart.
 */
static struct finding *strided_twin(const struct emu_findings *f, const struct finding *fd)
{
  struct finding *twin = NULL;
  for (guint i = 0; i < f->findings->len; i++) {
    struct finding *o = g_ptr_array_index(f->findings, i);
    if (o == fd || o->key.kind != fd->key.kind || o->key.flush_pc != fd->key.flush_pc ||
        !o->key.stride) {
      continue;
    }
    if (twin && twin->key.stride != o->key.stride) {
      return NULL;
    }
    twin = o;
  }
  return twin;
}

static void absorb(struct finding *into, struct finding *fd)
{
  into->count += fd->count;
  GHashTableIter it;
  gpointer word, writer;
  g_hash_table_iter_init(&it, fd->words);
  while (g_hash_table_iter_next(&it, &word, &writer)) {
    if (!g_hash_table_contains(into->words, word)) {
      g_hash_table_insert(into->words, word, writer);
      if (into->nexamples < EXAMPLES_KEEP) {
        into->examples[into->nexamples++] = GPOINTER_TO_SIZE(word);
      }
    }
  }
  for (guint i = 0; i < fd->callers->len; i++) {
    const struct caller *c = &g_array_index(fd->callers, struct caller, i);
    count_caller(into, c->lr, c->count);
  }
}

static gint writer_by_words(gconstpointer a, gconstpointer b)
{
  const struct writer *x = a, *y = b;
  if (x->words != y->words) {
    return x->words > y->words ? -1 : 1;
  }
  return x->pc < y->pc ? -1 : x->pc > y->pc;
}

/* FD's writers, from the store that last wrote each word. */
static void count_writers(struct finding *fd)
{
  GHashTable *per = g_hash_table_new(g_direct_hash, g_direct_equal);
  GHashTableIter it;
  gpointer word, writer;
  g_hash_table_iter_init(&it, fd->words);
  while (g_hash_table_iter_next(&it, &word, &writer)) {
    gpointer n = g_hash_table_lookup(per, writer);
    g_hash_table_insert(per, writer, GUINT_TO_POINTER(GPOINTER_TO_UINT(n) + 1));
  }
  if (fd->writers) {
    g_array_unref(fd->writers);
  }
  fd->writers = g_array_new(false, false, sizeof(struct writer));
  g_hash_table_iter_init(&it, per);
  gpointer n;
  while (g_hash_table_iter_next(&it, &writer, &n)) {
    struct writer w = {GPOINTER_TO_SIZE(writer), GPOINTER_TO_UINT(n)};
    if (w.pc) {
      g_array_append_val(fd->writers, w);
    }
  }
  g_array_sort(fd->writers, writer_by_words);
  g_hash_table_destroy(per);
}

static gint caller_by_count(gconstpointer a, gconstpointer b)
{
  const struct caller *x = a, *y = b;
  if (x->count != y->count) {
    return x->count > y->count ? -1 : 1;
  }
  return x->lr < y->lr ? -1 : x->lr > y->lr;
}

/* Joins the strideless findings to their routine's stride, and puts each
 * finding's callers and writers in the order the reports show them. */
static void settle(struct emu_findings *f)
{
  f->settles++;
  for (guint i = 0; i < f->findings->len;) {
    struct finding *fd = g_ptr_array_index(f->findings, i);
    struct finding *twin = fd->key.flush_pc && !fd->key.stride ? strided_twin(f, fd) : NULL;
    if (!twin) {
      i++;
      continue;
    }
    absorb(twin, fd);
    /* Later stale fetches of the same key go straight to the twin. */
    g_hash_table_insert(f->by_key, &fd->key, twin);
    g_ptr_array_add(f->absorbed, g_ptr_array_steal_index(f->findings, i));
  }
  f->last = NULL;
  for (guint i = 0; i < f->findings->len; i++) {
    struct finding *fd = g_ptr_array_index(f->findings, i);
    g_array_sort(fd->callers, caller_by_count);
    fd->last_caller = 0;
    count_writers(fd);
  }
}

unsigned emu_findings_count(struct emu_findings *f)
{
  settle(f);
  return f->findings->len;
}

/* ---- names ----------------------------------------------------------------- */

/* The call instruction before a return address (A64 instructions are 4
 * bytes), which is what a caller frame should name. */
static uint64_t call_site_of(uint64_t lr)
{
  return lr >= 4 ? lr - 4 : 0;
}

static void resolve_pc(struct emu_findings *f, uint64_t pc, emu_symbolize_fn fn, void *ctx)
{
  if (!pc || g_hash_table_contains(f->frames, GSIZE_TO_POINTER(pc))) {
    return;
  }
  struct emu_frame_names *fr = g_new0(struct emu_frame_names, 1);
  if (fn) {
    fn(pc, fr, ctx);
  }
  g_hash_table_insert(f->frames, GSIZE_TO_POINTER(pc), fr);
}

void emu_findings_resolve(struct emu_findings *f, emu_symbolize_fn fn, void *ctx)
{
  settle(f);
  for (guint i = 0; i < f->findings->len; i++) {
    const struct finding *fd = g_ptr_array_index(f->findings, i);
    resolve_pc(f, fd->writer_pc, fn, ctx);
    for (guint w = 0; w < fd->writers->len; w++) {
      resolve_pc(f, g_array_index(fd->writers, struct writer, w).pc, fn, ctx);
    }
    resolve_pc(f, fd->key.flush_pc, fn, ctx);
    for (guint c = 0; c < fd->callers->len; c++) {
      resolve_pc(f, call_site_of(g_array_index(fd->callers, struct caller, c).lr), fn, ctx);
    }
  }
  for (guint i = 0; i < f->ctr_sites->len; i++) {
    const struct ctr_site *s = g_ptr_array_index(f->ctr_sites, i);
    resolve_pc(f, s->key.pc, fn, ctx);
  }
  resolve_pc(f, f->end_block, fn, ctx);
}

static const struct emu_frame_names *frame_of(const struct emu_findings *f, uint64_t pc)
{
  static const struct emu_frame_names none = {0};
  const struct emu_frame_names *fr = g_hash_table_lookup(f->frames, GSIZE_TO_POINTER(pc));
  return fr ? fr : &none;
}

/* ---- what a finding says ----------------------------------------------------- */

static gint by_count_desc(gconstpointer a, gconstpointer b)
{
  const struct finding *x = *(struct finding *const *)a;
  const struct finding *y = *(struct finding *const *)b;
  if (x->count != y->count) {
    return x->count > y->count ? -1 : 1;
  }
  return x->key.kind < y->key.kind ? -1 : x->key.kind > y->key.kind;
}

/* The findings, most stale fetches first (a new array of borrowed items). */
static GPtrArray *sorted(const struct emu_findings *f)
{
  GPtrArray *out = g_ptr_array_sized_new(f->findings->len);
  for (guint i = 0; i < f->findings->len; i++) {
    g_ptr_array_add(out, g_ptr_array_index(f->findings, i));
  }
  g_ptr_array_sort(out, by_count_desc);
  return out;
}

static const char *core_of_cluster(const struct emu_findings *f, unsigned cluster)
{
  const struct emu_cluster *cl = &f->cfg->clusters[cluster];
  return cl->core ? cl->core : cl->name;
}

static const char *core_of_cpu(const struct emu_findings *f, unsigned cpu)
{
  return core_of_cluster(f, (unsigned)f->cfg->cpus[cpu].cluster);
}

/* Whether KIND's `line` is the writing core's D-cache line (the clean
 * steps), else the fetching core's I-cache line (model: jf_model_fetch). */
static bool d_side(enum jf_stale_kind kind)
{
  return kind == JF_STALE_NOT_CLEANED || kind == JF_STALE_CLEAN_NOT_COMPLETED ||
         kind == JF_STALE_CLEAN_NOT_ORDERED;
}

/* Whether FD is a loop that stepped over lines: its stride exceeds the
 * line it missed. */
static bool stepped_over(const struct finding *fd)
{
  return (fd->key.kind == JF_STALE_NOT_INVALIDATED_IN_GEOMETRY ||
          fd->key.kind == JF_STALE_NOT_CLEANED) &&
         fd->key.stride > fd->line;
}

static uint64_t distance(uint64_t a, uint64_t b)
{
  return a > b ? a - b : b - a;
}

/* The CTR_EL0 read that the stride of FD's loop came from: a read whose
 * IminLine (DminLine for a clean loop) is the stride, preferably on a
 * cluster other than the fetching CPU's, where the value differs, and then
 * the one nearest the flush instruction: a routine that latches the line
 * size reads it itself (libgcc's __aarch64_sync_cache_range), while other
 * code may read the same value for its own use (HotSpot's VM_Version).
 * NULL when no read explains it (a hard-coded stride). */
static const struct ctr_site *stride_source(const struct emu_findings *f, const struct finding *fd)
{
  if (!stepped_over(fd)) {
    return NULL;
  }
  const struct ctr_site *best = NULL;
  bool best_elsewhere = false;
  unsigned fetch_cluster = (unsigned)f->cfg->cpus[fd->fetch_cpu].cluster;
  for (guint i = 0; i < f->ctr_sites->len; i++) {
    const struct ctr_site *s = g_ptr_array_index(f->ctr_sites, i);
    struct jf_ctr d = jf_ctr_decode(s->key.value);
    if ((d_side(fd->key.kind) ? d.dline : d.iline) != fd->key.stride) {
      continue;
    }
    bool elsewhere = (unsigned)f->cfg->cpus[s->key.cpu].cluster != fetch_cluster;
    if (!best || (elsewhere && !best_elsewhere) ||
        (elsewhere == best_elsewhere &&
         distance(s->key.pc, fd->key.flush_pc) < distance(best->key.pc, fd->key.flush_pc))) {
      best = s;
      best_elsewhere = elsewhere;
    }
  }
  return best;
}

static const char *times(uint64_t n)
{
  return n == 1 ? "once" : n == 2 ? "twice" : NULL;
}

/* "CTR_EL0 read once on cpu 7 (Exynos M1)" */
static void append_ctr_read(GString *out, const struct emu_findings *f, const struct ctr_site *s)
{
  g_string_append(out, "CTR_EL0 read ");
  if (times(s->count)) {
    g_string_append(out, times(s->count));
  } else {
    g_string_append_printf(out, "%" PRIu64 " times", s->count);
  }
  g_string_append_printf(out, " on cpu %u (%s)", s->key.cpu, core_of_cpu(f, s->key.cpu));
}

/* The one sentence that says what went wrong and what to do about it. */
static char *message(const struct emu_findings *f, const struct finding *fd)
{
  const char *core = core_of_cpu(f, fd->fetch_cpu);
  const char *writer_core = core_of_cluster(f, fd->writer_cluster);
  const struct ctr_site *src = stride_source(f, fd);
  GString *from = g_string_new(NULL);
  if (src) {
    g_string_append(from, "it came from ");
    append_ctr_read(from, f, src);
    g_string_append(from, " (stride_source)");
  } else {
    g_string_append(from, "it was probably read from CTR_EL0 on a core with larger lines "
                          "(see ctr_read_sites)");
  }
  char *out;
  switch ((enum jf_stale_kind)fd->key.kind) {
  case JF_STALE_NOT_CLEANED:
    if (stepped_over(fd)) {
      out = g_strdup_printf("The clean loop steps %u bytes but the writing %s's D-cache lines "
                            "are %u bytes, so dc cvau never reached these words: %s; step by "
                            "the smallest DminLine of every core.",
                            fd->key.stride, writer_core, fd->line, from->str);
    } else {
      out = g_strdup("These words were written and then fetched without a dc cvau reaching "
                     "them: clean every D-cache line of the new code to the Point of "
                     "Unification first.");
    }
    break;
  case JF_STALE_CLEAN_NOT_COMPLETED:
    out = g_strdup("dc cvau was issued but no dsb completed it before the invalidate and the "
                   "fetch: put dsb ish after the clean loop.");
    break;
  case JF_STALE_CLEAN_NOT_ORDERED:
    out = g_strdup("Another thread wrote this code; this thread cleaned it after reading the "
                   "flag that published it, with nothing ordering the dc after that load "
                   "(a dmb ld, a dmb st or a load-acquire does not): put dmb ish (or dsb ish) "
                   "between the load and the clean loop, or clean in the thread that wrote "
                   "the code.");
    break;
  case JF_STALE_INVALIDATED_BEFORE_CLEAN:
    out = g_strdup("ic ivau was issued before a dsb completed the clean, so the I-cache may "
                   "refill from the stale copy: put dsb ish between the clean and the "
                   "invalidate loops.");
    break;
  case JF_STALE_INVALIDATE_NOT_COMPLETED:
    out = g_strdup("ic ivau was issued but no dsb completed it before the fetch: put dsb ish "
                   "after the invalidate loop.");
    break;
  case JF_STALE_NOT_INVALIDATED_IN_GEOMETRY:
    if (stepped_over(fd)) {
      out = g_strdup_printf("The invalidate loop steps %u bytes but this %s's I-cache lines are "
                            "%u bytes, so every line between two steps was never invalidated "
                            "on it: %s; step by the smallest IminLine of every core.",
                            fd->key.stride, core, fd->line, from->str);
    } else if (fd->key.flush_pc) {
      out = g_strdup_printf("This routine's ic ivau reached the code around these words but not "
                            "their %u-byte I-cache lines on this %s: the range it was given "
                            "ends short of the new code, or its start was not aligned down to "
                            "the line.",
                            fd->line, core);
    } else {
      out = g_strdup_printf("No ic ivau covered these words in this %s's %u-byte I-cache lines "
                            "after they were written: invalidate every line of the new code.",
                            core, fd->line);
    }
    break;
  case JF_STALE_NONEXEC_ALIAS:
    out = g_strdup_printf("The invalidate went through the writable, non-executable view of "
                          "double-mapped code, and this %s's VIPT I-cache is indexed by the "
                          "executable address: invalidate through the executable view.",
                          core);
    break;
  case JF_STALE_OTHER_EXEC_VIEW:
    out = g_strdup_printf("The invalidate went through another executable view of these "
                          "double-mapped pages, and this %s's VIPT I-cache is indexed by the "
                          "address the code is fetched from: invalidate through every "
                          "executable view the code runs from.",
                          core);
    break;
  case JF_STALE_NOT_SYNCHRONISED:
    out = g_strdup("The maintenance completed, but the fetching thread did not synchronise its "
                   "pipeline (isb, a system call, or membarrier SYNC_CORE from the writer) "
                   "before running the new code.");
    break;
  default:
    out = g_strdup("unknown");
    break;
  }
  g_string_free(from, true);
  return out;
}

/* ---- a crash ---------------------------------------------------------------- */

/* Whether the guest died of a signal after stale fetches: it ended without
 * calling exit_group. */
static bool died(const struct emu_findings *f)
{
  return f->end_noted && !f->exit_called && f->findings->len > 0;
}

/* The last stale fetch of the thread that ended the process, else NULL. */
static const struct last_stale *crash_stale(const struct emu_findings *f)
{
  if (f->end_thread < 0 || (guint)f->end_thread >= f->last_stale->len) {
    return NULL;
  }
  const struct last_stale *l = &g_array_index(f->last_stale, struct last_stale, f->end_thread);
  return l->seq ? l : NULL;
}

/* The number (from 1, in the reports' order) of the finding KEY went to;
 * 0 when that root cause was not kept. */
static unsigned finding_number(const struct emu_findings *f, const struct finding_key *key)
{
  const struct finding *fd = g_hash_table_lookup(f->by_key, key);
  unsigned n = 0;
  GPtrArray *list = sorted(f);
  for (guint i = 0; fd && i < list->len && !n; i++) {
    n = g_ptr_array_index(list, i) == fd ? i + 1 : 0;
  }
  g_ptr_array_unref(list);
  return n;
}

/* ---- text ------------------------------------------------------------------ */

/* "0xPC function+0x48 file:line (module+0xoffset)", as sanitizers print a
 * frame: the module and offset name the code even with no symbol. */
static void append_frame(GString *out, uint64_t pc, const struct emu_frame_names *fr)
{
  g_string_append_printf(out, "0x%" PRIx64 " %s", pc, fr->symbol ? fr->symbol : "(no symbol)");
  if (fr->location) {
    g_string_append_printf(out, " %s", fr->location);
  }
  if (fr->module) {
    const char *base = strrchr(fr->module, '/');
    g_string_append_printf(out, " (%s+0x%" PRIx64 ")", base ? base + 1 : fr->module, fr->offset);
  }
}

static void text_frame(GString *out, const char *label, uint64_t pc,
                       const struct emu_frame_names *fr, const char *tail)
{
  g_string_append_printf(out, "    %-7s ", label);
  append_frame(out, pc, fr);
  g_string_append_printf(out, "%s\n", tail ? tail : "");
}

static void text_flush(GString *out, const struct emu_findings *f, const struct finding *fd)
{
  if (!fd->key.flush_pc) {
    g_string_append(out, "    flush   none reached these words\n");
    return;
  }
  text_frame(out, "flush", fd->key.flush_pc, frame_of(f, fd->key.flush_pc), NULL);
  if (fd->key.stride) {
    g_string_append_printf(out, "            loop stride %u bytes", fd->key.stride);
    const struct ctr_site *src = stride_source(f, fd);
    if (src) {
      struct jf_ctr d = jf_ctr_decode(src->key.value);
      g_string_append(out, ": ");
      append_ctr_read(out, f, src);
      g_string_append(out, " at ");
      append_frame(out, src->key.pc, frame_of(f, src->key.pc));
      g_string_append_printf(out, ", %s %u bytes, used on cpu %u (%s, %u)",
                             d_side(fd->key.kind) ? "DminLine" : "IminLine",
                             d_side(fd->key.kind) ? d.dline : d.iline, fd->fetch_cpu,
                             core_of_cpu(f, fd->fetch_cpu), fd->line);
    }
    g_string_append_c(out, '\n');
  }
  for (guint i = 0; i < fd->callers->len && i < CALLERS_SHOWN; i++) {
    const struct caller *c = &g_array_index(fd->callers, struct caller, i);
    if (!c->lr) {
      continue;
    }
    char *tail =
        fd->callers->len > 1 ? g_strdup_printf(" [%" PRIu64 " stale fetches]", c->count) : NULL;
    text_frame(out, "called", call_site_of(c->lr), frame_of(f, call_site_of(c->lr)), tail);
    g_free(tail);
  }
  if (fd->callers->len > CALLERS_SHOWN) {
    g_string_append_printf(out, "            and %u more callers (in the JSON report)\n",
                           fd->callers->len - CALLERS_SHOWN);
  }
}

static void text_writers(GString *out, const struct emu_findings *f, const struct finding *fd)
{
  if (!fd->writers || fd->writers->len <= 1) {
    text_frame(out, "writer", fd->writer_pc, frame_of(f, fd->writer_pc), NULL);
    return;
  }
  for (guint i = 0; i < fd->writers->len && i < WRITERS_SHOWN; i++) {
    const struct writer *w = &g_array_index(fd->writers, struct writer, i);
    char *tail = g_strdup_printf(" [%u words]", w->words);
    text_frame(out, "writer", w->pc, frame_of(f, w->pc), tail);
    g_free(tail);
  }
  if (fd->writers->len > WRITERS_SHOWN) {
    g_string_append_printf(out, "            and %u more writers (in the JSON report)\n",
                           fd->writers->len - WRITERS_SHOWN);
  }
}

static void text_crash(GString *out, const struct emu_findings *f)
{
  if (!died(f)) {
    return;
  }
  g_string_append(out, "==jitflush-emu== CRASH: the program died of a signal (it never called "
                       "exit_group)");
  if (f->end_thread >= 0) {
    g_string_append_printf(out, " in thread %d", f->end_thread);
  }
  if (f->end_block) {
    g_string_append(out, ", in the block at ");
    append_frame(out, f->end_block, frame_of(f, f->end_block));
  }
  g_string_append_c(out, '\n');
  const struct last_stale *l = crash_stale(f);
  if (!l) {
    g_string_append(out, "    that thread fetched no stale word; the findings above are in other "
                         "threads\n");
    return;
  }
  unsigned n = finding_number(f, &l->key);
  g_string_append_printf(out, "    its last stale fetch, 0x%" PRIx64 ", was of ", l->va);
  if (n) {
    g_string_append_printf(out, "finding #%u", n);
  } else {
    g_string_append(out, "a root cause not kept");
  }
  g_string_append_printf(out,
                         " (%s), %" PRIu64 " stale fetches before the end: the stale code it ran "
                         "is the likely cause\n",
                         jf_stale_kind_name(l->key.kind), f->stale_total - l->seq);
}

GString *emu_findings_text(const struct emu_findings *f)
{
  GString *out = g_string_new(NULL);
  if (f->findings->len == 0) {
    return out;
  }
  GPtrArray *list = sorted(f);
  for (guint i = 0; i < list->len; i++) {
    const struct finding *fd = g_ptr_array_index(list, i);
    g_string_append_printf(out,
                           "==jitflush-emu== STALE FETCH #%u %s: %" PRIu64
                           " stale fetches of %u words (first 0x%" PRIx64 ") on cpu %u (%s",
                           i + 1, jf_stale_kind_name(fd->key.kind), fd->count,
                           g_hash_table_size(fd->words), fd->examples[0], fd->fetch_cpu,
                           core_of_cpu(f, fd->fetch_cpu));
    if (d_side(fd->key.kind)) {
      g_string_append_printf(out, "), written on a %s (%u-byte D-cache lines)\n",
                             core_of_cluster(f, fd->writer_cluster), fd->line);
    } else {
      g_string_append_printf(out, ", %u-byte I-cache lines)\n", fd->line);
    }
    text_flush(out, f, fd);
    text_writers(out, f, fd);
    if (f->reproduce) {
      g_string_append_printf(out, "    rerun   %s\n", f->reproduce);
    }
    char *msg = message(f, fd);
    g_string_append_printf(out, "    %s\n", msg);
    g_free(msg);
  }
  text_crash(out, f);
  if (f->omitted_stale) {
    g_string_append_printf(out,
                           "==jitflush-emu== %" PRIu64 " more stale fetches of root causes beyond "
                           "the first %d, which are the only ones kept\n",
                           f->omitted_stale, EMU_FINDINGS_KEEP);
  }
  g_string_append_printf(out, "SUMMARY: jitflush-emu: %u finding%s, %" PRIu64 " stale fetches\n",
                         list->len, list->len == 1 ? "" : "s", f->stale_total);
  g_ptr_array_unref(list);
  return out;
}

/* ---- JSON ------------------------------------------------------------------ */

static JsonObject *json_frame(const struct emu_findings *f, uint64_t pc)
{
  const struct emu_frame_names *fr = frame_of(f, pc);
  JsonObject *o = json_object_new();
  emu_json_set_hex(o, "pc", pc);
  json_object_set_string_member(o, "symbol", fr->symbol);
  json_object_set_string_member(o, "location", fr->location);
  json_object_set_string_member(o, "module", fr->module);
  if (fr->module) {
    emu_json_set_hex(o, "offset", fr->offset);
  } else {
    json_object_set_null_member(o, "offset");
  }
  json_object_set_string_member(o, "raw_symbol", fr->raw_symbol);
  return o;
}

/* ONE's object for every finding, most stale fetches first. */
static JsonArray *each_finding(const struct emu_findings *f,
                               JsonObject *(*one)(const struct emu_findings *,
                                                  const struct finding *))
{
  JsonArray *out = json_array_new();
  GPtrArray *list = sorted(f);
  for (guint i = 0; i < list->len; i++) {
    json_array_add_object_element(out, one(f, g_ptr_array_index(list, i)));
  }
  g_ptr_array_unref(list);
  return out;
}

static JsonObject *json_ctr_site(const struct emu_findings *f, const struct ctr_site *s)
{
  JsonObject *o = json_frame(f, s->key.pc);
  json_object_set_int_member(o, "cpu", s->key.cpu);
  emu_json_set_hex(o, "value", s->key.value);
  json_object_set_int_member(o, "count", (gint64)s->count);
  return o;
}

static void json_flush(JsonObject *o, const struct emu_findings *f, const struct finding *fd)
{
  if (!fd->key.flush_pc) {
    json_object_set_null_member(o, "flush");
    return;
  }
  JsonObject *flush = json_frame(f, fd->key.flush_pc);
  const struct caller *top =
      fd->callers->len ? &g_array_index(fd->callers, struct caller, 0) : NULL;
  if (top && top->lr) {
    json_object_set_object_member(flush, "caller", json_frame(f, call_site_of(top->lr)));
  } else {
    json_object_set_null_member(flush, "caller");
  }
  JsonArray *callers = json_array_new();
  for (guint i = 0; i < fd->callers->len; i++) {
    const struct caller *c = &g_array_index(fd->callers, struct caller, i);
    if (!c->lr) {
      continue;
    }
    JsonObject *one = json_frame(f, call_site_of(c->lr));
    json_object_set_int_member(one, "count", (gint64)c->count);
    json_array_add_object_element(callers, one);
  }
  json_object_set_array_member(flush, "callers", callers);
  json_object_set_object_member(o, "flush", flush);
}

static JsonObject *json_finding(const struct emu_findings *f, const struct finding *fd)
{
  JsonObject *o = json_object_new();
  json_object_set_string_member(o, "kind", jf_stale_kind_name(fd->key.kind));
  json_object_set_int_member(o, "count", (gint64)fd->count);
  json_object_set_int_member(o, "words", g_hash_table_size(fd->words));
  json_object_set_int_member(o, "fetch_cpu", fd->fetch_cpu);
  json_object_set_string_member(o, "fetch_core", core_of_cpu(f, fd->fetch_cpu));
  if (fd->writer_pc) {
    json_object_set_string_member(o, "writer_core", core_of_cluster(f, fd->writer_cluster));
  } else {
    json_object_set_null_member(o, "writer_core");
  }
  json_object_set_int_member(o, "line", fd->line);
  json_object_set_string_member(o, "line_cache", d_side(fd->key.kind) ? "D" : "I");
  if (fd->key.stride) {
    json_object_set_int_member(o, "stride", fd->key.stride);
  } else {
    json_object_set_null_member(o, "stride");
  }
  const struct ctr_site *src = stride_source(f, fd);
  if (src) {
    json_object_set_object_member(o, "stride_source", json_ctr_site(f, src));
  } else {
    json_object_set_null_member(o, "stride_source");
  }
  if (fd->writer_pc) {
    json_object_set_object_member(o, "writer", json_frame(f, fd->writer_pc));
  } else {
    json_object_set_null_member(o, "writer");
  }
  JsonArray *writers = json_array_new();
  for (guint i = 0; fd->writers && i < fd->writers->len; i++) {
    const struct writer *w = &g_array_index(fd->writers, struct writer, i);
    JsonObject *one = json_frame(f, w->pc);
    json_object_set_int_member(one, "words", w->words);
    json_array_add_object_element(writers, one);
  }
  json_object_set_array_member(o, "writers", writers);
  json_flush(o, f, fd);
  JsonArray *examples = json_array_new();
  for (unsigned i = 0; i < fd->nexamples; i++) {
    json_array_add_element(examples, emu_json_hex(fd->examples[i]));
  }
  json_object_set_array_member(o, "examples", examples);
  char *msg = message(f, fd);
  json_object_set_string_member(o, "message", msg);
  g_free(msg);
  return o;
}

static JsonArray *json_mappings(const struct emu_findings *f)
{
  JsonArray *maps = json_array_new();
  for (guint i = 0; i < f->mappings->len; i++) {
    const struct mapping *m = g_ptr_array_index(f->mappings, i);
    JsonObject *o = json_object_new();
    json_object_set_string_member(o, "path", m->path);
    emu_json_set_hex(o, "start", m->start);
    emu_json_set_hex(o, "end", m->end);
    emu_json_set_hex(o, "load_base", m->load_base);
    json_object_set_string_member(o, "build_id", m->build_id);
    json_array_add_object_element(maps, o);
  }
  return maps;
}

/* The report's "crash": null unless the guest died of a signal after stale
 * fetches. */
static JsonNode *json_crash(const struct emu_findings *f)
{
  if (!died(f)) {
    return json_node_new(JSON_NODE_NULL);
  }
  JsonObject *crash = json_object_new();
  if (f->end_thread >= 0) {
    json_object_set_int_member(crash, "thread", f->end_thread);
  } else {
    json_object_set_null_member(crash, "thread");
  }
  if (f->end_block) {
    json_object_set_object_member(crash, "block", json_frame(f, f->end_block));
  } else {
    json_object_set_null_member(crash, "block");
  }
  const struct last_stale *l = crash_stale(f);
  if (l) {
    JsonObject *o = json_object_new();
    unsigned n = finding_number(f, &l->key);
    if (n) {
      json_object_set_int_member(o, "finding", n);
    } else {
      json_object_set_null_member(o, "finding");
    }
    json_object_set_string_member(o, "kind", jf_stale_kind_name(l->key.kind));
    emu_json_set_hex(o, "addr", l->va);
    json_object_set_int_member(o, "stale_fetches_after", (gint64)(f->stale_total - l->seq));
    json_object_set_object_member(crash, "last_stale", o);
  } else {
    json_object_set_null_member(crash, "last_stale");
  }
  JsonNode *node = json_node_new(JSON_NODE_OBJECT);
  json_node_take_object(node, crash);
  return node;
}

void emu_findings_json(const struct emu_findings *f, JsonObject *report)
{
  JsonArray *stale = json_array_new();
  for (guint i = 0; i < f->stale_kept->len; i++) {
    const struct stale_entry *e = &g_array_index(f->stale_kept, struct stale_entry, i);
    JsonObject *o = json_object_new();
    emu_json_set_hex(o, "addr", e->addr);
    json_object_set_int_member(o, "cpu", e->cpu);
    json_object_set_int_member(o, "thread", e->thread);
    json_object_set_string_member(o, "reason", jf_stale_kind_reason(e->kind));
    json_object_set_string_member(o, "kind", jf_stale_kind_name(e->kind));
    json_array_add_object_element(stale, o);
  }
  json_object_set_array_member(report, "stale", stale);

  json_object_set_array_member(report, "findings", each_finding(f, json_finding));
  json_object_set_int_member(report, "findings_omitted_stale", (gint64)f->omitted_stale);

  JsonArray *sites = json_array_new();
  for (guint i = 0; i < f->ctr_sites->len; i++) {
    json_array_add_object_element(sites, json_ctr_site(f, g_ptr_array_index(f->ctr_sites, i)));
  }
  json_object_set_array_member(report, "ctr_read_sites", sites);

  json_object_set_array_member(report, "mappings", json_mappings(f));
  json_object_set_member(report, "crash", json_crash(f));
}

/* ---- SARIF 2.1.0 ----------------------------------------------------------- */

/* The rules, one per kind, in enum order from JF_STALE_NOT_CLEANED. */
static const char *const rule_help[JF_STALE_KIND_COUNT] = {
    [JF_STALE_NOT_CLEANED] = "New code was fetched before dc cvau cleaned it "
                             "to the Point of Unification.",
    [JF_STALE_CLEAN_NOT_COMPLETED] = "A clean was issued but no dsb "
                                     "completed it.",
    [JF_STALE_CLEAN_NOT_ORDERED] = "Another thread's code was cleaned "
                                   "with nothing ordering the clean after "
                                   "the load that saw it.",
    [JF_STALE_INVALIDATED_BEFORE_CLEAN] = "ic ivau was issued before a dsb "
                                          "completed the clean.",
    [JF_STALE_INVALIDATE_NOT_COMPLETED] = "An invalidate was issued but no "
                                          "dsb completed it.",
    [JF_STALE_NOT_INVALIDATED_IN_GEOMETRY] =
        "The fetching core's I-cache line holding the code was never "
        "invalidated (a stride larger than its line).",
    [JF_STALE_NONEXEC_ALIAS] = "The invalidate went through a "
                               "non-executable alias of VIPT-cached code.",
    [JF_STALE_OTHER_EXEC_VIEW] = "The invalidate went through another "
                                 "executable view of VIPT-cached code.",
    [JF_STALE_NOT_SYNCHRONISED] = "The fetching thread's pipeline was not "
                                  "synchronised after the maintenance.",
};

#define SARIF_ROOT_ID "SRCROOT"

/* An artifactLocation for PATH: relative to the SARIF root (uriBaseId
 * SRCROOT) when under it, else an absolute file:// URI, else as given. */
static JsonObject *sarif_artifact(const struct emu_findings *f, const char *path)
{
  JsonObject *artifact = json_object_new();
  size_t n = f->sarif_root ? strlen(f->sarif_root) : 0;
  if (n && strncmp(path, f->sarif_root, n) == 0 && path[n] == '/') {
    json_object_set_string_member(artifact, "uri", path + n + 1);
    json_object_set_string_member(artifact, "uriBaseId", SARIF_ROOT_ID);
  } else if (g_path_is_absolute(path)) {
    char *uri = g_filename_to_uri(path, NULL, NULL);
    json_object_set_string_member(artifact, "uri", uri ? uri : path);
    g_free(uri);
  } else {
    json_object_set_string_member(artifact, "uri", path);
  }
  return artifact;
}

/* "file:line" -> a physicalLocation with a line region; NULL without one. */
static JsonObject *sarif_source(const struct emu_findings *f, const struct emu_frame_names *fr)
{
  const char *colon = fr->location ? strrchr(fr->location, ':') : NULL;
  if (!colon || !colon[1]) {
    return NULL;
  }
  char *file = g_strndup(fr->location, (gsize)(colon - fr->location));
  JsonObject *region = json_object_new();
  json_object_set_int_member(region, "startLine", g_ascii_strtoll(colon + 1, NULL, 10));
  JsonObject *physical = json_object_new();
  json_object_set_object_member(physical, "artifactLocation", sarif_artifact(f, file));
  json_object_set_object_member(physical, "region", region);
  g_free(file);
  return physical;
}

/* The mapped object and the instruction's offset in it (SARIF 3.30.12
 * byteOffset): where a frame has no source line, the binary still does. */
static JsonObject *sarif_binary(const struct emu_findings *f, const struct emu_frame_names *fr)
{
  if (!fr->module) {
    return NULL;
  }
  JsonObject *region = json_object_new();
  json_object_set_int_member(region, "byteOffset", (gint64)fr->offset);
  json_object_set_int_member(region, "byteLength", 4);
  JsonObject *physical = json_object_new();
  json_object_set_object_member(physical, "artifactLocation", sarif_artifact(f, fr->module));
  json_object_set_object_member(physical, "region", region);
  return physical;
}

/* The frames a result can be placed at, best first: the flush routine's
 * caller (the code a JIT author changes; the routine is often a library's),
 * the routine, or with no maintenance the store. */
static size_t sarif_frames(const struct emu_findings *f, const struct finding *fd,
                           const struct emu_frame_names *out[2])
{
  size_t n = 0;
  if (fd->key.flush_pc) {
    const struct caller *top =
        fd->callers->len ? &g_array_index(fd->callers, struct caller, 0) : NULL;
    if (top && top->lr) {
      out[n++] = frame_of(f, call_site_of(top->lr));
    }
    out[n++] = frame_of(f, fd->key.flush_pc);
  } else {
    out[n++] = frame_of(f, fd->writer_pc);
  }
  return n;
}

static JsonObject *sarif_location(const struct emu_findings *f, const struct finding *fd)
{
  const struct emu_frame_names *frames[2];
  size_t n = sarif_frames(f, fd, frames);
  JsonObject *physical = NULL;
  for (size_t i = 0; i < n && !physical; i++) {
    physical = sarif_source(f, frames[i]);
  }
  for (size_t i = 0; i < n && !physical; i++) {
    physical = sarif_binary(f, frames[i]);
  }
  const char *name = NULL;
  for (size_t i = 0; i < n && !name; i++) {
    name = frames[i]->symbol;
  }
  JsonObject *loc = json_object_new();
  if (physical) {
    json_object_set_object_member(loc, "physicalLocation", physical);
  }
  if (name || !physical) {
    JsonObject *logical = json_object_new();
    json_object_set_string_member(logical, "fullyQualifiedName", name ? name : "(no symbol)");
    JsonArray *logicals = json_array_new();
    json_array_add_object_element(logicals, logical);
    json_object_set_array_member(loc, "logicalLocations", logicals);
  }
  return loc;
}

/* What names PC's code across runs: the object's file name and the raw
 * symbol, else the offset in the object; generated code has no stable
 * name. Never the address, which ASLR and the seed move. */
static void append_identity(GString *out, const struct emu_findings *f, uint64_t pc)
{
  const struct emu_frame_names *fr = frame_of(f, pc);
  const char *base = fr->module ? strrchr(fr->module, '/') : NULL;
  base = base ? base + 1 : fr->module;
  if (fr->raw_symbol || fr->symbol) {
    g_string_append_printf(out, "%s:%s", base ? base : "",
                           fr->raw_symbol ? fr->raw_symbol : fr->symbol);
  } else if (base) {
    g_string_append_printf(out, "%s+0x%" PRIx64, base, fr->offset);
  } else {
    g_string_append(out, "generated-code");
  }
}

/* SARIF 3.27.17 partialFingerprints: the root cause (kind, stride, the
 * flush routine or without one the store), hashed. */
static char *fingerprint(const struct emu_findings *f, const struct finding *fd)
{
  GString *key = g_string_new(jf_stale_kind_name(fd->key.kind));
  g_string_append_printf(key, "|%u|", fd->key.stride);
  append_identity(key, f, fd->key.flush_pc ? fd->key.flush_pc : fd->writer_pc);
  char *hex = g_compute_checksum_for_string(G_CHECKSUM_SHA256, key->str, (gssize)key->len);
  g_string_free(key, true);
  hex[32] = '\0';
  return hex;
}

static JsonArray *sarif_rules(void)
{
  JsonArray *rules = json_array_new();
  for (int k = JF_STALE_NOT_CLEANED; k < JF_STALE_KIND_COUNT; k++) {
    JsonObject *rule = json_object_new();
    json_object_set_string_member(rule, "id", jf_stale_kind_name(k));
    JsonObject *text = json_object_new();
    json_object_set_string_member(text, "text", rule_help[k]);
    json_object_set_object_member(rule, "shortDescription", text);
    JsonObject *config = json_object_new();
    json_object_set_string_member(config, "level", "error");
    json_object_set_object_member(rule, "defaultConfiguration", config);
    json_array_add_object_element(rules, rule);
  }
  return rules;
}

#define SARIF_FINGERPRINT "jitflushRootCause/v1"

static JsonObject *sarif_result(const struct emu_findings *f, const struct finding *fd)
{
  JsonObject *r = json_object_new();
  json_object_set_string_member(r, "ruleId", jf_stale_kind_name(fd->key.kind));
  json_object_set_int_member(r, "ruleIndex", fd->key.kind - JF_STALE_NOT_CLEANED);
  json_object_set_string_member(r, "level", "error");
  JsonObject *text = json_object_new();
  char *msg = message(f, fd);
  json_object_set_string_member(text, "text", msg);
  g_free(msg);
  json_object_set_object_member(r, "message", text);
  JsonArray *locations = json_array_new();
  json_array_add_object_element(locations, sarif_location(f, fd));
  json_object_set_array_member(r, "locations", locations);
  JsonObject *prints = json_object_new();
  char *print = fingerprint(f, fd);
  json_object_set_string_member(prints, SARIF_FINGERPRINT, print);
  g_free(print);
  json_object_set_object_member(r, "partialFingerprints", prints);
  JsonObject *props = json_object_new();
  json_object_set_int_member(props, "count", (gint64)fd->count);
  json_object_set_int_member(props, "words", g_hash_table_size(fd->words));
  json_object_set_int_member(props, "line", fd->line);
  json_object_set_int_member(props, "stride", fd->key.stride);
  json_object_set_object_member(r, "properties", props);
  return r;
}

GString *emu_findings_sarif(const struct emu_findings *f)
{
  JsonObject *driver = json_object_new();
  json_object_set_string_member(driver, "name", "jitflush-emu");
  json_object_set_array_member(driver, "rules", sarif_rules());
  JsonObject *tool = json_object_new();
  json_object_set_object_member(tool, "driver", driver);
  JsonObject *run = json_object_new();
  json_object_set_object_member(run, "tool", tool);
  if (f->sarif_root) {
    /* SARIF 3.14.14: what SRCROOT stands for; code scanning resolves it
     * against the checkout. */
    char *uri = g_filename_to_uri(f->sarif_root, NULL, NULL);
    char *dir = g_str_has_suffix(uri ? uri : "/", "/") ? g_strdup(uri ? uri : f->sarif_root)
                                                       : g_strconcat(uri, "/", NULL);
    JsonObject *root = json_object_new();
    json_object_set_string_member(root, "uri", dir);
    JsonObject *bases = json_object_new();
    json_object_set_object_member(bases, SARIF_ROOT_ID, root);
    json_object_set_object_member(run, "originalUriBaseIds", bases);
    g_free(dir);
    g_free(uri);
  }
  if (f->reproduce) {
    /* SARIF 2.1.0 section 3.20.2, invocation.commandLine. */
    JsonObject *invocation = json_object_new();
    json_object_set_string_member(invocation, "commandLine", f->reproduce);
    json_object_set_boolean_member(invocation, "executionSuccessful", true);
    JsonArray *invocations = json_array_new();
    json_array_add_object_element(invocations, invocation);
    json_object_set_array_member(run, "invocations", invocations);
  }
  json_object_set_array_member(run, "results", each_finding(f, sarif_result));
  JsonArray *runs = json_array_new();
  json_array_add_object_element(runs, run);
  JsonObject *log = json_object_new();
  json_object_set_string_member(log, "version", "2.1.0");
  json_object_set_string_member(log, "$schema",
                                "https://docs.oasis-open.org/sarif/sarif/v2.1.0/"
                                "errata01/os/schemas/sarif-schema-2.1.0.json");
  json_object_set_array_member(log, "runs", runs);
  return emu_json_write_object(log);
}
