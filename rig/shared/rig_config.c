/*
 * Loads a qemu-configs/NAME.conf file (format: docs/RIG.md) into a
 * struct rig_config and validates all of it.
 *
 * GKeyFile stores the values, but it neither reports line numbers nor
 * rejects duplicate keys (the last one silently wins) nor understands the
 * "value   # comment" style the configs use. So the text is first scanned
 * here line by line: that scan checks the syntax, remembers where every
 * group and key is, and rejects duplicates; every later error can then name
 * file:line, the group, the key and the problem.
 */
#include "rig_config.h"
#include "ctr.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

/* CTR_EL0's layout is the library's (common/ctr.h): one definition. */
#define CTR_IMINLINE_SHIFT JF_CTR_IMINLINE_SHIFT
#define CTR_DMINLINE_SHIFT JF_CTR_DMINLINE_SHIFT
#define CTR_LINE_MASK JF_CTR_LINE_MASK
#define CTR_IDC_BIT JF_CTR_IDC_BIT
#define CTR_DIC_BIT JF_CTR_DIC_BIT

#define RIG_CONFIG_ERROR (g_quark_from_static_string("emu-config-error"))

/* ------------------------------------------------------------------------ */
/* Where each group and key sits in the file. */

struct key_pos {
  char *group;
  char *key;
  int line;
};

struct layout {
  GPtrArray *groups; /* struct key_pos with key == NULL */
  GPtrArray *keys;   /* struct key_pos */
};

static void key_pos_free(gpointer p)
{
  struct key_pos *k = p;
  g_free(k->group);
  g_free(k->key);
  g_free(k);
}

static int group_line(const struct layout *lay, const char *group)
{
  for (guint i = 0; i < lay->groups->len; i++) {
    const struct key_pos *g = g_ptr_array_index(lay->groups, i);
    if (strcmp(g->group, group) == 0) {
      return g->line;
    }
  }
  return 0;
}

static int key_line(const struct layout *lay, const char *group, const char *key)
{
  for (guint i = 0; i < lay->keys->len; i++) {
    const struct key_pos *k = g_ptr_array_index(lay->keys, i);
    if (strcmp(k->group, group) == 0 && strcmp(k->key, key) == 0) {
      return k->line;
    }
  }
  return group_line(lay, group);
}

/* ------------------------------------------------------------------------ */
/* Error messages: "FILE:LINE: [GROUP] KEY: PROBLEM". */

struct ctx {
  const char *path;
  struct layout lay;
  GKeyFile *kf;
  GError **error;
};

static bool fail_at(struct ctx *c, int line, const char *group, const char *key, const char *fmt,
                    ...) G_GNUC_PRINTF(5, 6);

static bool fail_at(struct ctx *c, int line, const char *group, const char *key, const char *fmt,
                    ...)
{
  va_list ap;
  va_start(ap, fmt);
  char *problem = g_strdup_vprintf(fmt, ap);
  va_end(ap);
  GString *msg = g_string_new(c->path);
  if (line > 0) {
    g_string_append_printf(msg, ":%d", line);
  }
  g_string_append(msg, ": ");
  if (group && key) {
    g_string_append_printf(msg, "[%s] %s: ", group, key);
  } else if (group) {
    g_string_append_printf(msg, "[%s]: ", group);
  } else if (key) {
    g_string_append_printf(msg, "%s: ", key);
  }
  g_string_append(msg, problem);
  g_set_error_literal(c->error, RIG_CONFIG_ERROR, 1, msg->str);
  g_string_free(msg, TRUE);
  g_free(problem);
  return false;
}

#define fail_key(c, group, key, ...)                                                               \
  fail_at((c), key_line(&(c)->lay, (group), (key)), (group), (key), __VA_ARGS__)
#define fail_group(c, group, ...)                                                                  \
  fail_at((c), group_line(&(c)->lay, (group)), (group), NULL, __VA_ARGS__)

/* ------------------------------------------------------------------------ */
/* The line scan. Accepts what GKeyFile accepts for our purposes: blank
 * lines, '#' comment lines, "[group]" and "key=value". */

