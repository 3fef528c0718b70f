#!/usr/bin/env bash
# Runs the README's socat/jq round trip exactly as written against a real
# streamcapd started with its defaults (the socket under $XDG_RUNTIME_DIR,
# the database under $XDG_STATE_HOME, both pointed into a fresh directory),
# and checks what it printed and where its files went.
#   readme_roundtrip.sh README.md BIN_DIR
set -euo pipefail
readme=$1
bin=$2
dir=$(mktemp -d)
trap 'kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; rm -rf "$dir"' EXIT

# The first ```sh block after the "Talking to the daemon by hand" heading.
script=$(awk '/^## Talking to the daemon by hand/ {sec=1} sec && /^```sh$/ {inb=1; next}
              inb && /^```$/ {exit} inb {print}' "$readme")
[ -n "$script" ] || { echo "README has no round-trip block" >&2; exit 1; }

cd "$dir"
mkdir -m 700 run
export XDG_RUNTIME_DIR=$dir/run XDG_STATE_HOME=$dir/state
unset STREAMCAP_SOCKET
sock=$dir/run/streamcap/streamcap.sock
"$bin/streamcapd" >daemon.out 2>daemon.err &
pid=$!
for _ in $(seq 100); do
    grep -qF "listening on $sock " daemon.out 2>/dev/null && break
    sleep 0.1
done
grep -qF "listening on $sock (database $dir/state/streamcap/streamcap.db)" daemon.out ||
    { cat daemon.out daemon.err >&2; exit 1; }

out=$(bash -euo pipefail -c "$script")
echo "$out"
# The final command prints the graph.get result as pretty JSON.
graph=$(printf '%s\n' "$out" | jq -s 'map(select(type == "object" and has("nodes"))) | last')
[ "$(jq -r '.label' <<<"$graph")" = readme ]
[ "$(jq -r '.nodes | length' <<<"$graph")" = 1 ]
[ "$(jq -r '.nodes[0].function_name' <<<"$graph")" = relu ]
[ "$(jq -r '.nodes[0].num_blocks' <<<"$graph")" = 4 ]
[ "$(jq -r '.nodes[0].threads_per_block' <<<"$graph")" = 256 ]
[ "$(jq -c '.edges' <<<"$graph")" = '[]' ]
kill -TERM "$pid"
wait "$pid"
[ ! -e "$sock" ] || { echo "socket not removed on SIGTERM" >&2; exit 1; }
[ -s state/streamcap/streamcap.db ] || { echo "no database under XDG_STATE_HOME" >&2; exit 1; }
echo "README round trip: ok"
