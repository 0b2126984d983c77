#!/usr/bin/env python3
"""The rig's findings (docs/FINDINGS.md, "The findings array") for a real JIT caught stale.

    check_findings.py REPORT.json ARCHIVE [--max N]
    check_findings.py REPORT.json --module NAME [--caller FUNCTION] [--flush FUNCTION]
                      [--routine FINGERPRINT] [--max N]

REPORT is the report of a run that the rig caught (status 86); ARCHIVE is
the JIT's own library (libpcre2-8.a, libluajit.a). Optional by design: the
rig's reports gain a "findings" key only with the findings work, so a report
without it exits 77, which CTest shows as skipped. With it, the report must
group the stale fetches into at most N findings (default 4: one bug, a few
kinds) and at most one per kind and flush routine (one root cause, whatever
the caller), and one of them must name the flush routine
(libgcc's __aarch64_sync_cache_range or __clear_cache) as the flush that
should have covered the words, called from a function of the JIT's own
archive, as not-invalidated-in-geometry. Each such finding is the latched
stride: a stride larger than the line it missed (the fetching core's I-line,
line_cache "I"; for not-cleaned the writer's D-line, "D"), explained by a
CTR_EL0 read whose IminLine (DminLine) is the stride (stride_source); its
flush and caller frames name their module and file offset.

With --module NAME (a JIT from a Debian package, such as the stripped
qemu-x86_64-static, or libgcc_s.so.1 whose flush routine has no symbol),
the flush must instead lie in the mapped object named NAME, and its caller
in NAME too, or with --caller in the function FUNCTION (BEAM's
beamasm_flush_icache in beam.smp), and with --flush the flush in the
function FUNCTION (V8's CpuFeatures::FlushICache); the finding must be the
latched stride as above. With --routine FINGERPRINT, that finding's flush
must be recognised by its code as the well-known routine of that build
(flush.routine.fingerprint, docs/FINDINGS.md "Well-known flush routines"),
and its message must name it.

Exit status: 0 pass, 1 an expectation failed, 2 usage, 77 no findings key.
"""
import json
import os
import re
import subprocess
import sys

SKIP = 77
FLUSH_ROUTINES = ("__aarch64_sync_cache_range", "__clear_cache")


def fail(msg):
    print(f"check_findings.py: FAIL: {msg}", file=sys.stderr)
    sys.exit(1)


def function_of(symbol):
    """'sljit_generate_code.constprop.0+0x5c4' -> 'sljit_generate_code.constprop.0'"""
    return re.sub(r"\+0x[0-9a-fA-F]+$", "", symbol or "")


def archive_functions(archive):
    nm = os.environ.get("AARCH64_NM", "aarch64-linux-gnu-nm")
    out = subprocess.run([nm, "--defined-only", archive], check=True, capture_output=True, text=True).stdout
    return {f[2] for f in (line.split() for line in out.splitlines()) if len(f) == 3 and f[1] in "tT"}


def check_latched_stride(f):
    """libgcc's __aarch64_sync_cache_range latches CTR_EL0 once: on a system
    with mixed lines the lines its loops stepped over are a finding whose
    stride is the latched line size, against the smaller line: the fetching
    core's I-line for the invalidate loop (not-invalidated-in-geometry), the
    writing core's D-line for the clean loop (not-cleaned)."""
    side = {"not-invalidated-in-geometry": "I", "not-cleaned": "D"}.get(f.get("kind"))
    if not side:
        fail(f"the flush routine's finding is {f.get('kind')}, not a stride's")
    if f.get("line_cache") != side:
        fail(f"{f['kind']}: line_cache {f.get('line_cache')}, expected {side}")
    stride, line = f.get("stride"), f.get("line")
    if not stride or stride <= line:
        fail(f"{f['kind']}: stride {stride} against a {line}-byte line: the loop stepped over lines, "
             f"its stride must exceed it")
    source = f.get("stride_source") or {}
    if not source:
        fail(f"{f['kind']}: no stride_source: no CTR_EL0 read explains the stride {stride}")
    value = int(source["value"], 16)
    latched = 4 << (value & 0xF) if side == "I" else 4 << ((value >> 16) & 0xF)
    if latched != stride:
        fail(f"{f['kind']}: stride_source {source['value']} has {latched}-byte {side}-lines, not the stride {stride}")
    for name, frame in (("flush", f["flush"]), ("caller", f["flush"]["caller"])):
        if not frame.get("module") or not frame.get("offset"):
            fail(f"the {name} frame has no module and offset: {frame}")
    if not f["flush"].get("callers"):
        fail("the finding lists no callers")


def module_of(frame):
    return os.path.basename((frame or {}).get("module") or "")


