# tests/client/cu_daemon.sh - sourced by the .cu scripts of this folder
# (access_cu.sh, run_cu.sh) once `name` (the script's) and `bin` (the
# build's bin directory) are set: a private work directory removed at
# exit, fail MESSAGE (with the last command's stderr, $work/err), a
# streamcapd of its own on $work/s and $work/db, started and answering,
# and sc ARGS..., streamcap against it.
work=$(mktemp -d)
dpid=""
cleanup() {
    [ -z "$dpid" ] || kill "$dpid" 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "$name: FAIL: $*" >&2; cat "$work/err" >&2 2>/dev/null || true; exit 1; }

"$bin/streamcapd" --socket "$work/s" --db "$work/db" >"$work/daemon.log" 2>&1 &
dpid=$!
i=0
until "$bin/streamcap" --socket "$work/s" ping >/dev/null 2>&1; do
    i=$((i + 1))
    [ "$i" -lt 100 ] || fail "streamcapd did not start: $(cat "$work/daemon.log")"
    sleep 0.1
done
sc() { env -u STREAMCAP_CUDART_DIR "$bin/streamcap" --socket "$work/s" "$@"; }
