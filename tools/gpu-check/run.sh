#!/bin/sh
# Build the GPU checks with nvcc and run each on the real runtime, its
# graphs also dumped by a graph recorder (dumpgraphs.so, see README.md) when DUMPGRAPHS
# names it; then compare each program's lines with what the stand-in
# gives (standin.jsonl).  On a machine with a GPU and its driver only.
#
#   sh tools/gpu-check/run.sh [OUT_DIR]
set -eu
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-${OUT:-/tmp/gpu-check}}
nvcc=${NVCC:-nvcc}
mkdir -p "$out"
"$nvcc" -cudart shared -o "$out/launch_in_capture" "$here/launch_in_capture.cu"
if [ -n "${DUMPGRAPHS:-}" ]; then
    DUMP_GRAPHS="$out/dumped.jsonl" LD_PRELOAD="$DUMPGRAPHS" "$out/launch_in_capture" \
        >"$out/gpu.jsonl"
else
    "$out/launch_in_capture" >"$out/gpu.jsonl"
fi
if cmp -s "$out/gpu.jsonl" "$here/standin.jsonl"; then
    echo "gpu-check: launch_in_capture: the driver and the stand-in agree"
else
    echo "gpu-check: launch_in_capture: the driver and the stand-in differ" >&2
    diff "$here/standin.jsonl" "$out/gpu.jsonl" >&2 || true
    exit 1
fi
