/*
 * Findings (findings.h). A stale fetch is cheap to record because a JIT
 * with one short flush executes its stale words millions of times: the
 * finding of the previous record and a small direct-mapped memory of the
 * words already counted skip both hash lookups on repeats.
 *
 * A finding is one root cause: a missing step (kind), the maintenance site
 * that should have covered the words (or, when none reached them, the
 * store that wrote them), and the line size of the geometry that was
 * missed, so that cores with the same lines share one finding.
 */
#include <inttypes.h>
#include <string.h>

#include "emu_json.h"
#include "findings.h"

#define STALE_KEEP 100  /* the report's per-word "stale" list */
#define EXAMPLES_KEEP 5 /* example addresses per finding */
#define SEEN_SLOTS 4096 /* per finding: recently counted words */

struct site {
  uint64_t pc;
  uint64_t lr;
};

struct finding_key {
  uint32_t kind;
  uint32_t site;
  uint64_t writer_pc; /* 0 unless the finding has no site */
  uint32_t line;      /* the geometry that was missed */
};

struct finding {
  struct finding_key key;
  uint64_t writer_pc;      /* the first store seen */
  unsigned fetch_cpu;      /* the first fetching CPU seen */
  unsigned writer_cluster; /* the cluster of the first store seen */
  unsigned line;
  unsigned stride;
  uint64_t count;
  GHashTable *words; /* distinct word addresses */
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

struct frame {
  char *symbol;
  char *location;
};

struct emu_findings {
  const struct emu_config *cfg;
  GArray *sites;        /* struct site; index 0 unused */
  GHashTable *site_ids; /* struct site * -> id */
  GPtrArray *findings;  /* struct finding * */
  GHashTable *by_key;   /* struct finding_key * -> struct finding * */
  struct finding *last;
  GArray *stale_kept; /* struct stale_entry */
  uint64_t stale_total;
  uint64_t omitted_stale; /* of root causes beyond EMU_FINDINGS_KEEP */
  char *reproduce;        /* emu_findings_set_reproduce, or NULL */
  GPtrArray *ctr_sites;   /* struct ctr_site * */
  GHashTable *ctr_by_key;
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
  return mix(((uint64_t)k->kind << 56) ^ ((uint64_t)k->site << 24) ^ k->writer_pc ^
             ((uint64_t)k->line << 40));
}

static gboolean finding_key_equal(gconstpointer a, gconstpointer b)
{
  const struct finding_key *x = a, *y = b;
  return x->kind == y->kind && x->site == y->site && x->writer_pc == y->writer_pc &&
         x->line == y->line;
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
  g_free(f);
}

static void frame_free(gpointer p)
{
  struct frame *fr = p;
  g_free(fr->symbol);
  g_free(fr->location);
  g_free(fr);
}

struct emu_findings *emu_findings_new(const struct emu_config *cfg)
{
  struct emu_findings *f = g_new0(struct emu_findings, 1);
  f->cfg = cfg;
  f->sites = g_array_new(false, true, sizeof(struct site));
  g_array_set_size(f->sites, 1);
  f->site_ids = g_hash_table_new_full(site_hash, site_equal, g_free, NULL);
  f->findings = g_ptr_array_new_with_free_func(finding_free);
  f->by_key = g_hash_table_new(finding_key_hash, finding_key_equal);
  f->stale_kept = g_array_new(false, true, sizeof(struct stale_entry));
  f->ctr_sites = g_ptr_array_new_with_free_func(g_free);
  f->ctr_by_key = g_hash_table_new(ctr_key_hash, ctr_key_equal);
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
  g_clear_pointer(&f->stale_kept, g_array_unref);
  g_clear_pointer(&f->ctr_sites, g_ptr_array_unref);
  g_free(f->reproduce);
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
    fd = g_new0(struct finding, 1);
    fd->key = *key;
    fd->writer_pc = v->writer_pc;
    fd->fetch_cpu = cpu;
    fd->writer_cluster = v->writer_cluster;
    fd->line = v->line;
    fd->words = g_hash_table_new(g_direct_hash, g_direct_equal);
    memset(fd->seen, 0xff, sizeof(fd->seen));
    g_ptr_array_add(f->findings, fd);
    g_hash_table_insert(f->by_key, &fd->key, fd);
  }
  f->last = fd;
  return fd;
}