def check_module(findings, module, caller, flush_fn=None, routine=None):
    def called_right(frame):
        if caller:
            return function_of((frame or {}).get("symbol")) == caller
        return module_of(frame) == module

    # The stride's kinds; another kind of the same routine (HotSpot's code
    # installed by one thread and run by another without isb) is checked
    # by the one-per-kind-and-routine rule above only.
    named = [f for f in findings if f.get("flush") and module_of(f["flush"]) == module
             and (not flush_fn or function_of(f["flush"].get("symbol")) == flush_fn)
             and called_right(f["flush"].get("caller"))
             and f["kind"] in ("not-invalidated-in-geometry", "not-cleaned")]
    if not named:
        fail(f"no finding has its flush in {module} ({flush_fn or 'any function'}) called from "
             f"{caller or module}")
    for f in named:
        check_latched_stride(f)
    geometry = [f for f in named if f["kind"] == "not-invalidated-in-geometry"]
    if not geometry:
        fail(f"no not-invalidated-in-geometry finding in {module}")
    f = geometry[0]
    if routine:
        got = f["flush"].get("routine") or {}
        if got.get("fingerprint") != routine:
            fail(f"the flush in {module} is recognised as {got or 'no known routine'}, not {routine}")
        if ("The flush routine is " + got["name"]) not in f["message"]:
            fail(f"the message does not name {got['name']}: {f['message']}")
    c = f["flush"]["caller"]
    print(f"check_findings.py: ok: flush {module}+{f['flush']['offset']} called from "
          f"{c.get('symbol') or ''} ({module_of(c)}+{c['offset']}), stride {f['stride']} against {f['line']}-byte "
          f"I-lines, CTR_EL0 {f['stride_source']['value']} read on cpu {f['stride_source']['cpu']}")
    return 0


def main(argv):
    args = argv[1:]
    module = caller_fn = flush_fn = routine = None
    limit = 4
    usage = ("usage: check_findings.py REPORT.json ARCHIVE|--module NAME [--caller F] [--flush F] "
             "[--routine FINGERPRINT] [--max N]")
    if len(args) < 2:
        print(usage, file=sys.stderr)
        return 2
    report_path, rest = args[0], args[1:]
    archive = None
    if rest[0] != "--module":
        archive, rest = rest[0], rest[1:]
    while rest:
        if len(rest) < 2 or rest[0] not in ("--module", "--caller", "--flush", "--routine", "--max"):
            print(usage, file=sys.stderr)
            return 2
        key, value, rest = rest[0], rest[1], rest[2:]
        if key == "--module":
            module = value
        elif key == "--caller":
            caller_fn = value
        elif key == "--flush":
            flush_fn = value
        elif key == "--routine":
            routine = value
        else:
            limit = int(value)
    if (archive is None) == (module is None):
        print(usage, file=sys.stderr)
        return 2
    with open(report_path) as f:
        report = json.load(f)
    if "findings" not in report:
        print(f"check_findings.py: {report_path} has no 'findings' key (this rig predates them): skipped")
        return SKIP
    if report.get("stale_fetches", 0) == 0:
        fail("the run was clean: there is nothing for findings to explain (is this a caught run's report?)")

    findings = report["findings"]
    if not findings:
        fail(f"{report['stale_fetches']} stale fetches but no findings")
    if len(findings) > limit:
        fail(f"{len(findings)} findings, expected at most {limit}: one root cause should be one finding")
    for f in findings:
        flush = f.get("flush") or {}
        caller = flush.get("caller") or {}
        print(f"  {f.get('kind')}: count={f.get('count')} flush={flush.get('symbol')} caller={caller.get('symbol')}")

    causes = [(f.get("kind"), (f.get("flush") or {}).get("pc")) for f in findings if f.get("flush")]
    if len(causes) != len(set(causes)):
        fail(f"two findings share a kind and a flush routine: {causes}")

    if module:
        return check_module(findings, module, caller_fn, flush_fn, routine)
    own = archive_functions(archive)
    named = [f for f in findings
             if any(r in ((f.get("flush") or {}).get("symbol") or "") for r in FLUSH_ROUTINES)
             and function_of(((f.get("flush") or {}).get("caller") or {}).get("symbol")) in own]
    for f in named:
        check_latched_stride(f)
    geometry = [f for f in named if f["kind"] == "not-invalidated-in-geometry"]
    if geometry:
        f = geometry[0]
        print(f"check_findings.py: ok: {f['flush']['symbol']} called from {f['flush']['caller']['symbol']} "
              f"({os.path.basename(archive)}), stride {f['stride']} against {f['line']}-byte I-lines, "
              f"CTR_EL0 {f['stride_source']['value']} read on cpu {f['stride_source']['cpu']}")
        return 0
    fail(f"no not-invalidated-in-geometry finding names {' or '.join(FLUSH_ROUTINES)} as the flush, "
         f"called from a function of {os.path.basename(archive)}")


if __name__ == "__main__":
    sys.exit(main(sys.argv))
