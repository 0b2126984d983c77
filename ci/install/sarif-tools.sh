#!/usr/bin/env bash
# The SARIF consumers the test suite reads the rig's --sarif output back
# with, cached under .cache/sarif/ (a second run does nothing):
#
#   venv/bin/sarif    sarif-tools (PyPI), a real SARIF reader
#   sarif-2.1.0.json  the SARIF 2.1.0 JSON Schema, as shipped inside
#                     Microsoft's SARIF multitool package for Linux (npm)
#
# Prints nothing when both are there. Exit status: 0 ready, 3 a download
# failed (the message names which).
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
cache=$repo/.cache/sarif
tools_version=3.0.5
multitool_version=5.7.0

mkdir -p "$cache"
# The real folder: a venv's scripts name their interpreter by the path the
# venv was made at, so one made through a symlinked .cache/ (a clone that
# shares another's cache) would break when that clone goes. A venv that
# does not run (moved, or made through such a path) is made again.
cache=$(cd "$cache" && pwd -P)
if ! "$cache/venv/bin/sarif" --version >/dev/null 2>&1; then
  echo "ci/install/sarif-tools.sh: sarif-tools $tools_version into .cache/sarif/venv (once, about 20 s)" >&2
  rm -rf "$cache/venv"
  /usr/bin/python3 -m venv "$cache/venv"
  if ! "$cache/venv/bin/pip" install -q "sarif-tools==$tools_version" >"$cache/pip.log" 2>&1; then
    echo "ci/install/sarif-tools.sh: pip could not install sarif-tools $tools_version (see $cache/pip.log)" >&2
    rm -rf "$cache/venv"
    exit 3
  fi
fi
if [ ! -s "$cache/sarif-2.1.0.json" ]; then
  echo "ci/install/sarif-tools.sh: the SARIF 2.1.0 schema from @microsoft/sarif-multitool-linux $multitool_version (once, a 44 MB package)" >&2
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  if ! (cd "$tmp" && npm pack --silent "@microsoft/sarif-multitool-linux@$multitool_version" >/dev/null 2>"$tmp/npm.log"); then
    echo "ci/install/sarif-tools.sh: npm pack @microsoft/sarif-multitool-linux@$multitool_version failed:" >&2
    tail -n 5 "$tmp/npm.log" >&2
    exit 3
  fi
  tar -xzf "$tmp"/*.tgz -C "$tmp" package/sarif-2.1.0.json
  mv "$tmp/package/sarif-2.1.0.json" "$cache/sarif-2.1.0.json"
fi
