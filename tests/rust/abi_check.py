#!/usr/bin/python3
"""The crate's hand-written declarations (bindings/rust/src/sys.rs) against
the C header (include/jitflush.h), with the C compiler as the judge.

  abi_check.py HEADER SYS_RS [CC]

- every function the header declares (its static inline helpers aside) has
  an extern "C" declaration, and no declaration names a function the header
  lacks;
- each declaration's types, mapped to C, are the header's prototype
  (__builtin_types_compatible_p, compiled with CC, default cc);
- each #[repr(C)] struct has the header's fields, in the header's order,
  each of the mapped type;
- every JITFLUSH_ constant and enumerator of the header has a Rust const of
  the same value, and every Rust const is one of them.
Sizes and offsets on the target itself are the crate's test
layout_matches_the_c_compiler. Exits 0 when all hold, 1 with each mismatch
on stderr, 2 on usage.
"""
import os
import re
import subprocess
import sys
import tempfile

# Rust type (as sys.rs spells it) -> C type.
TYPES = {
    "c_int": "int", "c_uint": "unsigned int", "bool": "bool", "u64": "uint64_t",
    "usize": "size_t", "*mut c_void": "void *", "*const c_void": "const void *",
    "*const c_char": "const char *", "*mut c_uint": "unsigned int *",
    "*mut jitflush_info": "struct jitflush_info *",
    "jitflush_source": "enum jitflush_source", "jitflush_status": "int",
}


def strip_c_comments(text):
    return re.sub(r"/\*.*?\*/", " ", text, flags=re.S)


def c_type(rust, where, errors):
    rust = " ".join(rust.split())
    m = re.fullmatch(r"\[(\w+); (\w+)\]", rust)
    if m:
        return "%s[%s]" % (c_type(m.group(1), where, errors), m.group(2))
    if rust in ("jitflush_cpu_info", "jitflush_info"):
        return "struct " + rust
    if rust not in TYPES:
        errors.append("%s: no C type known for the Rust type %s (tests/rust/abi_check.py TYPES)"
                      % (where, rust))
        return "void"
    return TYPES[rust]


def main(argv):
    if len(argv) not in (3, 4):
        print(__doc__, file=sys.stderr)
        return 2
    header, sys_rs = argv[1], argv[2]
    cc = argv[3] if len(argv) == 4 else "cc"
    with open(header) as f:
        h = strip_c_comments(f.read())
    with open(sys_rs) as f:
        rs = re.sub(r"//[^\n]*", "", f.read())
    errors = []
    checks = []

    # Functions.
    h_funcs = set()
    for m in re.finditer(r"^[A-Za-z_][\w \t*]*?\b(jitflush_\w+)\s*\(([^;{]*?)\)\s*([;{])", h, re.M):
        if m.group(3) == ";":
            h_funcs.add(m.group(1))
    block = re.search(r'extern "C" \{(.*?)\n\}', rs, re.S)
    rs_funcs = {}
    for m in re.finditer(r"pub fn (\w+)\((.*?)\)(?:\s*->\s*([^;]+))?;", block.group(1) if block else "", re.S):
        rs_funcs[m.group(1)] = (m.group(2), m.group(3))
    for name in sorted(h_funcs - set(rs_funcs)):
        errors.append("%s declares %s; %s has no extern declaration of it" % (header, name, sys_rs))
    for name in sorted(set(rs_funcs) - h_funcs):
        errors.append("%s declares %s, which %s does not" % (sys_rs, name, header))
    for name, (params, ret) in sorted(rs_funcs.items()):
        args = [p.split(":", 1)[1].strip() for p in params.split(",") if p.strip()]
        c_args = ", ".join(c_type(a, name, errors) for a in args) or "void"
        c_ret = c_type(ret.strip(), name, errors) if ret else "void"
        checks.append("_Static_assert(__builtin_types_compatible_p(__typeof__(&%s), %s (*)(%s)),"
                      " \"%s: the Rust declaration differs from the header\");"
                      % (name, c_ret, c_args, name))

    # Structs.
    for sname in ("jitflush_cpu_info", "jitflush_info"):
        hm = re.search(r"struct %s \{(.*?)\};" % sname, h, re.S)
        rm = re.search(r"pub struct %s \{(.*?)\n\}" % sname, rs, re.S)
        if not hm or not rm:
            errors.append("struct %s: missing in %s" % (sname, header if not hm else sys_rs))
            continue
        h_fields = [re.search(r"(\w+)\s*(\[[^\]]*\])?\s*$", d.strip()).group(1)
                    for d in hm.group(1).split(";") if d.strip()]
        r_fields = re.findall(r"pub (\w+): ([^,\n]+),", rm.group(1))
        if h_fields != [n for n, _ in r_fields]:
            errors.append("struct %s: the header's fields %s, the crate's %s"
                          % (sname, h_fields, [n for n, _ in r_fields]))
        for field, rtype in r_fields:
            checks.append("_Static_assert(__builtin_types_compatible_p(__typeof__(((struct %s *)0)->%s), %s),"
                          " \"%s.%s: the Rust field type differs from the header\");"
                          % (sname, field, c_type(rtype, sname + "." + field, errors), sname, field))

    # Constants.
    h_consts = set(re.findall(r"#define (JITFLUSH_\w+)\s", h)) - {"JITFLUSH_H"}
    for body in re.findall(r"enum jitflush_\w+ \{(.*?)\};", h, re.S):
        h_consts |= set(re.findall(r"\b(JITFLUSH_\w+)\s*(?:=|,|$)", body, re.M))
    rs_consts = dict(re.findall(r"pub const (JITFLUSH_\w+): [^=]+= ([^;]+);", rs))
    for name in sorted(h_consts - set(rs_consts)):
        errors.append("%s defines %s; %s has no const of it" % (header, name, sys_rs))
    for name in sorted(set(rs_consts) - h_consts):
        errors.append("%s has the const %s, which %s does not define" % (sys_rs, name, header))
    for name, value in sorted(rs_consts.items()):
        if name not in h_consts:
            continue
        if value.startswith('"'):
            hv = re.search(r"#define %s (\"[^\"]*\")" % name, h)
            if not hv or hv.group(1) != value:
                errors.append("%s: %s in %s, %s in %s" % (name, value, sys_rs,
                                                          hv.group(1) if hv else "none", header))
        else:
            checks.append("_Static_assert((long long)(%s) == (long long)(%s),"
                          " \"%s: the Rust value differs from the header\");" % (name, value, name))

    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "abi_check.c")
        with open(src, "w") as f:
            f.write("#include <stdbool.h>\n#include <stddef.h>\n#include <stdint.h>\n"
                    "#include \"jitflush.h\"\n" + "\n".join(checks) + "\n")
        r = subprocess.run([cc, "-std=c11", "-fsyntax-only", "-I", os.path.dirname(os.path.abspath(header)),
                            src], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if r.returncode != 0:
            errors += [line for line in r.stdout.splitlines() if "error" in line] or [r.stdout]
    for e in errors:
        print("abi_check: " + e, file=sys.stderr)
    if errors:
        return 1
    print("abi_check: %d functions, 2 structs, %d constants agree with %s"
          % (len(rs_funcs), len(rs_consts), header))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
