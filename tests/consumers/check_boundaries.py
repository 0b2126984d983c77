#!/usr/bin/env python3
"""The boundaries between the products (docs/BACKGROUND.md#repository-layout).

The tree holds three products and the code two of them share:

  include/  the library's public header      may use: nothing of the tree
  lib/      the library, its private headers  may use: include/, common/
  common/   jitflush_common (CTR_EL0, CPU sets, JSON strings)
                                              may use: include/
  cli/      jitflush-info                     may use: include/, common/
  rig/      the rig                           may use: include/, common/

Rules (each a line of output when broken):

  include  a source or header of a product includes a file of a product it
           may not use (resolved as the compiler would: next to the file,
           else anywhere in the tree by name; a name that some allowed
           product also has is allowed).
  sources  a product's CMake files name a source file of another product
           (the library's sources compiled a second time into the CLI or
           the rig), or one of the library's source lists
           (cmake/JitflushSources.cmake's JITFLUSH_*_SOURCES).
  incdirs  a product's CMake files put another product's folder it may not
           use on an include path (cli/ and rig/ never see lib/).

With --build DIR (a Ninja build tree of this repository) the build itself is
checked too, from `ninja -t compdb`, so that what CMake passes on from one
target to another counts:

  build-incdir  a file of cli/, rig/ or common/ is compiled with lib/ (or
                another folder it may not use) on its include path.
  build-owner   a file of lib/ or common/ is compiled by a target that
                cli/ or rig/ defines, or by more than one target outside
                tests/ (common/ is built once, as jitflush_common).

Usage: check_boundaries.py REPO [--build DIR [--ninja NINJA]]  (exit 0 ok, 1 violations)
       check_boundaries.py --selftest                          (each rule can fail)
"""
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile

import selftest_case  # tests/consumers/selftest_case.py

# The folders of the tree, and which of them each may use.
ALLOWED = {
    "include": {"include"},
    "lib": {"lib", "include", "common"},
    "common": {"common", "include"},
    "cli": {"cli", "include", "common"},
    "rig": {"rig", "include", "common"},
}
PRODUCTS = sorted(ALLOWED)
SOURCE_EXT = (".c", ".h", ".S", ".def", ".inc")
INCLUDE = re.compile(r'^\s*#\s*include\s*["<]([^">]+)[">]', re.M)
SOURCE_TOKEN = re.compile(r'[^\s"()]+\.(?:c|S|cc|cpp)(?=[\s")]|$)')
LIST_VAR = re.compile(r'\$\{(JITFLUSH_[A-Z]+_SOURCES)\}')
INCDIR_CMD = re.compile(r'\b(target_include_directories|include_directories)\s*\(([^)]*)\)', re.S)
# A path into another folder of the tree, as CMake files spell it.
TREE_PATH = re.compile(r'(?:\$\{(?:PROJECT_SOURCE_DIR|CMAKE_SOURCE_DIR|jitflush_SOURCE_DIR|_jf_root)\}|\.\.)'
                       r'/(' + "|".join(PRODUCTS) + r')(?=/|[\s")]|$)')


def product_of(rel):
    top = rel.split("/", 1)[0]
    return top if top in ALLOWED else None


def walk(repo, product):
    base = os.path.join(repo, product)
    for d, dirs, names in os.walk(base):
        dirs.sort()
        for name in sorted(names):
            yield os.path.relpath(os.path.join(d, name), repo)


def strip_c_comments(text):
    return re.sub(r'/\*.*?\*/|//[^\n]*', lambda m: "\n" * m.group(0).count("\n"), text, flags=re.S)


def strip_cmake_comments(text):
    return re.sub(r'(?m)#.*$', "", text)


def check_includes(repo, errors):
    files = [f for p in PRODUCTS for f in walk(repo, p)]
    by_suffix = {}
    for f in files:
        parts = f.split("/")
        for i in range(1, len(parts)):
            by_suffix.setdefault("/".join(parts[i:]), []).append(f)
    for f in files:
        if not f.endswith(SOURCE_EXT):
            continue
        p = product_of(f)
        text = strip_c_comments(open(os.path.join(repo, f), encoding="utf-8", errors="replace").read())
        for inc in INCLUDE.findall(text):
            beside = os.path.normpath(os.path.join(os.path.dirname(f), inc))
            if os.path.exists(os.path.join(repo, beside)):
                targets = [beside]
            else:
                targets = by_suffix.get(os.path.normpath(inc), [])
            owners = {product_of(t) for t in targets}
            if not targets or owners & ALLOWED[p] or None in owners:
                continue
            errors.append("include: %s includes \"%s\" (%s), from %s/, which %s/ may not use (%s/ uses %s)"
                          % (f, inc, ", ".join(sorted(targets)), "/, ".join(sorted(owners)), p, p,
                             ", ".join(x + "/" for x in sorted(ALLOWED[p]))))


def cmake_files(repo, product):
    return [f for f in walk(repo, product) if f.endswith("CMakeLists.txt") or f.endswith(".cmake")]


