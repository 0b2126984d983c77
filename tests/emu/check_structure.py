#!/usr/bin/env python3
"""The rig's structure (docs/ARCHITECTURE.md), checked on rig:

1. No #include circle among its units. A unit is a .c file and the header
   of the same name (or the several files PART_OF names as one); unit A depends on unit B when a file of A includes B's
   header. The layers of the architecture are only real if these
   dependencies run one way.
2. No mutable global shared between files: no `extern` variable in a header
   other than a const one, and no file-scope variable definition that is
   not static in a .c file (QEMU's required `qemu_plugin_version` aside).
3. Each header declares only what its own unit defines: a function
   declared in X.h is defined in X.c. A header that declares the functions
   of many files hides their dependencies from check 1 (the shape the rig
   had in plugin.h).
4. File-scope mutable statics only where the architecture says why: the
   QEMU glue's one rig pointer (plugin.c, plugin_instrument.c), per-host-
   thread scratch (_Thread_local), the callbacks QEMU's plugin API calls
   without userdata (plugin_qemu_api.c), the runner's signal state (what its
   handler may touch: the child, the signal, the control FIFO) and libdwfl's
   debuginfo path callback argument (report_symbols.c), listed below.

5. The folders are layers, and includes point down only (LAYERS below,
   the table of docs/ARCHITECTURE.md): shared/ and lazy/ at the bottom,
   serving both programs; model/ on shared/; report/ on model/; plugin/ on
   all of them; runner/ on shared/ and lazy/ alone. Every file of rig
   is in one of these folders.

Prints each violation and exits 1; exits 0 when there is none.
"""
import os
import re
import sys

ALLOWED_STATICS = {
    ("plugin.c", "rig"),
    ("plugin_instrument.c", "rig"),
    ("runner_exec.c", "child_pid"),
    ("runner_exec.c", "interrupted"),
    ("runner_exec.c", "control_fd"),
    ("report_symbols.c", "debuginfo_path"),
    # The rig's vCPU and exit callbacks, set once at install: QEMU's plugin
    # API 5 and 6 call them with no userdata pointer (plugin_qemu_api.h).
    ("plugin_qemu_api.c", "vcpu_init_cb"),
    ("plugin_qemu_api.c", "vcpu_exit_cb"),
    ("plugin_qemu_api.c", "exit_cb"),
}

# Which folders a file in each folder may include from.
LAYERS = {
    'shared': {'shared'},
    'lazy': {'lazy'},
    'model': {'model', 'shared'},
    'report': {'report', 'model', 'shared'},
    'plugin': {'plugin', 'report', 'model', 'shared', 'lazy'},
    'runner': {'runner', 'shared', 'lazy'},
}

# Files that are part of another unit: the model's lock-free store path,
# inline for the plugin's store callback (model_coherence_quick.h says why); the
# model's records and inline helpers (model_coherence_internal.h), shared by the
# model's files, which model_coherence.h declares as one interface (its page
# records and its report attribution are files of their own).
# The findings' records and queries, shared by the files that name, explain
# and write them (report_findings_internal.h says why; report_findings.c defines them).
PART_OF = {"model_coherence_quick": "model_coherence", "model_coherence_internal": "model_coherence",
           "model_coherence_pages": "model_coherence",
           "model_coherence_attribution": "model_coherence",
           "report_findings_internal": "report_findings"}

# Headers of constants alone, which declare no function: a unit of their
# own, not of the .c file of the same name, since including one uses
# nothing that file defines. runner_exit_statuses.h holds the runner's exit statuses,
# which its other files return; as part of runner.c (main, which includes
# them all) it would close a circle with each. Check 3 keeps them free of
# declarations.
CONSTANTS_ONLY = {"runner_exit_statuses.h"}

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
EXTERN = re.compile(r'^\s*extern\s+(?!"C")([^;(]*);', re.M)
# A file-scope declaration that ends a statement on its own line: the
# shape of a variable definition (functions have parentheses).
FILE_SCOPE_VAR = re.compile(r'^(?!static|typedef|extern|struct\s+\w+\s*\{|enum|union|#|return|\s)'
                            r'([A-Za-z_][\w \*]*?)\b(\w+)\s*(\[[^\]\n]*\])?\s*(=[^;]*)?;', re.M)
STATIC_VAR = re.compile(r'^static\s+(?!inline)([^;=(){}\n]*?)\b(\w+)\s*(\[[^\]\n]*\])*\s*(=[^;]*)?;\s*$',
                        re.M)


