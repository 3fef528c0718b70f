# The benchmark tools: unit tests of their helpers, and a smoke test of
# streamcap-bench against a real streamcapd (the full benchmark is
# `make bench`, not part of the test suite).
sc_add_test(test_bench_util
    SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/bench/test_bench_util.c
    LIBS sc_bench_util)

sc_add_command_test(bench_smoke TIMEOUT 120
    COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/bench/smoke.sh ${CMAKE_RUNTIME_OUTPUT_DIRECTORY}
            ${PROJECT_SOURCE_DIR}/schema)
