#!/usr/bin/env python3
"""The SARIF logs of one real JIT's runs on several seeds (docs/FINDINGS.md, "SARIF").

    sarif_fingerprints.py RUN.sarif...

Each log must place every result at a physical location (a source line or
the mapped object and byte offset) with a partialFingerprints entry, and
the not-invalidated-in-geometry result (the latched stride) must have the
same fingerprint in every log: code scanning then tracks the bug as one
alert whatever the seed, addresses and counts.

Exit status: 0 pass, 1 an expectation failed, 2 usage.
"""
import json
import sys

KEY = "jitflushRootCause/v1"


def fail(msg):
    print(f"sarif_fingerprints.py: FAIL: {msg}", file=sys.stderr)
    sys.exit(1)


def main(argv):
    if len(argv) < 3:
        print("usage: sarif_fingerprints.py RUN.sarif RUN.sarif...", file=sys.stderr)
        return 2
    seen = {}
    for path in argv[1:]:
        with open(path) as f:
            results = json.load(f)["runs"][0]["results"]
        if not results:
            fail(f"{path} has no result")
        for r in results:
            physical = r["locations"][0].get("physicalLocation")
            if not physical or not physical.get("artifactLocation", {}).get("uri"):
                fail(f"{path}: a {r['ruleId']} result has no physical location")
            region = physical.get("region", {})
            if "startLine" not in region and "byteOffset" not in region:
                fail(f"{path}: a {r['ruleId']} result has neither a line nor a byte offset")
            if not r.get("partialFingerprints", {}).get(KEY):
                fail(f"{path}: a {r['ruleId']} result has no {KEY}")
        geometry = [r["partialFingerprints"][KEY] for r in results
                    if r["ruleId"] == "not-invalidated-in-geometry"]
        if len(geometry) != 1:
            fail(f"{path}: {len(geometry)} not-invalidated-in-geometry results, expected 1")
        seen[path] = geometry[0]
    if len(set(seen.values())) != 1:
        fail("the latched stride's fingerprint differs between runs: " + json.dumps(seen))
    print(f"sarif_fingerprints.py: ok: {len(seen)} runs, every result placed, "
          f"the geometry finding's fingerprint {next(iter(seen.values()))} in all")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