def read_only(decl):
    """Whether a declaration's own object is const: `const T x`, `T *const
    p`; not `const T *p`, a pointer that can still be made to point
    elsewhere."""
    if '*' not in decl:
        return re.search(r'\bconst\b', decl) is not None
    return re.search(r'\bconst\b', decl.rsplit('*', 1)[1]) is not None


def strip_comments(text):
    return re.sub(r'/\*.*?\*/|//[^\n]*', lambda m: '\n' * m.group(0).count('\n'), text, flags=re.S)


def unit_of(name):
    if name in CONSTANTS_ONLY:
        return name
    base = os.path.splitext(name)[0]
    return PART_OF.get(base, base)


def main(root):
    # Every source of rig, by name (names are unique across folders),
    # with the folder it is in.
    folder_of = {}
    problems = []
    for d, _, names in os.walk(root):
        for name in names:
            if not name.endswith(('.c', '.h', '.def')):
                continue
            rel = os.path.relpath(d, root)
            if rel not in LAYERS:
                problems.append(f"{os.path.join(rel, name)}: in no layer folder ({', '.join(LAYERS)})")
            elif name in folder_of:
                problems.append(f"{name}: in both {folder_of[name]}/ and {rel}/")
            folder_of[name] = rel
    files = sorted(f for f in folder_of if f.endswith(('.c', '.h')))
    path = {f: os.path.join(root, folder_of[f], f) for f in folder_of}
    deps = {}
    for f in files:
        text = strip_comments(open(path[f], encoding='utf-8').read())
        u = unit_of(f)
        for inc in INCLUDE.findall(text):
            base = os.path.basename(inc)
            if base in folder_of and folder_of[base] not in LAYERS.get(folder_of[f], ()):
                problems.append(f"{folder_of[f]}/{f} includes {folder_of[base]}/{base}: "
                                f"{folder_of[f]}/ is built on {', '.join(sorted(LAYERS[folder_of[f]]))} only")
            if base in files and unit_of(base) != u:
                deps.setdefault(u, set()).add(unit_of(base))
        if f.endswith('.h'):
            for decl in EXTERN.findall(text):
                if not re.search(r'\bconst\b', decl):
                    problems.append(f"{f}: extern mutable global: extern {decl.strip()};")
        else:
            for m in FILE_SCOPE_VAR.finditer(text):
                if read_only(m.group(1)):
                    continue  # read-only: nothing shared can change
                if m.group(2) != 'qemu_plugin_version' and 'QEMU_PLUGIN_EXPORT' not in m.group(1):
                    problems.append(f"{f}: global variable shared with other files: {m.group(0).strip()}")
            for m in STATIC_VAR.finditer(text):
                decl, name = m.group(1), m.group(2)
                if read_only(decl) or \
                        '_Thread_local' in decl or (f, name) in ALLOWED_STATICS:
                    continue
                problems.append(f"{f}: file-scope mutable state outside the rig: {m.group(0).strip()}")

    # Declarations: every prototype of X.h is defined in the unit's .c file.
    prototype = re.compile(r'^(?!static|typedef|#|\s)[\w \*]*?\b(\w+)\s*\([^;{]*\)\s*;', re.M)
    for f in files:
        if not f.endswith('.h'):
            continue
        text = strip_comments(open(path[f], encoding='utf-8').read())
        names = prototype.findall(text)
        if f in CONSTANTS_ONLY:
            problems.extend(f"{f}: declares {name}, but it is listed as constants only (CONSTANTS_ONLY)"
                            for name in names)
            continue
        sources = [c for c in files if c.endswith('.c') and unit_of(c) == unit_of(f)]
        source = ' or '.join(sources) or unit_of(f) + '.c'
        body = ''.join(strip_comments(open(path[c], encoding='utf-8').read()) for c in sources)
        for name in names:
            if not re.search(r'\b' + re.escape(name) + r'\s*\([^;{]*\)\s*\{', body):
                problems.append(f"{f}: declares {name}, which {source} does not define")

    # Circles: depth-first search over the unit graph.
    state = {}
    stack = []

    def visit(u):
        state[u] = 'open'
        stack.append(u)
        for v in sorted(deps.get(u, ())):
            if state.get(v) == 'open':
                circle = stack[stack.index(v):] + [v]
                problems.append("include circle: " + " -> ".join(circle))
            elif v not in state:
                visit(v)
        stack.pop()
        state[u] = 'done'

    for u in sorted(deps):
        if u not in state:
            visit(u)

    for p in problems:
        print(p)
    if not problems:
        print(f"{len(files)} files, {len(deps)} units with dependencies: no circle, no shared global")
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else 'rig'))
