#!/bin/sh
# tests/pg/fleet.sh BINDIR: two streamcapd on two sockets with two host
# names sharing one PostgreSQL database (run under tests/pg/cluster.sh,
# which provides STREAMCAP_TEST_PG and the server's stop and start).
#   1. concurrent captures through both: every acknowledged graph is
#      stored exactly once, under its daemon's host, and the log shows both;
#   2. a second daemon with a host name in use is refused at start, naming
#      the first's pid, and leaves the first's live session open; kill -9
#      of one daemon while it commits: nothing acknowledged is lost, and its
#      restart (the lock freed by its death) marks its own unfinished
#      sessions lost, not the other's;
#   3. the server stopped mid-run: requests fail with 1007 (nothing is
#      acknowledged), and the same daemon serves again once it is back;
#      the restart dropped alpha's host lock: a second alpha started then
#      holds it, alpha's writes answer 1007 naming it until it stops; after
#      a crash alpha's next write takes the lock again and a second alpha
#      is refused, as it is after only alpha's lock connection ended;
#   4. a program on the CUDA runtime stand-in whose legacy-stream launch
#      breaks a capture: captures.inv_call names cudaLaunchKernel; another
#      whose captures hold child graphs: their bodies stored below them;
#   5. docs/fleet.md's queries run on the fleet's database.
set -eu
bin=$1
[ -n "${STREAMCAP_TEST_PG:-}" ] || { echo "fleet.sh: skipped: run under tests/pg/cluster.sh" >&2; exit 77; }
work=$(mktemp -d)
pids=""
cleanup() {
    for p in $pids; do kill -9 "$p" 2>/dev/null || true; done
    rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "fleet.sh: FAIL: $*" >&2; for f in "$work"/*.log; do echo "== $f" >&2; tail -n 20 "$f" >&2; done; exit 1; }

start() { # start NAME: a daemon for host NAME on $work/NAME.sock
    "$bin/streamcapd" --socket "$work/$1.sock" --db "$STREAMCAP_TEST_PG" --host-name "$1" \
        >>"$work/$1.log" 2>&1 &
    eval "pid_$1=$!"
    pids="$pids $!"
    i=0
    until "$bin/streamcap" --socket "$work/$1.sock" ping >/dev/null 2>&1; do
        i=$((i + 1))
        [ "$i" -lt 100 ] || fail "streamcapd $1 did not start"
        sleep 0.1
    done
}
demo() { # demo NAME OUT: one capture through NAME; the graph id, if acknowledged, into OUT
    out=$("$bin/streamcap" --socket "$work/$1.sock" --json demo 2>/dev/null) || true
    g=$(printf '%s' "$out" | jq -r 'select(.graph != null) | .graph' 2>/dev/null) || true
    [ -z "$g" ] || echo "$g" >>"$2"
    printf '%s\n' "$out" >>"$2.replies"
}
q() { psql -X -A -t -q -c "$1"; }

# 0. a password in the connection string never shows: not in the startup
#    line, not in server.info (the cluster trusts local users, so libpq
#    never needs to send it)
secret=fleet-secret-42
"$bin/streamcapd" --socket "$work/gamma.sock" --db "$STREAMCAP_TEST_PG&password=$secret" \
    --host-name gamma >>"$work/gamma.log" 2>&1 &
gpid=$!
pids="$pids $gpid"
i=0
until "$bin/streamcap" --socket "$work/gamma.sock" ping >/dev/null 2>&1; do
    i=$((i + 1))
    [ "$i" -lt 100 ] || fail "streamcapd gamma did not start"
    sleep 0.1
done
"$bin/streamcap" --socket "$work/gamma.sock" --json info >"$work/gamma.info"
kill -TERM "$gpid"
wait "$gpid" || fail "streamcapd gamma did not stop cleanly"
grep -q "listening on" "$work/gamma.log" || fail "gamma printed no startup line"
grep -q "password=\*\*\*" "$work/gamma.log" || fail "the startup line does not show the masked password"
if grep -q "$secret" "$work/gamma.log" "$work/gamma.info"; then
    fail "the password appears in the daemon's output or server.info"
fi

# 1. both daemons at once
start alpha
start beta
: >"$work/acked"
workers=""
for n in 1 2 3 4 5 6; do
    (for k in 1 2 3 4; do demo alpha "$work/acked.a$n"; done) &
    workers="$workers $!"
    (for k in 1 2 3 4; do demo beta "$work/acked.b$n"; done) &
    workers="$workers $!"
done
for w in $workers; do wait "$w"; done
cat "$work"/acked.a? >"$work/acked_alpha"
cat "$work"/acked.b? >"$work/acked_beta"
[ "$(wc -l <"$work/acked_alpha")" -eq 24 ] || fail "alpha acknowledged $(wc -l <"$work/acked_alpha") of 24"
[ "$(wc -l <"$work/acked_beta")" -eq 24 ] || fail "beta acknowledged $(wc -l <"$work/acked_beta") of 24"
for h in alpha beta; do
    for g in $(cat "$work/acked_$h"); do
        [ "$(q "SELECT count(*) FROM graphs WHERE graph = $g AND host = '$h'")" = 1 ] ||
            fail "graph $g of $h is not stored exactly once under its host"
    done
done
[ "$(sort -n "$work"/acked_alpha "$work"/acked_beta | uniq -d | wc -l)" -eq 0 ] ||
    fail "two daemons were given the same graph id"
[ "$(q "SELECT count(*) FROM graphs")" = 48 ] || fail "stored graphs: $(q 'SELECT count(*) FROM graphs')"
log=$("$bin/streamcap" --socket "$work/alpha.sock" call log.list '{"limit":1000}')
for h in alpha beta; do
    printf '%s' "$log" | grep -q "\"host\":\"$h\"" || fail "alpha's log.list does not show host $h"
done
[ "$(q "SELECT count(DISTINCT host) FROM capture_log WHERE outcome = 'completed'")" = 2 ] ||
    fail "the log does not show both hosts"

# 1b. store.backup is SQLite's: on PostgreSQL it names pg_dump; and
#     --check-db reads the shared database while both daemons serve it
rc=0
out=$("$bin/streamcap" --socket "$work/alpha.sock" backup "$work/copy.db" 2>&1) || rc=$?
[ "$rc" -ne 0 ] && printf '%s' "$out" | grep -q pg_dump ||
    fail "store.backup on PostgreSQL: exit $rc, $out"
[ ! -e "$work/copy.db" ] || fail "store.backup on PostgreSQL wrote a file"
"$bin/streamcapd" --check-db --db "$STREAMCAP_TEST_PG" >"$work/check.log" 2>&1 ||
    fail "--check-db on the fleet's database: $(cat "$work/check.log")"
echo "fleet.sh: store.backup names pg_dump, --check-db finds the fleet's database clean"

# 2a. a second daemon with alpha's host name is refused, naming alpha,
#     and alpha's live session stays open
"$bin/streamcap" --socket "$work/alpha.sock" call session.open '{"label":"alive"}' >/dev/null
rc=0
timeout 15 "$bin/streamcapd" --socket "$work/alpha2.sock" --db "$STREAMCAP_TEST_PG" \
    --host-name alpha >"$work/alpha2.log" 2>&1 || rc=$?
[ "$rc" -ne 0 ] && [ "$rc" -ne 124 ] || fail "a second daemon with host name alpha started (exit $rc)"
grep -q "host name \"alpha\" in use by streamcapd pid $pid_alpha since " "$work/alpha2.log" ||
    fail "the refusal does not name alpha's pid: $(cat "$work/alpha2.log")"
[ "$(q "SELECT outcome FROM capture_log WHERE label = 'alive'")" = open ] ||
    fail "the refused daemon marked alpha's live session $(q "SELECT outcome FROM capture_log WHERE label = 'alive'")"

# 2. kill -9 of alpha while it commits
: >"$work/acked_kill"
(while :; do demo alpha "$work/acked_kill"; done) &
loop=$!
sleep 2
kill -9 "$pid_alpha"
sleep 0.3
kill "$loop" 2>/dev/null || true
wait "$loop" 2>/dev/null || true
n=$(wc -l <"$work/acked_kill")
[ "$n" -gt 0 ] || fail "no capture was acknowledged before the kill"
for g in $(cat "$work/acked_kill"); do
    [ "$(q "SELECT count(*) FROM graphs WHERE graph = $g AND host = 'alpha'")" = 1 ] ||
        fail "acknowledged graph $g lost by kill -9"
    [ "$(q "SELECT count(*) FROM nodes WHERE graph = $g")" = 3 ] || fail "graph $g is not whole"
done
# beta kept a session open meanwhile; alpha's restart leaves it alone.
"$bin/streamcap" --socket "$work/beta.sock" call session.open '{"label":"kept"}' >/dev/null
start alpha
[ "$(q "SELECT count(*) FROM capture_log WHERE host = 'alpha' AND outcome = 'open'")" = 0 ] ||
    fail "alpha's restart left its dead sessions open"
[ "$(q "SELECT count(*) FROM capture_log WHERE label = 'kept' AND outcome = 'open'")" = 1 ] ||
    fail "alpha's restart touched beta's open session"
echo "fleet.sh: kill -9: $n acknowledged graphs all stored"

# 3. the server stops mid-run and comes back
eval "$STREAMCAP_TEST_PG_STOP"
: >"$work/acked_down"
demo beta "$work/acked_down"
[ ! -s "$work/acked_down" ] || fail "a capture was acknowledged while the server was down"
grep -q '1007' "$work/acked_down.replies" || fail "no 1007 while the server was down: $(cat "$work/acked_down.replies")"
eval "$STREAMCAP_TEST_PG_START"
: >"$work/acked_up"
i=0
while [ ! -s "$work/acked_up" ]; do
    i=$((i + 1))
    [ "$i" -le 20 ] || fail "beta did not recover after the server came back"
    demo beta "$work/acked_up"
    [ -s "$work/acked_up" ] || sleep 0.5
done
g=$(cat "$work/acked_up")
[ "$(q "SELECT host FROM graphs WHERE graph = $g")" = beta ] || fail "graph $g after recovery is not stored"
# 3a. the server's restart dropped alpha's lock: a second daemon for host
#     alpha that starts before alpha wrote again gets it, and alpha's next
#     write answers 1007 naming that daemon and stores nothing; once the
#     second stops, alpha takes the lock back and writes again.
"$bin/streamcapd" --socket "$work/alpha2.sock" --db "$STREAMCAP_TEST_PG" --host-name alpha \
    >"$work/alpha2.log" 2>&1 &
pid_alpha2=$!
pids="$pids $pid_alpha2"
i=0
until "$bin/streamcap" --socket "$work/alpha2.sock" ping >/dev/null 2>&1; do
    i=$((i + 1))
    [ "$i" -lt 100 ] || fail "a second alpha did not start after the restart: $(cat "$work/alpha2.log")"
    sleep 0.1
done
before=$(q "SELECT count(*) FROM graphs WHERE host = 'alpha'")
: >"$work/acked_taken"
demo alpha "$work/acked_taken"
[ ! -s "$work/acked_taken" ] || fail "alpha wrote while another daemon held its host name"
grep -q "1007" "$work/acked_taken.replies" ||
    fail "alpha's write without the lock did not answer 1007: $(cat "$work/acked_taken.replies")"
grep -q "in use by streamcapd pid $pid_alpha2 since " "$work/acked_taken.replies" ||
    fail "alpha's refusal does not name the holder: $(cat "$work/acked_taken.replies")"
[ "$(q "SELECT count(*) FROM graphs WHERE host = 'alpha'")" = "$before" ] ||
    fail "alpha stored a graph without the lock"
kill -TERM "$pid_alpha2"
wait "$pid_alpha2" || fail "the second alpha did not stop cleanly"
: >"$work/acked_back"
i=0
while [ ! -s "$work/acked_back" ]; do # the server may take a moment to end the holder's backend
    i=$((i + 1))
    [ "$i" -le 10 ] || fail "alpha did not write again once the lock was free: $(cat "$work/acked_back.replies")"
    demo alpha "$work/acked_back"
    [ -s "$work/acked_back" ] || sleep 0.5
done
g=$(cat "$work/acked_back")
[ "$(q "SELECT host FROM graphs WHERE graph = $g")" = alpha ] || fail "graph $g of alpha is not stored"
echo "fleet.sh: a restart's lost lock: alpha refused writes while another held its name"

# 3b. a crash of the server: alpha's first write after it takes the lock
#     again, and a second daemon for host alpha is then refused at start.
eval "$STREAMCAP_TEST_PG_CRASH"
eval "$STREAMCAP_TEST_PG_START"
: >"$work/acked_crash"
i=0
while [ ! -s "$work/acked_crash" ]; do
    i=$((i + 1))
    [ "$i" -le 20 ] || fail "alpha did not recover after the crash: $(cat "$work/acked_crash.replies")"
    demo alpha "$work/acked_crash"
    [ -s "$work/acked_crash" ] || sleep 0.5
done
rc=0
timeout 15 "$bin/streamcapd" --socket "$work/alpha3.sock" --db "$STREAMCAP_TEST_PG" \
    --host-name alpha >"$work/alpha3.log" 2>&1 || rc=$?
[ "$rc" -ne 0 ] && [ "$rc" -ne 124 ] || fail "a second alpha started after the crash (exit $rc)"
grep -q "host name \"alpha\" in use by streamcapd pid $pid_alpha since " "$work/alpha3.log" ||
    fail "the refusal after the crash does not name alpha: $(cat "$work/alpha3.log")"
echo "fleet.sh: after a crash alpha holds its host name again"

# 3c. only alpha's lock connection ends (its backend terminated; the
#     writer's connection lives on): the next write still notices and
#     takes the lock again, so a second alpha is refused.
[ "$(q "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
         WHERE application_name LIKE 'streamcapd pid $pid_alpha since %'")" = 1 ] ||
    fail "alpha's lock connection not found in pg_stat_activity"
: >"$work/acked_term"
demo alpha "$work/acked_term"
[ -s "$work/acked_term" ] || fail "alpha did not write after its lock connection ended: $(cat "$work/acked_term.replies")"
rc=0
timeout 15 "$bin/streamcapd" --socket "$work/alpha4.sock" --db "$STREAMCAP_TEST_PG" \
    --host-name alpha >"$work/alpha4.log" 2>&1 || rc=$?
[ "$rc" -ne 0 ] && [ "$rc" -ne 124 ] || fail "a second alpha started after alpha's lock connection ended (exit $rc)"
grep -q "host name \"alpha\" in use by streamcapd pid $pid_alpha since " "$work/alpha4.log" ||
    fail "the refusal after the lock connection ended does not name alpha: $(cat "$work/alpha4.log")"
echo "fleet.sh: after its lock connection ended alpha holds its host name again"

# 4. a capture broken by a kernel launched on the legacy stream: the row
#    names the CUDA call, as on SQLite.
run_cuda=$bin/../tests/run_cuda
if [ -x "$run_cuda" ]; then
    "$bin/streamcap" --socket "$work/beta.sock" run "$run_cuda" legacy >>"$work/run.log" 2>&1 ||
        fail "streamcap run $run_cuda legacy: $(cat "$work/run.log")"
    [ "$(q "SELECT inv_call FROM captures c JOIN capture_log l USING (session)
             WHERE l.host = 'beta' AND c.inv_method = 'capture.record_kernel'")" = cudaLaunchKernel ] ||
        fail "captures.inv_call does not name cudaLaunchKernel: $(q "SELECT * FROM captures")"
    echo "fleet.sh: captures.inv_call names cudaLaunchKernel"
else
    echo "fleet.sh: no $run_cuda (built without the stand-in): inv_call not checked"
fi
# 4b. child graphs in captures (the child_capture scenario's program): each
#     captured graph's child graph node has its body stored below it, as
#     on SQLite.
child_prog=$bin/../tests/cudart/suite_child_capture_c
if [ -x "$child_prog" ]; then
    "$bin/streamcap" --socket "$work/beta.sock" run "$child_prog" >>"$work/run.log" 2>&1 ||
        fail "streamcap run $child_prog: $(cat "$work/run.log")"
    linked=$(q "SELECT count(*) FROM graphs b JOIN graphs p ON b.parent_graph = p.graph
                 WHERE p.host = 'beta' AND p.capture IS NOT NULL AND b.parent_node = 1
                   AND b.parent_index = 0 AND b.node_count = 1")
    nested=$(q "SELECT count(*) FROM graphs b JOIN graphs p ON b.parent_graph = p.graph
                 JOIN graphs t ON p.parent_graph = t.graph
                 WHERE t.host = 'beta' AND t.capture IS NOT NULL")
    [ "$linked" = 2 ] && [ "$nested" = 1 ] ||
        fail "captured child graphs' bodies: $linked linked, $nested nested: $(q "SELECT graph, capture, parent_graph, parent_node, node_count FROM graphs WHERE host = 'beta'")"
    echo "fleet.sh: captured child graphs' bodies are stored below their nodes"
else
    echo "fleet.sh: no $child_prog (built without the stand-in): captured bodies not checked"
fi
# 5. docs/fleet.md's queries run on this fleet's database.
doc=$(dirname "$0")/../../docs/fleet.md
awk '/^```sql$/ {on = 1; next} /^```$/ {on = 0} on' "$doc" >"$work/doc.sql"
[ -s "$work/doc.sql" ] || fail "no queries found in docs/fleet.md"
psql -X -q -v ON_ERROR_STOP=1 -f "$work/doc.sql" >"$work/doc.out" 2>&1 || fail "docs/fleet.md: $(cat "$work/doc.out")"
grep -q beta "$work/doc.out" || fail "docs/fleet.md's queries do not show the fleet"

echo "fleet.sh: 48 concurrent graphs from two hosts, kill -9 and a server restart: all good"
echo "1 passed, 0 failed"