void emu_findings_record(struct emu_findings *f, uint64_t va, unsigned cpu, unsigned thread,
                         const struct jf_verdict *v)
{
  f->stale_total++;
  if (f->stale_kept->len < STALE_KEEP) {
    struct stale_entry e = {va, cpu, thread, v->kind};
    g_array_append_val(f->stale_kept, e);
  }
  struct finding_key key = {
      .kind = v->kind,
      .site = v->flush_site,
      .writer_pc = v->flush_site == JF_MODEL_NO_SITE ? v->writer_pc : 0,
      .line = v->line,
  };
  struct finding *fd = finding_for(f, &key, cpu, v);
  if (!fd) {
    f->omitted_stale++;
    return;
  }
  fd->count++;
  if (v->stride) {
    fd->stride = v->stride;
  }
  uint64_t *slot = &fd->seen[(va >> 2) % SEEN_SLOTS];
  if (*slot == va) {
    return;
  }
  *slot = va;
  if (g_hash_table_add(fd->words, GSIZE_TO_POINTER(va)) && fd->nexamples < EXAMPLES_KEEP) {
    fd->examples[fd->nexamples++] = va;
  }
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

unsigned emu_findings_count(const struct emu_findings *f)
{
  return f->findings->len;
}

void emu_findings_set_reproduce(struct emu_findings *f, const char *command)
{
  g_free(f->reproduce);
  f->reproduce = g_strdup(command);
}

uint64_t emu_findings_omitted_stale(const struct emu_findings *f)
{
  return f->omitted_stale;
}

uint64_t emu_findings_stale_total(const struct emu_findings *f)
{
  return f->stale_total;
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
  struct frame *fr = g_new0(struct frame, 1);
  if (fn) {
    fn(pc, &fr->symbol, &fr->location, ctx);
  }
  g_hash_table_insert(f->frames, GSIZE_TO_POINTER(pc), fr);
}

void emu_findings_resolve(struct emu_findings *f, emu_symbolize_fn fn, void *ctx)
{
  for (guint i = 0; i < f->findings->len; i++) {
    const struct finding *fd = g_ptr_array_index(f->findings, i);
    const struct site *s = &g_array_index(f->sites, struct site, fd->key.site);
    resolve_pc(f, fd->writer_pc, fn, ctx);
    if (fd->key.site != JF_MODEL_NO_SITE) {
      resolve_pc(f, s->pc, fn, ctx);
      resolve_pc(f, call_site_of(s->lr), fn, ctx);
    }
  }
  for (guint i = 0; i < f->ctr_sites->len; i++) {
    const struct ctr_site *s = g_ptr_array_index(f->ctr_sites, i);
    resolve_pc(f, s->key.pc, fn, ctx);
  }
}

static const struct frame *frame_of(const struct emu_findings *f, uint64_t pc)
{
  static const struct frame none = {NULL, NULL};
  const struct frame *fr = g_hash_table_lookup(f->frames, GSIZE_TO_POINTER(pc));
  return fr ? fr : &none;
}

/* ---- ordering and text ----------------------------------------------------- */

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

static const char *core_of_cpu(const struct emu_findings *f, unsigned cpu)
{
  const struct emu_cluster *cl = &f->cfg->clusters[f->cfg->cpus[cpu].cluster];
  return cl->core ? cl->core : cl->name;
}

/* The one sentence that says what went wrong and what to do about it. */
static char *message(const struct emu_findings *f, const struct finding *fd)
{
  const char *core = core_of_cpu(f, fd->fetch_cpu);
  switch ((enum jf_stale_kind)fd->key.kind) {
  case JF_STALE_NOT_CLEANED:
    if (fd->stride > fd->line) {
      return g_strdup_printf("The clean loop steps %u bytes but the writing core's D-cache "
                             "lines are %u bytes, so dc cvau never reached these words: the "
                             "stride was probably read from CTR_EL0 on another core (see "
                             "ctr_read_sites); step by the smallest DminLine of every core.",
                             fd->stride, fd->line);
    }
    return g_strdup("These words were written and then fetched without a "
                    "dc cvau reaching them: clean every D-cache line of the "
                    "new code to the Point of Unification first.");
  case JF_STALE_CLEAN_NOT_COMPLETED:
    return g_strdup("dc cvau was issued but no dsb completed it before the "
                    "invalidate and the fetch: put dsb ish after the clean "
                    "loop.");
  case JF_STALE_INVALIDATED_BEFORE_CLEAN:
    return g_strdup("ic ivau was issued before a dsb completed the clean, so "
                    "the I-cache may refill from the stale copy: put dsb ish "
                    "between the clean and the invalidate loops.");
  case JF_STALE_INVALIDATE_NOT_COMPLETED:
    return g_strdup("ic ivau was issued but no dsb completed it before the "
                    "fetch: put dsb ish after the invalidate loop.");
  case JF_STALE_NOT_INVALIDATED_IN_GEOMETRY:
    if (fd->stride > fd->line) {
      return g_strdup_printf("The invalidate loop steps %u bytes but this %s's I-cache lines "
                             "are %u bytes, so every line between two steps was never "
                             "invalidated on it: the stride was probably read from CTR_EL0 on "
                             "a core with larger lines (see ctr_read_sites); step by the "
                             "smallest IminLine of every core.",
                             fd->stride, core, fd->line);
    }
    return g_strdup_printf("No ic ivau covered these words in this %s's %u-byte I-cache lines "
                           "after they were written: invalidate every line of the new code.",
                           core, fd->line);
  case JF_STALE_NONEXEC_ALIAS:
    return g_strdup_printf("The invalidate went through the writable, non-executable view of "
                           "double-mapped code, and this %s's VIPT I-cache is indexed by the "
                           "executable address: invalidate through the executable view.",
                           core);
  case JF_STALE_NOT_SYNCHRONISED:
    return g_strdup("The maintenance completed, but the fetching thread did "
                    "not synchronise its pipeline (isb, a system call, or "
                    "membarrier SYNC_CORE from the writer) before running "
                    "the new code.");
  default:
    return g_strdup("unknown");
  }
}

static void text_frame(GString *out, const char *label, uint64_t pc, const struct frame *fr)
{
  g_string_append_printf(out, "    %-7s 0x%" PRIx64 " %s", label, pc,
                         fr->symbol ? fr->symbol : "(no symbol)");
  if (fr->location) {
    g_string_append_printf(out, " %s", fr->location);
  }
  g_string_append_c(out, '\n');
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
                           " stale fetches of %u words (first 0x%" PRIx64 ") on cpu %u (%s, "
                           "%u-byte lines)\n",
                           i + 1, jf_stale_kind_name(fd->key.kind), fd->count,
                           g_hash_table_size(fd->words), fd->examples[0], fd->fetch_cpu,
                           core_of_cpu(f, fd->fetch_cpu), fd->line);
    if (fd->key.site != JF_MODEL_NO_SITE) {
      const struct site *s = &g_array_index(f->sites, struct site, fd->key.site);
      text_frame(out, "flush", s->pc, frame_of(f, s->pc));
      if (fd->stride) {
        g_string_append_printf(out, "            loop stride %u bytes\n", fd->stride);
      }
      if (s->lr) {
        text_frame(out, "called", call_site_of(s->lr), frame_of(f, call_site_of(s->lr)));
      }
    } else {
      g_string_append(out, "    flush   none reached these words\n");
    }
    text_frame(out, "writer", fd->writer_pc, frame_of(f, fd->writer_pc));
    if (f->reproduce) {
      g_string_append_printf(out, "    rerun   %s\n", f->reproduce);
    }
    char *msg = message(f, fd);
    g_string_append_printf(out, "    %s\n", msg);
    g_free(msg);
  }
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
  const struct frame *fr = frame_of(f, pc);
  JsonObject *o = json_object_new();
  emu_json_set_hex(o, "pc", pc);
  json_object_set_string_member(o, "symbol", fr->symbol);
  json_object_set_string_member(o, "location", fr->location);
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