static bool scan_layout(struct ctx *c, const char *text)
{
  char **lines = g_strsplit(text, "\n", -1);
  char *group = NULL;
  bool ok = true;
  for (int i = 0; ok && lines[i]; i++) {
    int line = i + 1;
    char *s = g_strstrip(lines[i]);
    if (*s == '\0' || *s == '#') {
      continue;
    }
    if (*s == '[') {
      char *end = strchr(s, ']');
      if (!end || end[1] != '\0' || end == s + 1) {
        ok = fail_at(c, line, NULL, NULL, "malformed group header '%s' (expected [name])", s);
        break;
      }
      g_free(group);
      group = g_strndup(s + 1, (gsize)(end - s - 1));
      int first = group_line(&c->lay, group);
      if (first) {
        ok = fail_at(c, line, group, NULL, "duplicate group (first at line %d)", first);
        break;
      }
      struct key_pos *g = g_new0(struct key_pos, 1);
      g->group = g_strdup(group);
      g->line = line;
      g_ptr_array_add(c->lay.groups, g);
      continue;
    }
    char *eq = strchr(s, '=');
    if (!eq) {
      ok = fail_at(c, line, group, NULL, "expected key=value, got '%s'", s);
      break;
    }
    if (!group) {
      ok = fail_at(c, line, NULL, NULL, "key=value before the first [group]");
      break;
    }
    char *key = g_strstrip(g_strndup(s, (gsize)(eq - s)));
    if (*key == '\0') {
      g_free(key);
      ok = fail_at(c, line, group, NULL, "empty key name");
      break;
    }
    for (guint k = 0; k < c->lay.keys->len; k++) {
      const struct key_pos *p = g_ptr_array_index(c->lay.keys, k);
      if (strcmp(p->group, group) == 0 && strcmp(p->key, key) == 0) {
        ok = fail_at(c, line, group, key, "duplicate key (first at line %d)", p->line);
        break;
      }
    }
    if (!ok) {
      g_free(key);
      break;
    }
    struct key_pos *p = g_new0(struct key_pos, 1);
    p->group = g_strdup(group);
    p->key = key;
    p->line = line;
    g_ptr_array_add(c->lay.keys, p);
  }
  g_free(group);
  g_strfreev(lines);
  return ok;
}

/* ------------------------------------------------------------------------ */
/* Values. */

/* The value with a trailing "   # comment" removed. A '#' only starts a
 * comment after whitespace, so a name such as "SoC #2" survives. */
static char *get_value(struct ctx *c, const char *group, const char *key)
{
  char *raw = g_key_file_get_value(c->kf, group, key, NULL);
  if (!raw) {
    return NULL;
  }
  for (char *p = raw; *p; p++) {
    if (*p == '#' && (p == raw || p[-1] == ' ' || p[-1] == '\t')) {
      *p = '\0';
      break;
    }
  }
  return g_strstrip(raw);
}

static bool has_key(struct ctx *c, const char *group, const char *key)
{
  return g_key_file_has_key(c->kf, group, key, NULL);
}

/* An unsigned number, decimal or 0x-prefixed hex, nothing else around it. */
static bool parse_u64(const char *text, uint64_t *out)
{
  if (!text || !*text || *text == '-' || *text == '+') {
    return false;
  }
  guint base = 10;
  const char *digits = text;
  if (text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
    base = 16;
    digits = text + 2;
  }
  if (!*digits || !g_ascii_isxdigit(*digits)) {
    return false;
  }
  guint64 v = 0;
  GError *err = NULL;
  if (!g_ascii_string_to_unsigned(digits, base, 0, G_MAXUINT64, &v, &err)) {
    g_clear_error(&err);
    return false;
  }
  *out = v;
  return true;
}

static bool get_u64(struct ctx *c, const char *group, const char *key, uint64_t max, uint64_t *out)
{
  char *v = get_value(c, group, key);
  uint64_t n = 0;
  bool ok = parse_u64(v, &n);
  if (!ok) {
    fail_key(c, group, key, "not a number: '%s' (decimal or 0x hex)", v ? v : "");
  } else if (n > max) {
    ok = fail_key(c, group, key, "%s is out of range (at most 0x%" PRIx64 ")", v, max);
  } else {
    *out = n;
  }
  g_free(v);
  return ok;
}

/* A cpulist ("0-3,6") with the library's parser (common/cpuset.c), whose
 * reasons the message quotes. */
