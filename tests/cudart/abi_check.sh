#!/bin/sh
# abi_check.sh CC SRC_DIR LIB NM: the stand-in's ABI.  (d) every name of
# cudart/exports.txt is exported under the version node libcudart.so.13
# and nothing but cuda*/__cuda* names is; where the toolkit is installed
# also (a) enum values, struct sizes and field offsets, (b) prototypes and
# (c) the error table against it.  Exit 77 (skipped) without a toolkit.
set -u
CC=$1 SRC=$2 LIB=$3 NM=$4
CUDA=${CUDA_HOME:-/usr/local/cuda}
T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT
fail=0

"$NM" -D --defined-only "$LIB" | awk '{print $NF}' > "$T/syms"
grep -v '^#' "$SRC/cudart/exports.txt" | sed '/^[[:space:]]*$/d' | while read -r name _; do
    grep -qx "$name@@libcudart.so.13" "$T/syms" || echo "not exported under libcudart.so.13: $name"
done > "$T/missing"
grep -v '^libcudart\.so\.13$' "$T/syms" | grep -Ev '^(cuda|__cuda)[A-Za-z0-9_]*@@libcudart\.so\.13$' > "$T/stray"
if [ -s "$T/missing" ] || [ -s "$T/stray" ]; then
    cat "$T/missing"; sed 's/^/exported but not a CUDA name: /' "$T/stray"; fail=1
else
    echo "exports: $(wc -l < "$T/syms") symbols, every one of exports.txt under libcudart.so.13"
fi

if [ ! -f "$CUDA/include/cuda_runtime_api.h" ] || ! command -v "$CUDA/bin/nvcc" >/dev/null 2>&1; then
    echo "SKIP: no CUDA toolkit at $CUDA (cuda_runtime_api.h and nvcc); only the exports were checked"
    [ $fail = 0 ] && exit 77
    exit 1
fi
INC="-I$SRC/cudart -I$SRC/core -I$SRC/tests/cudart"
"$CC" -std=c11 -DSC_ABI_TOOLKIT -I"$CUDA/include" $INC "$SRC/tests/cudart/abi_print.c" -o "$T/tk" &&
"$CC" -std=c11 $INC "$SRC/tests/cudart/abi_print.c" -o "$T/ours" || exit 1
"$T/tk" > "$T/tk.txt" && "$T/ours" > "$T/ours.txt" || exit 1
if diff -u "$T/tk.txt" "$T/ours.txt"; then
    echo "layouts: $(wc -l < "$T/ours.txt") items agree with the toolkit"
else
    fail=1
fi
if "$CC" -std=c11 -fsyntax-only -Werror -I"$CUDA/include" $INC "$SRC/tests/cudart/abi_protos.c"; then
    echo "prototypes: agree with cuda_runtime_api.h"
else
    fail=1
fi
if [ -f "$CUDA/lib64/libcudart.so.13" ]; then
    "$CC" -std=c11 $INC "$SRC/tests/cudart/abi_errors.c" -o "$T/err" -ldl &&
        "$T/err" "$CUDA/lib64/libcudart.so.13" || fail=1
else
    echo "errors: no $CUDA/lib64/libcudart.so.13, the error table was not compared"
fi
exit $fail
