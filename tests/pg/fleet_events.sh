#!/bin/sh
# tests/pg/fleet_events.sh BINDIR: two streamcapd (hosts alpha and beta)
# on one PostgreSQL database (run under tests/pg/cluster.sh): a log
# subscriber on alpha hears beta's graph_stored, with beta's host, through
# the server's LISTEN/NOTIFY, and alpha's own events once each.
set -eu
bin=$1
[ -n "${STREAMCAP_TEST_PG:-}" ] || { echo "fleet_events.sh: skipped: run under tests/pg/cluster.sh" >&2; exit 77; }
command -v socat >/dev/null 2>&1 || { echo "fleet_events.sh: skipped: no socat" >&2; exit 77; }
work=$(mktemp -d)
pids=""
cleanup() {
    for p in $pids; do kill -9 "$p" 2>/dev/null || true; done
    rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "fleet_events.sh: FAIL: $*" >&2; for f in "$work"/*.log "$work"/events; do echo "== $f" >&2; tail -n 20 "$f" >&2; done; exit 1; }

start() { # start NAME: a daemon for host NAME on $work/NAME.sock
    "$bin/streamcapd" --socket "$work/$1.sock" --db "$STREAMCAP_TEST_PG" --host-name "$1" \
        >>"$work/$1.log" 2>&1 &
    pids="$pids $!"
    i=0
    until "$bin/streamcap" --socket "$work/$1.sock" ping >/dev/null 2>&1; do
        i=$((i + 1))
        [ "$i" -lt 100 ] || fail "streamcapd $1 did not start"
        sleep 0.1
    done
}
start alpha
start beta
# The subscriber: its request, then it reads for as long as it lives.
(printf '%s\n' '{"jsonrpc":"2.0","id":1,"method":"log.subscribe"}'; sleep 10) |
    socat -t 10 - "UNIX-CONNECT:$work/alpha.sock" >"$work/events" 2>>"$work/socat.log" &
pids="$pids $!"
i=0
until grep -q '"id":1' "$work/events" 2>/dev/null; do
    i=$((i + 1)); [ "$i" -lt 100 ] || fail "no reply to log.subscribe"; sleep 0.1
done
gb=$("$bin/streamcap" --socket "$work/beta.sock" --json demo | jq -r .graph)
ga=$("$bin/streamcap" --socket "$work/alpha.sock" --json demo | jq -r .graph)
[ -n "$gb" ] && [ "$gb" != null ] || fail "beta stored no graph"
want() { # want GRAPH HOST: one graph_stored of GRAPH from HOST arrives
    i=0
    until [ "$(jq -c "select(.params.event == \"graph_stored\" and .params.graph == $1)" "$work/events" | wc -l)" -ge 1 ]; do
        i=$((i + 1)); [ "$i" -lt 100 ] || fail "no graph_stored of graph $1"; sleep 0.1
    done
    n=$(jq -c "select(.params.event == \"graph_stored\" and .params.graph == $1 and .params.host == \"$2\")" "$work/events" | wc -l)
    [ "$n" -eq 1 ] || fail "graph $1: $n graph_stored events from $2, want 1"
}
want "$gb" beta
want "$ga" alpha
echo "fleet_events.sh: ok"
