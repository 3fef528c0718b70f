#!/bin/sh
# tests/pg/fingerprints.sh BINDIR PROGRAM...: the same programs run under
# the CUDA runtime stand-in against a SQLite daemon and a PostgreSQL one
# (run under tests/pg/cluster.sh) store graphs with the same fingerprints.
# The check is the one a user's CI makes: the baseline written from the
# SQLite run must pass against the PostgreSQL run (and graph.list's
# fingerprints of both daemons agree graph by graph).
set -eu
bin=$1
shift
[ -n "${STREAMCAP_TEST_PG:-}" ] || { echo "fingerprints.sh: skipped: run under tests/pg/cluster.sh" >&2; exit 77; }
command -v jq >/dev/null 2>&1 || { echo "fingerprints.sh: skipped: no jq" >&2; exit 77; }
work=$(mktemp -d)
pids=""
cleanup() {
    for p in $pids; do kill "$p" 2>/dev/null || true; done
    rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "fingerprints.sh: FAIL: $*" >&2; tail -n 20 "$work"/*.log >&2; exit 1; }

start() { # start NAME DB: a daemon on $work/NAME.sock
    "$bin/streamcapd" --socket "$work/$1.sock" --db "$2" >>"$work/$1.log" 2>&1 &
    pids="$pids $!"
    i=0
    until "$bin/streamcap" --socket "$work/$1.sock" ping >/dev/null 2>&1; do
        i=$((i + 1))
        [ "$i" -lt 100 ] || fail "streamcapd $1 did not start"
        sleep 0.1
    done
}
start lite "$work/lite.db"
start pg "$STREAMCAP_TEST_PG"
[ $# -gt 0 ] || fail "no programs given"
for prog in "$@"; do
    name=$(basename "$prog")
    base="$work/$name.baseline.json"
    env -u STREAMCAP_LABEL "$bin/streamcap" --socket "$work/lite.sock" run --baseline "$base" \
        -- "$prog" >>"$work/run.log" 2>&1 || fail "$name against SQLite"
    [ "$(jq '.graphs | length' "$base")" -gt 0 ] || fail "$name stored no graph"
    env -u STREAMCAP_LABEL "$bin/streamcap" --socket "$work/pg.sock" run --baseline "$base" \
        -- "$prog" >>"$work/run.log" 2>&1 || fail "$name: the PostgreSQL run differs from the SQLite one"
done
list() { # list NAME: every stored graph's fingerprints, in id order
    "$bin/streamcap" --socket "$work/$1.sock" call graph.list '{"limit":1000}' |
        jq -c '[.graphs | sort_by(.graph)[] | .fingerprint]'
}
list lite >"$work/lite.fp"
list pg >"$work/pg.fp"
[ "$(jq length "$work/lite.fp")" -gt "$#" ] || fail "fewer graphs than programs: $(cat "$work/lite.fp")"
cmp -s "$work/lite.fp" "$work/pg.fp" || fail "graph.list fingerprints differ: $(cat "$work/lite.fp") vs $(cat "$work/pg.fp")"
echo "fingerprints.sh: ok: $# programs, $(jq length "$work/lite.fp") graphs"
