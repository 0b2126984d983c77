#!/usr/bin/env bash
# Installs actionlint (the GitHub Actions workflow checker) from the Go
# module proxy into .cache/actionlint/bin, once, and prints its path as the
# last line on stdout. The test command checks every workflow and action
# file of the repository with it (tests/consumers, consumers.actionlint).
#
# Go: $GO, else go in PATH, else /usr/local/go/bin/go. Exit status: 0, 1 the
# install failed, 3 no Go toolchain.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
version=v1.7.7
dir="$root/.cache/actionlint"
bin="$dir/bin/actionlint"
if [ -x "$bin" ] && "$bin" -version 2>/dev/null | grep -qx "$version"; then
  echo "$bin"
  exit 0
fi
go=${GO:-$(command -v go || echo /usr/local/go/bin/go)}
[ -x "$go" ] || { echo "ci/install/actionlint.sh: no Go toolchain (set GO=/path/to/go)" >&2; exit 3; }
mkdir -p "$dir"
# A module cache of its own, writable so that .cache can be removed.
GOPATH="$dir/go" GOBIN="$dir/bin" GOFLAGS=-modcacherw GOTOOLCHAIN=local \
  "$go" install "github.com/rhysd/actionlint/cmd/actionlint@$version" >&2 ||
  { echo "ci/install/actionlint.sh: go install of actionlint $version failed" >&2; exit 1; }
echo "$bin"
