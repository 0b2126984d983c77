#!/usr/bin/env python3
"""Turns herdtools7's catalogue/aarch64-ifetch litmus tests into the
conformance suite's own description format (tests/conformance/catalogue.txt),
joined with herd7's verdicts (tests/conformance/herd7-verdicts.tsv).

Run by ci/gen/herd7-verdicts.sh, never by CI (CI has no catalogue). The format
is documented in tests/conformance/README.md. A test the rig cannot express
as "is the fetch of this word stale" is written as a `skip` line with the
reason, so that docs/COHERENCE-MODEL.md can count both.

Usage: describe_litmus.py CATALOGUE_DIR VERDICTS_TSV OWN_DIR > catalogue.txt
  (rows of VERDICTS_TSV named jitflush/FILE are OWN_DIR/FILE: our own tests)
"""
import os
import re
import sys

NOP = 0xD503201F
INSTR_VALUES = {"NOP": NOP, "ISB": 0xD5033FDF, "B .+4": 0x14000001, "B .+8": 0x14000002,
                "B .+12": 0x14000003}
# Registers the guest's trampoline keeps for itself (tests/conformance/gen_guest.py).
RESERVED = {"x27", "x28", "x29", "sp"}


class Skip(Exception):
    pass


def strip_comments(text):
    return re.sub(r"\(\*.*?\*\)", "", text, flags=re.S)


def parse_value(tok):
    tok = tok.strip()
    m = re.fullmatch(r'instr:"([^"]*)"', tok)
    if m:
        if m.group(1) not in INSTR_VALUES:
            raise Skip("initial instruction %r has no encoding here" % m.group(1))
        return ("insn", INSTR_VALUES[m.group(1)])
    if tok in ("NOP", "ISB"):
        return ("insn", INSTR_VALUES[tok])
    m = re.fullmatch(r'(?:label:")?P(\d+):(\w+)"?', tok)
    if m:
        return ("label", int(m.group(1)), m.group(2))
    if re.fullmatch(r"-?\d+", tok):
        return ("int", int(tok))
    if re.fullmatch(r"0x[0-9a-fA-F]+", tok):
        return ("int", int(tok, 16))
    if re.fullmatch(r"[a-z]\w*", tok):
        return ("loc", tok)
    raise Skip("initial value %r (page tables, attributes) not expressible" % tok)


def reg_name(r):
    r = r.lower()
    if r[0] in "wx" and r[1:].isdigit():
        return "x" + r[1:]
    return r


def parse(path):
    text = strip_comments(open(path).read())
    lines = text.splitlines()
    name = lines[0].split()[1]
    head = {}
    i = 1
    while i < len(lines) and not lines[i].lstrip().startswith("{"):
        m = re.match(r"\s*(\w+)\s*=\s*(.*)", lines[i])
        if m:
            head[m.group(1)] = m.group(2).strip()
        i += 1
    body = "\n".join(lines[i:])
    init_text, rest = body.split("{", 1)[1].split("}", 1)
    return name, head, init_text, rest


def parse_code(rest):
    rows = [r for r in rest.split("\n")]
    code_rows = []
    cond = []
    in_cond = False
    for r in rows:
        s = r.strip()
        if not s:
            continue
        if in_cond or re.match(r"(~?exists|forall|locations|filter)\b", s):
            in_cond = True
            cond.append(s)
            continue
        code_rows.append(s)
    header = [c.strip() for c in code_rows[0].rstrip(";").split("|")]
    if not all(re.fullmatch(r"P\d+", h) for h in header):
        raise Skip("thread header %r not understood" % code_rows[0])
    threads = [[] for _ in header]
    for row in code_rows[1:]:
        cells = row.rstrip().rstrip(";").split("|")
        for t, cell in enumerate(cells):
            cell = cell.strip()
            while cell:
                m = re.match(r"([A-Za-z_]\w*):\s*(.*)$", cell)
                if m:
                    threads[t].append(("label", m.group(1)))
                    cell = m.group(2).strip()
                    continue
                threads[t].append(("insn", cell))
                break
    return threads, " ".join(cond)


