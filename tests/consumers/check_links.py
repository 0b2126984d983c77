#!/usr/bin/env python3
"""Every link into the documentation leads somewhere, and the reference holds no history.

  links     every relative link of a Markdown file of the repository (README.md,
            docs/*.md, the READMEs of folders; CHANGELOG.md too) names a file
            or folder that exists, and its #anchor is a heading of the target
            (GitHub's slugs: lower case, punctuation dropped, spaces to
            hyphens, -1, -2 for repeats) or an explicit <a id> / <a name>.
  comments  every place in the code (lib/, common/, cli/, rig/, include/, ci/,
            tests/, examples/, cmake/, qemu-configs/, actions/) that points at
            a document does too: docs/X.md, X.md#anchor, X.md, "Section
            name", README's "Section name": the document exists, the anchor
            is one of its anchors and the section one of its headings (case
            and Markdown markup aside). A comment's reference may wrap onto
            the next comment line. A page's prose that names a document
            outside a link ("FACTS.md section 5") is held to the same rules.
  history   "new in this release" and internal issue numbers ("issue 14",
            "#46") appear only in the history files (HISTORY below:
            CHANGELOG.md and the dated measurement log). Another project's
            issue cited by its name ("LLVM issue 70791") is a citation, not
            history.

Usage: check_links.py REPO          (exit 0 ok, 1 violations, each on stderr)
       check_links.py --selftest    (each rule fails on a tree that breaks it)
"""
import bisect
import os
import re
import sys
import tempfile

import selftest_case  # tests/consumers/selftest_case.py

# The files where history belongs (the reference links to them).
HISTORY = {"CHANGELOG.md", "docs/MEASUREMENTS.md"}
# The checkers' own sources, whose self-tests hold broken trees on purpose.
CODE_SKIP = {"tests/consumers/check_links.py", "tests/consumers/check_sources.py"}
MARKDOWN_SKIP = {".git", ".cache", "build", "node_modules"}
CODE_DIRS = ["lib", "common", "cli", "rig", "include", "ci", "tests", "examples", "cmake",
             "qemu-configs", "actions", "debian"]
CODE_FILES = ["CMakeLists.txt", "CMakePresets.json", ".ci/run"]
CODE_EXT = (".c", ".h", ".cc", ".S", ".def", ".py", ".sh", ".cmake", ".txt", ".conf", ".yml",
            ".toml", ".ini", ".in", ".json", ".lua", ".js", ".rs", ".litmus", ".md")

