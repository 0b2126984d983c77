#!/usr/bin/env python3
"""The lists of the command lines are one table each, and the docs say the same.

The runner's exit statuses (rig/runner/runner_exit_statuses.def), its options
and the variables that stand in for them (rig/runner/runner_options.def), the
config keys (rig/shared/rig_config_keys.def) and jitflush-info's options and
exit statuses (cli/info_cli.def) are each one X-macro table that the code and
the --help text are expanded from. This checker fails when one of them is in
one place and not the others:

  exit     the numbers of RIG.md's "Exit statuses" table are the .def's, and
           so are the statuses of jitflush-emu --help's "Exit status:" list;
           the same for CLI.md's "Exit statuses" table and jitflush-info
           --help's "Exit status:" line.
  option   RIG.md's option table (under "The runner: jitflush-emu") names the
           .def's options, no more; its synopsis block names every one a
           user gives; --help lists each; the same for CLI.md's "Usage"
           table, the manual page and jitflush-info --help.
  env      RIG.md's "Environment" table names the .def's variables, each
           with the option it stands for; --help lists each; the runner's
           and the plugin's code read no JITFLUSH_ variable the .def lacks.
  config   each "### [GROUP]" table of RIG.md's "Configuration files" names
           the group's keys of the .def, marks the same ones **required**,
           and for a key of fixed values lists the same values.

Usage: check_cli_tables.py REPO [--emu JITFLUSH_EMU] [--info JITFLUSH_INFO]
       check_cli_tables.py --selftest     (each rule fails on a broken copy)
"""
import os
import re
import subprocess
import sys
import tempfile

import selftest_case  # tests/consumers/selftest_case.py

# --------------------------------------------------------------------------
# Reading the tables.

STRING = r'(NULL|"(?:[^"\\]|\\.)*")'
EXIT_ROW = re.compile(r'^RUNNER_EXIT\(\s*(\w+),\s*(\d+),', re.M)
EXIT_OTHER_ROW = re.compile(r'^RUNNER_EXIT_OTHER\(\s*"([^"]*)",\s*"([^"]*)",', re.M)
OPTION_ROW = re.compile(r'^RUNNER_OPTION\(\s*(\w+),\s*(\w+),\s*' + STRING + r",\s*(0|'.'),\s*" +
                        STRING + r",\s*" + STRING + ",", re.M)
CONFIG_KEY_ROW = re.compile(r'^RIG_CONFIG_KEY\(\s*(\w+),\s*"([^"]+)",\s*(\w+),\s*(\w+),', re.M)
CONFIG_ENUM_ROW = re.compile(r'^RIG_CONFIG_ENUM\(\s*(\w+),\s*"([^"]+)",\s*(\w+),\s*' + STRING +
                             r',((?:\s*"[^"]*",?)+)\)', re.M)
INFO_OPTION_ROW = re.compile(r'^INFO_OPTION\(\s*(\w+),\s*"([^"]+)",\s*' + STRING +
                             r",\s*(0|'.'),\s*" + STRING + ",", re.M)
INFO_EXIT_ROW = re.compile(r'^INFO_EXIT\(\s*(\w+),\s*(\d+),', re.M)


def unquote(s):
    return None if s == "NULL" else s[1:-1]


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def without_comments(text):
    return re.sub(r"/\*.*?\*/", "", text, flags=re.S)


def parse_exits(text):
    """{status: name} and {label: doc label} of runner_exit_statuses.def."""
    text = without_comments(text)
    return ({int(n): name for name, n in EXIT_ROW.findall(text)},
            dict(EXIT_OTHER_ROW.findall(text)))


def parse_options(text):
    """The rows of runner_options.def: dicts with kind, id, name, short, arg, env."""
    rows = []
    for kind, ident, name, short, arg, env in OPTION_ROW.findall(without_comments(text)):
        rows.append({"kind": kind, "id": ident, "name": unquote(name),
                     "short": None if short == "0" else short[1], "arg": unquote(arg),
                     "env": unquote(env)})
    return rows