static bool get_cpulist(struct ctx *c, const char *group, const char *key, struct jf_cpuset *set)
{
  char *v = get_value(c, group, key);
  const char *problem = jf_cpulist_problem(v ? v : "", v ? strlen(v) : 0, set);
  bool ok = problem == NULL;
  if (!ok) {
    fail_key(c, group, key, "%s: '%s'", problem, v ? v : "");
  }
  g_free(v);
  return ok;
}

/* ------------------------------------------------------------------------ */
/* Groups. */

/* rig_config_keys.def: the keys of each group. */
enum key_type { TYPE_TEXT, TYPE_NUMBER, TYPE_CPULIST, TYPE_EVENTS, TYPE_ENUM };
enum key_use { USE_OPTIONAL, USE_REQUIRED, USE_MAY_BE_EMPTY };

static const struct config_key {
  const char *group; /* "cluster" for [cluster NAME] */
  const char *key;
  enum key_type type;
  enum key_use use;
} config_keys[] = {
#define RIG_CONFIG_KEY(group, key, type, use, meaning) {#group, key, TYPE_##type, USE_##use},
#define RIG_CONFIG_ENUM(group, key, id, meaning, ...) {#group, key, TYPE_ENUM, USE_OPTIONAL},
#include "rig_config_keys.def"
#undef RIG_CONFIG_KEY
#undef RIG_CONFIG_ENUM
};

#define RIG_CONFIG_KEY(group, key, type, use, meaning)
#define RIG_CONFIG_ENUM(group, key, id, meaning, ...)                                              \
  const char *const rig_##id##_names[] = {__VA_ARGS__, NULL};
#include "rig_config_keys.def"
#undef RIG_CONFIG_KEY
#undef RIG_CONFIG_ENUM
/* A value named in the .def and not in its enum (or the other way round)
 * stops the build here. */
G_STATIC_ASSERT(G_N_ELEMENTS(rig_ctr_trap_names) == RIG_CTR_TRAP_SANITIZE + 2);
G_STATIC_ASSERT(G_N_ELEMENTS(rig_sysfs_mode_names) == RIG_SYSFS_NONE + 2);
G_STATIC_ASSERT(G_N_ELEMENTS(rig_exec_map_sync_names) == RIG_EXEC_MAP_SYNC_NONE + 2);
G_STATIC_ASSERT(G_N_ELEMENTS(rig_kernel_linux_names) == RIG_KERNEL_LINUX_ANON_SKIP + 2);
G_STATIC_ASSERT(G_N_ELEMENTS(rig_sched_policy_names) == RIG_SCHED_RANDOM + 2);

/* The row of KEY in GROUP, or NULL. */
static const struct config_key *config_key(const char *group, const char *key)
{
  for (size_t i = 0; i < G_N_ELEMENTS(config_keys); i++) {
    if (strcmp(config_keys[i].group, group) == 0 && strcmp(config_keys[i].key, key) == 0) {
      return &config_keys[i];
    }
  }
  return NULL;
}

/* Every key of GROUP (a group of kind KIND: "cluster" for [cluster NAME])
 * is one of KIND's rows, and has a value unless its row allows none. */
static bool check_keys(struct ctx *c, const char *group, const char *kind)
{
  for (guint i = 0; i < c->lay.keys->len; i++) {
    const struct key_pos *k = g_ptr_array_index(c->lay.keys, i);
    if (strcmp(k->group, group) != 0) {
      continue;
    }
    const struct config_key *row = config_key(kind, k->key);
    if (!row) {
      GString *list = g_string_new(NULL);
      for (size_t n = 0; n < G_N_ELEMENTS(config_keys); n++) {
        if (strcmp(config_keys[n].group, kind) == 0) {
          g_string_append_printf(list, "%s%s", list->len ? ", " : "", config_keys[n].key);
        }
      }
      fail_at(c, k->line, group, k->key, "unknown key (known: %s)", list->str);
      g_string_free(list, TRUE);
      return false;
    }
    char *v = get_value(c, group, k->key);
    bool empty = !v || !*v;
    g_free(v);
    /* "online=" alone is meaningful: the whole cluster starts offline (Linux
     * also prints an empty cpulist as an empty line). */
    if (empty && row->use != USE_MAY_BE_EMPTY) {
      return fail_at(c, k->line, group, k->key, "empty value");
    }
  }
  /* The required keys, in the rows' order. */
  for (size_t n = 0; n < G_N_ELEMENTS(config_keys); n++) {
    const struct config_key *row = &config_keys[n];
    if (row->use == USE_REQUIRED && strcmp(row->group, kind) == 0 &&
        !g_key_file_has_key(c->kf, group, row->key, NULL)) {
      return fail_group(c, group, "missing required key '%s'", row->key);
    }
  }
  return true;
}

