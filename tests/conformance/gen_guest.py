#!/usr/bin/env python3
"""Generates the conformance guest: one aarch64 program that runs the
described tests of one cache configuration (catalogue.txt, `config 00`,
`10` or `11`) one after another, each under every order of its threads.

Usage: gen_guest.py CATALOGUE CONFIG OUT.S OUT.c [--layout copy|text|fresh]
                    [--block split|same] [--only LIST]

The translation (tests/conformance/README.md, "Translations"): --layout
copy (the default) copies the blocks into a fresh mapping for each run, so
their page was stored to before the test; --layout text runs them where they
are, each on a page of its own in a writable and executable section that
nothing stored to before (one run per process: guest_main.c built with
CT_IN_PLACE); --layout fresh puts them, for each run, on fresh pages that
nothing fetched from or stored to (the kernel writes them: guest_main.c
built with CT_FRESH), so the test's store replaces a first version that
no thread ever fetched. --block split (the default) ends a thread's part after each
store, so the store is in another translation block than the code after it;
--block same does not split a single-threaded test, so its store and the
instructions after it run in one block. --only LIST keeps the tests LIST
names (one per line, # comments).

Per test, each thread's instructions become a block of code in .text
(labels renamed so that tests do not clash). For one run the guest copies
every block of the test into a fresh RWX mapping (thread P at page P, the
test's memory locations on the page after them), cleans and invalidates it
and synchronises, starts one thread per block pinned to CPU P, and lets the
threads run one at a time in the run's order. A thread's turn ends at its
end, after one of the stores at its start, or between two maintenance
sequences there (split_points): the runs are
every interleaving of these parts. The hand-over is
a plain store and a plain load of a turn counter: no barrier, no system
call, nothing that orders or synchronises more than the test itself does.
Then it prints one line per run (tests/conformance/README.md):

  R <test> <order> <premise 0|1> <base> <size> <cpu>:<addr>...

order names the thread of each part in turn; premise is 1 when every condition of the test's outcome that the registers
and memory decide holds; the list names the fetches (CPU, word address)
that must be stale under the rig for the rest of the outcome to hold.
"""
import re
import sys


def parse_catalogue(path, config):
    tests = []
    cur = None
    thread = None
    for line in open(path):
        s = line.strip()
        if not s or s.startswith("#") or s.startswith("skip "):
            continue
        if s.startswith("test "):
            cur = {"name": s.split()[1], "threads": [], "init": [], "mem": [], "expect": []}
            continue
        if s == "end":
            if cur["config"] == config:
                tests.append(cur)
            cur = None
            continue
        key, _, rest = s.partition(" ")
        if key in ("from", "config", "herd"):
            cur[key] = rest
        elif key == "thread":
            thread = {"code": [], "labels": []}
            cur["threads"].append(thread)
        elif key == "init":
            cur["init"].append(rest.split())
        elif key == "mem":
            cur["mem"].append(rest.split())
        elif key == "expect":
            cur["expect"].append(rest.split())
        elif s.endswith(":") and re.fullmatch(r"\w+:", s):
            thread["code"].append(("label", s[:-1]))
        else:
            thread["code"].append(("insn", s))
    return tests


def sym(ti, p, label):
    return "ct%d_%d_%s" % (ti, p, label)


# Inserted after a store where another thread may take its turn: the
# thread hands the turn on and waits for its next one, with x0-x3 saved on
# the stack, plain loads and stores only and no flags touched (the test's
# own CMP/CSET may be live). x28 holds the thread's register block
# (guest_main.c): slot 28 the turn counter's address, slot 29 a pointer into
# the thread's list of turns.
YIELD = """  stp x0, x1, [sp, #-16]!
  stp x2, x3, [sp, #-16]!
  ldr x0, [x28, #224]
  ldr x1, [x28, #232]
  ldr w2, [x1]
  add w2, w2, #1
  str w2, [x0]
  ldr w3, [x1, #4]!
  str x1, [x28, #232]
9:
  ldr w2, [x0]
  sub w2, w2, w3
  cbnz w2, 9b
  ldp x2, x3, [sp], #16
  ldp x0, x1, [sp], #16"""


