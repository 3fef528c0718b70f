#!/bin/sh
# tests/client/access_cu.sh BIN_DIR PROG | --skip WHY
# access.cu built by nvcc -cudart shared, run on the stand-in under
# `streamcap run` against a streamcapd of its own: each launch of
# relu(const float *in, float *out, int n) is stored reading all of `in`
# and reading and writing all of `out` (the database's accesses view);
# launched on two unordered streams they race on `out`, which --fail-on
# races fails on, and with an event between them they do not.  Exit 77,
# saying why, with --skip.
set -eu
if [ "$1" = --skip ]; then
    echo "access_cu.sh: skipped: $2"
    exit 77
fi
bin=$1
prog=$2
name=access_cu.sh
. "$(dirname "$0")/cu_daemon.sh"

st=0
sc run --fail-on races "$prog" race 2>"$work/err" || st=$?
[ "$st" = 98 ] || fail "--fail-on races exited $st on two unordered writers, want 98"
grep -q "failing on races: 1 race in 1 graph" "$work/err" || fail "no race named"
rows=$(sqlite3 "$work/db" "SELECT node || ' ' || mode || ' ' || size FROM accesses
                           WHERE graph = 1 ORDER BY node, mode" | tr '\n' ',')
want="0 read 1024,0 read_write 1024,1 read 1024,1 read_write 1024,"
[ "$rows" = "$want" ] || fail "graph 1 accesses: $rows, want $want"
sc graph races 1 >"$work/races" || true
grep -q "reads and writes 0x[0-9a-f]*+1024 while kernel relu(float const\*, float\*, int)" \
    "$work/races" || fail "graph races: $(cat "$work/races")"
echo "access_cu.sh: in read, out read_write, one race on out"

sc run --fail-on races "$prog" ordered 2>"$work/err" || fail "an event between them: still failing"
sc graph races 2 >"$work/races" || fail "graph races 2: $(cat "$work/races")"
grep -q "graph 2: no races" "$work/races" || fail "graph races 2: $(cat "$work/races")"
echo "access_cu.sh: an event between them: no race"
echo "1 passed, 0 failed"
