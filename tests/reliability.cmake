# Reliability and security tests: crash durability, storage errors, hostile
# input, slow and many clients, ownership between uids, valgrind.  Each runs
# its own streamcapd in a fresh temporary directory (integration harness),
# so ctest may run them in parallel.  Longer versions live in tests/soak/.

if(NOT TARGET sc_it_harness)
    add_library(sc_it_harness STATIC ${CMAKE_CURRENT_SOURCE_DIR}/integration/harness.c)
    target_include_directories(sc_it_harness PUBLIC ${CMAKE_CURRENT_SOURCE_DIR}/integration)
    target_compile_definitions(sc_it_harness PRIVATE SC_BIN_DIR="${CMAKE_RUNTIME_OUTPUT_DIRECTORY}")
    target_link_libraries(sc_it_harness PUBLIC PkgConfig::CJSON PkgConfig::SQLITE3
                          PkgConfig::CMOCKA)
endif()

add_library(sc_rel_util STATIC ${CMAKE_CURRENT_SOURCE_DIR}/reliability/rel_util.c)
target_include_directories(sc_rel_util PUBLIC ${CMAKE_CURRENT_SOURCE_DIR}/reliability)
target_link_libraries(sc_rel_util PUBLIC sc_it_harness PkgConfig::SQLITE3)
if(SC_SANITIZE)
    target_compile_definitions(sc_rel_util PUBLIC SC_REL_SANITIZED=1)
endif()

# sc_add_reliability_test(NAME TIMEOUT): tests/reliability/NAME.c.
function(sc_add_reliability_test name timeout)
    sc_add_test(${name}
        SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/reliability/${name}.c
        LIBS sc_rel_util Threads::Threads
        TIMEOUT ${timeout})
    add_dependencies(${name} streamcapd)
    # Exit status 77: the machine cannot run the test (not root, no valgrind).
    set_tests_properties(${name} PROPERTIES SKIP_RETURN_CODE 77 LABELS reliability)
endfunction()

sc_add_reliability_test(test_rel_crash 120)
sc_add_reliability_test(test_rel_storage 60)
sc_add_reliability_test(test_rel_input 60)
sc_add_reliability_test(test_rel_clients 90)
sc_add_reliability_test(test_rel_owner 60)
sc_add_reliability_test(test_rel_valgrind 120)

# The full-disk check needs a filesystem of its own: tests/soak/fullfs.sh.
add_executable(rel_fullfs ${CMAKE_CURRENT_SOURCE_DIR}/reliability/rel_fullfs.c)
target_link_libraries(rel_fullfs PRIVATE sc_rel_util PkgConfig::CMOCKA)
set_target_properties(rel_fullfs PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/tests)
add_dependencies(rel_fullfs streamcapd)
