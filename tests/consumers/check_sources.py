#!/usr/bin/env python3
"""Claims about other projects are sourced, and say the same thing everywhere.

docs/BACKGROUND.md holds one table, between <!-- sources:begin --> and
<!-- sources:end -->, with a row per project version whose flush jitflush
describes: an anchor id (src-ID), the names the docs and the CLI use for it,
a class keyword, what it does, and the repository, path and commit or release
it was read in. This checker enforces (docs/TESTING.md, "Claims about other
projects"):

  table  every row has an id, at least one name, a known class and a
         non-empty "read in" cell; ids are unique.
  cli    every strategy of cli/info_strategies.def names, in its "who"
         field, only projects that have a row of the strategy's class (and
         with --cli, jitflush-info --json prints exactly those names).
  link   outside the table, a sentence of README.md or docs/*.md that names a
         project of the table and describes a flush (uses a phrase of the
         class vocabulary below) links one of that project's rows
         (BACKGROUND.md#src-ID).
  class  a sentence that links a row uses a phrase of that row's class: the
         sentence may not describe the row's flush as something else.

Usage: check_sources.py REPO [--cli JITFLUSH_INFO]   (exit 0 ok, 1 violations)
       check_sources.py --selftest                    (the checker can fail)
"""
import json
import os
import re
import subprocess
import sys
import tempfile

import selftest_case  # tests/consumers/selftest_case.py

# Class keyword -> phrases that describe a flush of that class. A phrase is
# what triggers the link rule, and what the class rule looks for.
VOCABULARY = {
    "latched": [r"\blatch", r"\bread once\b", r"cached in a static",
                r"\b(keep|keeps|kept) (it )?in a static", r"cached stride", r"\bconstructor\b",
                r"on (its|the) first call"],
    "per-call": [r"on every call", r"\bper-call\b", r"\beach call\b"],
    "running-min": [r"smallest value seen", r"running minimum", r"minimum seen"],
    "fixed": [r"\bfixed (stride|\d+-byte|\d+ bytes?)", r"hard-coded stride"],
    "relies-on-kernel": [r"\brel(y|ies|ying|ied) on (the |its |one )?(first `?mprotect|kernel's first)",
                         r"no `?dc`?/`?ic`? at all"],
    "delegates": [r"\bcalls? [^.]{0,30}`?__clear_cache", r"`__builtin___clear_cache`",
                  r"static copy of libgcc"],
    "ctr-trap": [r"\btraps? (EL0 )?(reads of )?`?CTR_EL0", r"`?mrs ctr_el0`?[^.]{0,20}\btraps", r"\bsanitis"],
    "exec-map-sync": [r"first[- ]exec(utable)?[- ]map", r"PG_dcache_clean"],
    "firmware-trap": [r"\bEL3\b"],
}
CLASSES = set(VOCABULARY)
# What the kernel and the firmware do. A project all of whose rows are of
# these classes (Linux, Trusted Firmware-A) is described by a sentence only
# when the sentence uses their words: "relies on the first mprotect (the
# design of Wasmtime on Linux)" describes Wasmtime, not Linux.
SYSTEM_CLASSES = {"ctr-trap", "exec-map-sync", "firmware-trap"}

LINK = re.compile(r"\]\((?:[^)#\s]*BACKGROUND\.md)?#src-([a-z0-9-]+)\)")


def fail_list():
    return []


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def parse_table(text, errors):
    """Rows of the sources table: dicts with id, names, cls, read_in."""
    m = re.search(r"<!-- sources:begin -->\n(.*?)<!-- sources:end -->", text, re.S)
    if not m:
        errors.append("BACKGROUND.md: no <!-- sources:begin --> ... <!-- sources:end --> table")
        return [], (0, 0)
    rows = []
    for line in m.group(1).splitlines():
        if not line.startswith("|") or re.match(r"^\|[-| ]+\|$", line):
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if cells[0] == "implementation":
            continue
        if len(cells) != 5:
            errors.append("sources table: row needs 5 cells: %s" % line[:80])
            continue
        idm = re.search(r'<a id="src-([a-z0-9-]+)"></a>', cells[0])
        names = [n.strip() for n in re.sub(r"<[^>]*>|`", "", cells[1]).split(",") if n.strip()]
        row = {"id": idm.group(1) if idm else None, "names": names, "cls": cells[2].strip("`"),
               "read_in": cells[4], "line": line}
        if not row["id"]:
            errors.append("sources table: row without <a id=\"src-...\"></a>: %s" % line[:80])
        if not names:
            errors.append("sources table: row %s names no project" % row["id"])
        if row["cls"] not in CLASSES:
            errors.append("sources table: row %s has unknown class %r (known: %s)"
                          % (row["id"], row["cls"], ", ".join(sorted(CLASSES))))
        if len(re.sub(r"\W", "", row["read_in"])) < 8:
            errors.append("sources table: row %s says nothing about where it was read" % row["id"])
        rows.append(row)
    ids = [r["id"] for r in rows]
    for i in set(ids):
        if ids.count(i) > 1:
            errors.append("sources table: id src-%s is used twice" % i)
    return rows, m.span()


