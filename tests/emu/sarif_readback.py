#!/usr/bin/python3
"""Reads the rig's --sarif output back with real SARIF consumers.

  sarif_readback.py RUNNER CONFIG SCHEMA SARIF_TOOL -- PROGRAM [ARGS...]

Runs PROGRAM under RUNNER (jitflush-emu) with --report and --sarif, then:
  1. validates the SARIF log against the SARIF 2.1.0 JSON Schema (SCHEMA,
     draft 2020-12), and checks the validator rejects a broken copy;
  2. reads it with sarif-tools (SARIF_TOOL summary) and checks that it sees
     one error per finding of the JSON report, under each finding's kind;
  3. checks each result against its finding: rule, message, location.
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


def main(argv):
    if len(argv) < 7 or argv[5] != "--":
        fail("usage: sarif_readback.py RUNNER CONFIG SCHEMA SARIF_TOOL -- PROGRAM [ARGS...]")
    runner, config, schema_path, sarif_tool = argv[1:5]
    program = argv[6:]
    for path in (schema_path, sarif_tool):
        if not os.path.exists(path):
            fail("%s is missing: run ci/install-sarif-tools.sh" % path)
    work = tempfile.mkdtemp(prefix="sarif-readback-")
    report, sarif = os.path.join(work, "r.json"), os.path.join(work, "out.sarif")
    run = subprocess.run([runner, "--config", config, "--report", report, "--sarif", sarif, "--"] + program,
                         capture_output=True, text=True, timeout=300)
    if run.returncode != 86:
        fail("expected a stale run (status 86), got %d:\n%s" % (run.returncode, run.stderr[-2000:]))
    findings = json.load(open(report))["findings"]
    log = json.load(open(sarif))
    if not findings:
        fail("the report has no findings")

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
    if len(results) != len(findings):
        fail("%d results for %d findings" % (len(results), len(findings)))
    for result, finding in zip(results, findings):
        if result["ruleId"] != finding["kind"] or rules[result["ruleIndex"]]["id"] != finding["kind"]:
            fail("result %s does not match finding %s" % (result["ruleId"], finding["kind"]))
        if result["message"]["text"] != finding["message"]:
            fail("result message differs from the finding's")
        if result["properties"]["count"] != finding["count"]:
            fail("result count differs from the finding's")
        loc = result["locations"][0]
        caller = (finding["flush"] or {}).get("caller") or {}
        if caller.get("location"):
            uri = loc["physicalLocation"]["artifactLocation"]["uri"]
            line = loc["physicalLocation"]["region"]["startLine"]
            file, _, want_line = caller["location"].rpartition(":")
            if not uri.endswith(file) or line != int(want_line):
                fail("result at %s:%d, the caller is at %s" % (uri, line, caller["location"]))
    print("sarif_readback: %d findings, valid SARIF 2.1.0, read back by sarif-tools" % len(findings))


if __name__ == "__main__":
    main(sys.argv)