static bool is_power_of_two(uint64_t v)
{
  return v && (v & (v - 1)) == 0;
}

static bool load_line_size(struct ctx *c, const char *group, const char *key, unsigned from_ctr,
                           unsigned *out)
{
  if (!has_key(c, group, key)) {
    *out = from_ctr;
    return true;
  }
  uint64_t v = 0;
  if (!get_u64(c, group, key, 1u << 20, &v)) {
    return false;
  }
  if (v < 4 || !is_power_of_two(v)) {
    return fail_key(c, group, key, "%" PRIu64 " is not a power of two >= 4", v);
  }
  *out = (unsigned)v;
  return true;
}

/* Reads [cluster NAME] into cfg->clusters[cfg->nclusters]. Its online= goes
 * into ONLINE, and its CPUs into ONLINE_GIVEN when it has one. */
static bool load_cluster(struct ctx *c, struct rig_config *cfg, const char *group, const char *name,
                         struct jf_cpuset *online, struct jf_cpuset *online_given)
{
  if (!check_keys(c, group, "cluster")) {
    return false;
  }

  int idx = (int)cfg->nclusters;
  struct rig_cluster *cl = &cfg->clusters[idx];
  cl->name = g_strdup(name);
  cl->core = has_key(c, group, "core") ? get_value(c, group, "core") : g_strdup(name);
  cl->domain = has_key(c, group, "domain") ? get_value(c, group, "domain") : g_strdup(name);
  cl->domain_id = (unsigned)idx;
  for (int other = 0; other < idx; other++) {
    if (strcmp(cfg->clusters[other].domain, cl->domain) == 0) {
      cl->domain_id = (unsigned)other;
      break;
    }
  }

  /* MIDR_EL1 bits [63:32] are RES0 (Arm ARM D19.2.100). */
  if (!get_u64(c, group, "midr", 0xffffffffull, &cl->midr)) {
    return false;
  }
  if (!get_u64(c, group, "ctr", G_MAXUINT64, &cl->ctr)) {
    return false;
  }
  if (!(cl->ctr & (1ull << JF_CTR_RES1_BIT))) {
    return fail_key(c, group, "ctr", "0x%" PRIx64 " has bit 31 clear, which is RES1 in CTR_EL0",
                    cl->ctr);
  }
  const struct jf_ctr decoded = jf_ctr_decode(cl->ctr);
  unsigned iline = decoded.iline;
  unsigned dline = decoded.dline;
  if (!load_line_size(c, group, "l1i-line", iline, &cl->l1i_line)) {
    return false;
  }
  if (!load_line_size(c, group, "l1d-line", dline, &cl->l1d_line)) {
    return false;
  }

  struct jf_cpuset set;
  if (!get_cpulist(c, group, "cpus", &set)) {
    return false;
  }
  for (unsigned cpu = 0; cpu < jf_cpuset_end(&set); cpu++) {
    if (!jf_cpuset_has(&set, cpu)) {
      continue;
    }
    if (cfg->cpus[cpu].cluster >= 0) {
      return fail_key(c, group, "cpus", "cpu %u is already in [cluster %s]", cpu,
                      cfg->clusters[cfg->cpus[cpu].cluster].name);
    }
    cfg->cpus[cpu].cluster = idx;
    if (cpu + 1 > cfg->ncpus) {
      cfg->ncpus = cpu + 1;
    }
  }