def name_pattern(name):
    # A project's name as a word: "libgcc" but not "luajit-libgcc" or "libgcc_s".
    return re.compile(r"(?<![\w/.-])" + re.escape(name) + r"(?![\w-])")


def check_def(def_text, rows, errors):
    """The CLI's strategies name only projects with a row of their class."""
    strategies = []
    for m in re.finditer(r'INFO_STRATEGY\((\w+),\s*(\w+),\s*"([^"]*)",\s*"([^"]*)",\s*"([^"]*)"\)',
                         def_text):
        sid, key, cls, what, who = m.groups()
        strategies.append((key, cls, what, who))
        if cls not in CLASSES:
            errors.append("info_strategies.def: %s has unknown class %r" % (key, cls))
        for item in [w.strip() for w in who.split(",") if w.strip()]:
            matches = [r for r in rows for n in r["names"] if item == n or item.startswith(n + " ")]
            if not matches:
                errors.append("info_strategies.def: %s names %r, which has no row in the sources "
                              "table (docs/BACKGROUND.md#sources)" % (key, item))
            elif not any(r["cls"] == cls for r in matches):
                errors.append("info_strategies.def: %s (class %s) names %r, whose rows are %s"
                              % (key, cls, item,
                                 ", ".join("src-%s (%s)" % (r["id"], r["cls"]) for r in matches)))
    if not strategies:
        errors.append("info_strategies.def: no INFO_STRATEGY rows found")
    return strategies


def check_cli(binary, strategies, errors):
    """jitflush-info --json prints the names the .def gives, nothing else."""
    out = subprocess.run([binary, "--json"], stdout=subprocess.PIPE, universal_newlines=True)
    doc = json.loads(out.stdout)
    printed = doc["verdict"]["strategies"]
    for key, cls, what, who in strategies:
        want = "%s (%s)" % (what, who) if who else what
        got = printed.get(key, {}).get("name")
        if got != want:
            errors.append("jitflush-info --json: strategy %s is named %r, info_strategies.def "
                          "says %r" % (key, got, want))
    for key in printed:
        if key not in [s[0] for s in strategies]:
            errors.append("jitflush-info --json: strategy %s is not in info_strategies.def" % key)


def blocks(text):
    """Paragraphs, list items and table rows of a markdown text, without code."""
    out, cur, fence, start = [], [], False, 0
    lines = text.split("\n")
    for i, line in enumerate(lines):
        if line.lstrip().startswith("```"):
            fence = not fence
            if cur:
                out.append((start, " ".join(cur)))
                cur = []
            continue
        if fence:
            continue
        indented_code = line.startswith("    ") and not cur and (i == 0 or not lines[i - 1].strip())
        new_item = re.match(r"^\s*([-*]|\d+\.) ", line) or line.startswith("|")
        if not line.strip() or indented_code or new_item or line.startswith("#"):
            if cur:
                out.append((start, " ".join(cur)))
                cur = []
            if indented_code or not line.strip():
                continue
        if not cur:
            start = i + 1
        cur.append(line.strip())
        if line.startswith("|") or line.startswith("#"):
            out.append((start, " ".join(cur)))
            cur = []
    if cur:
        out.append((start, " ".join(cur)))
    return out


def sentences(block):
    # A table row is one record; prose is split at sentence ends.
    if block.startswith("|"):
        yield block
        return
    for s in re.split(r"(?<=[.!?])\s+(?=[A-Z`(*\[])", block):
        yield s


def phrases_of(sentence):
    return {cls for cls, pats in VOCABULARY.items() for p in pats if re.search(p, sentence, re.I)}


def check_docs(docs, rows, errors):
    by_id = {r["id"]: r for r in rows}
    projects = {}
    for r in rows:
        for n in r["names"]:
            projects.setdefault(n, []).append(r)
    patterns = {n: name_pattern(n) for n in projects}
    for path, text in docs:
        for lineno, block in blocks(text):
            for sent in sentences(block):
                plain = re.sub(r"\]\([^)]*\)", "]", sent)  # link targets are not prose
                cls_used = phrases_of(plain)
                linked = LINK.findall(sent)
                for rid in linked:
                    if rid not in by_id:
                        errors.append("%s:%d: links #src-%s, which is not a row of the sources "
                                      "table" % (path, lineno, rid))
                    elif by_id[rid]["cls"] not in cls_used:
                        errors.append("%s:%d: links the row src-%s (class %s) but does not "
                                      "describe that flush with the class's words (%s): %s"
                                      % (path, lineno, rid, by_id[rid]["cls"],
                                         " / ".join(VOCABULARY[by_id[rid]["cls"]]), sent[:160]))
                if not cls_used:
                    continue
                for name, pat in patterns.items():
                    if not pat.search(plain):
                        continue
                    own = {r["cls"] for r in projects[name]}
                    if own <= SYSTEM_CLASSES and not (cls_used & SYSTEM_CLASSES):
                        continue
                    if not any(r["id"] in linked for r in projects[name]):
                        errors.append("%s:%d: describes %s's flush without linking its row (%s): "
                                      "%s" % (path, lineno, name,
                                              ", ".join("#src-" + r["id"] for r in projects[name]),
                                              sent[:160]))