MNEMONICS = {"str", "ldr", "dc", "ic", "dsb", "dmb", "isb", "b", "bl", "blr", "br", "ret",
             "mov", "cbnz", "cbz", "cmp", "cset", "nop", "eor", "and", "add", "csel", "stlr",
             "b.eq", "b.ne", "ldar"}


def check_insn(insn, labels):
    words = insn.replace(",", " ").split()
    mn = words[0].lower()
    if mn not in MNEMONICS:
        raise Skip("instruction %r not expressible at EL0" % insn)
    if mn == "ic" and words[1].lower() not in ("ivau",):
        raise Skip("instruction %r is EL1 only" % insn)
    if mn == "dc" and words[1].lower() not in ("cvau", "civac", "cvac"):
        raise Skip("instruction %r is EL1 only" % insn)
    for w in words[1:]:
        r = reg_name(w.strip("[]#!"))
        if r in RESERVED:
            raise Skip("uses %s, which the guest's trampoline keeps" % r)
    if mn in ("b", "bl", "cbnz", "cbz", "b.eq", "b.ne") and words[-1] not in labels:
        raise Skip("branch %r leaves its thread's code" % insn)


def dest_reg(insn):
    words = insn.replace(",", " ").split()
    mn = words[0].lower()
    if mn in ("mov", "ldr", "ldar", "cset", "eor", "and", "add", "csel"):
        return reg_name(words[1])
    return None


def mov_imm(insn):
    m = re.fullmatch(r"(?i)mov\s+([wx]\d+)\s*,\s*#(-?\d+)", insn.strip())
    return (reg_name(m.group(1)), int(m.group(2))) if m else None


def simulate(code, start, version, modified, labels):
    """Registers set by MOV #imm on the straight path that starts by
    executing VERSION ('old': the code as written, or an encoding) at index
    START, up to RET, the end of the code or another modified word."""
    regs = {}
    pc = start
    steps = 0
    first = True
    while pc < len(code) and steps < 64:
        steps += 1
        if not first and pc in modified:
            break
        insn = code[pc]
        if first and version != "old":
            first = False
            if version in (NOP, 0xD5033FDF):
                pc += 1
                continue
            if version in (0x14000001, 0x14000002, 0x14000003):
                pc += version - 0x14000000
                continue
            raise Skip("new encoding %#x not simulated" % version)
        first = False
        words = insn.replace(",", " ").split()
        mn = words[0].lower()
        if mn == "b":
            pc = labels[words[1]]
            continue
        if mn in ("ret", "br", "blr", "bl", "cbnz", "cbz", "b.eq", "b.ne"):
            break
        if mn == "nop":
            pc += 1
            continue
        imm = mov_imm(insn)
        if imm:
            regs[imm[0]] = imm[1]
        elif dest_reg(insn):
            regs[dest_reg(insn)] = None
        pc += 1
    return regs


