#!/bin/sh
# tests/client/run_cu.sh BIN_DIR SHARED STATIC | --skip WHY
# streamcap run on run_cuda.cu built by nvcc, against a streamcapd of its
# own: SHARED (-cudart shared) breaks a capture with a legacy-stream launch,
# which --fail-on failed fails on and the log names as cudaLaunchKernel, and
# forks a child that reports only its own capture; STATIC (nvcc's default
# -cudart static) never loads the stand-in, which the run says and
# --fail-on none-stored fails on.  Exit 77, saying why, with --skip.
set -eu
if [ "$1" = --skip ]; then
    echo "run_cu.sh: skipped: $2"
    exit 77
fi
bin=$1
shared=$2
static=$3
name=run_cu.sh
. "$(dirname "$0")/cu_daemon.sh"

# A capture broken by <<<>>> on the legacy stream.
st=0
sc run --fail-on failed "$shared" legacy 2>"$work/err" || st=$?
[ "$st" = 98 ] || fail "--fail-on failed exited $st, want 98"
grep -q "failing on failed: 1 capture failed" "$work/err" || fail "no reason for failed"
grep -q "broken by cudaLaunchKernel" "$work/err" || fail "the summary does not name cudaLaunchKernel"
sc log --limit 1 >"$work/log"
grep -q "invalidated by cudaLaunchKernel" "$work/log" || fail "log: $(cat "$work/log")"
echo "run_cu.sh: a legacy-stream launch: exit 98, cudaLaunchKernel in the summary and the log"

# fork(): the child reports its own capture only.
sc --json run "$shared" capture fork 2>"$work/err" || fail "run capture fork failed"
grep -q '"captures_begun":2,' "$work/err" || fail "captures counted twice"
echo "run_cu.sh: a forked child reports its own capture only"

# The static runtime: the stand-in is never loaded (the real runtime then
# fails without a GPU or succeeds with one: its status is not checked).
sc run "$static" capture 2>"$work/err" || true
grep -q "does not load libcudart.so at all" "$work/err" || fail "no static-runtime hint"
grep -q "CMAKE_CUDA_RUNTIME_LIBRARY Shared" "$work/err" || fail "the hint does not name the switch"
st=0
sc run --fail-on none-stored "$static" capture 2>"$work/err" || st=$?
[ "$st" = 98 ] || fail "--fail-on none-stored exited $st, want 98"
echo "run_cu.sh: nvcc's static runtime: the hint, and --fail-on none-stored fails"
echo "1 passed, 0 failed"
