#!/bin/sh
# PostgreSQL commits whose connection breaks, for longer: four sessions
# store 70,000-90,000-node graphs while the server is crashed
# (pg_ctl stop -m immediate) and started again every 1-3 s, then every
# acknowledged graph is checked stored once and whole and every failed end
# not stored (tests/pg/test_pg_outcome.c; `make test` runs it for 30 s).
#
#   tests/soak/pg_outcome.sh [SECONDS]      default 300
#
# Environment: BUILD (build directory, default build).  Needs PostgreSQL's
# server binaries (tests/pg/cluster.sh makes a private cluster).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${BUILD:-$root/build}
bin=$build/tests/test_pg_outcome
if [ ! -x "$bin" ]; then
    echo "pg_outcome.sh: $bin is missing; build it first:" \
        "cmake --build $build --target test_pg_outcome" >&2
    exit 2
fi
STREAMCAP_TEST_OUTCOME_SECONDS=${1:-300} exec "$root/tests/pg/cluster.sh" "$bin"
