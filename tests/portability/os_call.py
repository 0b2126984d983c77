#!/usr/bin/env python3
"""Which operating-system call a function of a linked Mach-O or PE file reaches.

    os_call.py FILE FUNCTION EXPECTED

FILE is a linked shared library or executable (Mach-O arm64/x86_64, or PE
arm64/x86_64 with its .pdb beside it, as zig cc writes it). FUNCTION is a C
name (jitflush_clear_cache). EXPECTED is the imported function it must
reach (sys_icache_invalidate, FlushInstructionCache), or "none" when no
call, jump or tail call out of it, followed through the file's own
functions, may reach an import at all (x86: a compiler barrier only).

How: llvm-objdump disassembles the whole text; the functions' bounds come
from the symbol table (Mach-O: llvm-nm) or the PDB's public symbols (PE:
llvm-pdbutil, since lld writes no COFF symbol table into an image). Every
branch, call and tail call out of FUNCTION is followed, through the
library's or program's own functions (also through import thunks), until
it lands on an import: a Mach-O stub or pointer slot named by the
indirect-symbol table, or a PE import-address-table slot (llvm-readobj
--coff-imports), loaded with adrp+ldr (arm64) or RIP-relative (x86_64).
An indirect call the walk cannot resolve is reported, never guessed.

Prints the path to the expected import (on a failure: to every import
reached, and every unresolved indirect call). Exit status: 0 the
expectation holds, 1 it does not (the message says what was reached
instead), 2 usage or a tool failed.

Environment: LLVM_OBJDUMP, LLVM_NM, LLVM_READOBJ, LLVM_PDBUTIL (default the
-14 tools of Debian's llvm-14 package).
"""
import bisect
import os
import re
import subprocess
import sys

TOOLS = {
    "objdump": os.environ.get("LLVM_OBJDUMP", "llvm-objdump-14"),
    "nm": os.environ.get("LLVM_NM", "llvm-nm-14"),
    "readobj": os.environ.get("LLVM_READOBJ", "llvm-readobj-14"),
    "pdbutil": os.environ.get("LLVM_PDBUTIL", "llvm-pdbutil-14"),
}
MAX_DEPTH = 6  # calls followed through the library's own functions


def die(msg, status=2):
    print(f"os_call.py: {msg}", file=sys.stderr)
    sys.exit(status)


def tool(name, *args):
    try:
        out = subprocess.run([TOOLS[name], *args], check=True, capture_output=True, text=True)
    except FileNotFoundError:
        die(f"{TOOLS[name]} is not installed (Debian's llvm-14; ci/install/deps.sh installs it)")
    except subprocess.CalledProcessError as e:
        die(f"{TOOLS[name]} {' '.join(args)} failed: {e.stderr.strip()}")
    return out.stdout


def file_format(path):
    m = re.search(r"file format (\S+(?: \S+)*)", tool("objdump", "-h", path))
    if not m:
        die(f"{path}: llvm-objdump names no file format")
    fmt = m.group(1).lower()
    if fmt.startswith("mach-o"):
        kind = "macho"
    elif fmt.startswith("coff") or fmt.startswith("pe"):
        kind = "pe"
    else:
        die(f"{path}: {fmt} is neither Mach-O nor PE")
    arch = "aarch64" if ("arm64" in fmt or "aarch64" in fmt) else "x86_64"
    return kind, arch


def macho_symbols(path):
    """C name -> address of every defined text symbol (leading _ dropped)."""
    syms = {}
    for line in tool("nm", "--defined-only", path).splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] in "Tt":
            name = parts[2][1:] if parts[2].startswith("_") else parts[2]
            syms.setdefault(name, int(parts[0], 16))
    return syms


def macho_imports(path):
    """Address -> imported name, for the stubs (branch targets) and the
    pointer slots (__got, __la_symbol_ptr: load targets)."""
    imports = {}
    for line in tool("objdump", "--macho", "--indirect-symbols", path).splitlines():
        m = re.match(r"\s*0x([0-9a-f]+)\s+\d+\s+(\S+)", line)
        if m:
            name = m.group(2)
            imports[int(m.group(1), 16)] = name[1:] if name.startswith("_") else name
    return imports


