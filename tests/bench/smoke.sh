#!/bin/sh
# Functional smoke test of streamcap-bench against a real streamcapd: a short
# load run must complete its ops with no error and store the graphs it
# ended; error replies must fail the run unless allowed; batched
# reachability must answer every pair; persist_floor must store exactly
# the rows the daemon stores for the same graph.
#
# usage: smoke.sh BIN_DIR SCHEMA_DIR
set -eu

BIN=$1
SCHEMA=$2
dir=$(mktemp -d /tmp/streamcap-bench-smoke.XXXXXX)
pid=""
cleanup() {
    [ -n "$pid" ] && kill -TERM "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
    rm -rf "$dir"
}
trap cleanup EXIT

fail() {
    echo "FAIL: $*" >&2
    exit 1
}
# check JSON JQ-EXPRESSION: the expression must hold for the summary.
check() {
    jq -e "$2" >/dev/null <<EOF2 || fail "expected $2 in: $1"
$1
EOF2
}

"$BIN/streamcapd" --socket "$dir/s.sock" --db "$dir/db" >"$dir/log" 2>&1 &
pid=$!
i=0
until grep -q listening "$dir/log"; do
    i=$((i + 1))
    [ $i -lt 400 ] || fail "streamcapd did not start: $(cat "$dir/log")"
    kill -0 "$pid" 2>/dev/null || fail "streamcapd exited: $(cat "$dir/log")"
    sleep 0.025
done
SCB="$BIN/streamcap-bench"

# 1. A short ingest run: every op answered, sessions ended and stored.
out=$("$SCB" -s "$dir/s.sock" -c 2 -P 4 -n 400 -w 0 --session-ops 60 --json) ||
    fail "ingest run exited non-zero"
check "$out" '.errors == 0 and .expected_errors == 0'
check "$out" '.ops == 400 and .ops_per_s > 0'
check "$out" '.by_kind.open.ops >= 2 and .by_kind.begin.ops >= 16'
check "$out" '.by_kind.record.ops > 200 and .by_kind.end.ops >= 4'
check "$out" '.latency_us.p50 > 0 and .latency_us.p50 <= .latency_us.p99'
check "$out" '.latency_us.p99 <= .latency_us.max'
ends=$(jq -r .by_kind.end.ops <<EOF2
$out
EOF2
)
stored=$(sqlite3 "$dir/db" "SELECT count(*) FROM graphs")
[ "$stored" = "$ends" ] || fail "$ends sessions ended but $stored graphs stored"
# The run closed the sessions it left open.
open=$(sqlite3 "$dir/db" "SELECT count(*) FROM capture_log WHERE outcome = 'open'")
[ "$open" = 0 ] || fail "$open sessions left open"

# 1b. Session lengths: fixed by --session-ops (one connection: its first,
# staggered session is one request longer), varied by --session-spread.
out=$("$SCB" -s "$dir/s.sock" -c 1 -P 4 -n 800 -w 0 --session-ops 40 --json) ||
    fail "fixed-length run exited non-zero"
check "$out" '.errors == 0 and .sessions.ended >= 12'
check "$out" '.sessions.min_requests == 40 and .sessions.max_requests == 41'
out=$("$SCB" -s "$dir/s.sock" -c 1 -P 4 -n 800 -w 0 --session-ops 40 --session-spread 50 --json) ||
    fail "spread run exited non-zero"
check "$out" '.errors == 0 and .sessions.ended >= 8'
check "$out" '.sessions.min_requests >= 20 and .sessions.max_requests <= 60'
check "$out" '.sessions.max_requests - .sessions.min_requests > 4'

# 2. An error reply nobody expected makes the run fail.
if "$SCB" -s "$dir/s.sock" -c 2 -P 4 -n 100 -w 0 -t kernel:3,notcap:1 --json \
    >"$dir/bad.json" 2>"$dir/bad.err"; then
    fail "a run with unexpected error replies exited 0"
fi
grep -q "error reply" "$dir/bad.err" || fail "no error reported: $(cat "$dir/bad.err")"
check "$(cat "$dir/bad.json")" '.errors > 0'

# 3. The same errors, allowed, are counted but do not fail the run.
out=$("$SCB" -s "$dir/s.sock" -c 2 -P 4 -n 100 -w 0 -t kernel:3,notcap:1 --allow-error 1002 \
    --json) || fail "a run with allowed errors exited non-zero"
check "$out" '.errors == 0 and .expected_errors > 0 and .by_kind.notcap.ops == .expected_errors'

# 4. Batched reachability on a stored graph answers every pair.
row=$(sqlite3 -separator ' ' "$dir/db" "SELECT graph, node_count FROM graphs ORDER BY graph LIMIT 1")
graph=${row% *}
nodes=${row#* }
out=$("$SCB" -s "$dir/s.sock" -t reach --graph "$graph" --graph-nodes "$nodes" --pairs 50 -c 1 \
    -n 20 -w 0 --json) || fail "reach run exited non-zero"
check "$out" '.errors == 0 and .ops == 20 and .pairs == 1000'

# 5. A graph built in one session: its capture.end is timed.
out=$("$SCB" -s "$dir/s.sock" --build-graph 500 --streams 4 -P 8 --json) ||
    fail "build-graph run exited non-zero"
check "$out" '.node_count == 500 and .edge_count >= 496 and .end_ms > 0 and .graph > 0'

# 6. The persist floor writes the daemon's stored form, text for text, so
# the ratio of capture.end to it compares the same rows.  Seed 2's graph
# has runs whose text is exactly the daemon's most (960 bytes with the
# brackets), so a run boundary one byte off shows.
out=$("$SCB" -s "$dir/s.sock" --build-graph 700 --streams 4 -P 8 --seed 2 --json) ||
    fail "build-graph run exited non-zero"
graph=$(jq -r .graph <<EOF2
$out
EOF2
)
fout=$("$BIN/persist_floor" --db "$dir/floor.db" --schema "$SCHEMA" --nodes 700 --streams 4 \
    --seed 2 --sync normal --json) || fail "persist_floor exited non-zero"
fgraph=$(jq -r .graph <<EOF2
$fout
EOF2
)
# The runs (node_chunks, schema/006_node_chunks.sql) must be cut at the
# same nodes and hold the same bytes; quote() keeps each text on one line.
rows="SELECT lo, quote(nodes) FROM node_chunks WHERE graph = %s ORDER BY lo"
# shellcheck disable=SC2059
sqlite3 "$dir/db" "$(printf "$rows" "$graph")" >"$dir/daemon.rows"
# shellcheck disable=SC2059
sqlite3 "$dir/floor.db" "$(printf "$rows" "$fgraph")" >"$dir/floor.rows"
[ -s "$dir/floor.rows" ] || fail "persist_floor stored no node_chunks rows"
fnodes=$(sqlite3 "$dir/floor.db" \
    "SELECT sum(json_array_length(nodes)) FROM node_chunks WHERE graph = $fgraph")
[ "$fnodes" = 700 ] || fail "persist_floor's node_chunks hold $fnodes nodes"
cmp -s "$dir/daemon.rows" "$dir/floor.rows" ||
    fail "persist_floor's node_chunks differ from the daemon's: $(diff "$dir/daemon.rows" "$dir/floor.rows" | head -n 5)"
[ "$(sqlite3 "$dir/floor.db" "PRAGMA user_version")" = "$(sqlite3 "$dir/db" "PRAGMA user_version")" ] ||
    fail "persist_floor's schema version differs from the daemon's"

echo "streamcap-bench smoke test: ok"
