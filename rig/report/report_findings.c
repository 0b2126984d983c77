/*
 * Findings (report_findings.h). A stale fetch is cheap to record because a JIT
 * with one short flush executes its stale words millions of times: the
 * finding of the previous record and a small direct-mapped memory of the
 * words already counted skip both hash lookups on repeats.
 *
 * A finding is one root cause: a missing step (kind), the maintenance
 * instruction that should have covered the words (the flush routine, from
 * whichever caller) and the stride of its loop, or when none reached them
 * the store that wrote them. Cores and callers hit by the same root cause
 * share the finding; its callers and writers are listed inside.
 *
 * This file collects and groups; the names (report_findings_names.c), the advice
 * (report_findings_explain.c) and the three writers (report_findings_text.c,
 * report_findings_json.c, report_findings_sarif.c) read the records it keeps
 * (report_findings_internal.h), as tsan collects in tsan_rtl_report.cpp and
 * prints in tsan_report.cpp.
 */
#include <string.h>

#include "rig_release.h"
#include "report_findings_internal.h"

#define STALE_KEEP 100 /* the report's per-word "stale" list */

struct site {
  uint64_t pc;
  uint64_t lr;
  uint64_t frame_lr; /* the return address in the frame record at x29 */
  uint64_t unwound;  /* the one the unwind tables located, 0 without */
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
  return mix(s->pc * 31 + s->lr + s->frame_lr * 7 + s->unwound * 13);
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
  report_frame_names_clear(p);
  g_free(p);
}

/* S kept in F's strings, or NULL for NULL. */
static const char *intern(struct report_findings *f, const char *s)
{
  return s ? g_string_chunk_insert_const(f->strings, s) : NULL;
}

struct report_findings *report_findings_new(const struct rig_config *cfg)
{
  struct report_findings *f = g_new0(struct report_findings, 1);
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
  f->mappings = g_ptr_array_new_with_free_func(g_free);
  f->kernel_notes = g_ptr_array_new_with_free_func(g_free);
  f->strings = g_string_chunk_new(1024);
  f->last_stale = g_array_new(false, true, sizeof(struct last_stale));
  f->frames = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, frame_free);
  return f;
}

void report_findings_free(struct report_findings *f)
{
  if (!f) {
    return;
  }
  /* The indexes first: they point into the arrays. */
  RIG_RELEASE(g_hash_table_destroy, GHashTable, f->site_ids, f->by_key, f->ctr_by_key, f->frames);
  RIG_RELEASE(g_array_unref, GArray, f->sites, f->stale_kept, f->last_stale);
  RIG_RELEASE(g_ptr_array_unref, GPtrArray, f->findings, f->absorbed, f->ctr_sites, f->mappings,
              f->kernel_notes);
  g_string_chunk_free(f->strings);
  RIG_RELEASE(g_free, void, f->reproduce, f->rerun, f->unrecorded, f->sarif_root, f);
}

/* ---- recording ------------------------------------------------------------- */

void report_findings_restart(struct report_findings *f)
{
  g_hash_table_remove_all(f->by_key);
  g_ptr_array_set_size(f->findings, 0);
  f->last = NULL;
  g_array_set_size(f->stale_kept, 0);
  f->stale_total = 0;
  f->omitted_stale = 0;
  f->benign_total = 0;
  f->benign_first = 0;
  g_hash_table_remove_all(f->ctr_by_key);
  g_ptr_array_set_size(f->ctr_sites, 0);
}

uint32_t report_findings_site(struct report_findings *f, uint64_t pc, uint64_t lr)
{
  return report_findings_site_unwound(f, pc, lr, 0, 0);
}

uint32_t report_findings_site_framed(struct report_findings *f, uint64_t pc, uint64_t lr,
                                     uint64_t frame_lr)
{
  return report_findings_site_unwound(f, pc, lr, frame_lr, 0);
}

uint32_t report_findings_site_unwound(struct report_findings *f, uint64_t pc, uint64_t lr,
                                      uint64_t frame_lr, uint64_t unwound)
{
  struct site key = {pc, lr, frame_lr, unwound};
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
                                   const struct model_verdict *v)
{
  struct finding *fd = g_new0(struct finding, 1);
  fd->key = *key;
  fd->writer_pc = v->writer_pc;
  fd->fetch_cpu = cpu;
  fd->writer_cluster = v->writer_cluster;
  fd->line = v->line;
  fd->line_of_cleaner = v->line_of_cleaner;
  fd->cleaner_cluster = v->cleaner_cluster;
  fd->words = g_hash_table_new(g_direct_hash, g_direct_equal);
  fd->callers = g_array_new(false, false, sizeof(struct caller));
  memset(fd->seen, 0xff, sizeof(fd->seen));
  return fd;
}

