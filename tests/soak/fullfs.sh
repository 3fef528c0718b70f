#!/bin/sh
# Full filesystem: the daemon's database on a 2 MiB tmpfs of its own, filled
# by captures until capture.end answers 1007; then reads must still work,
# nothing partial may be listed, and ends must succeed again once room is
# made (tests/reliability/rel_fullfs.c).
#
#   tests/soak/fullfs.sh [SIZE]            default 2m (a tmpfs size= value)
#
# Needs root and permission to mount (not the case in most containers):
# without them it prints why and exits 77 (skipped).
# Environment: BUILD (build directory, default build).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${BUILD:-$root/build}
bin=$build/tests/rel_fullfs
size=${1:-2m}
if [ ! -x "$bin" ]; then
    echo "fullfs.sh: $bin is missing; build it first: cmake --build $build --target rel_fullfs" >&2
    exit 2
fi
if [ "$(id -u)" -ne 0 ]; then
    echo "fullfs.sh: SKIPPED: mounting a small filesystem needs root"
    exit 77
fi
mnt=$(mktemp -d /tmp/sc-fullfs-XXXXXX)
if ! err=$(mount -t tmpfs -o "size=$size,mode=0700" streamcap-fullfs "$mnt" 2>&1); then
    rmdir "$mnt"
    echo "fullfs.sh: SKIPPED: cannot mount a $size tmpfs on this machine: $err"
    exit 77
fi
trap 'umount "$mnt" && rmdir "$mnt"' EXIT
echo "fullfs.sh: database on a $size tmpfs at $mnt"
"$bin" "$mnt"