def parse_config(text):
    """{group: [(key, required, values or None)]} of rig_config_keys.def."""
    text = without_comments(text)
    rows = []
    for m in CONFIG_KEY_ROW.finditer(text):
        rows.append((m.start(), m.group(1), m.group(2), m.group(4) == "REQUIRED", None))
    for m in CONFIG_ENUM_ROW.finditer(text):
        rows.append((m.start(), m.group(1), m.group(2), False, re.findall(r'"([^"]*)"', m.group(5))))
    groups = {}
    for _, group, key, required, values in sorted(rows):
        groups.setdefault(group, []).append((key, required, values))
    return groups


def parse_info(text):
    text = without_comments(text)
    options = [{"name": name, "alias": unquote(alias), "short": None if short == "0" else short[1],
                "arg": unquote(arg)}
               for _, name, alias, short, arg in INFO_OPTION_ROW.findall(text)]
    exits = {int(n): name for name, n in INFO_EXIT_ROW.findall(text)}
    return options, exits


def section(text, heading):
    """The text under HEADING (a whole "## ..." or "### ..." line) up to the
    next heading of the same or a higher level; None when there is none."""
    level = len(heading) - len(heading.lstrip("#"))
    m = re.search(r"^" + re.escape(heading) + r"[ \t]*$", text, re.M)
    if not m:
        return None
    rest = text[m.end():]
    end = re.search(r"^#{1,%d} " % level, rest, re.M)
    return rest[:end.start()] if end else rest


def cells(line):
    return [c.strip() for c in re.split(r"(?<!\\)\|", line.strip().strip("|"))]


def table(text, first_header=None):
    """The body rows (lists of cells) of the first table in TEXT whose first
    header cell is FIRST_HEADER (any table when None)."""
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if not line.startswith("|") or i + 1 >= len(lines):
            continue
        if not re.match(r"^\|[-| :]+\|$", lines[i + 1].strip()):
            continue
        if first_header is not None and cells(line)[0] != first_header:
            continue
        rows = []
        for body in lines[i + 2:]:
            if not body.startswith("|"):
                break
            rows.append(cells(body))
        return rows
    return None


def code_words(cell):
    return re.findall(r"`([^`]+)`", cell)


def names_in(cell):
    """The option names a cell gives: `--config FILE`, `-h`, `--help` ->
    --config, -h, --help."""
    return {w.split()[0] for w in code_words(cell) if w.startswith("-")}


# --------------------------------------------------------------------------
# The rules.

