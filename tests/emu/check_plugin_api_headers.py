#!/usr/bin/env python3
"""Every source that includes QEMU's plugin API header (the plugin's, the
plugin unit tests' doubles, rigs and tests, ci/install/qemu-probe-plugin.c)
compiles with -Wall -Wextra -Werror against a header of API 5, 6 or 7
(docs/RIG.md, "Which QEMU"; docs/TESTING.md).

    check_plugin_api_headers.py ARGS_FILE REPO API
    check_plugin_api_headers.py ARGS_FILE REPO --out-of-range

ARGS_FILE (written by tests/emu/CMakeLists.txt) holds, per target, lines
"target NAME", "base DIR" (relative sources are under it), then "include
DIR", "define DEF" and "source FILE" lines as the build compiles them; the
first target is the plugin's, and the build's header is "header FILE".

API: the headers compiled against are
  - the build's own header when it is of that version; otherwise one
    DERIVED from it by the signature changes QEMU's header lists under
    "Versioning plugins" (SIGNATURES below: nothing else of the header
    changes). CI has only QEMU 10.2.2's header (API 5), so there API 6 and
    7 are derived, and the test's name and output say so;
  - every header of that version named in JITFLUSH_QEMU_PLUGIN_HEADERS
    (colon-separated files, or folders holding qemu-plugin.h, include/,
    include/plugins/ or include/qemu/): real QEMU 11 headers. Each is
    compiled against, and SIGNATURES is checked against it, so a
    derivation that no longer matches QEMU fails here.
Every source under tests/ and ci/ that includes the header (directly or
through a project header) must be compiled by some target listed, or the
check fails naming it: a new test double cannot escape it.

--out-of-range: headers of versions MIN-1 and MAX+1 (the build's with its
version changed) must be refused by plugin_qemu_api.h's #error, naming the range.

    check_plugin_api_headers.py ARGS_FILE REPO --newer-plugin RUNNER CONFIG GUEST

--newer-plugin: a plugin built for the API after the build's QEMU's
(ci/install/qemu-probe-plugin.c against the derived header) is refused by QEMU
itself: the runner exits 5, its last line quoting QEMU's "plugin requires
API version N" (docs/RIG.md, "Which QEMU").

Prints one line per header and exits 1 on any failure.
"""
import concurrent.futures
import os
import re
import subprocess
import sys
import tempfile

VERSION = re.compile(r'^#define QEMU_PLUGIN_VERSION (\d+)', re.M)
HEADER = 'qemu-plugin.h'

# The declarations QEMU's plugin API changed between versions 5 and 7, as
# its header's "Versioning plugins" comment lists them (version 6:
# "changed return value of qemu_plugin_{read,write}_register from int to
# bool"; version 7: "add userdata to all plugin callbacks"), written here
# without parameter names: NAME -> {first version: declaration, or None
# when the version removed it}. is_readonly in qemu_plugin_reg_descriptor
# came with API 7's header without a line in that comment; it is here
# because a double that fills the struct must follow it too.
_VCPU_CB = {5: 'void {n}(qemu_plugin_id_t, qemu_plugin_vcpu_simple_cb_t);',
            7: 'void {n}(qemu_plugin_id_t, qemu_plugin_vcpu_udata_cb_t, void *);'}
_DONE_CB = {5: 'void {n}(qemu_plugin_id_t, qemu_plugin_simple_cb_t);',
            7: 'void {n}(qemu_plugin_id_t, qemu_plugin_udata_cb_t, void *);'}
_REGISTER = {5: 'int {n}(struct qemu_plugin_register *, GByteArray *);',
             6: 'bool {n}(struct qemu_plugin_register *, GByteArray *);'}
