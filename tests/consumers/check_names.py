#!/usr/bin/env python3
"""One naming system (docs/ARCHITECTURE.md#names).

Each folder of the tree has one prefix. In cli/ and the rig's layers a file's
name starts with it and so does every name the file gives the rest of the
program; the library (lib/, common/) names its files by concern and its
internal names with the product's prefix. The table is NAMES below; the
document's table must say the same.

Rules (each a line of output when broken):

  file    a source or header in a folder whose files carry the prefix does
          not start with it (the folder's entry point, EXEMPT_FILES, aside).
  name    a name a file gives others does not start with the folder's
          prefix: in a header, a function, a macro (include guards aside), a
          struct, union or enum tag, a typedef or an enumerator; in a source,
          a function or variable that is not static.
  doc     docs/ARCHITECTURE.md's names table lacks a folder, or gives it
          other prefixes than NAMES.

Usage: check_names.py REPO   (exit 0 ok, 1 violations)
       check_names.py --selftest
"""
import os
import re
import sys
import tempfile

import selftest_case  # tests/consumers/selftest_case.py

# folder: (prefixes of its names, whether its file names carry the first one)
NAMES = {
    "include": (("jitflush_",), False),
    "lib": (("jf_", "jitflush_"), False),
    "common": (("jf_",), False),
    "cli": (("info_",), True),
    "rig/plugin": (("plugin_",), True),
    "rig/runner": (("runner_",), True),
    "rig/report": (("report_",), True),
    "rig/model": (("model_",), True),
    "rig/shared": (("rig_",), True),
    "rig/lazy": (("lazy_",), True),
}
# The entry points keep the program's name; QEMU calls the plugin by its own.
EXEMPT_FILES = {"cli/jitflush_info.c", "rig/plugin/plugin.c", "rig/runner/runner.c"}
# (their names are the layer's own: plugin.c, runner.c)
EXEMPT_NAMES = {"main", "qemu_plugin_install", "qemu_plugin_version",
                "__clear_cache"}  # lib/clear_cache_dropin.c: libgcc's name is its purpose
# lazy/ defines the libraries' own functions (Capstone's cs_*, json-glib's
# json_*, libdw's dwfl_*...): the program calls them by those names.
FOREIGN = {"rig/lazy": re.compile(r"^(cs_|json_|dwfl_|dwarf_|elf_|g_)")}

SOURCE_EXT = (".c", ".h")
GUARD = re.compile(r"^JITFLUSH_\w*_H$")


def strip(text):
    text = re.sub(r"/\*.*?\*/", lambda m: "\n" * m.group(0).count("\n"), text, flags=re.S)
    text = re.sub(r"//[^\n]*", "", text)
    text = re.sub(r"'(?:\\.|[^'\\\n])'", "0", text)
    return re.sub(r'"(?:\\.|[^"\\\n])*"', '""', text)


def top_level(text):
    """The text outside braces (function bodies, struct members), keeping
    enum bodies, whose enumerators are names given to others."""
    out, depth, enum_depth = [], 0, []
    i = 0
    while i < len(text):
        c = text[i]
        if c == "{":
            head = text[max(0, i - 200):i]
            is_enum = re.search(r"\benum\b[^;{}()]*$", head) is not None
            enum_depth.append(is_enum)
            depth += 1
        elif c == "}":
            depth -= 1
            enum_depth.pop() if enum_depth else None
        if depth == 0 or (enum_depth and all(enum_depth)) or c in "{}":
            out.append(c)
        elif c == "\n":
            out.append(c)
        i += 1
    return "".join(out)


