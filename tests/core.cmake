# Core library tests (libstreamcap-core).
set(SC_CORE_TEST_DIR ${CMAKE_CURRENT_LIST_DIR}/core)

sc_add_test(test_core_capture SOURCES ${SC_CORE_TEST_DIR}/test_capture.c LIBS sc_core)
sc_add_test(test_core_graph SOURCES ${SC_CORE_TEST_DIR}/test_graph.c LIBS sc_core)
sc_add_test(test_core_reach_random SOURCES ${SC_CORE_TEST_DIR}/test_reach_random.c LIBS sc_core)
sc_add_test(test_core_conformance
            SOURCES ${SC_CORE_TEST_DIR}/test_conformance.c ${SC_CORE_TEST_DIR}/jsonl.c
            LIBS sc_core PkgConfig::CJSON)
# The cuda corpus ops on the core, shared with the daemon's cuda tests.
add_library(sc_cuda_ops STATIC ${SC_CORE_TEST_DIR}/cuda_ops.c ${SC_CORE_TEST_DIR}/jsonl.c)
target_include_directories(sc_cuda_ops PUBLIC ${SC_CORE_TEST_DIR})
target_link_libraries(sc_cuda_ops PUBLIC sc_core PkgConfig::CJSON PkgConfig::CMOCKA)
sc_add_test(test_core_cuda_conformance
            SOURCES ${SC_CORE_TEST_DIR}/test_cuda_conformance.c
            LIBS sc_cuda_ops)
sc_add_test(test_core_cuda SOURCES ${SC_CORE_TEST_DIR}/test_cuda.c LIBS sc_core)
sc_add_test(test_core_analysis SOURCES ${SC_CORE_TEST_DIR}/test_analysis.c LIBS sc_core)
sc_add_test(test_core_fingerprint SOURCES ${SC_CORE_TEST_DIR}/test_fingerprint.c LIBS sc_core)
sc_add_test(test_core_diff SOURCES ${SC_CORE_TEST_DIR}/test_diff.c LIBS sc_core)
sc_add_test(test_core_races SOURCES ${SC_CORE_TEST_DIR}/test_races.c LIBS sc_core)
sc_add_test(test_core_access SOURCES ${SC_CORE_TEST_DIR}/test_access.c LIBS sc_core)