def check_repo(repo, cli=None):
    errors = []
    background = read(os.path.join(repo, "docs", "BACKGROUND.md"))
    rows, span = parse_table(background, errors)
    strategies = check_def(read(os.path.join(repo, "cli", "info_strategies.def")), rows,
                           errors)
    if cli:
        check_cli(cli, strategies, errors)
    docs = [("docs/BACKGROUND.md", background[:span[0]] + background[span[1]:])]
    for name in sorted(os.listdir(os.path.join(repo, "docs"))):
        if name.endswith(".md") and name != "BACKGROUND.md":
            docs.append(("docs/" + name, read(os.path.join(repo, "docs", name))))
    docs.append(("README.md", read(os.path.join(repo, "README.md"))))
    check_docs(docs, rows, errors)
    return errors, rows, strategies


TABLE = """<!-- sources:begin -->
| implementation | names | class | what it does | read in |
|---|---|---|---|---|
| <a id="src-a"></a>A 1 | Alpha | latched | reads once | org/alpha `x.c` at 1234567 |
| <a id="src-b"></a>B old | Beta | relies-on-kernel | relies on the kernel's first mprotect | org/beta `y.rs` at v1.0.0 |
| <a id="src-c"></a>B new | Beta | fixed | a fixed 64-byte stride | org/beta `y.rs` at v2.0.0 |
<!-- sources:end -->
"""
DEF = 'INFO_STRATEGY(ONE, one, "latched", "cached in a static", "Alpha")\n'


def selftest():
    """Each rule fails on a repository that breaks it, and passes the fixed one."""
    cases = [
        ("a clean repository", TABLE, DEF, "Beta relies on the kernel's first mprotect "
         "([row](BACKGROUND.md#src-b)).\n", 0),
        ("a CLI strategy naming a project with no row", TABLE,
         DEF.replace('"Alpha"', '"Alpha, Gamma"'), "", 1),
        ("a CLI strategy naming a project of another class", TABLE,
         DEF.replace('"Alpha"', '"Beta 2"'), "", 1),
        ("a doc describing a flush without a link", TABLE, DEF,
         "Alpha's flush is latched in a static.\n", 1),
        ("two docs describing one project's flush differently", TABLE, DEF,
         "Beta uses a fixed 64-byte stride ([row](BACKGROUND.md#src-b)).\n", 1),
        ("a link to a row that does not exist", TABLE, DEF,
         "Alpha latches it ([row](BACKGROUND.md#src-z)).\n", 1),
        ("a table row with no source", TABLE.replace("org/beta `y.rs` at v2.0.0", ""), DEF, "", 1),
    ]
    bad = 0
    for title, table, def_text, doc, want in cases:
        with tempfile.TemporaryDirectory() as d:
            os.makedirs(os.path.join(d, "docs"))
            os.makedirs(os.path.join(d, "cli"))
            with open(os.path.join(d, "docs", "BACKGROUND.md"), "w") as f:
                f.write("# B\n\n" + table)
            with open(os.path.join(d, "docs", "FAQ.md"), "w") as f:
                f.write("# F\n\n" + doc)
            with open(os.path.join(d, "README.md"), "w") as f:
                f.write("# R\n")
            with open(os.path.join(d, "cli", "info_strategies.def"), "w") as f:
                f.write(def_text)
            errors = check_repo(d)[0]
        got = 1 if errors else 0
        bad += selftest_case.report(title, got == want, errors)
    return 1 if bad else 0


def main(argv):
    if argv[1:] == ["--selftest"]:
        return selftest()
    if len(argv) not in (2, 4) or (len(argv) == 4 and argv[2] != "--cli"):
        sys.stderr.write(__doc__)
        return 2
    errors, rows, strategies = check_repo(argv[1], argv[3] if len(argv) == 4 else None)
    for e in errors:
        print(e)
    print("%d sources rows, %d CLI strategies, %d violation%s"
          % (len(rows), len(strategies), len(errors), "" if len(errors) == 1 else "s"))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