def declared(text, header):
    """Names a file gives the rest of the program."""
    names = set()
    body = strip(text)
    if header:
        # an X-macro's row macro is #undef'd in the file that defines it
        local = set(re.findall(r"^\s*#\s*undef\s+(\w+)", body, re.M))
        names.update(n for n in re.findall(r"^\s*#\s*define\s+(\w+)", body, re.M)
                     if not GUARD.match(n) and n not in local)
    # macros continue over backslash-newlines: drop them before reading C
    code = re.sub(r"^\s*#(?:[^\n]*\\\n)*[^\n]*", "", body, flags=re.M)
    top = top_level(code)
    if not header:
        return names | external(top)
    for m in re.finditer(r"\b(struct|union|enum)\s+(\w+)\s*\{", top):
        names.add(m.group(2))
    for m in re.finditer(r"\btypedef\b([^;]*);", top):
        pointer = re.search(r"\(\s*\*\s*(\w+)\s*\)", m.group(1))
        last = re.findall(r"(\w+)\s*(?:\[[^\]]*\]\s*)*$", m.group(1))
        if pointer or last:
            names.add(pointer.group(1) if pointer else last[0])
    for m in re.finditer(r"\benum\b[^;{]*\{([^}]*)\}", top):
        for item in m.group(1).split(","):
            n = re.match(r"\s*(\w+)", item)
            if n:
                names.add(n.group(1))
    return names | external(top)


def external(top):
    """Functions and variables declared or defined outside any function,
    not static: the ones the linker shows to other files."""
    names = set()
    flat = re.sub(r"__attribute__\s*\(\((?:[^()]|\([^()]*\))*\)\)", "", top)
    for stmt in re.split(r"[;{}]", flat):
        s = " ".join(stmt.split())
        if not s or s.startswith(("typedef", "static", "#")) or re.match(r"(struct|union|enum)\s+\w+\s*$", s):
            continue
        if re.match(r"^(?:(?:struct|union|enum)\s+\w+|\w+)(?:\s*,\s*\w+)*\s*(?:=.*)?$", s) and " " not in s.split("=")[0].strip():
            continue  # an enumerator list or a member left by top_level
        m = re.match(r"^(?:extern\s+)?(?:const\s+)?(?:(?:struct|union|enum)\s+\w+|[\w]+)(?:[\w\s\*]*?)[\s\*](\w+)\s*(?:\(|\[|=|$)", s)
        if m and m.group(1) not in ("void", "int", "char", "const", "unsigned"):
            names.add(m.group(1))
    return names


def check_doc(repo, errors):
    path = os.path.join(repo, "docs", "ARCHITECTURE.md")
    text = open(path, encoding="utf-8").read()
    section = re.search(r"^## Names\n(.*?)(?=^## )", text, re.S | re.M)
    if not section:
        errors.append("doc: docs/ARCHITECTURE.md has no '## Names' section")
        return
    rows = {}
    for line in section.group(1).splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) >= 3 and cells[0].startswith("`"):
            folder = cells[0].strip("`").rstrip("/")
            rows[folder] = set(re.findall(r"`(\w+_)`", cells[2]))
    for folder, (prefixes, _) in NAMES.items():
        if folder not in rows:
            errors.append("doc: docs/ARCHITECTURE.md#names has no row for %s/" % folder)
        elif not set(prefixes) <= rows[folder]:
            errors.append("doc: docs/ARCHITECTURE.md#names gives %s/ %s, the tree uses %s"
                          % (folder, sorted(rows[folder]), list(prefixes)))


def check(repo):
    errors = []
    for folder, (prefixes, files_carry) in NAMES.items():
        root = os.path.join(repo, folder)
        if not os.path.isdir(root):
            errors.append("file: %s/ is missing" % folder)
            continue
        allowed = tuple(prefixes) + tuple(p.upper() for p in prefixes)
        for name in sorted(os.listdir(root)):
            path = os.path.join(root, name)
            rel = "%s/%s" % (folder, name)
            if not name.endswith(SOURCE_EXT) or not os.path.isfile(path):
                continue
            if files_carry and rel not in EXEMPT_FILES and not name.startswith(prefixes[0]):
                errors.append("file: %s does not start with %s" % (rel, prefixes[0]))
            if name.endswith("_internal.h"):
                continue  # a unit's private header, read only by the unit's own files
            foreign = FOREIGN.get(folder)
            for n in sorted(declared(open(path, encoding="utf-8", errors="replace").read(),
                                     name.endswith(".h"))):
                if n.startswith(allowed) or n in EXEMPT_NAMES or n + "_" in prefixes or (foreign and foreign.match(n)):
                    continue
                errors.append("name: %s gives others '%s', not %s" % (rel, n, "/".join(allowed)))
    check_doc(repo, errors)
    return errors