def check_cmake(repo, errors):
    for p in PRODUCTS:
        for f in cmake_files(repo, p):
            text = strip_cmake_comments(open(os.path.join(repo, f), encoding="utf-8").read())
            for m in LIST_VAR.finditer(text):
                if p != "lib" and not (p == "common" and m.group(1) == "JITFLUSH_COMMON_SOURCES"):
                    errors.append("sources: %s names the library's list ${%s}: %s/ compiles the "
                                  "library's sources a second time" % (f, m.group(1), p))
            for tok in SOURCE_TOKEN.findall(text):
                m = TREE_PATH.search(tok)
                if m and m.group(1) != p:
                    errors.append("sources: %s compiles %s, a source of %s/, into a target of %s/"
                                  % (f, tok, m.group(1), p))
            for m in INCDIR_CMD.finditer(text):
                for other in TREE_PATH.findall(m.group(2)):
                    if other not in ALLOWED[p]:
                        errors.append("incdirs: %s puts %s/ on an include path of %s/ (%s uses %s)"
                                      % (f, other, p, p, ", ".join(x + "/" for x in sorted(ALLOWED[p]))))


def compdb(build, ninja):
    out = subprocess.run([ninja, "-C", build, "-t", "compdb"], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, universal_newlines=True)
    if out.returncode != 0:
        raise SystemExit("check_boundaries.py: %s -t compdb failed: %s" % (ninja, out.stderr.strip()))
    return json.loads(out.stdout)


def include_dirs(args):
    dirs = []
    i = 0
    while i < len(args):
        a = args[i]
        for flag in ("-I", "-isystem", "-iquote", "-idirafter"):
            if a == flag and i + 1 < len(args):
                dirs.append(args[i + 1])
                i += 1
                break
            if a.startswith(flag) and len(a) > len(flag) and flag == "-I":
                dirs.append(a[2:])
                break
        i += 1
    return dirs


def target_of(output):
    """The CMake target an object file belongs to: DIR/CMakeFiles/NAME.dir/..."""
    m = re.match(r'^(.*?)/?CMakeFiles/([^/]+)\.dir/', output)
    return (m.group(1), m.group(2)) if m else (None, None)


def check_build(repo, build, entries, errors):
    repo = os.path.realpath(repo)
    build = os.path.realpath(build)
    compiled_by = {}
    for e in entries:
        out = e.get("output", "")
        if not out.endswith((".o", ".obj")):
            continue  # a link, a custom command: not a compilation
        d = e.get("directory", build)
        src = os.path.realpath(os.path.join(d, e["file"]))
        rel = os.path.relpath(src, repo)
        p = product_of(rel) if not rel.startswith("..") else None
        where, target = target_of(os.path.relpath(os.path.realpath(os.path.join(d, out)), build))
        if p is None or target is None:
            continue
        owner = (where or ".").split("/", 1)[0]
        if owner == "tests":
            continue  # white-box tests may compile and include anything
        args = e["arguments"] if "arguments" in e else shlex.split(e["command"])
        for inc in include_dirs(args):
            inc_rel = os.path.relpath(os.path.realpath(os.path.join(d, inc)), repo)
            q = product_of(inc_rel) if not inc_rel.startswith("..") else None
            if q and q not in ALLOWED[p]:
                errors.append("build-incdir: %s is compiled by %s with %s/ on its include path (%s)"
                              % (rel, target, q, inc))
        if p not in ("lib", "common"):
            continue
        if owner in ("cli", "rig"):
            errors.append("build-owner: %s is compiled by %s, a target of %s/" % (rel, target, owner))
        compiled_by.setdefault(rel, set()).add(target)
    for rel, targets in sorted(compiled_by.items()):
        if len(targets) > 1:
            errors.append("build-owner: %s is compiled by %d targets (%s): build it once"
                          % (rel, len(targets), ", ".join(sorted(targets))))


def check(repo, build=None, ninja="ninja", entries=None):
    errors = []
    for p in PRODUCTS:
        if not os.path.isdir(os.path.join(repo, p)):
            errors.append("%s/: missing (the tree is not what this check expects)" % p)
    check_includes(repo, errors)
    check_cmake(repo, errors)
    if build is not None:
        check_build(repo, build, entries if entries is not None else compdb(build, ninja), errors)
    return errors


MINI = {
    "include/jitflush.h": "#include <stddef.h>\n",
    "lib/CMakeLists.txt": "add_library(jitflush ${JITFLUSH_PORTABLE_SOURCES} $<TARGET_OBJECTS:c>)\n"
                          "target_include_directories(jitflush PRIVATE ${CMAKE_CURRENT_SOURCE_DIR} "
                          "${PROJECT_SOURCE_DIR}/common)\n",
    "lib/flush.c": '#include "jitflush.h"\n#include "priv.h"\n#include "shared.h"\n',
    "lib/priv.h": "int f(void);\n",
    "common/CMakeLists.txt": "add_library(c OBJECT ${JITFLUSH_COMMON_SOURCES})\n",
    "common/shared.c": '#include "shared.h"\n',
    "common/shared.h": "#include <stdint.h>\n",
    "cli/CMakeLists.txt": "add_executable(info main.c)\n# not ${PROJECT_SOURCE_DIR}/lib/flush.c\n",
    "cli/main.c": '#include "jitflush.h"\n#include "shared.h"\n#include "own.h"\n/* "priv.h" */\n',
    "cli/own.h": "",
    "rig/CMakeLists.txt": "add_library(model STATIC model/m.c)\n"
                          "target_include_directories(model PUBLIC ${CMAKE_CURRENT_SOURCE_DIR}/model)\n",
    "rig/model/m.c": '#include "jitflush.h"\n#include "shared.h"\n#include <glib.h>\n',
}


