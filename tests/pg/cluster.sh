#!/bin/sh
# tests/pg/cluster.sh CMD [ARG...]: run CMD against a private PostgreSQL
# cluster made for it, and remove the cluster afterwards, whatever CMD did.
#
# The cluster lives in a fresh temporary directory, listens on a Unix
# socket there and on no TCP port, and runs as an unprivileged user: the
# caller, or when the caller is root, `nobody` (PostgreSQL refuses to run
# as root).  CMD sees:
#   STREAMCAP_TEST_PG      a connection URI for the cluster's database
#   STREAMCAP_TEST_PG_STOP a shell command that stops the server (fast)
#   STREAMCAP_TEST_PG_CRASH a shell command that stops it as a crash would
#                          (-m immediate: no checkpoint, connections cut)
#   STREAMCAP_TEST_PG_START a shell command that starts it again
#   PGHOST, PGUSER, PGDATABASE  for psql
# Exit status: CMD's; 77 (skipped) when PostgreSQL's server binaries are
# not installed (scripts/deps installs them), with a message saying so.
set -eu

bindir=""
for d in /usr/lib/postgresql/*/bin; do
    [ -x "$d/initdb" ] && [ -x "$d/pg_ctl" ] && bindir=$d
done
if [ -z "$bindir" ]; then
    echo "tests/pg/cluster.sh: skipped: no PostgreSQL server binaries" \
        "(/usr/lib/postgresql/*/bin/initdb); scripts/deps installs them" >&2
    exit 77
fi

# Short: a socket path has at most 107 bytes.
dir=$(mktemp -d /tmp/scpg.XXXXXX)
chmod 755 "$dir"
as=""
if [ "$(id -u)" -eq 0 ]; then
    chown nobody "$dir"
    as="runuser -u nobody --"
fi

# CMD runs in the background (see below) so that a signal reaches these
# traps at once; each ends CMD too, and the EXIT trap removes the cluster.
# PIPE included: a reader of our output that went away (| head) must not
# kill this script before it has stopped the server.
child=""
cleanup() {
    [ -n "$child" ] && kill "$child" 2>/dev/null
    $as "$bindir/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null 2>&1 || true
    rm -rf "$dir"
}
trap cleanup EXIT
trap 'exit 129' HUP
trap 'exit 130' INT
trap 'exit 141' PIPE
trap 'exit 143' TERM

$as "$bindir/initdb" -D "$dir/data" -U streamcap -A trust -E UTF8 --no-locale --no-sync \
    >"$dir/initdb.log" 2>&1 || { cat "$dir/initdb.log" >&2; exit 1; }
# No TCP, the socket in the directory, durability as in production
# (fsync on) so kill tests mean what they say.
opts="-c listen_addresses= -c unix_socket_directories=$dir -c max_connections=60"
start="$as $bindir/pg_ctl -D $dir/data -l $dir/server.log -w -t 60 -o '$opts' start"
stop="$as $bindir/pg_ctl -D $dir/data -m fast -w stop"
crash="$as $bindir/pg_ctl -D $dir/data -m immediate -w stop"
if ! eval "$start" >/dev/null; then
    cat "$dir/server.log" >&2
    exit 1
fi

export STREAMCAP_TEST_PG="postgresql:///streamcap?host=$dir&user=streamcap"
export STREAMCAP_TEST_PG_STOP="$stop >/dev/null"
export STREAMCAP_TEST_PG_CRASH="$crash >/dev/null"
export STREAMCAP_TEST_PG_START="$start >/dev/null"
export PGHOST="$dir" PGUSER=streamcap PGDATABASE=streamcap
$as "$bindir/createdb" -h "$dir" -U streamcap streamcap

set +e
"$@" <&0 &
child=$!
wait "$child"
rc=$?
child=""
set -e
if [ "$rc" -ne 0 ] && [ "$rc" -ne 77 ]; then
    { echo "tests/pg/cluster.sh: $1 exited $rc; server log:" >&2
      tail -n 30 "$dir/server.log" >&2; } 2>/dev/null || true
fi
exit "$rc"
