/*
 * Whose module it is (report_module_origin.h). The rules, in order, each a fact
 * of the path:
 *  1. a path through site-packages/ or dist-packages/ is a Python package
 *     pip (or a distribution) installed, even inside the project (a
 *     virtual environment);
 *  2. a distribution's library folder below the root (.../usr/lib/...,
 *     .../lib/<triplet>/...) is a sysroot's (the runner's --sysroot, a
 *     cross toolchain's), even inside the project;
 *  3. under the project's root: the project's own;
 *  4. under /usr, /lib*, /opt, /snap or a store of Nix or Guix: the
 *     system's;
 *  5. elsewhere: outside the project when its root is known, else the
 *     project's own (a build folder beside the working one looks the same
 *     as a download, so the path alone cannot say).
 */
#include "report_module_origin.h"

#include <string.h>

#include <glib.h>

static const char *const system_prefixes[] = {"/usr/", "/lib/",  "/lib32/",     "/lib64/",
                                              "/opt/", "/snap/", "/nix/store/", "/gnu/store/"};
static const char *const library_folders[] = {"/usr/lib/", "/usr/lib64/", "/lib/aarch64-linux-gnu/",
                                              "/usr/local/lib/"};

/* PEP 503's normal form, with '_' for the runs: "Foo.Bar-baz" -> "foo_bar_baz". */
static char *normal_name(const char *name, gssize len)
{
  char *out = g_ascii_strdown(name, len);
  for (char *c = out; *c; c++) {
    if (*c == '-' || *c == '.') {
      *c = '_';
    }
  }
  return out;
}

/* "name version" of the NAME-VERSION.dist-info folder in SITE for the
 * distribution whose top-level folder or module is TOP ("numpy",
 * "numpy.libs" for auditwheel's copied libraries, "foo.cpython-311-...so"),
 * or NULL. */
static char *dist_info_package(const char *site, const char *top)
{
  const char *dot = strchr(top, '.');
  char *want = normal_name(top, dot ? dot - top : -1);
  char *found = NULL;
  GDir *dir = g_dir_open(site, 0, NULL);
  for (const char *e; dir && !found && (e = g_dir_read_name(dir)) != NULL;) {
    if (!g_str_has_suffix(e, ".dist-info")) {
      continue;
    }
    char *stem = g_strndup(e, strlen(e) - strlen(".dist-info"));
    char *dash = strrchr(stem, '-');
    if (dash) {
      char *name = normal_name(stem, dash - stem);
      if (strcmp(name, want) == 0) {
        *dash = '\0';
        found = g_strdup_printf("%s %s", stem, dash + 1);
      }
      g_free(name);
    }
    g_free(stem);
  }
  if (dir) {
    g_dir_close(dir);
  }
  g_free(want);
  return found;
}

/* The site folder and top-level entry of PATH when it runs through one. */
static bool python_site(const char *path, char **site, char **top)
{
  const char *names[] = {"/site-packages/", "/dist-packages/"};
  for (size_t i = 0; i < G_N_ELEMENTS(names); i++) {
    const char *at = strstr(path, names[i]);
    if (at) {
      const char *rest = at + strlen(names[i]);
      const char *slash = strchr(rest, '/');
      *site = g_strndup(path, (gsize)(rest - 1 - path));
      *top = slash ? g_strndup(rest, (gsize)(slash - rest)) : g_strdup(rest);
      return true;
    }
  }
  return false;
}

static bool under(const char *path, const char *root)
{
  size_t n = strlen(root);
  return n > 0 && strncmp(path, root, n) == 0 && (path[n] == '/' || root[n - 1] == '/');
}

static enum report_module_kind kind_of(const char *path, const char *project)
{
  for (size_t i = 0; i < G_N_ELEMENTS(library_folders); i++) {
    /* Below the root: a folder of its own ("/usr/lib/..." is the
     * system's, and so is "/usr" + "/lib/<triplet>/..."). */
    const char *at = strstr(path, library_folders[i]);
    if (at && at != path && strncmp(path, "/usr", (size_t)(at - path)) != 0) {
      return REPORT_MODULE_SYSROOT;
    }
  }
  if (project && under(path, project)) {
    return REPORT_MODULE_PROJECT;
  }
  for (size_t i = 0; i < G_N_ELEMENTS(system_prefixes); i++) {
    if (g_str_has_prefix(path, system_prefixes[i])) {
      return REPORT_MODULE_SYSTEM;
    }
  }
  return project ? REPORT_MODULE_OUTSIDE_PROJECT : REPORT_MODULE_PROJECT;
}

void report_module_origin(const char *path, const char *project, const char *note_package,
                          struct report_module_origin *out)
{
  char *site = NULL, *top = NULL;
  out->file = g_path_get_basename(path);
  out->package = note_package ? g_strdup(note_package) : NULL;
  if (python_site(path, &site, &top)) {
    out->kind = REPORT_MODULE_PYTHON_PACKAGE;
    if (!out->package) {
      out->package = dist_info_package(site, top);
    }
  } else {
    out->kind = kind_of(path, project);
  }
  g_free(site);
  g_free(top);
}

void report_module_origin_clear(struct report_module_origin *o)
{
  g_clear_pointer(&o->file, g_free);
  g_clear_pointer(&o->package, g_free);
}

/* Each kind's JSON name and its phrase in a finding's text, by enum value
 * (docs/FINDINGS.md, "Whose module it is"). */
static const struct {
  const char *name;
  const char *phrase;
} module_kinds[] = {
    [REPORT_MODULE_PROJECT] = {"project", "the project"},
    [REPORT_MODULE_PYTHON_PACKAGE] = {"python-package", "an installed Python package"},
    [REPORT_MODULE_SYSROOT] = {"sysroot", "a distribution's library in a sysroot"},
    [REPORT_MODULE_SYSTEM] = {"system", "a system path"},
    [REPORT_MODULE_OUTSIDE_PROJECT] = {"outside-project", "outside the project"},
};

static unsigned kind_index(enum report_module_kind kind)
{
  unsigned i = (unsigned)kind;
  return i < G_N_ELEMENTS(module_kinds) ? i : REPORT_MODULE_PROJECT;
}

const char *report_module_kind_name(enum report_module_kind kind)
{
  return module_kinds[kind_index(kind)].name;
}

const char *report_module_kind_phrase(enum report_module_kind kind)
{
  return module_kinds[kind_index(kind)].phrase;
}