def split_points(code):
    """Indices of the instructions after which another thread may run, in
    the straight-line start of the thread (before its first label or
    branch), so that each runs exactly once and only in this thread, and
    never the thread's last instruction: every store, and the DSB that
    completes an IC when the thread maintains again after it (two
    maintenance sequences, such as SB-bnop-cachesyncs1-reordered's, between
    which the other thread's store can land)."""
    insns = [v.split()[0].lower() for k, v in code if k != "label"]
    points = []
    seen = 0
    for i, (k, v) in enumerate(code):
        if k == "label":
            break
        mn = v.split()[0].lower()
        if mn in ("b", "bl", "blr", "br", "ret", "cbz", "cbnz", "b.eq", "b.ne"):
            break
        seen += 1
        if i == len(code) - 1:
            break
        if mn in ("str", "stlr"):
            points.append(i)
        elif (mn == "dsb" and i > 0 and code[i - 1][1].split()[0].lower() == "ic"
              and "ic" in insns[seen:]):
            points.append(i)
    return points


# The section of --layout text: code that nothing stored to, which the
# threads may store to (the loader maps it writable and executable).
TEXT_SECTION = '  .section .jftext,"awx",@progbits'


def gen_asm(tests, layout="copy", block="split"):
    code_section = TEXT_SECTION if layout == "text" else "  .text"
    out = ["/* Generated by tests/conformance/gen_guest.py: do not edit. */", code_section]
    for ti, t in enumerate(tests):
        offsets = []
        for p, th in enumerate(t["threads"]):
            labels = {v for k, v in th["code"] if k == "label"}
            # A page of its own in place: no other block's code shares it.
            align = "  .p2align 12" if layout == "text" else "  .p2align 6"
            out += [align, "  .globl %s" % sym(ti, p, "begin_"), "%s:" % sym(ti, p, "begin_")]
            if block == "same" and len(t["threads"]) == 1:
                points = []
            else:
                points = split_points(th["code"])
            th["segments"] = len(points) + 1
            for i, (k, v) in enumerate(th["code"]):
                if k == "label":
                    out.append("%s:" % sym(ti, p, v))
                else:
                    out.append("  " + re.sub(r"\b(\w+)\b",
                                             lambda m: sym(ti, p, m.group(1))
                                             if m.group(1) in labels else m.group(1), v))
                if i in points:
                    out.append(YIELD)
            # Back to the trampoline (tests/conformance/guest_main.c).
            out += ["  br x27", "  .globl %s" % sym(ti, p, "stop_"), "%s:" % sym(ti, p, "stop_")]
        out += ["  .section .rodata", "  .p2align 3", "  .globl ct%d_offs" % ti, "ct%d_offs:" % ti]
        for p, th in enumerate(t["threads"]):
            for k, v in th["code"]:
                if k == "label":
                    offsets.append((p, v))
                    out.append("  .quad %s - %s" % (sym(ti, p, v), sym(ti, p, "begin_")))
        out.append(code_section)
        t["offsets"] = offsets
    out.append('  .section .note.GNU-stack,"",%progbits')
    return "\n".join(out) + "\n"


def c_value(t, v, locs):
    kind = v[0]
    if kind == "int":
        return "{V_INT, %d, 0, 0}" % int(v[1])
    if kind == "insn":
        return "{V_INT, %s, 0, 0}" % v[1]
    if kind == "label":
        p, lab = v[1].split(":")
        return "{V_LABEL, 0, %d, %d}" % (int(p), t["offsets"].index((int(p), lab)))
    if kind == "loc":
        return "{V_LOC, 0, 0, %d}" % locs.index(v[1])
    raise ValueError(v)