SIGNATURES = {
    'qemu_plugin_simple_cb_t': {5: 'typedef void (*{n})(qemu_plugin_id_t);', 7: None},
    'qemu_plugin_udata_cb_t': {5: 'typedef void (*{n})(qemu_plugin_id_t, void *);',
                               7: 'typedef void (*{n})(void *);'},
    'qemu_plugin_vcpu_simple_cb_t': {5: 'typedef void (*{n})(qemu_plugin_id_t, unsigned int);',
                                     7: 'typedef void (*{n})(unsigned int);'},
    'qemu_plugin_uninstall': _DONE_CB,
    'qemu_plugin_reset': _DONE_CB,
    'qemu_plugin_register_vcpu_init_cb': _VCPU_CB,
    'qemu_plugin_register_vcpu_exit_cb': _VCPU_CB,
    'qemu_plugin_register_vcpu_idle_cb': _VCPU_CB,
    'qemu_plugin_register_vcpu_resume_cb': _VCPU_CB,
    'qemu_plugin_vcpu_for_each': {5: 'void {n}(qemu_plugin_id_t, qemu_plugin_vcpu_simple_cb_t);',
                                  7: 'void {n}(qemu_plugin_id_t, qemu_plugin_vcpu_udata_cb_t, void *);'},
    'qemu_plugin_register_flush_cb': _DONE_CB,
    'qemu_plugin_read_register': _REGISTER,
    'qemu_plugin_write_register': _REGISTER,
    'qemu_plugin_reg_descriptor': {
        5: 'typedef struct { struct qemu_plugin_register *handle; const char *name; '
           'const char *feature; } {n};',
        7: 'typedef struct { struct qemu_plugin_register *handle; const char *name; '
           'const char *feature; bool is_readonly; } {n};'},
}


def declaration(name, version):
    """NAME's declaration in API VERSION (None: the version has none)."""
    table = SIGNATURES[name]
    text = table[max(v for v in table if v <= version)]
    return None if text is None else text.replace('{n}', name)


def find(name, text):
    """The (start, end) spans of NAME's declarations in header TEXT."""
    n = re.escape(name)
    pattern = (rf'typedef\s+struct\s*\{{[^}}]*\}}\s*{n}\s*;' if name.endswith('_descriptor') else
               rf'typedef\s+void\s*\(\s*\*\s*{n}\s*\)\s*\([^;]*\)\s*;' if name.endswith('_t') else
               rf'(?m)^\w+[ \t]+{n}\s*\([^;]*\)\s*;')
    return [m.span() for m in re.finditer(pattern, text)]


def normal(decl):
    """DECL without comments, parameter names or layout, for comparing."""
    decl = re.sub(r'/\*.*?\*/', ' ', decl, flags=re.S)
    if decl.lstrip().startswith('typedef struct'):
        return ' '.join(re.findall(r'\w+|[*{};]', decl))
    head, params = decl.split('(', 1) if '(*' not in decl else decl.rsplit('(', 1)
    kept = []
    for p in params.rsplit(')', 1)[0].split(','):
        tokens = re.findall(r'\w+|\*', p)
        if len(tokens) > 1 and re.match(r'\w', tokens[-1]) and tokens[-1] not in ('int', 'char'):
            tokens = tokens[:-1]
        kept.append(' '.join(tokens))
    return ' '.join(re.findall(r'\w+|[*()]', head)) + ' (' + ', '.join(kept) + ')'


def derive(text, version):
    """Header TEXT (of the version it declares) turned into one of VERSION."""
    base = int(VERSION.search(text).group(1))
    for name in SIGNATURES:
        spans, have, want = find(name, text), declaration(name, base), declaration(name, version)
        if len(spans) != (1 if have else 0):
            raise ValueError(f'the API {base} header declares {name} {len(spans)} times, '
                             f'expected {1 if have else 0}: SIGNATURES no longer matches QEMU')
        if spans:
            a, b = spans[0]
            text = text[:a] + (want or '') + text[b:]
        elif want:
            anchor = re.search(r'typedef\s+uint64_t\s+qemu_plugin_id_t\s*;', text).end()
            text = text[:anchor] + '\n' + want + text[anchor:]
    return VERSION.sub(f'#define QEMU_PLUGIN_VERSION {version}', text)


def table_mismatches(text):
    """Where header TEXT (a real QEMU header) disagrees with SIGNATURES."""
    version = int(VERSION.search(text).group(1))
    out = []
    for name in SIGNATURES:
        spans, want = find(name, text), declaration(name, version)
        got = [normal(text[a:b]) for a, b in spans]
        if got != ([normal(want)] if want else []):
            out.append(f'{name}: header {got or "none"}, SIGNATURES {normal(want) if want else "none"}')
    return out


def read_args(path):
    targets = []
    for line in open(path, encoding='utf-8').read().split('\n'):
        key, _, value = line.partition(' ')
        if key == 'target':
            targets.append({'name': value, 'include': [], 'define': [], 'source': []})
        elif key in ('include', 'define', 'source') and value:
            targets[-1][key].append(value)
        elif key in ('base', 'header'):
            targets[-1][key] = value
    return targets