static JsonObject *json_finding(const struct emu_findings *f, const struct finding *fd)
{
  JsonObject *o = json_object_new();
  json_object_set_string_member(o, "kind", jf_stale_kind_name(fd->key.kind));
  json_object_set_int_member(o, "count", (gint64)fd->count);
  json_object_set_int_member(o, "words", g_hash_table_size(fd->words));
  json_object_set_int_member(o, "fetch_cpu", fd->fetch_cpu);
  json_object_set_string_member(o, "fetch_core", core_of_cpu(f, fd->fetch_cpu));
  if (fd->writer_pc) {
    const struct emu_cluster *wc = &f->cfg->clusters[fd->writer_cluster];
    json_object_set_string_member(o, "writer_core", wc->core ? wc->core : wc->name);
  } else {
    json_object_set_null_member(o, "writer_core");
  }
  json_object_set_int_member(o, "line", fd->line);
  if (fd->stride) {
    json_object_set_int_member(o, "stride", fd->stride);
  } else {
    json_object_set_null_member(o, "stride");
  }
  if (fd->writer_pc) {
    json_object_set_object_member(o, "writer", json_frame(f, fd->writer_pc));
  } else {
    json_object_set_null_member(o, "writer");
  }
  if (fd->key.site != JF_MODEL_NO_SITE) {
    const struct site *s = &g_array_index(f->sites, struct site, fd->key.site);
    JsonObject *flush = json_frame(f, s->pc);
    if (s->lr) {
      json_object_set_object_member(flush, "caller", json_frame(f, call_site_of(s->lr)));
    } else {
      json_object_set_null_member(flush, "caller");
    }
    json_object_set_object_member(o, "flush", flush);
  } else {
    json_object_set_null_member(o, "flush");
  }
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
    const struct ctr_site *s = g_ptr_array_index(f->ctr_sites, i);
    JsonObject *o = json_frame(f, s->key.pc);
    json_object_set_int_member(o, "cpu", s->key.cpu);
    emu_json_set_hex(o, "value", s->key.value);
    json_object_set_int_member(o, "count", (gint64)s->count);
    json_array_add_object_element(sites, o);
  }
  json_object_set_array_member(report, "ctr_read_sites", sites);
}