  if (has_key(c, group, "online")) {
    struct jf_cpuset on;
    jf_cpuset_clear(&on);
    char *text = get_value(c, group, "online");
    bool none = *text == '\0';
    g_free(text);
    if (!none && !get_cpulist(c, group, "online", &on)) {
      return false;
    }
    unsigned end = MAX(jf_cpuset_end(&on), jf_cpuset_end(&set));
    for (unsigned cpu = 0; cpu < end; cpu++) {
      if (jf_cpuset_has(&on, cpu) && !jf_cpuset_has(&set, cpu)) {
        return fail_key(c, group, "online", "cpu %u is not one of this cluster's cpus", cpu);
      }
      if (jf_cpuset_has(&set, cpu)) {
        jf_cpuset_add(online_given, cpu);
        if (jf_cpuset_has(&on, cpu)) {
          jf_cpuset_add(online, cpu);
        }
      }
    }
  }
  cfg->nclusters++;
  return true;
}

static bool load_enum(struct ctx *c, const char *group, const char *key, const char *const *names,
                      int *out)
{
  if (!has_key(c, group, key)) {
    return true;
  }
  char *v = get_value(c, group, key);
  for (int i = 0; names[i]; i++) {
    if (strcmp(v, names[i]) == 0) {
      *out = i;
      g_free(v);
      return true;
    }
  }
  GString *list = g_string_new(NULL);
  for (int i = 0; names[i]; i++) {
    g_string_append_printf(list, "%s%s", i ? " | " : "", names[i]);
  }
  fail_key(c, group, key, "bad value '%s' (expected %s)", v, list->str);
  g_string_free(list, TRUE);
  g_free(v);
  return false;
}

/* The kernel's rule for the system-wide CTR_EL0 (ftr_ctr in
 * arch/arm64/kernel/cpufeature.c): the lowest IminLine and DminLine and
 * IDC/DIC only when every core has them. The remaining fields are taken from
 * the first cluster; no config here mixes them in a way the rig models. */
static uint64_t sanitize_ctr(const struct rig_config *cfg)
{
  uint64_t ctr = cfg->clusters[0].ctr;
  uint64_t imin = CTR_LINE_MASK, dmin = CTR_LINE_MASK, idc = 1, dic = 1;
  for (unsigned i = 0; i < cfg->nclusters; i++) {
    uint64_t v = cfg->clusters[i].ctr;
    imin = MIN(imin, (v >> CTR_IMINLINE_SHIFT) & CTR_LINE_MASK);
    dmin = MIN(dmin, (v >> CTR_DMINLINE_SHIFT) & CTR_LINE_MASK);
    idc &= (v >> CTR_IDC_BIT) & 1;
    dic &= (v >> CTR_DIC_BIT) & 1;
  }
  ctr &= ~((CTR_LINE_MASK << CTR_IMINLINE_SHIFT) | (CTR_LINE_MASK << CTR_DMINLINE_SHIFT) |
           (1ull << CTR_IDC_BIT) | (1ull << CTR_DIC_BIT));
  return ctr | (imin << CTR_IMINLINE_SHIFT) | (dmin << CTR_DMINLINE_SHIFT) | (idc << CTR_IDC_BIT) |
         (dic << CTR_DIC_BIT);
}

static int event_order(gconstpointer a, gconstpointer b)
{
  const struct rig_hotplug_event *x = a, *y = b;
  return x->at < y->at ? -1 : x->at > y->at;
}

bool rig_parse_hotplug_events(const char *text, struct rig_hotplug_event **events, unsigned *n,
                              GError **error)
{
  *events = NULL;
  *n = 0;
  if (!text || !*text) {
    g_set_error_literal(error, RIG_CONFIG_ERROR, 1, "empty list of events");
    return false;
  }
  GArray *list = g_array_new(false, true, sizeof(struct rig_hotplug_event));
  /* The problem, and " in an event" after the library's cpulist reasons. */
  const char *p = text, *problem = NULL, *where = "";
  for (;;) {
    struct rig_hotplug_event e;
    memset(&e, 0, sizeof e);
    if (*p != '+' && *p != '-') {
      problem = "each event starts with + (online) or - (offline)";
      break;
    }
    e.online = *p++ == '+';
    const char *at = strchr(p, '@');
    if (!at) {
      problem = "an event needs @N (guest instructions)";
      break;
    }
    problem = jf_cpulist_problem(p, (size_t)(at - p), &e.cpus);
    if (problem) {
      where = " in an event";
      break;
    }
    const char *num = at + 1, *end = num;
    while (g_ascii_isdigit(*end)) {
      end++;
    }
    char *digits = g_strndup(num, (gsize)(end - num));
    bool good = parse_u64(digits, &e.at);
    g_free(digits);
    if (!good) {
      problem = "@ must be followed by a decimal instruction count";
      break;
    }
    g_array_append_val(list, e);
    if (*end == '\0') {
      break;
    }
    if (*end != ',') {
      problem = "events are separated by commas";
      break;
    }
    p = end + 1;
  }
  if (problem) {
    g_array_free(list, true);
    g_set_error(error, RIG_CONFIG_ERROR, 1, "%s%s", problem, where);
    return false;
  }
  g_array_sort(list, event_order); /* stable (GLib >= 2.32): ties keep file order */
  *n = list->len;
  *events = (struct rig_hotplug_event *)(void *)g_array_free(list, false);
  return true;
}