def check_emu(repo, help_text, errors):
    rig_path = os.path.join(repo, "docs", "RIG.md")
    rig = read(rig_path)
    exits, others = parse_exits(read(os.path.join(repo, "rig", "runner",
                                                  "runner_exit_statuses.def")))
    options = parse_options(read(os.path.join(repo, "rig", "runner", "runner_options.def")))
    if not exits or not options:
        errors.append("runner .def files: no RUNNER_EXIT or no RUNNER_OPTION rows found")
        return

    # exit: RIG.md's table.
    rows = table(section(rig, "### Exit statuses") or "", "status")
    if rows is None:
        errors.append("RIG.md: no table under \"### Exit statuses\"")
        rows = []
    documented = set()
    for row in rows:
        first = row[0]
        if first.isdigit():
            documented.add(int(first))
            if int(first) not in exits:
                errors.append("RIG.md: exit status %s is not in runner_exit_statuses.def" % first)
        elif first not in others.values():
            errors.append("RIG.md: exit status row %r is not in runner_exit_statuses.def" % first)
    for status, name in sorted(exits.items()):
        if status not in documented:
            errors.append("RIG.md: exit status %d (RUNNER_EXIT_%s) has no row in \"Exit statuses\""
                          % (status, name))
    for label, doc in others.items():
        if doc not in [r[0] for r in rows]:
            errors.append("RIG.md: exit status %s has no row %r" % (label, doc))

    # option: RIG.md's table and synopsis.
    runner = section(rig, "## The runner: jitflush-emu") or ""
    rows = table(runner, "option")
    if rows is None:
        errors.append("RIG.md: no \"| option |\" table under \"## The runner: jitflush-emu\"")
        rows = []
    in_table = set()
    for row in rows:
        in_table |= names_in(row[0])
    want = set()
    for o in options:
        if o["name"]:
            want.add(o["name"])
        if o["short"]:
            want.add("-" + o["short"])
    for name in sorted(want - in_table):
        errors.append("RIG.md: option %s (runner_options.def) has no row in the option table"
                      % name)
    for name in sorted(in_table - want):
        errors.append("RIG.md: the option table names %s, which runner_options.def lacks" % name)
    # The synopsis: the first indented block of the section.
    m = re.search(r"^(    \S.*\n)(    .*\n)*", runner, re.M)
    synopsis = m.group(0) if m else ""
    given = set(re.findall(r"(?<![\w-])(--[a-z][a-z-]*)", synopsis))
    for o in options:
        if o["kind"] in ("VALUE", "FLAG", "MODE", "SUITE") and o["name"] not in given:
            errors.append("RIG.md: the synopsis of \"The runner: jitflush-emu\" lacks %s"
                          % o["name"])
    for name in sorted(given - want):
        errors.append("RIG.md: the synopsis names %s, which runner_options.def lacks" % name)

    # env: RIG.md's table.
    rows = table(section(rig, "### Environment") or "", "variable")
    if rows is None:
        errors.append("RIG.md: no \"| variable |\" table under \"### Environment\"")
        rows = []
    by_env = {o["env"]: o for o in options if o["env"]}
    seen = set()
    for row in rows:
        for var in code_words(row[0]):
            seen.add(var)
            o = by_env.get(var)
            if not o:
                errors.append("RIG.md: variable %s is not in runner_options.def" % var)
            elif o["kind"] != "ENV" and o["name"] not in names_in(row[1]):
                errors.append("RIG.md: variable %s stands for %s (runner_options.def), its row "
                              "says %r" % (var, o["name"], row[1][:60]))
            elif o["kind"] == "ENV" and not row[1].startswith("no option"):
                errors.append("RIG.md: variable %s stands for no option; its row should say so"
                              % var)
    for var in sorted(set(by_env) - seen):
        errors.append("RIG.md: variable %s (runner_options.def) has no row in \"Environment\""
                      % var)

    # The code reads no variable the .def lacks.
    for sub in ("runner", "plugin", "report", "shared", "model", "lazy"):
        folder = os.path.join(repo, "rig", sub)
        if not os.path.isdir(folder):
            continue
        for name in sorted(os.listdir(folder)):
            if not name.endswith(".c"):
                continue
            code = read(os.path.join(folder, name))
            for var in re.findall(r'getenv\(\s*"(JITFLUSH_\w+)"', code):
                if var not in by_env:
                    errors.append("rig/%s/%s reads %s, which runner_options.def lacks"
                                  % (sub, name, var))

    if help_text is not None:
        check_emu_help(help_text, exits, others, options, errors)


def check_emu_help(help_text, exits, others, options, errors):
    at = help_text.find("\nExit status:\n")
    if at < 0:
        errors.append("jitflush-emu --help: no \"Exit status:\" list")
        return
    listed = set()
    for line in help_text[at:].splitlines()[2:]:
        m = re.match(r"^  (\S+) ", line)
        if m:
            listed.add(m.group(1))
        elif not line.startswith("       "):
            break
    want = {str(n) for n in exits} | set(others)
    for label in sorted(want - listed):
        errors.append("jitflush-emu --help: exit status %s is not in its list" % label)
    for label in sorted(listed - want):
        errors.append("jitflush-emu --help: exit status %s is not in runner_exit_statuses.def"
                      % label)
    body = help_text[:at]
    heads = set(re.findall(r"^  (?:-\w, )?(--[a-z][a-z-]*)", body, re.M))
    shorts = set(re.findall(r"^  (-\w), --", body, re.M))
    envs = set(re.findall(r"^  (JITFLUSH_\w+)\s", body, re.M))
    for o in options:
        if o["name"] and o["name"] not in heads:
            errors.append("jitflush-emu --help: option %s is not listed" % o["name"])
        if o["short"] and "-" + o["short"] not in shorts:
            errors.append("jitflush-emu --help: -%s is not listed" % o["short"])
        if o["env"] and o["env"] not in envs:
            errors.append("jitflush-emu --help: variable %s is not listed" % o["env"])
    names = {o["name"] for o in options}
    for h in sorted(heads - names):
        errors.append("jitflush-emu --help: lists %s, which runner_options.def lacks" % h)
    for e in sorted(envs - {o["env"] for o in options}):
        errors.append("jitflush-emu --help: lists %s, which runner_options.def lacks" % e)


