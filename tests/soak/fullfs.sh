#!/bin/sh
# Full filesystem: the daemon's database on a 3 MiB tmpfs of its own, filled
# by captures until capture.end answers 1007; then reads must still work,
# nothing partial may be listed, and ends must succeed again once room is
# made (tests/reliability/rel_fullfs.c); then, on a 4 MiB tmpfs filled to
# the last byte, graph.delete must succeed where a store fails, and a store
# must succeed after it; then a session open at SIGTERM on a full 4 MiB
# tmpfs must end `shutdown`, not `lost`, after a restart (the stop writes
# its row on the reserve's room); then, on 8 MiB tmpfs, the cases of a disk
# without the reserve and of a restart after kill -9 on a full disk (see
# the run_on lines below).  `make test` runs this as test_rel_fullfs.
#
#   tests/soak/fullfs.sh [SIZE]            default 3m (a tmpfs size= value)
#
# Needs root and permission to mount (not the case in most containers):
# without them it prints why and exits 77 (skipped).
# Environment: BUILD (build directory, default build).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${BUILD:-$root/build}
bin=$build/tests/rel_fullfs
size=${1:-3m}
if [ ! -x "$bin" ]; then
    echo "fullfs.sh: $bin is missing; build it first: cmake --build $build --target rel_fullfs" >&2
    exit 2
fi
if [ "$(id -u)" -ne 0 ]; then
    echo "fullfs.sh: SKIPPED: mounting a small filesystem needs root"
    exit 77
fi
# run_on SIZE [ARGS]: rel_fullfs on a fresh tmpfs of SIZE, removed afterwards.
run_on() {
    sz=$1
    shift
    mnt=$(mktemp -d /tmp/sc-fullfs-XXXXXX)
    if ! err=$(mount -t tmpfs -o "size=$sz,mode=0700" streamcap-fullfs "$mnt" 2>&1); then
        rmdir "$mnt"
        echo "fullfs.sh: SKIPPED: cannot mount a $sz tmpfs on this machine: $err"
        exit 77
    fi
    echo "fullfs.sh: database on a $sz tmpfs at $mnt $*"
    rc=0
    "$bin" "$mnt" "$@" || rc=$?
    umount "$mnt" && rmdir "$mnt"
    return $rc
}
run_on "$size"
# graph.delete on a full disk: 4 MiB leave room for the daemon's 1 MiB
# reserve before a filler file takes the rest.
run_on 4m delete
# SIGTERM on a full disk: the session's last row still ends `shutdown`.
run_on 4m stop
# The same without a reserve (under 1.25 MiB free at start), with a session
# its client closed while the disk refused its row: `closed` and `shutdown`.
run_on 8m closed
# No reserve at start: a warning, and graph.delete still works on the full disk.
run_on 8m noreserve
# kill -9 on a full disk, restart on it still full: reads and deletes are
# served, and the crashed sessions read `lost` once space is back.
run_on 8m crash
# A delete of a graph twice the reserve's size on a full disk.
run_on 8m bigdelete
# A clean stop, then a start on the disk filled meanwhile: reads and a delete.
run_on 8m cleanstop