/* ---- SARIF 2.1.0 ----------------------------------------------------------- */

/* The rules, one per kind, in enum order from JF_STALE_NOT_CLEANED. */
static const char *const rule_help[JF_STALE_KIND_COUNT] = {
    [JF_STALE_NOT_CLEANED] = "New code was fetched before dc cvau cleaned it "
                             "to the Point of Unification.",
    [JF_STALE_CLEAN_NOT_COMPLETED] = "A clean was issued but no dsb "
                                     "completed it.",
    [JF_STALE_INVALIDATED_BEFORE_CLEAN] = "ic ivau was issued before a dsb "
                                          "completed the clean.",
    [JF_STALE_INVALIDATE_NOT_COMPLETED] = "An invalidate was issued but no "
                                          "dsb completed it.",
    [JF_STALE_NOT_INVALIDATED_IN_GEOMETRY] =
        "The fetching core's I-cache line holding the code was never "
        "invalidated (a stride larger than its line).",
    [JF_STALE_NONEXEC_ALIAS] = "The invalidate went through a "
                               "non-executable alias of VIPT-cached code.",
    [JF_STALE_NOT_SYNCHRONISED] = "The fetching thread's pipeline was not "
                                  "synchronised after the maintenance.",
};

/* "file:line" -> SARIF physicalLocation; else the symbol as a logical
 * location. */
static JsonObject *sarif_location(const struct frame *fr)
{
  JsonObject *loc = json_object_new();
  const char *colon = fr->location ? strrchr(fr->location, ':') : NULL;
  const char *name = fr->symbol;
  if (colon && colon[1]) {
    char *file = g_strndup(fr->location, (gsize)(colon - fr->location));
    char *uri = g_path_is_absolute(file) ? g_filename_to_uri(file, NULL, NULL) : g_strdup(file);
    JsonObject *artifact = json_object_new();
    json_object_set_string_member(artifact, "uri", uri ? uri : file);
    JsonObject *region = json_object_new();
    json_object_set_int_member(region, "startLine", g_ascii_strtoll(colon + 1, NULL, 10));
    JsonObject *physical = json_object_new();
    json_object_set_object_member(physical, "artifactLocation", artifact);
    json_object_set_object_member(physical, "region", region);
    json_object_set_object_member(loc, "physicalLocation", physical);
    g_free(uri);
    g_free(file);
  } else if (!name) {
    name = "(no symbol)";
  }
  if (name) {
    JsonObject *logical = json_object_new();
    json_object_set_string_member(logical, "fullyQualifiedName", name);
    JsonArray *logicals = json_array_new();
    json_array_add_object_element(logicals, logical);
    json_object_set_array_member(loc, "logicalLocations", logicals);
  }
  return loc;
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

static JsonObject *sarif_result(const struct emu_findings *f, const struct finding *fd)
{
  uint64_t where = fd->writer_pc;
  if (fd->key.site != JF_MODEL_NO_SITE) {
    const struct site *s = &g_array_index(f->sites, struct site, fd->key.site);
    /* The caller is the code a JIT author can change; the flush routine
     * itself is often a library's. */
    const struct frame *caller = frame_of(f, call_site_of(s->lr));
    where = s->lr && caller->location ? call_site_of(s->lr) : s->pc;
  }
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
  json_array_add_object_element(locations, sarif_location(frame_of(f, where)));
  json_object_set_array_member(r, "locations", locations);
  JsonObject *props = json_object_new();
  json_object_set_int_member(props, "count", (gint64)fd->count);
  json_object_set_int_member(props, "words", g_hash_table_size(fd->words));
  json_object_set_int_member(props, "line", fd->line);
  json_object_set_int_member(props, "stride", fd->stride);
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
