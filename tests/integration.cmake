# Integration tests: each starts its own streamcapd on a socket and database
# in a fresh temporary directory, so ctest may run them in parallel.

add_library(sc_it_harness STATIC ${CMAKE_CURRENT_SOURCE_DIR}/integration/harness.c
            ${CMAKE_CURRENT_SOURCE_DIR}/integration/corpus.c)
target_include_directories(sc_it_harness PUBLIC ${CMAKE_CURRENT_SOURCE_DIR}/integration)
target_compile_definitions(sc_it_harness PRIVATE SC_BIN_DIR="${CMAKE_RUNTIME_OUTPUT_DIRECTORY}")
target_link_libraries(sc_it_harness PUBLIC PkgConfig::CJSON PkgConfig::SQLITE3 PkgConfig::CMOCKA)

# sc_add_integration_test(NAME TIMEOUT): tests/integration/NAME.c.
function(sc_add_integration_test name timeout)
    sc_add_test(${name}
        SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/integration/${name}.c
        LIBS sc_it_harness Threads::Threads
        TIMEOUT ${timeout})
    target_compile_definitions(${name} PRIVATE SC_EXPECTED_VERSION="${PROJECT_VERSION}")
    add_dependencies(${name} streamcapd)
endfunction()

sc_add_integration_test(test_conformance_daemon 60)
sc_add_integration_test(test_jsonrpc 60)
sc_add_integration_test(test_sessions 60)
sc_add_integration_test(test_concurrent 180)
sc_add_integration_test(test_lifecycle 120)

# Stored-graph queries, the capture log, DOT export and the graph cache;
# itgraph.c builds random captures and the BFS oracle they are checked with.
add_library(sc_it_graph STATIC ${CMAKE_CURRENT_SOURCE_DIR}/integration/itgraph.c)
target_link_libraries(sc_it_graph PUBLIC sc_it_harness)

foreach(name test_queries test_log test_export test_cache)
    sc_add_integration_test(${name} 120)
    target_link_libraries(${name} PRIVATE sc_it_graph)
endforeach()