FENCE = re.compile(r"^( {0,3})(```+|~~~+).*?^\1\2[ \t]*$", re.S | re.M)
INDENTED = re.compile(r"(?<=\n\n)(?:(?: {4}|\t)[^\n]*(?:\n|$))+")
BOLD_LEAD = re.compile(r"^(?:<a [^>]*></a>)?\*\*(.+?)\*\*", re.M)
CODE_TERM = re.compile(r"`([^`\s]+)`")
INLINE_CODE = re.compile(r"(`+)(?:(?!\1).)+?\1", re.S)
HTML_COMMENT = re.compile(r"<!--.*?-->", re.S)
HEADING = re.compile(r"^ {0,3}(#{1,6})[ \t]+(.*?)[ \t#]*$", re.M)
EXPLICIT_ANCHOR = re.compile(r"<a\s+(?:id|name)\s*=\s*\"([^\"]+)\"", re.I)
LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\[\]]*\])*\]\(\s*<?([^\s)>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
REF_DEF = re.compile(r"^ {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+\"[^\"]*\")?\s*$", re.M)
SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")

# A document named in code: docs/X.md, X.md (capitals), a folder's README.md,
# followed by #anchor or by a quoted section name; README's "Section" too.
DOC_REF = re.compile(
    r"(?<![\w$/{}.-])(?P<path>(?:[\w.-]+/)*(?:[A-Z][A-Z0-9_-]*|[\w-]+/[\w.-]+)\.md)"
    r"(?:#(?P<anchor>[\w-]+)|(?:'s)?(?:,[ \t]*|[ \t]+)\"(?P<section>[A-Za-z`][^\"(){}\[\]=;<>|]*?)\")?")
README_REF = re.compile(r"\bREADME(?:'s)?,?[ \t]+\"(?P<section>[A-Za-z`][^\"(){}\[\]=;<>|]*?)\"")
# A comment's continuation: the newline, the indentation and the comment
# marker of the next line.
COMMENT_JOIN = re.compile(r"[ \t]*\n[ \t]*(?:\*(?!/)|//+|#+|--|;+)?[ \t]*")

NEW_IN_RELEASE = re.compile(r"new in this release", re.I)
ISSUE = re.compile(r"(?P<before>\S+[ \t]+)?\b(?P<word>[Ii]ssues?)[ \t]+#?(?P<n>\d+)\b")
HASH_NUMBER = re.compile(r"(?<![\w&#/])#(?P<n>\d{1,4})\b(?![\w-])")
# Words that start a sentence or a phrase, not a project's name: "Issue 23"
# after them is this project's.
NOT_A_PROJECT = {"the", "this", "that", "an", "a", "see", "our", "in", "per", "since", "before",
                 "after", "its", "by", "from", "of", "for", "and", "or", "as", "to", "same",
                 "open", "closed", "fixed", "until", "with", "which", "each", "every", "one"}


def read(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        return f.read()


def blank(match):
    """The match replaced by spaces, newlines kept, so positions stay."""
    return re.sub(r"[^\n]", " ", match.group(0))


def prose(text):
    """Markdown with code blocks, code spans and comments blanked out."""
    text = FENCE.sub(blank, text)
    text = INDENTED.sub(blank, text)
    text = HTML_COMMENT.sub(lambda m: m.group(0) if EXPLICIT_ANCHOR.search(m.group(0)) else blank(m),
                            text)
    return INLINE_CODE.sub(blank, text)


def heading_text(raw):
    """A heading's text as GitHub renders it: markup gone, code spans verbatim."""
    out = []
    for k, part in enumerate(re.split(r"(`+[^`]*?`+)", raw)):
        if k % 2:
            out.append(part.strip("`"))
            continue
        part = re.sub(r"!?\[((?:[^\[\]]|\[[^\[\]]*\])*)\]\([^)]*\)", r"\1", part)
        part = re.sub(r"<[^>]+>", "", part)
        out.append(re.sub(r"\*+|(?<!\w)_+|_+(?!\w)", "", part))
    return "".join(out).strip()


def slug(text):
    """GitHub's heading anchor: lower case, punctuation dropped, spaces to hyphens."""
    text = text.lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


class Doc:
    def __init__(self, path):
        raw = read(path)
        self.text = prose(raw)
        self.anchors, self.sections = set(), set()
        seen = {}
        # Headings are read without blanking code spans (their text counts).
        no_fences = FENCE.sub(blank, raw)
        for m in HEADING.finditer(no_fences):
            text = heading_text(m.group(2))
            base = slug(text)
            n = seen.get(base, 0)
            seen[base] = n + 1
            self.anchors.add(base if n == 0 else "%s-%d" % (base, n))
            self.sections.add(normal(text))
            # "Targets" names "## Targets (checked by ci/bench/run.sh)".
            self.sections.add(normal(re.sub(r"\s*\([^()]*\)$", "", text)))
        self.anchors.update(EXPLICIT_ANCHOR.findall(raw))
        # A paragraph that opens in bold is a section too ("**Per-call
        # guard.** When ..."), and a code term the page defines ("flush.caller").
        for m in BOLD_LEAD.finditer(no_fences):
            self.sections.add(normal(heading_text(m.group(1)).rstrip(".:")))
        self.terms = set(CODE_TERM.findall(no_fences))


def normal(section):
    return re.sub(r"\s+", " ", section.replace("`", "")).strip().lower()


class Checker:
    def __init__(self, repo):
        self.repo = os.path.abspath(repo)
        self.docs = {}
        self.errors = []

    def doc(self, path):
        if path not in self.docs:
            self.docs[path] = Doc(path)
        return self.docs[path]

    def rel(self, path):
        return os.path.relpath(path, self.repo)

    def where(self, path, text, pos):
        return "%s:%d" % (self.rel(path), text.count("\n", 0, pos) + 1)

    def fail(self, where, message):
        self.errors.append("%s: %s" % (where, message))

    # -- files -----------------------------------------------------------
    def markdown_files(self):
        out = []
        for top, dirs, files in os.walk(self.repo):
            dirs[:] = sorted(d for d in dirs if d not in MARKDOWN_SKIP and
                             not (top == self.repo and d.startswith("build")))
            out += [os.path.join(top, f) for f in sorted(files) if f.endswith(".md")]
        return out

    def code_files(self):
        out = [os.path.join(self.repo, f) for f in CODE_FILES
               if os.path.isfile(os.path.join(self.repo, f))]
        for d in CODE_DIRS:
            for top, dirs, files in os.walk(os.path.join(self.repo, d)):
                dirs[:] = sorted(x for x in dirs if x not in MARKDOWN_SKIP)
                for f in sorted(files):
                    full = os.path.join(top, f)
                    if ((f.endswith(CODE_EXT) or f == "CMakeLists.txt") and not f.endswith(".md")
                            and self.rel(full) not in CODE_SKIP):
                        out.append(full)
        return out

    # -- rules -----------------------------------------------------------
    def check_anchor(self, where, target, anchor):
        if anchor and target.endswith(".md") and anchor not in self.doc(target).anchors:
            self.fail(where, "%s has no anchor #%s" % (self.rel(target), anchor))

    def check_markdown(self, path):
        doc = self.doc(path)
        targets = [(m.start(), m.group(1)) for m in LINK.finditer(doc.text)]
        targets += [(m.start(), m.group(1)) for m in REF_DEF.finditer(doc.text)]
        for pos, target in targets:
            if SCHEME.match(target) or target.startswith("//"):
                continue
            where = self.where(path, doc.text, pos)
            file_part, _, anchor = target.partition("#")
            full = os.path.normpath(os.path.join(os.path.dirname(path), file_part)) if file_part else path
            if not os.path.exists(full):
                self.fail(where, "link to %s: no such file" % target)
                continue
            if not full.startswith(self.repo + os.sep) and full != self.repo:
                self.fail(where, "link to %s leaves the repository" % target)
                continue
            self.check_anchor(where, full, anchor)

    def resolve(self, source, name):
        """The document a code comment names, or None when it is not one of ours."""
        here = os.path.dirname(source)
        bases = (self.repo, here) if "/" in name else (here, os.path.join(self.repo, "docs"), self.repo)
        for base in bases:
            full = os.path.normpath(os.path.join(base, name))
            if os.path.isfile(full) and full.startswith(self.repo + os.sep):
                return full
        return None

    def check_section(self, where, target, section):
        doc = self.doc(target)
        if " " not in section and section in doc.terms:
            return
        if normal(section) not in doc.sections:
            self.fail(where, '%s has no section "%s"' % (self.rel(target), section))

    def check_code(self, path):
        raw = read(path)
        if "\0" in raw:
            return
        text = COMMENT_JOIN.sub(" ", raw)
        # Each join took one newline: a position's line is 1 + the joins before it.
        joins, shift = [], 0
        for m in COMMENT_JOIN.finditer(raw):
            joins.append(m.start() - shift)
            shift += m.end() - m.start() - 1

        def line_of(pos):
            return "%s:%d" % (self.rel(path), bisect.bisect_left(joins, pos) + 1)

        self.check_doc_refs(path, text, line_of)

    def check_doc_refs(self, path, text, where_of):
        """Each document, anchor and section the text names exists."""
        for m in DOC_REF.finditer(text):
            name = m.group("path")
            top = name.split("/")[0]
            ours = ("/" not in name or top in ("docs", "..") or
                    (os.path.isdir(os.path.join(self.repo, top)) and top not in MARKDOWN_SKIP
                     and not top.startswith("build")))
            if not ours:
                continue
            target = self.resolve(path, name)
            if target is None:
                self.fail(where_of(m.start()), "names %s: no such document" % name)
                continue
            if m.group("anchor"):
                self.check_anchor(where_of(m.start()), target, m.group("anchor"))
            if m.group("section"):
                self.check_section(where_of(m.start()), target, m.group("section"))
        readme = os.path.join(self.repo, "README.md")
        for m in README_REF.finditer(text):
            if os.path.isfile(readme):
                self.check_section(where_of(m.start()), readme, m.group("section"))

    def check_history(self, path, text, where_of):
        if self.rel(path) in HISTORY:
            return
        for m in NEW_IN_RELEASE.finditer(text):
            self.fail(where_of(m.start()), '"%s": history belongs in CHANGELOG.md' % m.group(0))
        for m in ISSUE.finditer(text):
            before = (m.group("before") or "").strip()
            word = re.sub(r"^[(\[\"']+|'s$|'$", "", before)
            is_project = "/" in word or (word[:1].isupper() and word.lower() not in NOT_A_PROJECT
                                         and not word.endswith((".", ",", ";", ":", ")")))
            if not is_project:
                self.fail(where_of(m.start("word")),
                          '"%s %s": an internal issue number; history belongs in CHANGELOG.md'
                          % (m.group("word"), m.group("n")))

    def check_prose_refs(self, path):
        """A document named in a page's prose, outside links and code: "see
        docs/RIG.md, "Limits"" is held to the rules of a code comment."""
        if self.rel(path) in HISTORY:
            return
        doc = self.doc(path)
        text = LINK.sub(blank, doc.text)
        self.check_doc_refs(path, text, lambda pos: self.where(path, text, pos))

    def check_history_markdown(self, path):
        doc = self.doc(path)
        self.check_history(path, doc.text, lambda pos: self.where(path, doc.text, pos))
        if self.rel(path) in HISTORY:
            return
        for m in HASH_NUMBER.finditer(doc.text):
            self.fail(self.where(path, doc.text, m.start()),
                      '"#%s": an internal issue number; history belongs in CHANGELOG.md' % m.group("n"))

    def run(self):
        for path in self.markdown_files():
            self.check_markdown(path)
            self.check_prose_refs(path)
            self.check_history_markdown(path)
        for path in self.code_files():
            self.check_code(path)
            raw = read(path)
            self.check_history(path, raw, lambda pos, p=path, r=raw: self.where(p, r, pos))
        return self.errors


def check(repo):
    checker = Checker(repo)
    errors = checker.run()
    for e in errors:
        print("check_links: " + e, file=sys.stderr)
    print("check_links: %d Markdown files and %d code files checked, %d violations"
          % (len(checker.markdown_files()), len(checker.code_files()), len(errors)))
    return 1 if errors else 0


GOOD = {
    "README.md": "# Tool\n\n## The two commands\n\nSee [the rig](docs/RIG.md#the-json-report),\n"
                 "[its `[kernel]`](docs/RIG.md#kernel), [limits](docs/RIG.md#limits-1),\n"
                 "[a row](docs/RIG.md#src-x), [the drop-in](docs/RIG.md#drop-in-for-__clear_cache)\n"
                 "and [the code](lib/a.c).\nLLVM issue 70791 reports the same latch.\n\n"
                 "    STALE FETCH #1 (an indented block, issue 3 in it is not prose)\n",
    "docs/RIG.md": "# Rig\n\n## The JSON report\n\n### [kernel]\n\n## Limits\n\n## Limits\n\n"
                   "## Drop-in for `__clear_cache`\n\n## Targets (checked by ci/bench/run.sh)\n\n"
                   "**Per-call guard.** A paragraph; `flush.caller` is a term.\n\n"
                   '<a id="src-x"></a>A row.\n\n```sh\n# issue 12 in a code block is not prose\n```\n',
    "CHANGELOG.md": "# Changelog\n\n- New in this release: the rig (issue 12, #13).\n",
    "lib/a.c": "/* The report (docs/RIG.md, \"The JSON\n * report\"; RIG.md#limits; README's \"The two\n"
               " * commands\" section; docs/RIG.md \"Targets\"; RIG.md, \"Per-call guard\";\n"
               " * docs/RIG.md, \"flush.caller\"). mov x0, #42 */\nint a;\n",
    "ci/run.sh": "#!/bin/sh\n# The measurement (docs/RIG.md, \"Limits\").\necho \"$root/docs/GONE.md\"\n",
}
BROKEN = [
    ("a link to a file that does not exist", "README.md", "[x](docs/GONE.md)\n"),
    ("a link to an anchor the target lacks", "README.md", "[x](docs/RIG.md#the-report)\n"),
    ("a link to a heading of the same page that is not there", "docs/RIG.md", "[x](#nowhere)\n"),
    ("a link that wraps a line, to a missing anchor", "README.md", "[the\nrig](docs/RIG.md#rig-2)\n"),
    ("a comment naming a section that is not there", "lib/a.c", "/* docs/RIG.md, \"The report\" */\n"),
    ("a wrapped comment naming a section that is not there", "lib/a.c",
     "/* docs/RIG.md, \"The JSON\n * output\" */\n"),
    ("a comment naming a missing document", "ci/run.sh", "# see docs/GONE.md\n"),
    ("a comment naming a missing anchor", "ci/run.sh", "# see RIG.md#the-report\n"),
    ("a comment naming a document outside the repository", "ci/run.sh",
     "# see ../shared/FACTS.md section 5\n"),
    ("a comment naming a README section that is not there", "lib/a.c",
     "/* see README \"Per-call guard\". */\n"),
    ("a page naming a document outside the repository", "docs/RIG.md",
     "The host (FACTS.md section 5 says why).\n"),
    ("a page naming a section another page does not have", "README.md",
     "See docs/RIG.md, \"The report\".\n"),
    ("new in this release in the reference", "docs/RIG.md", "**New in this release**: a flag.\n"),
    ("an internal issue number in a doc", "docs/RIG.md", "Issue 23's targets.\n"),
    ("an internal issue number as #N in a doc", "README.md", "Fixed in #46.\n"),
    ("an internal issue number in a script's comment", "ci/run.sh", "# (issue 27, \"Proof\")\n"),
]


def write_tree(root, files):
    for name, text in files.items():
        full = os.path.join(root, name)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "w", encoding="utf-8") as f:
            f.write(text)


def selftest():
    """The good tree passes; each broken copy fails, in the file it broke."""
    bad = 0
    cases = [("a tree whose every link and reference holds", None, "")] + BROKEN
    for title, name, text in cases:
        with tempfile.TemporaryDirectory() as d:
            files = dict(GOOD)
            if name:
                files[name] = files[name] + text
            write_tree(d, files)
            errors = Checker(d).run()
        right = (not errors) if name is None else (
            bool(errors) and all(e.startswith(name + ":") for e in errors))
        bad += selftest_case.report(title, right, errors)
    return 1 if bad else 0


if __name__ == "__main__":
    if sys.argv[1:] == ["--selftest"]:
        sys.exit(selftest())
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    sys.exit(check(sys.argv[1]))
