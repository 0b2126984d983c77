/* The findings at exit (plugin_findings.h). */
#define _GNU_SOURCE /* lstat under -std=c11 */
#include <errno.h>
#include <inttypes.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "report_findings_json.h"
#include "report_findings_names.h"
#include "report_findings_sarif.h"
#include "report_findings_text.h"
#include "plugin_findings.h"
#include "plugin_sched.h"
#include "report_symbols.h"
#include "plugin_vcpu.h"

/* include/uapi/asm-generic/unistd.h, which arm64 uses. */
#define NR_EXIT_GROUP 94

void plugin_findings_syscall(struct plugin_rig *rig, int64_t num)
{
  if (num == NR_EXIT_GROUP) {
    plugin_rig_lock(rig);
    report_findings_note_exit(rig->findings);
    plugin_rig_unlock(rig);
  }
}

void plugin_findings_at_exit(struct plugin_rig *rig)
{
  unsigned vcpu, thread;
  bool known = plugin_vcpu_host_thread(&vcpu, &thread);
  uint64_t block = known ? plugin_vcpu_block_start(plugin_vcpu(rig, vcpu)->running_block) : 0;
  plugin_rig_lock(rig);
  report_findings_note_end(rig->findings, known ? (int)thread : -1, block);
  plugin_rig_unlock(rig);
}

/* Writes into the file PATH names (a symlink's target, a device such as
 * /dev/null) without replacing it. */
static bool write_in_place(const char *path, const GString *text, const char **problem)
{
  int fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
  if (fd < 0) {
    *problem = g_strerror(errno);
    return false;
  }
  for (gsize done = 0; done < text->len;) {
    ssize_t n = write(fd, text->str + done, text->len - done);
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n <= 0) {
      *problem = g_strerror(n < 0 ? errno : EIO);
      close(fd);
      return false;
    }
    done += (gsize)n;
  }
  if (close(fd) != 0) {
    *problem = g_strerror(errno);
    return false;
  }
  return true;
}

void plugin_write_file(const char *path, const GString *text)
{
  /* A regular file (or none yet) is replaced whole, so a reader never sees
   * half a report; anything else is the user's and is written in place, never
   * replaced by a regular file (--report /dev/null as root must not turn the
   * system's node into a file). */
  struct stat st;
  const char *problem = NULL;
  if (lstat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
    if (!write_in_place(path, text, &problem)) {
      fprintf(stderr, "jitflush plugin: cannot write %s: %s\n", path, problem);
    }
    return;
  }
  GError *err = NULL;
  if (!g_file_set_contents(path, text->str, (gssize)text->len, &err)) {
    fprintf(stderr, "jitflush plugin: cannot write %s: %s\n", path, err->message);
    g_error_free(err);
  }
}

/* The guest's mappings, in guest addresses: QEMU's own address space holds
 * them at guest_base above (linux-user maps guest memory 1:1 plus a base),
 * which the executable's text mapping reveals. */
static struct report_symbols *guest_symbols(const struct plugin_guest_image *image)
{
  char *host = NULL;
  if (!image->path || !g_file_get_contents("/proc/self/maps", &host, NULL, NULL)) {
    return report_symbols_new("");
  }
  uint64_t base = report_symbols_guest_base(host, image->path, image->start_code);
  char *guest = report_symbols_guest_maps(host, base);
  struct report_symbols *s = report_symbols_new(guest);
  g_free(guest);
  g_free(host);
  return s;
}

struct plugin_unwind {
  GMutex lock;
  GHashTable *rules; /* pc -> struct report_return_rule * */
};

struct plugin_unwind *plugin_unwind_new(void)
{
  struct plugin_unwind *u = g_new0(struct plugin_unwind, 1);
  g_mutex_init(&u->lock);
  u->rules = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, g_free);
  return u;
}

void plugin_unwind_free(struct plugin_unwind *u)
{
  if (u) {
    g_hash_table_destroy(u->rules);
    g_mutex_clear(&u->lock);
    g_free(u);
  }
}