def describe(cat_dir, path, verdict):
    name, head, init_text, rest = parse(path)
    if head.get("Variant") == "fatal":
        raise Skip("the outcome is a fault")
    threads_raw, cond = parse_code(rest)
    # Code: per thread, a list of instructions and label -> index.
    threads = []
    for raw in threads_raw:
        code, labels = [], {}
        for kind, v in raw:
            if kind == "label":
                labels[v] = len(code)
            else:
                code.append(v)
        threads.append((code, labels))
    for code, labels in threads:
        for insn in code:
            check_insn(insn, labels)
    # Initial state.
    init, mem = {}, {}
    for item in init_text.replace("\n", " ").split(";"):
        item = item.strip()
        if not item:
            continue
        item = re.sub(r"^(?:ins_t|int|uint64_t|int64_t)\s+(\d+:)", r"\1", item)
        m = re.fullmatch(r"(\d+):([XWxw]\d+)\s*=\s*(.+)", item)
        if m:
            init[(int(m.group(1)), reg_name(m.group(2)))] = parse_value(m.group(3))
            continue
        m = re.fullmatch(r"\[?(\w+)\]?\s*=\s*(.+)", item)
        if m:
            mem[m.group(1)] = parse_value(m.group(2))
            continue
        m = re.fullmatch(r"(?:int|uint64_t|int64_t)\s+(\w+)\s*=\s*(.+)", item)
        if m:
            mem[m.group(1)] = parse_value(m.group(2))
            continue
        raise Skip("initial state %r not understood" % item)
    for v in list(init.values()) + list(mem.values()):
        if v[0] == "label" and (v[1] >= len(threads) or v[2] not in threads[v[1]][1]):
            raise Skip("label %s not in the code" % (v,))
    locs = sorted({v[1] for v in list(init.values()) + list(mem.values()) if v[0] == "loc"} |
                  set(mem))
    # Modified words: STR of an instruction value to a code label.
    modified = {}  # (thread, label) -> new encoding
    for t, (code, _labels) in enumerate(threads):
        for insn in code:
            m = re.fullmatch(r"(?i)str\s+([wx]\d+)\s*,\s*\[([wx]\d+)\]", insn.strip())
            if not m:
                if insn.lower().startswith(("str", "stlr")) and "[" in insn:
                    continue
                continue
            val = init.get((t, reg_name(m.group(1))))
            addr = init.get((t, reg_name(m.group(2))))
            if addr and addr[0] == "label":
                if not val or val[0] != "insn":
                    raise Skip("stores a non-instruction into code")
                if any(dest_reg(i) == reg_name(m.group(2)) for i in code):
                    raise Skip("the store's address register is rewritten")
                key = (addr[1], addr[2])
                if key in modified and modified[key] != val[1]:
                    raise Skip("two different encodings stored into one word")
                modified[key] = val[1]
    if not modified:
        raise Skip("no instruction is stored into code")
    # Condition: exists with conjunctions only.
    m = re.fullmatch(r"exists\s*\((.*)\)\s*", cond) or re.fullmatch(r"exists\s*(.*?)\s*", cond)
    if not m or "\\/" in cond or "~" in cond:
        raise Skip("condition %r is not a plain exists of a conjunction" % cond)
    conj = [c.strip() for c in m.group(1).split("/\\")]
    # For each modified word, the registers its two versions set differently.
    influence = {}  # reg -> list of (word, old value, new value)
    for (t, label), new in modified.items():
        code, labels = threads[t]
        idx = labels[label]
        mod_idx = {labels[lb] for (tt, lb) in modified if tt == t}
        old_regs = simulate(code, idx, "old", mod_idx, labels)
        new_regs = simulate(code, idx, new, mod_idx, labels)
        for r in set(old_regs) | set(new_regs):
            if old_regs.get(r, "unset") != new_regs.get(r, "unset"):
                influence.setdefault(r, []).append(((t, label), old_regs.get(r), new_regs.get(r)))
    expects = []
    for c in conj:
        mm = re.fullmatch(r"(\d+):([XW]\d+)\s*=\s*(.+)", c)
        if mm:
            t, r, val = int(mm.group(1)), reg_name(mm.group(2)), parse_value(mm.group(3))
            reach = {t}
            if any(i.split()[0].lower() in ("blr", "br") for i in threads[t][0]):
                reach |= {v[1] for (tt, _r), v in init.items() if tt == t and v[0] == "label"}
            words = [w for w in influence.get(r, []) if w[0][0] in reach]
            if words:
                if len({w for w, _, _ in words}) != 1:
                    raise Skip("%s depends on several modified words" % c)
                word, old_v, new_v = words[0]
                start = init.get((t, r), ("int", 0))
                old_v = start[1] if old_v is None else old_v
                new_v = start[1] if new_v is None else new_v
                if val[0] != "int" or val[1] not in (old_v, new_v) or old_v == new_v:
                    raise Skip("%s does not tell the two versions apart" % c)
                expects.append("fetch %d %d:%s %s %s %s" % (t, word[0], word[1],
                                                             "old" if val[1] == old_v else "new",
                                                             r, fmt_value(val)))
                continue
            # A data conjunct: its register must not copy a fetched value.
            for code, _ in threads:
                for insn in code:
                    if dest_reg(insn) == r:
                        src = [reg_name(w) for w in insn.replace(",", " ").split()[2:]]
                        if any(s in influence for s in src):
                            raise Skip("%s copies a value that depends on the fetch" % c)
            expects.append("reg %d %s %s" % (t, r, fmt_value(val)))
            continue
        mm = re.fullmatch(r"\[?(\w+)\]?\s*=\s*(.+)", c)
        if mm and mm.group(1) in locs:
            expects.append("mem %s %s" % (mm.group(1), fmt_value(parse_value(mm.group(2)))))
            continue
        raise Skip("conjunct %r not understood" % c)
    if not any(e.startswith("fetch") for e in expects):
        raise Skip("the outcome names no fetch of a modified word")
    ct = head.get("CacheType", "")
    config = "11" if "DIC" in ct else "10" if "IDC" in ct else "00"
    out = ["test %s" % name, "  from %s" % os.path.relpath(path, cat_dir), "  config %s" % config,
           "  herd %s" % verdict]
    for t, (code, labels) in enumerate(threads):
        out.append("  thread %d" % t)
        at = {}
        for lb, i in labels.items():
            at.setdefault(i, []).append(lb)
        for i in range(len(code) + 1):
            for lb in at.get(i, []):
                out.append("    %s:" % lb)
            if i < len(code):
                out.append("      %s" % " ".join(code[i].split()))
    for (t, r), v in sorted(init.items()):
        out.append("  init %d %s %s" % (t, r, fmt_value(v)))
    for loc in locs:
        out.append("  mem %s %s" % (loc, fmt_value(mem.get(loc, ("int", 0)))))
    for e in expects:
        out.append("  expect %s" % e)
    out.append("end")
    return name, config, out


