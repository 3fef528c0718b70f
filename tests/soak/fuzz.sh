#!/bin/sh
# Hostile-input soak: the random and mutated lines of
# tests/reliability/test_rel_input.c in far larger numbers and with a seed
# of your choice (`make test` runs 3,000 + 2,000 lines with a fixed seed).
#
#   tests/soak/fuzz.sh [LINES] [SEED]      default 200000 lines, seed from the clock
#
# LINES random lines and LINES mutated requests are sent; every random line
# must get a JSON-RPC error and the daemon must answer a final request.
# Environment: BUILD (build directory, default build).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${BUILD:-$root/build}
bin=$build/tests/test_rel_input
if [ ! -x "$bin" ]; then
    echo "fuzz.sh: $bin is missing; build it first: cmake --build $build --target test_rel_input" >&2
    exit 2
fi
SC_REL_RANDOM_LINES=${1:-200000}
SC_REL_MUTATED_LINES=$SC_REL_RANDOM_LINES
SC_REL_SEED=${2:-$(date +%s)}
export SC_REL_RANDOM_LINES SC_REL_MUTATED_LINES SC_REL_SEED
echo "fuzz.sh: $SC_REL_RANDOM_LINES random and mutated lines, seed $SC_REL_SEED"
exec "$bin"