def selftest():
    """Builds a tree that follows the rules, then breaks each rule once."""
    good = {
        "rig/model/model_thing.h": "#ifndef JITFLUSH_MODEL_THING_H\n#define MODEL_WORDS 4\n"
                                   "struct model_page { int x; };\nenum model_kind { MODEL_A, MODEL_B };\n"
                                   "int model_count(const struct model_page *p);\n#endif\n",
        "rig/model/model_thing.c": "static int helper(void) { return 1; }\n"
                                   "int model_count(const struct model_page *p) { return p->x + helper(); }\n",
        "lib/probe.c": "static int seen;\nint jf_probe(void) { return seen; }\n",
        "docs/ARCHITECTURE.md": "# x\n\n## Names\n\n| folder | files | names |\n|---|---|---|\n%s\n## Next\n"
                                % "".join("| `%s/` | x | %s |\n" % (f, ", ".join("`%s`" % p for p in ps))
                                          for f, (ps, _) in NAMES.items()),
    }
    broken = [
        ("a rig file without its layer's prefix", {"rig/model/thing.c": "int model_x(void) { return 0; }\n"}, "file:"),
        ("a function with another layer's prefix", {"rig/model/model_thing.c": "int plugin_count(void) { return 0; }\n"}, "name:"),
        ("a macro in a header", {"rig/model/model_thing.h": "#define WORDS 4\n"}, "name:"),
        ("a struct tag", {"rig/model/model_thing.h": "struct page { int x; };\n"}, "name:"),
        ("an enumerator", {"rig/model/model_thing.h": "enum model_kind { MODEL_A, KIND_B };\n"}, "name:"),
        ("a global variable", {"lib/probe.c": "int seen_cpus;\n"}, "name:"),
        ("a typedef", {"rig/model/model_thing.h": "typedef unsigned long word_t;\n"}, "name:"),
        ("the doc's table lacks a folder", {"docs/ARCHITECTURE.md": "# x\n\n## Names\n\n| folder | files | names |\n"
                                                                  "|---|---|---|\n| `lib/` | x | `jf_` |\n\n## Next\n"}, "doc:"),
    ]
    failures = 0
    with tempfile.TemporaryDirectory() as tmp:
        def build(files):
            for folder in NAMES:
                os.makedirs(os.path.join(tmp, folder), exist_ok=True)
            for rel, body in files.items():
                os.makedirs(os.path.dirname(os.path.join(tmp, rel)), exist_ok=True)
                with open(os.path.join(tmp, rel), "w") as f:
                    f.write(body)

        build(good)
        errors = check(tmp)
        failures += selftest_case.report("a tree that follows the rules", not errors, errors)
        for title, change, rule in broken:
            build(change)
            errors = check(tmp)
            failures += selftest_case.report(title, any(e.startswith(rule) for e in errors), errors)
            for rel in change:
                os.remove(os.path.join(tmp, rel))
            build(good)
    return 1 if failures else 0


def main(argv):
    if argv[1:] == ["--selftest"]:
        return selftest()
    if len(argv) != 2:
        print(__doc__.strip().splitlines()[-2], file=sys.stderr)
        return 2
    errors = check(argv[1])
    for e in errors:
        print(e)
    print("check_names: %d violation%s" % (len(errors), "" if len(errors) == 1 else "s"))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