/* Plays the events on the initial online set: each must change something
 * real, and some CPU the process may use must stay online throughout. */
static bool load_events(struct ctx *c, struct rig_config *cfg)
{
  char *v = get_value(c, "hotplug", "events");
  GError *err = NULL;
  bool ok = rig_parse_hotplug_events(v, &cfg->events, &cfg->nevents, &err);
  if (!ok) {
    fail_key(c, "hotplug", "events", "%s: '%s'", err->message, v ? v : "");
    g_error_free(err);
  }
  g_free(v);
  struct jf_cpuset online;
  jf_cpuset_clear(&online);
  for (unsigned cpu = 0; cpu < cfg->ncpus; cpu++) {
    if (cfg->cpus[cpu].online) {
      jf_cpuset_add(&online, cpu);
    }
  }
  for (unsigned i = 0; ok && i < cfg->nevents; i++) {
    const struct rig_hotplug_event *e = &cfg->events[i];
    for (unsigned cpu = 0; ok && cpu < jf_cpuset_end(&e->cpus); cpu++) {
      if (!jf_cpuset_has(&e->cpus, cpu)) {
        continue;
      }
      if (cpu >= cfg->ncpus) {
        ok = fail_key(c, "hotplug", "events", "cpu %u does not exist (CPUs are 0..%u)", cpu,
                      cfg->ncpus - 1);
      } else if (jf_cpuset_has(&online, cpu) == e->online) {
        ok = fail_key(c, "hotplug", "events", "cpu %u is already %s at %" PRIu64, cpu,
                      e->online ? "online" : "offline", e->at);
      } else if (e->online) {
        jf_cpuset_add(&online, cpu);
      } else {
        jf_cpuset_remove(&online, cpu);
      }
    }
    struct jf_cpuset usable;
    jf_cpuset_and(&online, &cfg->allowed, &usable);
    if (ok && jf_cpuset_count(&usable) == 0) {
      ok = fail_key(c, "hotplug", "events",
                    "at %" PRIu64 " no CPU the process may use would be online", e->at);
    }
  }
  return ok;
}

