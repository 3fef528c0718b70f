#!/usr/bin/env bash
# Fuzz framing and dispatch with libFuzzer for a given time.
#   tests/fuzz/run.sh [SECONDS] [JOBS]      (defaults: 300 seconds, 1 job)
# Builds build-fuzz/ with clang, ASan+UBSan and -fsanitize=fuzzer, starts
# from the checked-in corpus (tests/fuzz/corpus) and keeps what it learns in
# build-fuzz/corpus.  Crashes are written to build-fuzz/crash-* and make the
# script exit non-zero; add a fixed crash input to tests/fuzz/corpus so that
# `make test` replays it from then on.
set -euo pipefail
cd "$(dirname "$0")/../.."
seconds=${1:-300}
jobs=${2:-1}
scripts/deps --fuzz
cmake -S . -B build-fuzz -DCMAKE_C_COMPILER=clang -DCMAKE_BUILD_TYPE=RelWithDebInfo \
      -DSC_SANITIZE=ON -DSC_FUZZ=ON >/dev/null
cmake --build build-fuzz --target fuzz_stream -j "$(nproc)"
mkdir -p build-fuzz/corpus
cd build-fuzz
start=$(date +%s)
status=0
ASAN_OPTIONS=detect_leaks=0 ./bin/fuzz_stream -max_total_time="$seconds" -jobs="$jobs" \
    -workers="$jobs" -max_len=65536 -timeout=30 -print_final_stats=1 \
    corpus ../tests/fuzz/corpus || status=$?
end=$(date +%s)
echo "fuzz: $(( (end - start) * jobs )) CPU-seconds over $jobs job(s); exit status $status"
ls crash-* timeout-* 2>/dev/null && status=1
exit "$status"
