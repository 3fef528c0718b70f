# The integration harness (tests/integration/harness.c): a real streamcapd
# in a fresh temporary directory per test, and line-framed JSON-RPC
# connections to it; corpus.c reads the conformance corpus.  Every test
# that drives a daemon (integration, client, reliability) links it.
add_library(sc_it_harness STATIC ${CMAKE_CURRENT_SOURCE_DIR}/integration/harness.c
            ${CMAKE_CURRENT_SOURCE_DIR}/integration/corpus.c)
target_include_directories(sc_it_harness PUBLIC ${CMAKE_CURRENT_SOURCE_DIR}/integration)
target_compile_definitions(sc_it_harness PRIVATE SC_BIN_DIR="${CMAKE_RUNTIME_OUTPUT_DIRECTORY}")
target_link_libraries(sc_it_harness PUBLIC PkgConfig::CJSON PkgConfig::SQLITE3 PkgConfig::CMOCKA)

# sc_add_daemon_test(NAME SUITE TIMEOUT [LIBS...] [DEPENDS...] [LABELS...]
#                    [SKIP_RETURN_CODE n]): tests/SUITE/NAME.c, linked with the
# harness (and LIBS), built after streamcapd (and DEPENDS).
function(sc_add_daemon_test name suite timeout)
    cmake_parse_arguments(T "" "SKIP_RETURN_CODE" "LIBS;DEPENDS;LABELS" ${ARGN})
    sc_add_test(${name}
        SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/${suite}/${name}.c
        LIBS ${T_LIBS} sc_it_harness Threads::Threads
        TIMEOUT ${timeout} LABELS ${T_LABELS} SKIP_RETURN_CODE "${T_SKIP_RETURN_CODE}")
    target_compile_definitions(${name} PRIVATE SC_EXPECTED_VERSION="${PROJECT_VERSION}")
    add_dependencies(${name} streamcapd ${T_DEPENDS})
endfunction()
