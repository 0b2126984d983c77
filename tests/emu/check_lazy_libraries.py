#!/usr/bin/env python3
"""The plugin and the runner load json-glib, libdw and Capstone (and never libstdc++)
only when they first need them (rig/lazy/lazy_lib.h, docs/BENCHMARKS.md "Start-up"):

  check_lazy_libraries.py PLUGIN RUNNER

fails when either lists one of those libraries as NEEDED (it would be
mapped and bound at every start again), or when either leaves a function
of theirs undefined: a json_*/dwfl_*/cs_* call that the lazy unit's list lacks
would make QEMU refuse the plugin ("undefined symbol") or the runner fail
to start.
"""
import re
import subprocess
import sys

LAZY_SONAMES = ("libjson-glib-1.0.so", "libgio-2.0.so", "libgobject-2.0.so", "libdw.so",
                "libelf.so", "libstdc++.so", "libcapstone.so")
LAZY_SYMBOLS = re.compile(r"^(json_|dwfl_|elf_|gelf_|g_object_|cs_|__cxa_demangle$)")


def main(paths):
    problems = []
    for path in paths:
        dyn = subprocess.run(["readelf", "-d", "-W", path], capture_output=True, text=True,
                             check=True).stdout
        for soname in re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", dyn):
            if soname.startswith(LAZY_SONAMES):
                problems.append(f"{path}: NEEDED {soname}, which it must load at first use")
        syms = subprocess.run(["nm", "-D", "--undefined-only", path], capture_output=True,
                              text=True, check=True).stdout
        for line in syms.splitlines():
            name = line.split()[-1].split("@")[0]
            if LAZY_SYMBOLS.match(name):
                problems.append(f"{path}: {name} is undefined: add it to its lazy unit's list")
        if "json_object_new" not in subprocess.run(["nm", "-D", "--defined-only", path],
                                                   capture_output=True, text=True,
                                                   check=True).stdout and path.endswith(".so"):
            problems.append(f"{path}: defines no json_object_new wrapper")
    for p in problems:
        print(p)
    return 1 if problems else 0


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1:]))
