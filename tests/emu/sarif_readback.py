#!/usr/bin/python3
"""Reads the rig's --sarif output back with real SARIF consumers.

  sarif_readback.py RUNNER CONFIG SCHEMA SARIF_TOOL SRCROOT -- PROGRAM [ARGS...]

Runs PROGRAM under RUNNER (jitflush-emu) with --report, --sarif and
--sarif-root SRCROOT (seed 1), then:
  1. validates the SARIF log against the SARIF 2.1.0 JSON Schema (SCHEMA,
     draft 2020-12), and checks the validator rejects a broken copy;
  2. reads it with sarif-tools (SARIF_TOOL summary) and checks that it sees
     one error per finding of the JSON report, under each finding's kind;
  3. checks each result against its finding: rule, message, location (a
     source line under SRCROOT is relative to it, every result has a
     physical location: a source line or the module and offset), and the
     well-known flush routine it names, if any;
  4. runs it again with seed 2 and checks that the same root causes have
     the same partialFingerprints and different ones different.
When PROGRAM forks and a child finds something, the one log must hold the
child's results too, each naming its process as the report's finding does
(properties.process, and properties.parent with the message saying so).
Exits 0 when all hold, 1 with the reason otherwise.
"""
import copy
import json
import os
import subprocess
import sys
import tempfile

import jsonschema


def fail(why):
    print("sarif_readback: " + why, file=sys.stderr)
    sys.exit(1)


def run_rig(runner, config, srcroot, program, work, seed):
    report = os.path.join(work, "r%d.json" % seed)
    sarif = os.path.join(work, "out%d.sarif" % seed)
    run = subprocess.run([runner, "--config", config, "--seed", str(seed), "--report", report,
                          "--sarif", sarif, "--sarif-root", srcroot, "--"] + program,
                         capture_output=True, text=True, timeout=300)
    if run.returncode != 86:
        fail("expected a stale run (status 86), got %d:\n%s" % (run.returncode, run.stderr[-2000:]))
    full = json.load(open(report))
    return full["findings"], json.load(open(sarif)), sarif, full.get("processes")


def root_cause(finding):
    """What docs/FINDINGS.md says defines a finding, in names not addresses."""
    flush = finding["flush"] or {}
    writer = finding["writer"] or {}
    return (finding["kind"], finding["stride"], flush.get("raw_symbol"),
            None if flush else writer.get("raw_symbol"))


def fingerprints(findings, log):
    out = {}
    for result, finding in zip(log["runs"][0]["results"], findings):
        out[root_cause(finding)] = result["partialFingerprints"]["jitflushRootCause/v1"]
    return out


def check_placed(result, finding, srcroot):
    loc = result["locations"][0]
    physical = loc.get("physicalLocation")
    if not physical:
        fail("result %s has no physical location: %s" % (result["ruleId"], json.dumps(loc)))
    art = physical["artifactLocation"]
    if "startLine" in physical.get("region", {}) and art.get("uriBaseId") == "SRCROOT":
        if not os.path.isfile(os.path.join(srcroot, art["uri"])):
            fail("%s is not a file under the SARIF root %s" % (art["uri"], srcroot))
    elif "startLine" in physical.get("region", {}):
        if art["uri"].startswith("file://" + srcroot + "/"):
            fail("%s lies under the SARIF root but is not relative to it" % art["uri"])
    elif "byteOffset" not in physical.get("region", {}):
        fail("result %s has neither a line nor a byte offset" % result["ruleId"])