def fmt_value(v):
    if v[0] == "insn":
        return "insn 0x%08x" % v[1]
    if v[0] == "label":
        return "label %d:%s" % (v[1], v[2])
    if v[0] == "int":
        return "int %d" % v[1]
    return "loc %s" % v[1]


def main():
    cat_dir, verdicts_path, own_dir = sys.argv[1], sys.argv[2], sys.argv[3]
    verdicts = {}
    for line in open(verdicts_path):
        if line.startswith("#") or not line.strip():
            continue
        f, _name, v, _pos = line.rstrip("\n").split("\t")
        verdicts[f] = {"Ok": "allowed", "No": "forbidden"}.get(v, "error")
    print("# The conformance suite's tests, described in our own format")
    print("# (tests/conformance/README.md), from herdtools7's catalogue/aarch64-ifetch")
    print("# and herd7 -variant ifetch's verdicts (herd7-verdicts.tsv). Generated by")
    print("# ci/gen/herd7-verdicts.sh with describe_litmus.py: do not edit by hand.")
    for f in sorted(verdicts):
        v = verdicts[f]
        try:
            if v == "error":
                raise Skip("herd7 gave no verdict")
            if f.startswith("jitflush/"):
                own = os.path.join(own_dir, f[9:])
                # A test of ours that no program can run as written says why.
                m = re.search(r"\(\*\s*jitflush-skip:\s*(.*?)\s*\*\)", open(own).read(), re.S)
                if m:
                    raise Skip(" ".join(m.group(1).split()))
                _name, _config, out = describe(own_dir, own, v)
                out[1] = "  from jitflush/%s" % f[9:]
            else:
                _name, _config, out = describe(cat_dir, os.path.join(cat_dir, f), v)
            print("\n".join(out))
        except Skip as e:
            print("skip %s %s" % (f, e))


if __name__ == "__main__":
    main()