def pe_sections(path):
    """Section number (1-based) -> virtual address, image base included."""
    secs = {}
    for line in tool("objdump", "-h", path).splitlines():
        m = re.match(r"\s*(\d+)\s+\S+\s+[0-9a-f]+\s+([0-9a-f]+)", line)
        if m:
            secs[int(m.group(1)) + 1] = int(m.group(2), 16)
    return secs


def pe_symbols(path):
    pdb = os.path.splitext(path)[0] + ".pdb"
    if not os.path.exists(pdb):
        die(f"{path}: no {os.path.basename(pdb)} beside it (lld writes the function symbols there)")
    secs = pe_sections(path)
    syms = {}
    name = None
    for line in tool("pdbutil", "dump", "--publics", pdb).splitlines():
        m = re.search(r"S_PUB32 \[size = \d+\] `([^`]*)`", line)
        if m:
            name = m.group(1)
            continue
        m = re.search(r"flags = function.*addr = (\d+):(\d+)", line)
        if m and name is not None:
            sec, off = int(m.group(1)), int(m.group(2))
            if sec in secs:
                syms.setdefault(name, secs[sec] + off)
            name = None
    return syms


def pe_imports(path):
    base = None
    for line in tool("objdump", "-p", path).splitlines():
        m = re.match(r"ImageBase\s+([0-9a-fA-F]+)", line)
        if m:
            base = int(m.group(1), 16)
    if base is None:
        die(f"{path}: no ImageBase in llvm-objdump -p")
    imports = {}
    dll, slot = None, None
    for line in tool("readobj", "--coff-imports", path).splitlines():
        line = line.strip()
        if line.startswith("Name:"):
            dll = line.split(":", 1)[1].strip()
        elif line.startswith("ImportAddressTableRVA:"):
            slot = base + int(line.split(":", 1)[1], 16)
        elif line.startswith("Symbol:") and slot is not None:
            name = line.split(":", 1)[1].strip().split(" ")[0]
            imports[slot] = f"{name}"
            slot += 8  # 64-bit images only
        elif line.startswith("}"):
            slot = None
    return imports


def disassemble(path):
    """Sorted addresses and address -> (mnemonic, operands) of all code."""
    insns = {}
    for line in tool("objdump", "-d", "--no-show-raw-insn", path).splitlines():
        m = re.match(r"\s*([0-9a-f]+):\s+(\S+)\s*(.*)$", line)
        if m:
            insns[int(m.group(1), 16)] = (m.group(2), m.group(3))
    return sorted(insns), insns


HEX = re.compile(r"0x([0-9a-f]+)")