def gen_c(tests):
    out = ["/* Generated by tests/conformance/gen_guest.py: do not edit. */",
           '#include "guest_tests.h"', ""]
    for ti, t in enumerate(tests):
        locs = [m[0] for m in t["mem"]]
        n = len(t["threads"])
        for p in range(n):
            out.append("extern const unsigned char %s[], %s[];" % (sym(ti, p, "begin_"),
                                                                  sym(ti, p, "stop_")))
        out.append("extern const uint64_t ct%d_offs[];" % ti)
        out.append("static const struct ct_init ct%d_init[] = {" % ti)
        for thr, reg, *val in t["init"]:
            out.append("  {%d, %d, %s}," % (int(thr), int(reg[1:]), c_value(t, val, locs)))
        out.append("  {-1, 0, {0, 0, 0, 0}}};")
        out.append("static const struct ct_value ct%d_mem[] = {" % ti)
        for m in t["mem"]:
            out.append("  %s," % c_value(t, m[1:], locs))
        out.append("  {0, 0, 0, 0}};")
        out.append("static const struct ct_expect ct%d_expect[] = {" % ti)
        for e in t["expect"]:
            if e[0] == "reg":
                out.append("  {E_REG, %d, %d, 0, 0, 0, %s}," % (int(e[1]), int(e[2][1:]),
                                                               c_value(t, e[3:], locs)))
            elif e[0] == "mem":
                out.append("  {E_MEM, 0, 0, %d, 0, 0, %s}," % (locs.index(e[1]),
                                                               c_value(t, e[2:], locs)))
            else:  # fetch THREAD P:LABEL old|new REG VALUE
                wp, wl = e[2].split(":")
                out.append("  {%s, %d, %d, 0, %d, %d, %s}," % (
                    "E_FETCH_OLD" if e[3] == "old" else "E_FETCH_NEW", int(e[1]), int(e[4][1:]),
                    int(wp), t["offsets"].index((int(wp), wl)), c_value(t, e[5:], locs)))
        out.append("  {E_END, 0, 0, 0, 0, 0, {0, 0, 0, 0}}};")
    out.append("const struct ct_test ct_tests[] = {")
    for ti, t in enumerate(tests):
        n = len(t["threads"])
        begins = ", ".join(sym(ti, p, "begin_") for p in range(n))
        stops = ", ".join(sym(ti, p, "stop_") for p in range(n))
        segs = ", ".join(str(th["segments"]) for th in t["threads"])
        out.append('  {"%s", %d, {%s}, {%s}, {%s}, ct%d_offs, ct%d_init, %d, ct%d_mem, ct%d_expect},' % (
            t["name"], n, segs, begins, stops, ti, ti, len(t["mem"]), ti, ti))
    out.append("};")
    out.append("const int ct_ntests = %d;" % len(tests))
    return "\n".join(out) + "\n"


def read_list(path):
    names = set()
    for line in open(path):
        s = line.split("#", 1)[0].strip()
        if s:
            names.add(s)
    return names


def main():
    if len(sys.argv) < 5:
        sys.exit("usage: gen_guest.py CATALOGUE CONFIG OUT.S OUT.c [--layout copy|text|fresh] "
                 "[--block split|same] [--only LIST]")
    catalogue, config, out_s, out_c = sys.argv[1:5]
    opts = {"--layout": "copy", "--block": "split", "--only": None}
    rest = sys.argv[5:]
    while rest:
        if len(rest) < 2 or rest[0] not in opts:
            sys.exit("gen_guest.py: unknown option %s" % rest[0])
        opts[rest[0]] = rest[1]
        rest = rest[2:]
    if opts["--layout"] not in ("copy", "text", "fresh") or opts["--block"] not in ("split", "same"):
        sys.exit("gen_guest.py: --layout is copy, text or fresh, --block split or same")
    tests = parse_catalogue(catalogue, config)
    if opts["--only"]:
        only = read_list(opts["--only"])
        tests = [t for t in tests if t["name"] in only]
    if not tests:
        sys.exit("gen_guest.py: no test for config %s in %s" % (config, catalogue))
    asm = gen_asm(tests, opts["--layout"], opts["--block"])
    with open(out_s, "w") as f:
        f.write(asm)
    with open(out_c, "w") as f:
        f.write(gen_c(tests))


if __name__ == "__main__":
    main()