def main(argv):
    if len(argv) < 8 or argv[6] != "--":
        fail("usage: sarif_readback.py RUNNER CONFIG SCHEMA SARIF_TOOL SRCROOT -- PROGRAM [ARGS...]")
    runner, config, schema_path, sarif_tool, srcroot = argv[1:6]
    srcroot = os.path.realpath(srcroot)
    program = argv[7:]
    for path in (schema_path, sarif_tool):
        if not os.path.exists(path):
            fail("%s is missing: run ci/install/sarif-tools.sh" % path)
    work = tempfile.mkdtemp(prefix="sarif-readback-")
    findings, log, sarif, processes = run_rig(runner, config, srcroot, program, work, 1)
    if not findings:
        fail("the report has no findings")
    if len(log["runs"][0]["results"]) != len(findings):
        fail("%d results for %d findings" % (len(log["runs"][0]["results"]), len(findings)))

    validator = jsonschema.Draft202012Validator(json.load(open(schema_path)))
    errors = sorted(validator.iter_errors(log), key=lambda e: list(e.path))
    if errors:
        fail("not valid SARIF 2.1.0: %s at %s" % (errors[0].message, list(errors[0].path)))
    broken = copy.deepcopy(log)
    broken["runs"][0]["results"][0]["level"] = "fatal"
    if validator.is_valid(broken):
        fail("the schema accepted a result with level 'fatal': the validation proves nothing")

    summary = subprocess.run([sarif_tool, "summary", sarif], capture_output=True, text=True, timeout=120)
    if summary.returncode != 0:
        fail("sarif-tools could not read the log:\n" + summary.stderr)
    lines = summary.stdout.splitlines()
    if ("error: %d" % len(findings)) not in lines:
        fail("sarif-tools does not count %d errors:\n%s" % (len(findings), summary.stdout))
    for kind in {f["kind"] for f in findings}:
        if not any(l.strip().startswith("- " + kind + " ") for l in lines):
            fail("sarif-tools does not list the kind %s:\n%s" % (kind, summary.stdout))

    results = log["runs"][0]["results"]
    rules = log["runs"][0]["tool"]["driver"]["rules"]
    for result, finding in zip(results, findings):
        if result["ruleId"] != finding["kind"] or rules[result["ruleIndex"]]["id"] != finding["kind"]:
            fail("result %s does not match finding %s" % (result["ruleId"], finding["kind"]))
        message = finding["message"]
        if processes:
            props = result["properties"]
            if props.get("process") != finding["process"]:
                fail("result of process %s for a finding of process %s" % (props.get("process"), finding["process"]))
            parent = next(p.get("parent") for p in processes if p["pid"] == finding["process"])
            if props.get("parent") != parent:
                fail("result of process %s names parent %s, not %s" % (finding["process"], props.get("parent"), parent))
            if parent:
                message += " (in process %d, forked by %d)" % (finding["process"], parent)
        if result["message"]["text"] != message:
            fail("result message %r differs from the finding's %r" % (result["message"]["text"], message))
        if result["properties"]["count"] != finding["count"]:
            fail("result count differs from the finding's")
        # A well-known flush routine (docs/FINDINGS.md) is named in the
        # result as in the finding.
        routine = (finding["flush"] or {}).get("routine")
        if result["properties"].get("flushRoutine") != (routine or {}).get("name"):
            fail("result names flush routine %r, the finding %r"
                 % (result["properties"].get("flushRoutine"), routine))
        if routine and ("The flush routine is " + routine["name"]) not in message:
            fail("the message does not name the flush routine %s: %r" % (routine["name"], message))
        loc = result["locations"][0]
        caller = (finding["flush"] or {}).get("caller") or {}
        if caller.get("location"):
            uri = loc["physicalLocation"]["artifactLocation"]["uri"]
            line = loc["physicalLocation"]["region"]["startLine"]
            file, _, want_line = caller["location"].rpartition(":")
            if not file.endswith(uri) or line != int(want_line):
                fail("result at %s:%d, the caller is at %s" % (uri, line, caller["location"]))
        check_placed(result, finding, srcroot)
    if log["runs"][0]["originalUriBaseIds"]["SRCROOT"]["uri"] != "file://" + srcroot + "/":
        fail("SRCROOT is %s, not the SARIF root" % log["runs"][0]["originalUriBaseIds"])

    first = fingerprints(findings, log)
    findings2, log2, _, _ = run_rig(runner, config, srcroot, program, work, 2)
    second = fingerprints(findings2, log2)
    common = set(first) & set(second)
    if not common:
        fail("seeds 1 and 2 share no root cause: %s / %s" % (sorted(first), sorted(second)))
    for key in common:
        if first[key] != second[key]:
            fail("root cause %s: fingerprint %s with seed 1, %s with seed 2" % (key, first[key], second[key]))
    if len(set(first.values())) != len(first):
        fail("two root causes share a fingerprint: %s" % first)
    print("sarif_readback: %d findings of %d processes, valid SARIF 2.1.0, read back by sarif-tools, "
          "%d root causes with the same fingerprints on seeds 1 and 2"
          % (len(findings), len(processes or [None]), len(common)))


if __name__ == "__main__":
    main(sys.argv)