def build_entry(repo, build, src, target_dir, target, incs=()):
    return {"directory": build, "file": os.path.join(repo, src),
            "output": "%sCMakeFiles/%s.dir/%s.o" % (target_dir + "/" if target_dir else "", target,
                                                  os.path.basename(src)),
            "command": "cc " + " ".join("-I" + os.path.join(repo, i) for i in incs) + " -c " + src}


def selftest():
    """Each rule fails on a mini-tree that breaks it and passes the clean one."""
    def clean_build(repo, build):
        return [build_entry(repo, build, "lib/flush.c", "lib", "jitflush", ["include", "lib", "common"]),
                build_entry(repo, build, "common/shared.c", "common", "c", ["common"]),
                build_entry(repo, build, "common/shared.c", "tests/host", "testable", ["common", "lib"]),
                build_entry(repo, build, "cli/main.c", "cli", "info", ["include", "common"])]

    def extra(repo, build, *e):
        return clean_build(repo, build) + [build_entry(repo, build, *x) for x in e]

    cases = [
        ("a clean tree", {}, None, []),
        ("cli/ includes a private header of lib/", {"cli/main.c": '#include "priv.h"\n'}, None,
         ["include:"]),
        ("rig/ includes lib/ by a relative path", {"rig/model/m.c": '#include "../../lib/priv.h"\n'},
         None, ["include:"]),
        ("common/ includes lib/", {"common/shared.c": '#include "priv.h"\n'}, None, ["include:"]),
        ("lib/ includes a header of cli/", {"lib/flush.c": '#include "own.h"\n'}, None, ["include:"]),
        ("the public header includes a private one", {"include/jitflush.h": '#include "priv.h"\n'},
         None, ["include:"]),
        ("rig/ compiles a source of common/ again",
         {"rig/CMakeLists.txt": "add_library(m STATIC model/m.c ${PROJECT_SOURCE_DIR}/common/shared.c)\n"},
         None, ["sources:"]),
        ("cli/ compiles the library's source list",
         {"cli/CMakeLists.txt": "add_executable(info main.c ${JITFLUSH_PORTABLE_SOURCES})\n"}, None,
         ["sources:"]),
        ("cli/ puts lib/ on its include path",
         {"cli/CMakeLists.txt": "add_executable(info main.c)\n"
                                "target_include_directories(info PRIVATE ${PROJECT_SOURCE_DIR}/lib)\n"},
         None, ["incdirs:"]),
        ("a clean build", {}, clean_build, []),
        ("cli/ compiled with lib/ on its include path (passed on by a target)", {},
         lambda r, b: extra(r, b, ("cli/main.c", "cli", "info2", ["lib"])), ["build-incdir:"]),
        ("a lib/ source compiled by a target of rig/", {},
         lambda r, b: extra(r, b, ("lib/flush.c", "rig", "model", ["include", "lib"])), ["build-owner:"]),
        ("a common/ source compiled by two library targets", {},
         lambda r, b: extra(r, b, ("common/shared.c", "lib", "jitflush", ["common"])), ["build-owner:"]),
    ]
    bad = 0
    for title, changes, build, want in cases:
        with tempfile.TemporaryDirectory() as d:
            repo = os.path.join(d, "repo")
            for path, text in dict(MINI, **changes).items():
                os.makedirs(os.path.dirname(os.path.join(repo, path)), exist_ok=True)
                with open(os.path.join(repo, path), "w") as f:
                    f.write(text)
            b = os.path.join(d, "build")
            os.makedirs(b)
            errors = check(repo, b if build else None, entries=build(repo, b) if build else None)
        got = sorted({e.split(" ", 1)[0] for e in errors})
        ok = got == want
        bad += selftest_case.report(title, ok, errors)
    return 1 if bad else 0


def main(argv):
    if argv[1:] == ["--selftest"]:
        return selftest()
    args = argv[1:]
    build, ninja = None, "ninja"
    if "--build" in args:
        i = args.index("--build")
        build = args[i + 1] if i + 1 < len(args) else None
        del args[i:i + 2]
    if "--ninja" in args:
        i = args.index("--ninja")
        ninja = args[i + 1] if i + 1 < len(args) else ninja
        del args[i:i + 2]
    if len(args) != 1 or (build is None and "--build" in argv):
        sys.stderr.write(__doc__)
        return 2
    errors = check(args[0], build, ninja)
    for e in errors:
        print(e)
    print("%d violation%s of the product boundaries%s" % (len(errors), "" if len(errors) == 1 else "s",
                                                        " (sources and build tree)" if build else ""))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
