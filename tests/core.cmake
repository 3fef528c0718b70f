# Core library tests (libstreamcap-core).
set(SC_CORE_TEST_DIR ${CMAKE_CURRENT_LIST_DIR}/core)

sc_add_test(test_core_capture SOURCES ${SC_CORE_TEST_DIR}/test_capture.c LIBS sc_core)
sc_add_test(test_core_graph SOURCES ${SC_CORE_TEST_DIR}/test_graph.c LIBS sc_core)
sc_add_test(test_core_reach_random SOURCES ${SC_CORE_TEST_DIR}/test_reach_random.c LIBS sc_core)
sc_add_test(test_core_conformance
            SOURCES ${SC_CORE_TEST_DIR}/test_conformance.c ${SC_CORE_TEST_DIR}/jsonl.c
            LIBS sc_core PkgConfig::CJSON)
sc_add_test(test_core_cuda_conformance
            SOURCES ${SC_CORE_TEST_DIR}/test_cuda_conformance.c ${SC_CORE_TEST_DIR}/jsonl.c
            LIBS sc_core PkgConfig::CJSON)
sc_add_test(test_core_cuda SOURCES ${SC_CORE_TEST_DIR}/test_cuda.c LIBS sc_core)
