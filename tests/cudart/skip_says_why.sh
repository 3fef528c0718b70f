#!/bin/sh
# skip_says_why.sh RUN_SUITE: a scenario whose program cannot be built
# (no nvcc) exits 77, ctest's skip, and says why on stdout.
out=$("$1" x.expect.json --skip 'nvcc not found: test')
status=$?
[ "$status" = 77 ] || { echo "exit $status, want 77"; exit 1; }
[ "$out" = 'nvcc not found: test' ] || { echo "said '$out'"; exit 1; }
