#!/usr/bin/env bash
# Adds the Debian suites jitflush needs beside the machine's own bookworm
# list: bookworm-backports (meson >= 1.5 for QEMU) and source-only entries of
# the newer suites (QEMU >= 10.1's source package). The mirror is taken from
# the machine's existing sources so that no host name is written here.
# Idempotent: rewrites one file of its own and runs apt-get update once.
set -euo pipefail

main_list=/etc/apt/sources.list.d/debian.sources
ours=/etc/apt/sources.list.d/jitflush.sources

mirror=""
if [ -r "$main_list" ]; then
  mirror=$(awk '/^URIs:/ && $2 !~ /security/ {print $2; exit}' "$main_list")
fi
if [ -z "$mirror" ] && [ -r /etc/apt/sources.list ]; then
  mirror=$(awk '$1=="deb" && $2 !~ /security/ {print $2; exit}' /etc/apt/sources.list)
fi
if [ -z "$mirror" ]; then
  echo "ci/install/apt-sources.sh: cannot find the Debian mirror in $main_list or /etc/apt/sources.list" >&2
  exit 3
fi
keyring=/usr/share/keyrings/debian-archive-keyring.gpg

want=$(cat <<SRC
Types: deb deb-src
URIs: $mirror
Suites: bookworm-backports
Components: main
Signed-By: $keyring

Types: deb-src
URIs: $mirror
Suites: trixie sid
Components: main
Signed-By: $keyring
SRC
)

stamp=/var/lib/apt/lists/.jitflush-updated
if [ ! -f "$ours" ] || [ "$(cat "$ours")" != "$want" ] || [ ! -f "$stamp" ]; then
  printf '%s\n' "$want" > "$ours"
  apt-get update -qq
  touch "$stamp"
fi