def check_config(repo, errors):
    rig = read(os.path.join(repo, "docs", "RIG.md"))
    groups = parse_config(read(os.path.join(repo, "rig", "shared", "rig_config_keys.def")))
    if not groups:
        errors.append("rig_config_keys.def: no rows found")
        return
    config = section(rig, "## Configuration files") or ""
    documented = re.findall(r"^### \[(\w+)[^\]]*\][ \t]*$", config, re.M)
    for g in sorted(set(groups) - set(documented)):
        errors.append("RIG.md: config group [%s] (rig_config_keys.def) has no \"### [%s]\" "
                      "section" % (g, g))
    for g in sorted(set(documented) - set(groups)):
        errors.append("RIG.md: config group [%s] is not in rig_config_keys.def" % g)
    for g in documented:
        if g not in groups:
            continue
        heading = re.search(r"^### \[%s[^\]]*\][ \t]*$" % g, config, re.M).group(0).rstrip()
        rows = table(section(config, heading) or "")
        if rows is None:
            errors.append("RIG.md: no table under \"%s\"" % heading)
            continue
        keys = {key: (required, values) for key, required, values in groups[g]}
        seen = set()
        for row in rows:
            for key in code_words(row[0]):
                seen.add(key)
                if key not in keys:
                    errors.append("RIG.md: [%s] %s is not in rig_config_keys.def" % (g, key))
                    continue
                required, values = keys[key]
                if required != ("**required**" in row[1]):
                    errors.append("RIG.md: [%s] %s is %s in rig_config_keys.def, not in the table"
                                  % (g, key, "REQUIRED" if required else "optional"))
                if values is not None and set(code_words(row[1])) != set(values):
                    errors.append("RIG.md: [%s] %s takes %s (rig_config_keys.def), the table "
                                  "says %s" % (g, key, ", ".join(values),
                                               ", ".join(code_words(row[1])) or "nothing"))
        for key in sorted(set(keys) - seen):
            errors.append("RIG.md: [%s] %s (rig_config_keys.def) has no row under \"%s\""
                          % (g, key, heading))


def check_info(repo, help_text, errors):
    path = os.path.join(repo, "cli", "info_cli.def")
    if not os.path.exists(path):
        return
    options, exits = parse_info(read(path))
    if not options or not exits:
        errors.append("info_cli.def: no INFO_OPTION or no INFO_EXIT rows found")
        return
    cli = read(os.path.join(repo, "docs", "CLI.md"))
    rows = table(section(cli, "## Usage") or "", "option")
    if rows is None:
        errors.append("CLI.md: no \"| option |\" table under \"## Usage\"")
        rows = []
    in_table = set()
    for row in rows:
        in_table |= {n.split("=")[0].split("[")[0] for n in names_in(row[0])}
    want = {o["name"] for o in options} | {"-" + o["short"] for o in options if o["short"]}
    for name in sorted(want - in_table):
        errors.append("CLI.md: option %s (info_cli.def) has no row in the Usage table" % name)
    for name in sorted(in_table - want - {o["alias"] for o in options}):
        errors.append("CLI.md: the Usage table names %s, which info_cli.def lacks" % name)
    rows = table(section(cli, "## Exit statuses") or "", "status")
    if rows is None:
        errors.append("CLI.md: no table under \"## Exit statuses\"")
        rows = []
    documented = {int(r[0]) for r in rows if r[0].isdigit()}
    for s in sorted(set(exits) - documented):
        errors.append("CLI.md: exit status %d (info_cli.def) has no row" % s)
    for s in sorted(documented - set(exits)):
        errors.append("CLI.md: exit status %d is not in info_cli.def" % s)
    man_path = os.path.join(repo, "docs", "jitflush-info.1")
    if os.path.exists(man_path):
        man = re.sub(r"\\f[BIRP]", "", read(man_path).replace("\\-", "-"))
        for o in options:
            for name in (o["name"], o["alias"], "-" + o["short"] if o["short"] else None):
                if name and not re.search(r"(?<![\w-])" + re.escape(name) + r"(?![\w-])", man):
                    errors.append("jitflush-info.1: option %s (info_cli.def) is not described"
                                  % name)
        m = re.search(r"^\.SH EXIT STATUS\n(.*?)(?=^\.SH |\Z)", man, re.M | re.S)
        listed = {int(n) for n in re.findall(r"^\.B (\d+)$", m.group(1), re.M)} if m else set()
        for st in sorted(set(exits) ^ listed):
            errors.append("jitflush-info.1: exit status %d is %s" %
                          (st, "not in EXIT STATUS" if st in exits else "not in info_cli.def"))
    if help_text is None:
        return
    heads = set(re.findall(r"^  (?:-\w, )?(--[a-z][a-z-]*)", help_text, re.M))
    shorts = set(re.findall(r"^  (-\w), --", help_text, re.M))
    for o in options:
        if o["name"] not in heads:
            errors.append("jitflush-info --help: option %s is not listed" % o["name"])
        if o["short"] and "-" + o["short"] not in shorts:
            errors.append("jitflush-info --help: -%s is not listed" % o["short"])
    for h in sorted(heads - {o["name"] for o in options}):
        errors.append("jitflush-info --help: lists %s, which info_cli.def lacks" % h)
    at = help_text.find("Exit status:")
    listed = {int(n) for n in re.findall(r"^  (\d+) ", help_text[at:], re.M)} if at >= 0 else set()
    for s in sorted(set(exits) ^ listed):
        errors.append("jitflush-info --help: exit status %d is %s" %
                      (s, "not listed" if s in exits else "not in info_cli.def"))


