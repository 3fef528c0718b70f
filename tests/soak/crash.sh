#!/bin/sh
# Crash-durability soak: many rounds of "20 clients end captures, the daemon
# is killed with SIGKILL at a random moment, restarted, everything checked"
# (tests/reliability/test_rel_crash.c; `make test` runs 16 rounds).
#
#   tests/soak/crash.sh [ROUNDS]            default 200
#
# Environment: BUILD (build directory, default build), CLIENTS (20),
# MIN_OPS / MAX_OPS (ops per session, 100 / 400), MAX_DELAY_MS (the kill comes
# up to this long after a random number of acknowledged ends, 200), SEED
# (PRNG seed; printed, so a failure can be replayed).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${BUILD:-$root/build}
bin=$build/tests/test_rel_crash
if [ ! -x "$bin" ]; then
    echo "crash.sh: $bin is missing; build it first: cmake --build $build --target test_rel_crash" >&2
    exit 2
fi
SC_REL_CRASH_ROUNDS=${1:-200}
SC_REL_CRASH_CLIENTS=${CLIENTS:-20}
SC_REL_CRASH_MIN_OPS=${MIN_OPS:-100}
SC_REL_CRASH_MAX_OPS=${MAX_OPS:-400}
SC_REL_CRASH_MAX_DELAY_MS=${MAX_DELAY_MS:-200}
export SC_REL_CRASH_ROUNDS SC_REL_CRASH_CLIENTS SC_REL_CRASH_MIN_OPS SC_REL_CRASH_MAX_OPS \
    SC_REL_CRASH_MAX_DELAY_MS
if [ -n "${SEED:-}" ]; then
    SC_REL_SEED=$SEED
    export SC_REL_SEED
fi
exec "$bin"
