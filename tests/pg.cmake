# The PostgreSQL backend against a real server: each test runs under
# tests/pg/cluster.sh, which starts a private cluster for it and removes it
# afterwards (77, skipped, without PostgreSQL's server binaries).
if(LIBPQ_FOUND)
    set(SC_PG_CLUSTER ${CMAKE_CURRENT_SOURCE_DIR}/pg/cluster.sh)
    add_executable(test_pg_backend ${CMAKE_CURRENT_SOURCE_DIR}/pg/test_pg_backend.c)
    target_link_libraries(test_pg_backend PRIVATE sc_store sc_core PkgConfig::CMOCKA
                          Threads::Threads)
    target_link_libraries(test_pg_backend PRIVATE sc_test_skip)
    # The store suite's fixture: its PostgreSQL connections and graph checks.
    target_sources(test_pg_backend PRIVATE ${SC_STORE_TEST_HELPERS})
    target_include_directories(test_pg_backend PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/store)
    target_link_libraries(test_pg_backend PRIVATE PkgConfig::LIBUV)
    set_target_properties(test_pg_backend PROPERTIES RUNTIME_OUTPUT_DIRECTORY
                          ${CMAKE_BINARY_DIR}/tests)
    sc_add_command_test(test_pg_backend
        COMMAND ${SC_PG_CLUSTER} $<TARGET_FILE:test_pg_backend>
        TIMEOUT 180 SKIP_RETURN_CODE 77 LABELS pg)
    # The server stopped and started again: STREAMCAP_TEST_PG_STOP and _START.
    sc_add_needs_test(test_pg_backend test_server_restart PREFIX ${SC_PG_CLUSTER})
    sc_add_needs_test(test_pg_backend test_first_write_after_restart PREFIX ${SC_PG_CLUSTER})
    sc_add_needs_test(test_pg_backend test_commit_outcome_unknown PREFIX ${SC_PG_CLUSTER})
endif()
# Writes whose connection breaks: the server crashed and started again in a
# loop under four sessions storing big graphs (tests/soak/pg_outcome.sh
# runs it for longer).
if(LIBPQ_FOUND)
    add_executable(test_pg_outcome ${CMAKE_CURRENT_SOURCE_DIR}/pg/test_pg_outcome.c
                   ${SC_STORE_TEST_HELPERS})
    target_link_libraries(test_pg_outcome PRIVATE sc_store sc_core PkgConfig::CMOCKA
                          PkgConfig::LIBUV Threads::Threads sc_test_skip)
    target_include_directories(test_pg_outcome PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/store)
    set_target_properties(test_pg_outcome PROPERTIES RUNTIME_OUTPUT_DIRECTORY
                          ${CMAKE_BINARY_DIR}/tests)
    if(SC_SANITIZE)
        target_compile_definitions(test_pg_outcome PRIVATE SC_PG_OUTCOME_SANITIZED=1)
    endif()
    sc_add_command_test(test_pg_outcome
        COMMAND ${SC_PG_CLUSTER} $<TARGET_FILE:test_pg_outcome>
        TIMEOUT 240 SKIP_RETURN_CODE 77 LABELS pg)
endif()
# The store suite (tests/store.cmake) again on PostgreSQL: one cluster per
# binary, one fresh database per test (tests/store/store_fixture.c), the
# tests of SQLite's own mechanisms skipped there.  test_sql_doc is not
# here: it runs docs/sql.md, which is written for the sqlite3 shell.
if(LIBPQ_FOUND)
    foreach(t test_store test_store_errors test_store_list test_store_bodies test_store_index
              test_cache_kinds)
        sc_add_command_test(${t}_pg
            COMMAND ${SC_PG_CLUSTER} $<TARGET_FILE:${t}>
            TIMEOUT 240 SKIP_RETURN_CODE 77 LABELS pg)
    endforeach()
endif()
# Retention and prune through a daemon on the cluster's database
# (tests/integration/test_retention.c; the tests of SQLite's file skipped).
if(LIBPQ_FOUND)
    sc_add_command_test(test_retention_pg
        COMMAND ${SC_PG_CLUSTER} $<TARGET_FILE:test_retention>
        TIMEOUT 300 SKIP_RETURN_CODE 77 LABELS pg)
endif()
# Two daemons, two hosts, one cluster: concurrent captures, kill -9 during
# commits, and the server stopped mid-run (1007) and back.
if(LIBPQ_FOUND)
    sc_add_command_test(test_pg_fleet
        COMMAND ${SC_PG_CLUSTER} ${CMAKE_CURRENT_SOURCE_DIR}/pg/fleet.sh
                ${CMAKE_RUNTIME_OUTPUT_DIRECTORY}
        TIMEOUT 240 SKIP_RETURN_CODE 77 LABELS pg)
endif()
# A log subscriber on one daemon hears another's events (LISTEN/NOTIFY).
if(LIBPQ_FOUND)
    sc_add_command_test(test_pg_fleet_events
        COMMAND ${SC_PG_CLUSTER} ${CMAKE_CURRENT_SOURCE_DIR}/pg/fleet_events.sh
                ${CMAKE_RUNTIME_OUTPUT_DIRECTORY}
        TIMEOUT 120 SKIP_RETURN_CODE 77 LABELS pg)
endif()
# test_hosts expects the start-up message of the build it runs against.
if(LIBPQ_FOUND AND TARGET test_hosts)
    target_compile_definitions(test_hosts PRIVATE SC_HAVE_POSTGRESQL)
endif()
# The same programs on SQLite and on PostgreSQL give the same fingerprints:
# a baseline written against one passes against the other.
if(LIBPQ_FOUND AND TARGET sc_cudart)
    set(SC_FP_PROGRAMS)
    foreach(name fork_join by_hand child_graph conditional child_capture graph_mem)
        list(APPEND SC_FP_PROGRAMS $<TARGET_FILE:suite_${name}_c>)
    endforeach()
    sc_add_command_test(test_pg_fingerprints
        COMMAND ${SC_PG_CLUSTER} ${CMAKE_CURRENT_SOURCE_DIR}/pg/fingerprints.sh
                ${CMAKE_RUNTIME_OUTPUT_DIRECTORY} ${SC_FP_PROGRAMS}
        TIMEOUT 120 SKIP_RETURN_CODE 77 LABELS pg)
endif()