def check_repo(repo, emu_help=None, info_help=None):
    errors = []
    check_emu(repo, emu_help, errors)
    check_config(repo, errors)
    check_info(repo, info_help, errors)
    return errors


def help_of(program):
    r = subprocess.run([program, "--help"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       universal_newlines=True, timeout=60)
    if r.returncode != 0:
        sys.stderr.write("%s --help exited %d: %s" % (program, r.returncode, r.stderr))
        sys.exit(2)
    return r.stdout


# --------------------------------------------------------------------------
# The self-test: a mini copy of the repository, clean and then broken once
# per rule.

EXITS = '''/* RUNNER_EXIT(NAME, STATUS, HELP) */
RUNNER_EXIT(STALE, 86, "stale")
RUNNER_EXIT_OTHER("N", "the program's own", "its own")
RUNNER_EXIT(USAGE, 2,
         "usage")
'''
OPTIONS = '''RUNNER_OPTION(VALUE, config, "--config", 0, "FILE", "JITFLUSH_EMU_CONFIG",
           "the SoC (default " X ")")
RUNNER_OPTION(FLAG, quiet, "--quiet", 0, NULL, NULL, "say less")
RUNNER_OPTION(HELP, help, "--help", 'h', NULL, NULL, "this text")
RUNNER_OPTION(ENV, plugin, NULL, 0, NULL, "JITFLUSH_PLUGIN", "the plugin")
'''
KEYS = '''RIG_CONFIG_KEY(soc, "name", TEXT, OPTIONAL, "a name")
RIG_CONFIG_KEY(cluster, "cpus", CPULIST, REQUIRED, "its CPUs")
RIG_CONFIG_ENUM(kernel, "sysfs", sysfs_mode, "what exists", "full",
                "none")
'''
RIG = '''# Rig

## Configuration files

### [soc]

| key | type | meaning |
|---|---|---|
| `name` | text | a name |

### [cluster NAME]

| key | type | meaning |
|---|---|---|
| `cpus` | cpulist, **required** | its CPUs |

### [kernel]

| key | values | meaning |
|---|---|---|
| `sysfs` | `full`, `none` | what exists |

## The runner: jitflush-emu

    jitflush-emu [--config FILE] [--quiet]
                 -- PROGRAM

| option | meaning |
|---|---|
| `--config FILE` | the SoC |
| `--quiet` | say less |
| `-h`, `--help` | this |

### Environment

| variable | stands for |
|---|---|
| `JITFLUSH_EMU_CONFIG` | `--config` |
| `JITFLUSH_PLUGIN` | no option: the plugin |

### Exit statuses

| status | meaning |
|---|---|
| the program's own | no stale fetch |
| 86 | stale |
| 2 | usage |
'''
HELP = '''usage: jitflush-emu [--config FILE] [--quiet] -- PROGRAM

  --config FILE      the SoC
  --quiet            say less
  -h, --help         this text

Environment:
  JITFLUSH_EMU_CONFIG         --config
  JITFLUSH_PLUGIN             the plugin

Exit status:
  86   stale
  N    its own
  2    usage
       more of it
A last line.
'''
INFO_DEF = '''INFO_OPTION(json, "--json", "--jason", 0, NULL, "JSON")
INFO_OPTION(help, "--help", NULL, 'h', NULL, "this text")
INFO_EXIT(OK, 0, "success")
INFO_EXIT(USAGE, 2, "usage error")
'''
CLI = '''# CLI

## Usage

| option | meaning |
|---|---|
| `--json` (or `--jason`) | JSON |
| `-h`, `--help` | help |

## Exit statuses

| status | meaning |
|---|---|
| 0 | success |
| 2 | usage error |
'''
INFO_HELP = '''Usage: jitflush-info [--json]

  --json    JSON
  -h, --help  this text

Exit status:
  0    success
  2    usage error
'''
MAN = r'''.TH JITFLUSH-INFO 1
.SH OPTIONS
.TP
.BR \-\-json ", " \-\-jason
.TP
.BR \-h ", " \-\-help
.SH EXIT STATUS
.TP
.B 0
success
.TP
.B 2
usage error
.SH ENVIRONMENT
'''
RUNNER_C = 'const char *p = getenv("JITFLUSH_PLUGIN");\n'


def selftest():
    """Each rule fails on a copy that breaks it; the clean copy passes."""
    clean = {"exits": EXITS, "options": OPTIONS, "keys": KEYS, "rig": RIG, "help": HELP,
             "info_def": INFO_DEF, "cli": CLI, "info_help": INFO_HELP, "runner_c": RUNNER_C,
             "man": MAN}

    def with_(**changes):
        files = dict(clean)
        for k, (old, new) in changes.items():
            assert old in files[k], (k, old)
            files[k] = files[k].replace(old, new, 1)
        return files

    cases = [
        ("the clean copy", clean, 0),
        ("an exit status in the .def only",
         with_(exits=("RUNNER_EXIT(USAGE", 'RUNNER_EXIT(QEMU, 3, "qemu")\nEMU_EXIT(USAGE')), 1),
        ("an exit status in RIG.md only", with_(rig=("| 2 | usage |", "| 2 | usage |\n| 3 | q |")),
         1),
        ("an exit status in --help only", with_(help=("  2    usage", "  3    q\n  2    usage")), 1),
        ("an option in the .def only",
         with_(options=("RUNNER_OPTION(HELP", 'RUNNER_OPTION(VALUE, seed, "--seed", 0, "N", NULL, '
                        '"seed")\nEMU_OPTION(HELP')), 1),
        ("an option in RIG.md's table only",
         with_(rig=("| `--quiet` | say less |", "| `--quiet` | say less |\n| `--loud` | no |")), 1),
        ("an option missing from RIG.md's synopsis",
         with_(rig=("[--config FILE] [--quiet]", "[--config FILE]")), 1),
        ("an option in --help only",
         with_(help=("  --quiet ", "  --loud             no\n  --quiet ")), 1),
        ("a short option the table lacks", with_(rig=("| `-h`, `--help` |", "| `--help` |")), 1),
        ("a variable in the .def only",
         with_(options=('"--quiet", 0, NULL, NULL', '"--quiet", 0, NULL, "JITFLUSH_EMU_QUIET"')),
         1),
        ("a variable in RIG.md only",
         with_(rig=("| `JITFLUSH_PLUGIN` |", "| `JITFLUSH_EMU_SEED` | `--seed` |\n"
                    "| `JITFLUSH_PLUGIN` |")), 1),
        ("a variable standing for another option in RIG.md",
         with_(rig=("| `JITFLUSH_EMU_CONFIG` | `--config` |",
                    "| `JITFLUSH_EMU_CONFIG` | `--quiet` |")), 1),
        ("a variable in --help only",
         with_(help=("  JITFLUSH_PLUGIN ", "  JITFLUSH_EMU_X  --x\n  JITFLUSH_PLUGIN ")), 1),
        ("a variable the code reads and the .def lacks",
         with_(runner_c=("JITFLUSH_PLUGIN", "JITFLUSH_EMU_SECRET")), 1),
        ("a config key in the .def only",
         with_(keys=('RIG_CONFIG_KEY(cluster', 'RIG_CONFIG_KEY(soc, "cpu", TEXT, OPTIONAL, "x")\n'
                     'RIG_CONFIG_KEY(cluster')), 1),
        ("a config key in RIG.md only",
         with_(rig=("| `name` | text | a name |", "| `name` | text | a name |\n| `x` | text | x |")),
         1),
        ("a config group in the .def only",
         with_(keys=("RIG_CONFIG_KEY(soc", 'RIG_CONFIG_KEY(hotplug, "events", EVENTS, OPTIONAL, '
                     '"x")\nEMU_CONFIG_KEY(soc')), 1),
        ("a required key the table does not mark",
         with_(rig=("cpulist, **required**", "cpulist")), 1),
        ("a config value in the .def only",
         with_(keys=('"full",\n                "none")', '"full",\n                "none", "some")')),
         1),
        ("a config value in RIG.md only", with_(rig=("`full`, `none`", "`full`, `none`, `x`")), 1),
        ("a jitflush-info option in the .def only",
         with_(info_def=("INFO_OPTION(help", 'INFO_OPTION(quiet, "--quiet", NULL, 0, NULL, "q")\n'
                         'INFO_OPTION(help')), 1),
        ("a jitflush-info option in CLI.md only",
         with_(cli=("| `-h`, `--help` | help |", "| `-h`, `--help` | help |\n| `--xml` | XML |")),
         1),
        ("a jitflush-info option in --help only",
         with_(info_help=("  --json ", "  --xml     XML\n  --json ")), 1),
        ("a jitflush-info exit status in CLI.md only",
         with_(cli=("| 2 | usage error |", "| 1 | unsafe |\n| 2 | usage error |")), 1),
        ("a jitflush-info option the manual page lacks",
         with_(man=('.BR \\-\\-json ", " \\-\\-jason', ".B \\-\\-json")), 1),
        ("a jitflush-info exit status the manual page lacks",
         with_(man=(".B 2\nusage error\n", "")), 1),
        ("a jitflush-info exit status in --help only",
         with_(info_help=("  2    usage", "  1    unsafe\n  2    usage")), 1),
    ]
    bad = 0
    for title, files, want in cases:
        with tempfile.TemporaryDirectory() as d:
            for sub in ("docs", "rig/runner", "rig/shared", "cli"):
                os.makedirs(os.path.join(d, sub))
            for key, path in (("exits", "rig/runner/runner_exit_statuses.def"),
                              ("options", "rig/runner/runner_options.def"),
                              ("keys", "rig/shared/rig_config_keys.def"),
                              ("rig", "docs/RIG.md"), ("cli", "docs/CLI.md"),
                              ("info_def", "cli/info_cli.def"), ("man", "docs/jitflush-info.1"),
                              ("runner_c", "rig/runner/runner.c")):
                with open(os.path.join(d, path), "w") as f:
                    f.write(files[key])
            errors = check_repo(d, files["help"], files["info_help"])
        got = 1 if errors else 0
        bad += selftest_case.report(title, got == want, errors)
    return 1 if bad else 0


def main(argv):
    if argv[1:] == ["--selftest"]:
        return selftest()
    args = argv[1:]
    if not args or len(args) % 2 != 1 or any(a not in ("--emu", "--info") for a in args[1::2]):
        sys.stderr.write(__doc__)
        return 2
    repo = args[0]
    given = dict(zip(args[1::2], args[2::2]))
    emu_help = help_of(given["--emu"]) if "--emu" in given else None
    info_help = help_of(given["--info"]) if "--info" in given else None
    errors = check_repo(repo, emu_help, info_help)
    for e in errors:
        print(e)
    print("%d violation%s%s%s" % (len(errors), "" if len(errors) == 1 else "s",
                                  "" if emu_help is not None else " (no jitflush-emu --help)",
                                  "" if info_help is not None else " (no jitflush-info --help)"))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