def includes_header(path, dirs, memo):
    """Whether PATH includes QEMU's header, directly or through the
    project's own headers (found beside it or in DIRS)."""
    if path in memo:
        return memo[path]
    memo[path] = False
    try:
        text = open(path, encoding='utf-8', errors='replace').read()
    except OSError:
        return False
    for inc in re.findall(r'^\s*#\s*include\s*[<"]([^>"]+)[>"]', text, re.M):
        if os.path.basename(inc) == HEADER:
            memo[path] = True
            break
        for d in [os.path.dirname(path)] + dirs:
            cand = os.path.join(d, inc)
            if os.path.isfile(cand) and includes_header(os.path.realpath(cand), dirs, memo):
                memo[path] = True
                break
        if memo[path]:
            break
    return memo[path]


def units(targets, repo):
    """(source, include folders, defines) to compile: the plugin's sources,
    each target's sources that include the header, ci/bench/block_census.c,
    ci/bench/store_floor.c, ci/install/qemu-probe-plugin.c;
    and the sources under tests/ and ci/ that include it but are in none."""
    qemu_dirs = {t['header'] and os.path.dirname(t['header']) for t in targets}
    memo, out, seen = {}, [], set()
    project_dirs = sorted({d for t in targets for d in t['include']
                           if os.path.realpath(d).startswith(os.path.realpath(repo) + os.sep)})
    for i, t in enumerate(targets):
        inc = [d for d in t['include'] if d not in qemu_dirs]
        for s in t['source']:
            s = os.path.realpath(s if os.path.isabs(s) else os.path.join(t['base'], s))
            if s in seen or not s.endswith(('.c', '.cc')):
                continue
            if i == 0 or includes_header(s, project_dirs, memo):
                seen.add(s)
                out.append((s, inc, t['define']))
        if i == 0:  # the plugin's API unit, which the object library leaves out
            api = os.path.realpath(os.path.join(repo, 'rig', 'plugin', 'plugin_qemu_api.c'))
            seen.add(api)
            out.append((api, inc, t['define']))
    # The plugins ci/ builds on its own: the benchmark's block census and
    # store floor, and the probe, kept last (--newer-plugin builds it).
    for rel in (('ci', 'bench', 'block_census.c'), ('ci', 'bench', 'store_floor.c'),
                ('ci', 'install', 'qemu-probe-plugin.c')):
        own = os.path.realpath(os.path.join(repo, *rel))
        out.append((own, [d for d in targets[0]['include'] if d not in qemu_dirs], []))
        seen.add(own)
    missed = []
    for top in ('tests', 'ci'):
        for root, _, files in os.walk(os.path.join(repo, top)):
            for f in files:
                p = os.path.realpath(os.path.join(root, f))
                if (f.endswith(('.c', '.cc')) and p not in seen
                        and includes_header(p, project_dirs, memo)):
                    missed.append(os.path.relpath(p, repo))
    return out, sorted(missed)


def compile_one(unit, folder):
    src, inc, defs = unit
    cxx = src.endswith('.cc')
    cmd = (['c++', '-std=c++17'] if cxx else ['cc', '-std=c11']) + [
        '-fsyntax-only', '-Wall', '-Wextra', '-Werror', '-I', folder]
    for d in inc:
        cmd += ['-I', d]
    cmd += ['-D' + d for d in defs]
    r = subprocess.run(cmd + [src], capture_output=True, text=True)
    return None if r.returncode == 0 else f'{src}:\n{r.stderr.strip()}'


def compile_all(header_text, todo, scratch):
    """Failures compiling every unit of TODO against HEADER_TEXT."""
    folder = tempfile.mkdtemp(dir=scratch)
    with open(os.path.join(folder, HEADER), 'w', encoding='utf-8') as f:
        f.write(header_text)
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        return [r for r in pool.map(lambda u: compile_one(u, folder), todo) if r]


def named_headers():
    found = []
    for item in filter(None, os.environ.get('JITFLUSH_QEMU_PLUGIN_HEADERS', '').split(':')):
        if os.path.isfile(item):
            found.append(item)
            continue
        for sub in ('', 'include', 'include/plugins', 'include/qemu'):
            path = os.path.join(item, sub, HEADER)
            if os.path.isfile(path):
                found.append(path)
                break
        else:
            sys.exit(f'JITFLUSH_QEMU_PLUGIN_HEADERS: no {HEADER} in {item}')
    return found


