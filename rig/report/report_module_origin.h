/*
 * Whose module a flush routine lives in (docs/FINDINGS.md, "Whose module
 * it is"): the project's own, which its developer relinks, or one the user
 * installed (a Python package, a distribution's library, a sysroot's),
 * whose builders alone can fix it. Told from the module's path and what
 * the module says of itself; nothing is guessed.
 */
#ifndef JITFLUSH_EMU_MODULE_ORIGIN_H
#define JITFLUSH_EMU_MODULE_ORIGIN_H

#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

enum report_module_kind {
  REPORT_MODULE_PROJECT,         /* the project's own (or nothing says otherwise) */
  REPORT_MODULE_PYTHON_PACKAGE,  /* under site-packages or dist-packages */
  REPORT_MODULE_SYSROOT,         /* a distribution's library folder inside a sysroot */
  REPORT_MODULE_SYSTEM,          /* a system path: /usr, /lib, /opt, ... */
  REPORT_MODULE_OUTSIDE_PROJECT, /* anywhere else outside the project's root */
};

struct report_module_origin {
  enum report_module_kind kind;
  char *file;    /* the module's file name */
  char *package; /* "name version" when discoverable, else NULL */
};

/* The origin of the module at PATH. PROJECT is the project's root (the
 * SARIF root) or NULL when not given: then only a Python package, system
 * or sysroot path is someone else's. NOTE_PACKAGE is what the module's
 * package note says ("name version", report_frame_names.h), or NULL; without it
 * a Python package's version comes from its NAME-VERSION.dist-info folder
 * beside it. OUT's strings are g_malloc'ed (report_module_origin_clear). */
void report_module_origin(const char *path, const char *project, const char *note_package,
                          struct report_module_origin *out);
void report_module_origin_clear(struct report_module_origin *o);

/* "project", "python-package", "sysroot", "system", "outside-project". */
const char *report_module_kind_name(enum report_module_kind kind);
/* "an installed Python package", "a distribution's library in a sysroot", ... */
const char *report_module_kind_phrase(enum report_module_kind kind);

#ifdef __cplusplus
}
#endif

#endif /* JITFLUSH_EMU_MODULE_ORIGIN_H */