class Walker:
    def __init__(self, path):
        self.path = path
        self.kind, self.arch = file_format(path)
        if self.kind == "macho":
            self.syms, self.imports = macho_symbols(path), macho_imports(path)
        else:
            self.syms, self.imports = pe_symbols(path), pe_imports(path)
        self.starts = sorted(set(self.syms.values()))
        self.name_at = {}
        for n, a in sorted(self.syms.items()):
            self.name_at.setdefault(a, n)
        self.addrs, self.insns = disassemble(path)
        self.reached = []     # (import name, path)
        self.unresolved = []  # descriptions
        self.seen = set()

    def body(self, start):
        """The instructions from start to the next symbol (or to the first
        unconditional transfer, for an unnamed thunk)."""
        i = bisect.bisect_right(self.starts, start)
        end = self.starts[i] if i < len(self.starts) else float("inf")
        named = start in self.name_at
        j = bisect.bisect_left(self.addrs, start)
        out = []
        while j < len(self.addrs) and self.addrs[j] < end:
            a = self.addrs[j]
            out.append((a, *self.insns[a]))
            mnem = self.insns[a][0]
            if not named and mnem in ("b", "br", "ret", "jmp", "jmpq", "retq"):
                break
            j += 1
        return out, (end if named else (out[-1][0] + 1 if out else start))

    def label(self, addr):
        return self.name_at.get(addr, f"code at {addr:#x}")

    def walk(self, start, trail, depth):
        if start in self.seen:
            return
        self.seen.add(start)
        body, end = self.body(start)
        if not body:
            self.unresolved.append(f"{' -> '.join(trail)}: no code at {start:#x}")
            return
        regs, loaded = {}, {}
        for addr, mnem, ops in body:
            op = ops.split("<")[0].strip()
            target = None
            if self.arch == "aarch64":
                args = [a.strip() for a in op.split(",")]
                if mnem == "adrp" and len(args) == 2:
                    m = HEX.match(args[1])
                    regs[args[0]] = int(m.group(1), 16) if m else None
                    continue
                if mnem == "add" and len(args) == 3 and args[1] in regs and args[2].startswith("#"):
                    regs[args[0]] = (regs[args[1]] or 0) + int(args[2][1:], 0) if regs[args[1]] is not None else None
                    continue
                if mnem == "ldr" and len(args) >= 2:
                    m = re.match(r"\[(\w+)(?:, #(-?(?:0x)?[0-9a-f]+))?\]$", ", ".join(args[1:]))
                    if m and regs.get(m.group(1)) is not None:
                        slot = regs[m.group(1)] + int(m.group(2) or "0", 0)
                        if slot in self.imports:
                            loaded[args[0]] = (self.imports[slot], slot)
                            continue
                    loaded.pop(args[0], None)
                    continue
                if mnem in ("blr", "br", "blraa", "braa", "blraaz", "braaz"):
                    reg = args[0]
                    if reg in loaded:
                        name, slot = loaded[reg]
                        how = "call" if mnem.startswith("bl") else "tail call"
                        self.reached.append((name, trail + [f"{name} ({how} through the import slot at {slot:#x})"]))
                    else:
                        self.unresolved.append(f"{' -> '.join(trail)}: {mnem} {reg} at {addr:#x}")
                    continue
                if mnem in ("b", "bl") or mnem.startswith("b.") or mnem in ("cbz", "cbnz", "tbz", "tbnz"):
                    m = HEX.search(op)
                    target = int(m.group(1), 16) if m else None
            else:
                if mnem.startswith("call") or mnem.startswith("j"):
                    if "*" in op:
                        m = re.search(r"# 0x([0-9a-f]+)", ops)
                        slot = int(m.group(1), 16) if m else None
                        if slot in self.imports:
                            self.reached.append((self.imports[slot], trail + [f"{self.imports[slot]} (through the import slot at {slot:#x})"]))
                        else:
                            self.unresolved.append(f"{' -> '.join(trail)}: {mnem} {ops} at {addr:#x}")
                        continue
                    m = HEX.search(op)
                    target = int(m.group(1), 16) if m else None
            if target is None or start <= target < end:
                continue  # a branch inside this function
            how = "call" if mnem in ("bl", "callq", "call") else "tail call"
            if target in self.imports:
                name = self.imports[target]
                self.reached.append((name, trail + [f"{name} ({how} through the stub at {target:#x})"]))
            elif depth < MAX_DEPTH:
                self.walk(target, trail + [f"{self.label(target)} ({how})"], depth + 1)
            else:
                self.unresolved.append(f"{' -> '.join(trail)}: deeper than {MAX_DEPTH} calls")


def main():
    if len(sys.argv) != 4:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        sys.exit(2)
    path, function, expected = sys.argv[1:]
    w = Walker(path)
    if function not in w.syms:
        die(f"{path}: no function {function} in its symbols", 1)
    w.walk(w.syms[function], [function], 0)
    where = os.path.basename(path)
    names = sorted({n for n, _ in w.reached})
    ok = (not names and not w.unresolved) if expected == "none" else expected in names
    # On success the paths to the expected call; on failure everything.
    for name, trail in w.reached:
        if not ok or name == expected:
            print(f"{where}: {' -> '.join(trail)}")
    for u in w.unresolved if not ok else []:
        print(f"{where}: unresolved: {u}")
    if expected == "none":
        if names or w.unresolved:
            print(f"{where}: FAIL: {function} was to reach no import, but it reaches "
                  f"{', '.join(names) or 'an unresolved indirect call'}", file=sys.stderr)
            sys.exit(1)
        print(f"{where}: {function} reaches no import, as expected")
        return
    if expected not in names:
        print(f"{where}: FAIL: {function} does not reach {expected}; it reaches "
              f"{', '.join(names) or 'no import'}", file=sys.stderr)
        sys.exit(1)
    print(f"{where}: {function} reaches {expected}")


if __name__ == "__main__":
    main()
