#!/usr/bin/env python3
"""Every plugin source compiles, with no warning, against every QEMU plugin
API header this machine has (docs/RIG.md, "Which QEMU").

    check_plugin_api_headers.py ARGS_FILE SRC_EMU_DIR HEADER [HEADER...]

ARGS_FILE (written by tests/emu/CMakeLists.txt) holds the plugin's include
folders, one per line, then a line "--", then its sources. Each HEADER is a
qemu-plugin.h: the one the build uses, and those named in the environment
variable JITFLUSH_QEMU_PLUGIN_HEADERS (colon-separated files, or folders
holding qemu-plugin.h, include/plugins/ or include/qemu/), which is how a
developer checks the API versions CI cannot fetch (QEMU 11's headers).

Each header is compiled against in a folder of its own, in place of the
build's, with -Wall -Wextra -Werror and -fsyntax-only. Then headers whose
version lies outside the supported range (the first header with its
version set to MIN-1 and MAX+1) must be refused by qemu_api.h's #error,
naming the supported range.

Prints one line per header and exits 1 on any failure.
"""
import os
import re
import subprocess
import sys
import tempfile

VERSION = re.compile(r'^#define QEMU_PLUGIN_VERSION (\d+)', re.M)


def headers_from_env():
    found = []
    for item in filter(None, os.environ.get('JITFLUSH_QEMU_PLUGIN_HEADERS', '').split(':')):
        if os.path.isfile(item):
            found.append(item)
            continue
        for sub in ('', 'include', 'include/plugins', 'include/qemu'):
            path = os.path.join(item, sub, 'qemu-plugin.h')
            if os.path.isfile(path):
                found.append(path)
                break
        else:
            sys.exit(f'JITFLUSH_QEMU_PLUGIN_HEADERS: no qemu-plugin.h in {item}')
    return found


def compile_all(header_text, includes, sources, scratch):
    """(ok, output) of compiling every source against HEADER_TEXT;
    INCLUDES is (project folders, library folders)."""
    folder = tempfile.mkdtemp(dir=scratch)
    with open(os.path.join(folder, 'qemu-plugin.h'), 'w', encoding='utf-8') as f:
        f.write(header_text)
    flags = ['-std=c11', '-fsyntax-only', '-Wall', '-Wextra', '-Werror', '-I', folder]
    for inc in includes[0]:
        flags += ['-I', inc]
    for inc in includes[1]:
        flags += ['-isystem', inc]
    failures = []
    for src in sources:
        r = subprocess.run(['cc'] + flags + [src], capture_output=True, text=True)
        if r.returncode != 0:
            failures.append(f'{os.path.basename(src)}:\n{r.stderr.strip()}')
    return not failures, '\n'.join(failures)


def main():
    args_file, src_dir = sys.argv[1], sys.argv[2]
    headers = sys.argv[3:] + headers_from_env()
    lines = open(args_file, encoding='utf-8').read().split('\n')
    split = lines.index('--')
    folders = [os.path.join(src_dir, d) for d in sorted(os.listdir(src_dir))
               if os.path.isdir(os.path.join(src_dir, d))]
    project = {os.path.realpath(d) for d in folders + [os.path.join(src_dir, '..')]}
    # Project folders stay -I (their warnings count); the QEMU folder of the
    # build is replaced by each header's own.
    includes = [d for d in lines[:split] if d and os.path.realpath(d) not in project
                and not os.path.isfile(os.path.join(d, 'qemu-plugin.h'))]
    sources = [s if os.path.isabs(s) else os.path.join(src_dir, s) for s in lines[split + 1:] if s]
    sources.append(os.path.join(src_dir, 'plugin', 'qemu_api.c'))
    includes = (folders + [os.path.join(src_dir, '..')], includes)
    api = open(os.path.join(src_dir, 'plugin', 'qemu_api.h'), encoding='utf-8').read()
    lo = int(re.search(r'#define JF_QEMU_API_MIN (\d+)', api).group(1))
    hi = int(re.search(r'#define JF_QEMU_API_MAX (\d+)', api).group(1))

    bad = 0
    with tempfile.TemporaryDirectory() as scratch:
        for h in headers:
            text = open(h, encoding='utf-8').read()
            m = VERSION.search(text)
            version = m.group(1) if m else '?'
            ok, out = compile_all(text, includes, sources, scratch)
            print(f'{"ok  " if ok else "FAIL"} API {version}: {len(sources)} plugin sources against {h}')
            if not ok:
                print(out)
                bad += 1
        # Outside the range: refused by name, whatever else the header holds.
        first = open(headers[0], encoding='utf-8').read()
        for version in (lo - 1, hi + 1):
            text = VERSION.sub(f'#define QEMU_PLUGIN_VERSION {version}', first)
            ok, out = compile_all(text, includes, sources[:1] + sources[-1:], scratch)
            refused = not ok and f'supports QEMU plugin API {lo} to {hi}' in out
            print(f'{"ok  " if refused else "FAIL"} API {version}: refused by qemu_api.h')
            if not refused:
                print(out or 'it compiled')
                bad += 1
    sys.exit(1 if bad else 0)


if __name__ == '__main__':
    main()