static bool load_all(struct ctx *c, struct rig_config *cfg)
{
  gsize ngroups = 0;
  char **groups = g_key_file_get_groups(c->kf, &ngroups);
  bool ok = true;
  struct jf_cpuset online, online_given;
  jf_cpuset_clear(&online);
  jf_cpuset_clear(&online_given);

  cfg->clusters = g_new0(struct rig_cluster, ngroups ? ngroups : 1);
  for (unsigned cpu = 0; cpu < JF_MAX_CPUS; cpu++) {
    cfg->cpus[cpu].cluster = -1;
  }
  cfg->seed = 1;
  cfg->ctr_trap = RIG_CTR_TRAP_NONE;
  cfg->sysfs = RIG_SYSFS_FULL;

  for (gsize i = 0; ok && i < ngroups; i++) {
    const char *g = groups[i];
    if (strcmp(g, "soc") == 0) {
      ok = check_keys(c, g, "soc");
      if (ok && has_key(c, g, "name")) {
        cfg->soc_name = get_value(c, g, "name");
      }
      if (ok && has_key(c, g, "qemu-cpu")) {
        cfg->qemu_cpu = get_value(c, g, "qemu-cpu");
      }
    } else if (g_str_has_prefix(g, "cluster ") || strcmp(g, "cluster") == 0) {
      char *name = g_strstrip(g_strdup(g + strlen("cluster")));
      if (!*name) {
        ok = fail_group(c, g, "a cluster needs a name: [cluster NAME]");
      } else if (!(ok = load_cluster(c, cfg, g, name, &online, &online_given))) {
        /* A cluster that failed half-way is not counted in nclusters, so
         * rig_config_free would never see the strings it already holds
         * (found by tests/fuzz/fuzz_emu_config: a leak per bad cluster). */
        struct rig_cluster *partial = &cfg->clusters[cfg->nclusters];
        g_clear_pointer(&partial->name, g_free);
        g_clear_pointer(&partial->core, g_free);
        g_clear_pointer(&partial->domain, g_free);
      }
      g_free(name);
    } else if (strcmp(g, "kernel") == 0) {
      int trap = RIG_CTR_TRAP_NONE, mode = RIG_SYSFS_FULL, sync = RIG_EXEC_MAP_SYNC_LINUX;
      int version = RIG_KERNEL_LINUX_6X;
      ok = check_keys(c, g, "kernel") && load_enum(c, g, "ctr-trap", rig_ctr_trap_names, &trap) &&
           load_enum(c, g, "sysfs", rig_sysfs_mode_names, &mode) &&
           load_enum(c, g, "exec-map-sync", rig_exec_map_sync_names, &sync) &&
           load_enum(c, g, "linux", rig_kernel_linux_names, &version);
      cfg->ctr_trap = (enum rig_ctr_trap)trap;
      cfg->sysfs = (enum rig_sysfs_mode)mode;
      cfg->exec_map_sync = (enum rig_exec_map_sync)sync;
      cfg->kernel_linux = (enum rig_kernel_linux)version;
    } else if (strcmp(g, "hotplug") == 0) {
      ok = check_keys(c, g, "hotplug"); /* read after the clusters */
    } else if (strcmp(g, "process") == 0 || strcmp(g, "sched") == 0) {
      /* Read after the clusters: [process] allowed refers to their CPUs. */
      ok = check_keys(c, g, g);
    } else {
      ok = fail_group(c, g,
                      "unknown group (known: soc, cluster NAME, kernel, process, sched, hotplug)");
    }
  }
  if (ok && cfg->nclusters == 0) {
    ok = fail_at(c, 0, NULL, NULL, "no [cluster NAME] group: at least one cluster is required");
  }

  /* Every CPU from 0 to the highest must belong to a cluster: Linux numbers
   * possible CPUs densely, and a gap would be a CPU with no MIDR or CTR. */
  for (unsigned cpu = 0; ok && cpu < cfg->ncpus; cpu++) {
    if (cfg->cpus[cpu].cluster >= 0) {
      continue;
    }
    unsigned next = cpu;
    while (cfg->cpus[next].cluster < 0) {
      next++;
    }
    char *g = g_strdup_printf("cluster %s", cfg->clusters[cfg->cpus[next].cluster].name);
    ok = fail_key(c, g, "cpus", "cpu %u is in no cluster (CPUs must be 0..%u without gaps)", cpu,
                  cfg->ncpus - 1);
    g_free(g);
  }

  bool any_online = false;
  for (unsigned cpu = 0; ok && cpu < cfg->ncpus; cpu++) {
    cfg->cpus[cpu].online = !jf_cpuset_has(&online_given, cpu) || jf_cpuset_has(&online, cpu);
    any_online = any_online || cfg->cpus[cpu].online;
  }
  if (ok && !any_online) {
    char *g = g_strdup_printf("cluster %s", cfg->clusters[cfg->nclusters - 1].name);
    ok = fail_key(c, g, "online", "no CPU of any cluster is online: the program could not run");
    g_free(g);
  }

  if (ok && has_key(c, "process", "allowed")) {
    ok = get_cpulist(c, "process", "allowed", &cfg->allowed);
    bool runnable = false;
    for (unsigned cpu = 0; ok && cpu < jf_cpuset_end(&cfg->allowed); cpu++) {
      if (jf_cpuset_has(&cfg->allowed, cpu) && cpu >= cfg->ncpus) {
        ok = fail_key(c, "process", "allowed", "cpu %u does not exist (CPUs are 0..%u)", cpu,
                      cfg->ncpus - 1);
      } else if (jf_cpuset_has(&cfg->allowed, cpu) && cfg->cpus[cpu].online) {
        runnable = true;
      }
    }
    if (ok && !runnable) {
      ok = fail_key(c, "process", "allowed", "none of these CPUs is online");
    }
  } else if (ok) {
    /* Linux's root cpuset follows hotplug: with events, CPUs that come
     * online later are the process's too. */
    bool later = has_key(c, "hotplug", "events");
    for (unsigned cpu = 0; cpu < cfg->ncpus; cpu++) {
      if (later || cfg->cpus[cpu].online) {
        jf_cpuset_add(&cfg->allowed, cpu);
      }
    }
  }

  if (ok && has_key(c, "sched", "seed")) {
    ok = get_u64(c, "sched", "seed", G_MAXUINT64, &cfg->seed);
  }
  if (ok && has_key(c, "sched", "migrate-every")) {
    uint64_t every = 0;
    ok = get_u64(c, "sched", "migrate-every", UINT_MAX, &every);
    cfg->migrate_every = (unsigned)every;
  }
  int policy = RIG_SCHED_ADVERSARIAL;
  if (ok) {
    ok = load_enum(c, "sched", "policy", rig_sched_policy_names, &policy);
  }
  cfg->policy = (enum rig_sched_policy)policy;

  if (ok && has_key(c, "hotplug", "events")) {
    ok = load_events(c, cfg);
  }

  if (ok && !cfg->soc_name) {
    cfg->soc_name = g_path_get_basename(c->path);
  }
  if (ok) {
    cfg->sanitized_ctr = sanitize_ctr(cfg);
  }
  g_strfreev(groups);
  return ok;
}