struct report_return_rule plugin_findings_return_rule(struct plugin_rig *rig, uint64_t pc)
{
  struct plugin_unwind *u = rig->unwind;
  g_mutex_lock(&u->lock);
  struct report_return_rule *rule = g_hash_table_lookup(u->rules, GSIZE_TO_POINTER(pc));
  if (!rule) {
    /* The mappings as they are now (a library loaded since the last rule
     * is in them), and closed again at once: libelf maps the files it
     * reads into QEMU's address space, above guest_base, where the
     * reports would later take them for the guest's. */
    struct report_symbols *s = guest_symbols(&rig->image);
    rule = g_new(struct report_return_rule, 1);
    *rule = report_symbols_return_rule(s, pc);
    report_symbols_free(s);
    g_hash_table_insert(u->rules, GSIZE_TO_POINTER(pc), rule);
  }
  struct report_return_rule out = *rule;
  g_mutex_unlock(&u->lock);
  return out;
}

/* Reads the mappings only when a PC needs a name: when QEMU gave up before
 * the guest ran, it has no executable to ask about. */
struct lazy_symbols {
  const struct plugin_guest_image *image;
  struct report_symbols *symbols;
};

static void lookup_lazily(uint64_t pc, struct report_frame_names *out, void *ctx)
{
  struct lazy_symbols *lazy = ctx;
  if (!lazy->symbols) {
    lazy->symbols = guest_symbols(lazy->image);
  }
  report_symbols_lookup(pc, out, lazy->symbols);
}

static void add_mapping(const char *path, uint64_t start, uint64_t end, uint64_t load_base,
                        const char *build_id, void *ctx)
{
  report_findings_add_mapping(ctx, path, start, end, load_base, build_id);
}

void plugin_findings_report(struct report_findings *f, const struct plugin_guest_image *image,
                            JsonObject *report, const char *text_path, const char *sarif_path)
{
  struct lazy_symbols lazy = {image, NULL};
  report_findings_resolve(f, lookup_lazily, &lazy);
  if (lazy.symbols) {
    report_findings_clear_mappings(f);
    /* The load bases that make every frame's module+offset usable. */
    report_symbols_each_module(lazy.symbols, add_mapping, f);
  }
  report_symbols_free(lazy.symbols);
  if (report) {
    report_findings_json(f, report);
  }
  if (text_path) {
    GString *text = report_findings_text(f);
    plugin_write_file(text_path, text);
    g_string_free(text, true);
  }
  if (sarif_path) {
    GString *sarif = report_findings_sarif(f);
    plugin_write_file(sarif_path, sarif);
    g_string_free(sarif, true);
  }
}

/* "module+0xoffset, symbol" for PC, or what of it is known. */
static void append_place(GString *out, const struct report_frame_names *n)
{
  if (n->module) {
    g_string_append_printf(out, "%s+0x%" PRIx64, n->module, n->offset);
  } else {
    g_string_append(out, "no mapped object");
  }
  if (n->symbol) {
    g_string_append_printf(out, ", %s", n->symbol);
  }
  if (n->location) {
    g_string_append_printf(out, " at %s", n->location);
  }
}

GString *plugin_findings_threads(struct plugin_rig *rig)
{
  GString *out = g_string_new(NULL);
  plugin_rig_lock(rig);
  struct lazy_symbols lazy = {&rig->image, NULL};
  int n = qemu_plugin_num_vcpus();
  for (int vcpu = 0; vcpu < n; vcpu++) {
    const struct plugin_thread *t = plugin_sched_thread(rig->sched, (unsigned)vcpu);
    uint64_t block = plugin_vcpu_block_start(plugin_vcpu(rig, (unsigned)vcpu)->running_block);
    if (!t || !block) {
      continue;
    }
    struct report_frame_names names = {0};
    lookup_lazily(block, &names, &lazy);
    g_string_append_printf(out, "thread %u on cpu %u: in the block at 0x%" PRIx64 " (",
                           t->mt.serial, t->mt.cpu, block);
    append_place(out, &names);
    g_string_append(out, ")\n");
    report_frame_names_clear(&names);
  }
  report_symbols_free(lazy.symbols);
  plugin_rig_unlock(rig);
  return out;
}