static struct finding *finding_for(struct report_findings *f, const struct finding_key *key,
                                   unsigned cpu, const struct model_verdict *v)
{
  if (f->last && finding_key_equal(&f->last->key, key)) {
    return f->last;
  }
  struct finding *fd = g_hash_table_lookup(f->by_key, key);
  if (!fd && f->findings->len >= REPORT_FINDINGS_KEEP) {
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

static bool same_caller(const struct caller *c, uint64_t lr, uint64_t frame_lr, uint64_t unwound)
{
  return c->lr == lr && c->frame_lr == frame_lr && c->unwound == unwound;
}

/* Counts N stale fetches for the caller LR (FRAME_LR in the frame record,
 * UNWOUND through the unwind tables): callers are few, and a JIT re-runs
 * the same stale words, so the previous one is checked first. */
static void count_caller(struct finding *fd, uint64_t lr, uint64_t frame_lr, uint64_t unwound,
                         uint64_t n)
{
  GArray *c = fd->callers;
  if (fd->last_caller < c->len &&
      same_caller(&g_array_index(c, struct caller, fd->last_caller), lr, frame_lr, unwound)) {
    g_array_index(c, struct caller, fd->last_caller).count += n;
    return;
  }
  for (guint i = 0; i < c->len; i++) {
    if (same_caller(&g_array_index(c, struct caller, i), lr, frame_lr, unwound)) {
      g_array_index(c, struct caller, i).count += n;
      fd->last_caller = i;
      return;
    }
  }
  struct caller one = {lr, frame_lr, unwound, lr, n};
  g_array_append_val(c, one);
  fd->last_caller = c->len - 1;
}

/* What every stale fetch records before its finding: the totals, the
 * report's first words and the thread's last stale fetch; N of them, all
 * of VA. */
static void record_fetch(struct report_findings *f, uint64_t va, unsigned cpu, unsigned thread,
                         enum model_stale_kind kind, const struct finding_key *key, uint64_t n)
{
  f->stale_total += n;
  for (uint64_t i = 0; i < n && f->stale_kept->len < STALE_KEEP; i++) {
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

void report_findings_record_memo(struct report_findings *f, uint64_t va, unsigned cpu,
                                 unsigned thread, const struct model_verdict *v,
                                 struct report_stale_repeat *r)
{
  const struct site *s = &g_array_index(f->sites, struct site, v->flush_site);
  struct finding_key key = {
      .kind = v->kind,
      .stride = v->stride,
      .flush_pc = v->flush_site == MODEL_NO_SITE ? 0 : s->pc,
      .writer_pc = v->flush_site == MODEL_NO_SITE ? v->writer_pc : 0,
  };
  record_fetch(f, va, cpu, thread, v->kind, &key, 1);
  struct finding *fd = finding_for(f, &key, cpu, v);
  if (r) {
    *r = (struct report_stale_repeat){
        fd, s->lr, f->settles, v->kind, v->flush_site != MODEL_NO_SITE, s->frame_lr, s->unwound};
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
    fd->line_of_cleaner = v->line_of_cleaner;
    fd->cleaner_cluster = v->cleaner_cluster;
    fd->fetch_cpu = cpu;
    fd->writer_cluster = v->writer_cluster;
  }
  if (v->flush_site != MODEL_NO_SITE) {
    count_caller(fd, s->lr, s->frame_lr, s->unwound, 1);
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

void report_findings_record(struct report_findings *f, uint64_t va, unsigned cpu, unsigned thread,
                            const struct model_verdict *v)
{
  report_findings_record_memo(f, va, cpu, thread, v, NULL);
}

/* The same steps as report_findings_record_memo with the same verdict, less
 * what the first fetch already settled: the key is the finding's own (no
 * settle since), the line cannot shrink, and VA is among its words. */
bool report_findings_repeat(struct report_findings *f, const struct report_stale_repeat *r,
                            uint64_t va, unsigned cpu, unsigned thread)
{
  return report_findings_repeat_n(f, r, va, cpu, thread, 1);
}

bool report_findings_repeat_applies(const struct report_findings *f,
                                    const struct report_stale_repeat *r)
{
  return r->finding && r->settles == f->settles;
}

bool report_findings_keeps_more(const struct report_findings *f)
{
  return f->stale_kept->len < STALE_KEEP;
}

bool report_findings_repeat_n(struct report_findings *f, const struct report_stale_repeat *r,
                              uint64_t va, unsigned cpu, unsigned thread, uint64_t n)
{
  if (!report_findings_repeat_applies(f, r)) {
    return false;
  }
  struct finding *fd = r->finding;
  record_fetch(f, va, cpu, thread, r->kind, &fd->key, n);
  f->last = fd;
  fd->count += n;
  if (r->caller) {
    count_caller(fd, r->lr, r->frame_lr, r->unwound, n);
  }
  fd->seen[(va >> 2) % SEEN_SLOTS] = va;
  return true;
}

void report_findings_ctr_read(struct report_findings *f, uint64_t pc, unsigned cpu, uint64_t value)
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

void report_findings_add_mapping(struct report_findings *f, const char *path, uint64_t start,
                                 uint64_t end, uint64_t load_base, const char *build_id)
{
  struct mapping *m = g_new0(struct mapping, 1);
  m->path = intern(f, path);
  m->start = start;
  m->end = end;
  m->load_base = load_base;
  m->build_id = intern(f, build_id);
  g_ptr_array_add(f->mappings, m);
}

void report_findings_kernel_note(struct report_findings *f, const char *call, uint64_t pc,
                                 uint64_t lr, uint64_t pages, uint64_t words)
{
  struct kernel_note *n = g_new0(struct kernel_note, 1);
  n->call = intern(f, call);
  n->pc = pc;
  n->lr = lr;
  n->pages = pages;
  n->words = words;
  g_ptr_array_add(f->kernel_notes, n);
}

void report_findings_benign(struct report_findings *f, uint64_t va)
{
  report_findings_benign_n(f, va, 1);
}

void report_findings_benign_n(struct report_findings *f, uint64_t va, uint64_t n)
{
  if (f->benign_total == 0 && n) {
    f->benign_first = va;
  }
  f->benign_total += n;
}

uint64_t report_findings_benign_total(const struct report_findings *f)
{
  return f->benign_total;
}

void report_findings_clear_kernel_notes(struct report_findings *f)
{
  g_ptr_array_set_size(f->kernel_notes, 0);
}

void report_findings_clear_mappings(struct report_findings *f)
{
  g_ptr_array_set_size(f->mappings, 0);
}

void report_findings_set_reproduce(struct report_findings *f, const char *command)
{
  g_free(f->reproduce);
  f->reproduce = g_strdup(command);
}

void report_findings_set_rerun(struct report_findings *f, const char *command,
                               const char *unrecorded)
{
  g_free(f->rerun);
  g_free(f->unrecorded);
  f->rerun = g_strdup(command);
  f->unrecorded = g_strdup(unrecorded);
}

void report_findings_set_sarif_root(struct report_findings *f, const char *root)
{
  g_free(f->sarif_root);
  f->sarif_root = root ? g_strdup(root) : NULL;
  /* "dir/" and "dir" name the same root. */
  while (f->sarif_root && strlen(f->sarif_root) > 1 && g_str_has_suffix(f->sarif_root, "/")) {
    f->sarif_root[strlen(f->sarif_root) - 1] = '\0';
  }
}

void report_findings_note_exit(struct report_findings *f)
{
  f->exit_called = true;
}

void report_findings_note_end(struct report_findings *f, int thread, uint64_t block)
{
  f->end_noted = true;
  f->end_thread = thread;
  f->end_block = block;
}

uint64_t report_findings_omitted_stale(const struct report_findings *f)
{
  return f->omitted_stale;
}

uint64_t report_findings_stale_total(const struct report_findings *f)
{
  return f->stale_total;
}

/* ---- settling ---------------------------------------------------------------- */

/*
 * A call of a flush routine that made one or two operations shows no
 * stride of its own (model_coherence_attribution.c, "Loop recognition"), yet it is the same
 * bug as the routine's other calls when the routine used one stride all
 * run: such a finding joins the one of the same kind and routine with that
 * stride. With several strides seen (a per-call CTR_EL0 read, migrated
 * between calls) nothing is guessed and it stays apart.
 */
static struct finding *strided_twin(const struct report_findings *f, const struct finding *fd)
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
    count_caller(into, c->lr, c->frame_lr, c->unwound, c->count);
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
  return x->at < y->at ? -1 : x->at > y->at;
}

void report_findings_sort_callers(struct finding *fd)
{
  g_array_sort(fd->callers, caller_by_count);
  fd->last_caller = 0;
}

void report_findings_join(struct report_findings *f, struct finding *into, struct finding *fd)
{
  absorb(into, fd);
  g_hash_table_insert(f->by_key, &fd->key, into);
  for (guint i = 0; i < f->findings->len; i++) {
    if (g_ptr_array_index(f->findings, i) == fd) {
      g_ptr_array_add(f->absorbed, g_ptr_array_steal_index(f->findings, i));
      break;
    }
  }
  f->last = NULL;
  report_findings_sort_callers(into);
  count_writers(into);
}

/* Joins the strideless findings to their routine's stride, and puts each
 * finding's callers and writers in the order the reports show them. */
void report_findings_settle(struct report_findings *f)
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
    report_findings_sort_callers(fd);
    count_writers(fd);
  }
}

unsigned report_findings_recorded(const struct report_findings *f)
{
  return f->findings->len + f->absorbed->len;
}

unsigned report_findings_count(struct report_findings *f)
{
  report_findings_settle(f);
  return f->findings->len;
}

/* ---- the findings the reports show ------------------------------------------ */

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
GPtrArray *report_findings_sorted(const struct report_findings *f)
{
  GPtrArray *out = g_ptr_array_sized_new(f->findings->len);
  for (guint i = 0; i < f->findings->len; i++) {
    g_ptr_array_add(out, g_ptr_array_index(f->findings, i));
  }
  g_ptr_array_sort(out, by_count_desc);
  return out;
}

const char *report_findings_core_of_cluster(const struct report_findings *f, unsigned cluster)
{
  const struct rig_cluster *cl = &f->cfg->clusters[cluster];
  return cl->core ? cl->core : cl->name;
}

const char *report_findings_core_of_cpu(const struct report_findings *f, unsigned cpu)
{
  return report_findings_core_of_cluster(f, (unsigned)f->cfg->cpus[cpu].cluster);
}

/* Whether KIND's `line` is the writing core's D-cache line (the clean
 * steps), else the fetching core's I-cache line (model: model_fetch). */
bool report_findings_d_side(enum model_stale_kind kind)
{
  return kind == MODEL_STALE_NOT_CLEANED || kind == MODEL_STALE_CLEAN_NOT_COMPLETED ||
         kind == MODEL_STALE_CLEAN_NOT_ORDERED;
}

const char *report_findings_line_core(const struct report_findings *f, const struct finding *fd)
{
  if (!report_findings_d_side(fd->key.kind)) {
    return report_findings_core_of_cpu(f, fd->fetch_cpu);
  }
  return report_findings_core_of_cluster(f, fd->line_of_cleaner ? fd->cleaner_cluster
                                                                : fd->writer_cluster);
}

/* ---- a crash ---------------------------------------------------------------- */

/* Whether the guest died of a signal after stale fetches: it ended without
 * calling exit_group. */
bool report_findings_died(const struct report_findings *f)
{
  return f->end_noted && !f->exit_called && f->findings->len > 0;
}

/* The last stale fetch of the thread that ended the process, else NULL. */
const struct last_stale *report_findings_crash_stale(const struct report_findings *f)
{
  if (f->end_thread < 0 || (guint)f->end_thread >= f->last_stale->len) {
    return NULL;
  }
  const struct last_stale *l = &g_array_index(f->last_stale, struct last_stale, f->end_thread);
  return l->seq ? l : NULL;
}

/* The number (from 1, in the reports' order) of the finding KEY went to;
 * 0 when that root cause was not kept. */
unsigned report_findings_number(const struct report_findings *f, const struct finding_key *key)
{
  const struct finding *fd = g_hash_table_lookup(f->by_key, key);
  unsigned n = 0;
  GPtrArray *list = report_findings_sorted(f);
  for (guint i = 0; fd && i < list->len && !n; i++) {
    n = g_ptr_array_index(list, i) == fd ? i + 1 : 0;
  }
  g_ptr_array_unref(list);
  return n;
}

/* ONE's object for every finding, most stale fetches first. */
JsonArray *report_findings_each(const struct report_findings *f,
                                JsonObject *(*one)(const struct report_findings *,
                                                   const struct finding *))
{
  JsonArray *out = json_array_new();
  GPtrArray *list = report_findings_sorted(f);
  for (guint i = 0; i < list->len; i++) {
    json_array_add_object_element(out, one(f, g_ptr_array_index(list, i)));
  }
  g_ptr_array_unref(list);
  return out;
}