/* A config is a few hundred bytes; the limit keeps a mistaken --config
 * /dev/zero or a huge file from being read into memory. */
#define MAX_CONFIG_BYTES (1 << 20)

struct rig_config *rig_config_load(const char *path, GError **error)
{
  char *text = NULL;
  gsize len = 0;
  GError *io = NULL;
  struct stat st;
  if (stat(path, &st) == 0 && (!S_ISREG(st.st_mode) || st.st_size > MAX_CONFIG_BYTES)) {
    g_set_error(error, RIG_CONFIG_ERROR, 1, "%s: not a config file (%s)", path,
                S_ISREG(st.st_mode) ? "larger than 1 MiB" : "not a regular file");
    return NULL;
  }
  if (!g_file_get_contents(path, &text, &len, &io)) {
    g_set_error(error, RIG_CONFIG_ERROR, 1, "%s: cannot read: %s", path, io->message);
    g_error_free(io);
    return NULL;
  }
  struct ctx c = {
      .path = path,
      .lay = {g_ptr_array_new_with_free_func(key_pos_free),
              g_ptr_array_new_with_free_func(key_pos_free)},
      .kf = g_key_file_new(),
      .error = error,
  };
  struct rig_config *cfg = g_new0(struct rig_config, 1);
  cfg->path = g_strdup(path);
  bool ok = true;
  if (strlen(text) != len) {
    ok = fail_at(&c, 0, NULL, NULL, "contains a NUL byte");
  }
  if (ok) {
    ok = scan_layout(&c, text);
  }
  if (ok && !g_key_file_load_from_data(c.kf, text, len, G_KEY_FILE_NONE, &io)) {
    /* The scan accepted it, so this is something GKeyFile alone refuses
     * (an invalid group name or encoding); it does not say where. */
    ok = fail_at(&c, 0, NULL, NULL, "%s", io->message);
    g_clear_error(&io);
  }
  if (ok) {
    ok = load_all(&c, cfg);
  }
  g_key_file_free(c.kf);
  g_ptr_array_free(c.lay.groups, TRUE);
  g_ptr_array_free(c.lay.keys, TRUE);
  g_free(text);
  if (!ok) {
    rig_config_free(cfg);
    return NULL;
  }
  return cfg;
}

void rig_config_free(struct rig_config *config)
{
  if (!config) {
    return;
  }
  for (unsigned i = 0; config->clusters && i < config->nclusters; i++) {
    g_free(config->clusters[i].name);
    g_free(config->clusters[i].core);
    g_free(config->clusters[i].domain);
  }
  g_free(config->events);
  g_free(config->clusters);
  g_free(config->path);
  g_free(config->soc_name);
  g_free(config->qemu_cpu);
  g_free(config);
}