def main():
    args_file, repo, mode = sys.argv[1], sys.argv[2], sys.argv[3]
    targets = read_args(args_file)
    build_header = targets[0]['header']
    build_text = open(build_header, encoding='utf-8').read()
    build_api = int(VERSION.search(build_text).group(1))
    todo, missed = units(targets, repo)
    tests = sum(1 for s, _, _ in todo if os.sep + 'tests' + os.sep in s)
    what = (f'{len(todo) - tests - 3} plugin sources, {tests} test sources, ci/bench/block_census.c, '
            'ci/bench/store_floor.c, ci/install/qemu-probe-plugin.c')
    bad = 0
    if missed:
        print('FAIL these sources include qemu-plugin.h but no target of the check compiles them '
              '(add their target in tests/emu/CMakeLists.txt): ' + ', '.join(missed))
        bad += 1

    with tempfile.TemporaryDirectory() as scratch:
        if mode == '--out-of-range':
            api = open(os.path.join(repo, 'rig', 'plugin', 'plugin_qemu_api.h'), encoding='utf-8').read()
            lo = int(re.search(r'#define PLUGIN_QEMU_API_MIN (\d+)', api).group(1))
            hi = int(re.search(r'#define PLUGIN_QEMU_API_MAX (\d+)', api).group(1))
            first = [u for u in todo if u[0].endswith(os.sep + 'plugin_qemu_api.c')][:1] or todo[:1]
            for version in (lo - 1, hi + 1):
                text = VERSION.sub(f'#define QEMU_PLUGIN_VERSION {version}', build_text)
                out = '\n'.join(compile_all(text, first, scratch))
                refused = f'supports QEMU plugin API {lo} to {hi}' in out
                print(f'{"ok  " if refused else "FAIL"} API {version}: refused by plugin_qemu_api.h')
                if not refused:
                    print(out or 'it compiled')
                    bad += 1
            sys.exit(1 if bad else 0)

        if mode == '--newer-plugin':
            runner, config, guest = sys.argv[4:7]
            newer = build_api + 1
            text = (derive(build_text, newer) if newer <= max(v for t in SIGNATURES.values() for v in t)
                    else VERSION.sub(f'#define QEMU_PLUGIN_VERSION {newer}', build_text))
            folder = tempfile.mkdtemp(dir=scratch)
            with open(os.path.join(folder, HEADER), 'w', encoding='utf-8') as f:
                f.write(text)
            plugin = os.path.join(folder, 'newer-plugin.so')
            src, inc, _ = todo[-1]  # ci/install/qemu-probe-plugin.c
            cmd = ['cc', '-shared', '-fPIC', '-I', folder] + [a for d in inc for a in ('-I', d)]
            subprocess.run(cmd + ['-o', plugin, src], check=True)
            r = subprocess.run([runner, '--config', config, '--', guest, 'exit', '42'],
                               env=dict(os.environ, JITFLUSH_PLUGIN=plugin),
                               capture_output=True, text=True)
            last = r.stderr.strip().split('\n')[-1]
            ok = (r.returncode == 5 and 'the plugin wrote no usable summary' in last
                  and f'plugin requires API version {newer}' in last)
            print(f'{"ok  " if ok else "FAIL"} a plugin built for API {newer}, run with the build\'s '
                  f'API {build_api} QEMU: status {r.returncode}, last line: {last}')
            sys.exit(0 if ok else 1)

        version = int(mode)
        headers = []
        if version == build_api:
            headers.append((build_text, f"the build's own header {build_header}"))
        else:
            try:
                headers.append((derive(build_text, version),
                                f"a header derived from the build's API {build_api} header {build_header} "
                                f"by the signature changes QEMU lists (not a real QEMU {version} header; "
                                f"name one in JITFLUSH_QEMU_PLUGIN_HEADERS)"))
            except ValueError as e:
                print(f'FAIL API {version}: cannot derive it: {e}')
                bad += 1
        for h in named_headers():
            text = open(h, encoding='utf-8').read()
            m = VERSION.search(text)
            if not m or int(m.group(1)) != version:
                continue
            mismatches = table_mismatches(text)
            print(f'{"ok  " if not mismatches else "FAIL"} API {version}: {h} declares the '
                  f'{len(SIGNATURES)} changed declarations as the derivation writes them')
            for line in mismatches:
                print('    ' + line)
            bad += bool(mismatches)
            headers.append((text, f'{h} (JITFLUSH_QEMU_PLUGIN_HEADERS)'))
        for text, origin in headers:
            failures = compile_all(text, todo, scratch)
            print(f'{"ok  " if not failures else "FAIL"} API {version}: {what} against {origin}')
            for f in failures:
                print(f)
            bad += bool(failures)
    sys.exit(1 if bad else 0)


if __name__ == '__main__':
    main()
