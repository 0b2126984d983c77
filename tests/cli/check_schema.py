#!/usr/bin/python3
"""Validates jitflush-info --json output against docs/jitflush-info.schema.json.

    check_schema.py SCHEMA FILE        FILE valid, else exit 1 naming each error
    check_schema.py --mutants SCHEMA FILE
        FILE valid, and each of a set of broken copies of it (a required key
        removed, a line of 96 bytes, an unknown source...) invalid: proves
        that the schema checks what it claims to.

Exit status: 0 pass, 1 a document was judged wrongly, 2 usage or unreadable
input. Uses Debian's python3-jsonschema (ci/install/deps.sh).
"""
import copy
import json
import sys

try:
    import jsonschema
except ImportError:
    sys.exit("check_schema.py: python3-jsonschema is missing (ci/install/deps.sh installs it)")


def load(path, what):
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        print(f"check_schema.py: cannot read {what} {path}: {e}", file=sys.stderr)
        sys.exit(2)


def errors(validator, doc):
    return sorted(validator.iter_errors(doc), key=lambda e: list(e.absolute_path))


def mutants(doc):
    """(description, broken copy) pairs; each must fail validation."""
    def mutate(what, change):
        broken = copy.deepcopy(doc)
        change(broken)
        return what, broken

    out = [
        mutate("global.complete removed", lambda d: d["global"].pop("complete")),
        mutate("global.iline 96 (not a power of two)", lambda d: d["global"].__setitem__("iline", 96)),
        mutate("verdict.kind 'fine'", lambda d: d["verdict"].__setitem__("kind", "fine")),
        mutate("cpus not a list", lambda d: d.__setitem__("cpus", {})),
    ]
    if doc["cpus"]:
        out += [
            mutate("cpus[0].source removed", lambda d: d["cpus"][0].pop("source")),
            mutate("cpus[0].source 'guess'", lambda d: d["cpus"][0].__setitem__("source", "guess")),
            mutate("cpus[0].midr as a number", lambda d: d["cpus"][0].__setitem__("midr", 1091555380)),
            mutate("cpus[0] read on the CPU but ctr_el0 null",
                   lambda d: d["cpus"][0].update(source="ctr_el0", ctr_el0=None)),
            mutate("cpus[0] from sysfs but iline null",
                   lambda d: d["cpus"][0].update(source="sysfs", iline=None)),
        ]
    return out


def main(argv):
    want_mutants = len(argv) > 1 and argv[1] == "--mutants"
    args = argv[2:] if want_mutants else argv[1:]
    if len(args) != 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    schema = load(args[0], "schema")
    doc = load(args[1], "output")
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    validator = cls(schema)

    status = 0
    for e in errors(validator, doc):
        where = "/".join(str(p) for p in e.absolute_path) or "(top)"
        print(f"{args[1]}: {where}: {e.message}", file=sys.stderr)
        status = 1
    if want_mutants:
        for what, broken in mutants(doc):
            if not errors(validator, broken):
                print(f"{args[1]}: the schema accepts a broken copy: {what}", file=sys.stderr)
                status = 1
    if status == 0:
        print(f"{args[1]}: valid" + (" (and every broken copy rejected)" if want_mutants else ""))
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv))
