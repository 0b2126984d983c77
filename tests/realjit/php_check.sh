#!/usr/bin/env bash
# PHP 8.2's opcache tracing JIT as Debian 12 ships it (php8.2-cli and
# php8.2-opcache, arm64, unpacked into a cached sysroot by fetch_debs.sh)
# under the rig, through rig_check.sh:
#
#   php_check.sh CACHE RIG_CHECK_OPTIONS...
#
# Two settings decide whether there is any JIT code for the rig to check;
# without either, the run is clean with fetch_checks=0 (only the JIT's
# entry stubs are flushed, and never run):
# - opcache.jit_buffer_size: its default in PHP 8.2 is 0, which turns the
#   JIT off (opcache_get_status()["jit"]["enabled"] is false);
# - opcache.file_update_protection=0: by default opcache does not cache a
#   script modified less than 2 seconds ago, and a script it does not cache
#   is interpreted, never compiled (a test that writes its script and runs
#   it at once hits this).
# The buffer is the
# last 16 MiB of opcache's shared memory (one MAP_SHARED | MAP_ANONYMOUS
# mapping), flipped between RW and RX with mprotect; opcache.so flushes it
# with a static copy of libgcc's __aarch64_sync_cache_range
# (docs/BACKGROUND.md#src-php). php_loop.php prints "sum 1200200".
#
# Exit status: rig_check.sh's, 1 when the sysroot cannot be made.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
[ $# -ge 2 ] || { echo "usage: php_check.sh CACHE RIG_CHECK_OPTIONS..." >&2; exit 2; }
cache=$1
shift
root=$("$here/fetch_debs.sh" "$cache" php php8.2-cli php8.2-opcache) || exit 1
opcache=$(ls "$root"/usr/lib/php/*/opcache.so | head -n 1)
[ -x "$root/usr/bin/php8.2" ] && [ -f "$opcache" ] ||
  { echo "php_check.sh: no php8.2 or opcache.so in $root" >&2; exit 1; }
exec "$here/rig_check.sh" "$@" --rig-arg "--sysroot=$root" -- \
  "$root/usr/bin/php8.2" -n -d "zend_extension=$opcache" -d opcache.enable_cli=1 \
  -d opcache.jit=tracing -d opcache.jit_buffer_size=16M -d opcache.file_update_protection=0 \
  "$here/php_loop.php"
