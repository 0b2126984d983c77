#!/usr/bin/env python3
"""Every C and Rust block of README.md and docs/*.md is code a test compiles
and runs.

Each ```c or ```rust block must start with a line `// from PATH` (PATH relative to the
repository root) and the rest of the block must be PATH's text, verbatim or
as a contiguous run of its lines (compared after removing the run's common
indentation, so an excerpt from inside a function may sit at the margin).
The files named are the programs of tests/patching/examples/ and
examples/minimal_jit.c, which the patching and consumers tests build and
run, and for Rust the jitflush crate's files (bindings/rust), which the rust
tests build and run, and tests/suite/cargo-jit-jitflush. docs/API.md is generated from include/jitflush.h (docs.api_current
keeps it current); its blocks are checked the same way against the header,
which every test compiles, without a marker line.

  check_doc_code.py ROOT          exit 0 if every block matches, 1 if not
"""
import glob
import os
import re
import sys
import textwrap

BLOCK = re.compile(r"^```(?:c|rust)[ \t]*\n(.*?)^```[ \t]*$", re.S | re.M)
MARKER = re.compile(r"^//\s*from\s+(\S+)\s*$")
GENERATED = {"docs/API.md": "include/jitflush.h"}


def dedent(lines):
    return textwrap.dedent("\n".join(lines) + "\n").split("\n")[:-1]


def is_excerpt(block, source):
    """Whether block's lines are a contiguous run of source's lines."""
    want = dedent(block)
    n = len(want)
    if n == 0:
        return False
    for i in range(len(source) - n + 1):
        if source[i].strip() == block[0].strip() and dedent(source[i : i + n]) == want:
            return True
    return False


def first_difference(block, source):
    """A hint: the first block line found nowhere in the source."""
    stripped = {line.strip() for line in source}
    for k, line in enumerate(block):
        if line.strip() not in stripped:
            return k, line
    return None


def check(root):
    docs = [os.path.join(root, "README.md")] + sorted(glob.glob(os.path.join(root, "docs", "*.md")))
    failures, checked = [], 0
    for doc in docs:
        rel = os.path.relpath(doc, root)
        text = open(doc, encoding="utf-8").read()
        for m in BLOCK.finditer(text):
            line_no = text.count("\n", 0, m.start()) + 1
            lines = m.group(1).split("\n")[:-1]
            where = f"{rel}:{line_no}"
            marker = MARKER.match(lines[0]) if lines else None
            if marker:
                path, body = marker.group(1), lines[1:]
            elif rel in GENERATED:
                path, body = GENERATED[rel], lines
            else:
                failures.append(f"{where}: a C or Rust block must start with `// from PATH` naming the file it shows")
                continue
            full = os.path.join(root, path)
            if not os.path.isfile(full):
                failures.append(f"{where}: {path} does not exist")
                continue
            source = open(full, encoding="utf-8").read().split("\n")
            checked += 1
            if not is_excerpt(body, source):
                hint = first_difference(body, source)
                detail = f" (block line {hint[0] + 1} is not in it: {hint[1].strip()!r})" if hint else ""
                failures.append(f"{where}: the block is not {path}, nor a contiguous excerpt of it{detail}")
    for f in failures:
        print(f"check_doc_code: {f}", file=sys.stderr)
    print(f"check_doc_code: {checked} C and Rust blocks checked in {len(docs)} files, {len(failures)} failing")
    return 1 if failures or checked == 0 else 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    sys.exit(check(sys.argv[1]))
