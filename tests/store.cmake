# Storage tests: the store on a temporary database, with the core graph.
set(SC_STORE_TEST_HELPERS ${CMAKE_CURRENT_SOURCE_DIR}/store/store_fixture.c)
sc_add_test(test_store
    SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/store/test_store.c ${SC_STORE_TEST_HELPERS}
    LIBS sc_store sc_core PkgConfig::LIBUV)
sc_add_test(test_store_errors
    SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/store/test_store_errors.c ${SC_STORE_TEST_HELPERS}
    LIBS sc_store sc_core PkgConfig::LIBUV)
sc_add_test(test_store_stream
    SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/store/test_store_stream.c ${SC_STORE_TEST_HELPERS}
    LIBS sc_store sc_core PkgConfig::LIBUV)
sc_add_test(test_store_list
    SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/store/test_store_list.c ${SC_STORE_TEST_HELPERS}
    LIBS sc_store sc_core PkgConfig::LIBUV)
# The accesses' JSON text both backends keep.
sc_add_test(test_store_access SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/store/test_store_access.c
    LIBS sc_store sc_core)
# Body graphs of child graph and conditional nodes: links, lists, deletion.
sc_add_test(test_store_bodies
    SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/store/test_store_bodies.c ${SC_STORE_TEST_HELPERS}
    LIBS sc_store sc_core PkgConfig::LIBUV)
# docs/sql.md's queries, run by the stock sqlite3 shell (scripts/deps installs it).
find_program(SC_SQLITE3_SHELL sqlite3)
if(NOT SC_SQLITE3_SHELL)
    set(SC_SQLITE3_SHELL sqlite3)
endif()
sc_add_test(test_sql_doc
    SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/store/test_sql_doc.c ${SC_STORE_TEST_HELPERS}
    LIBS sc_store sc_core PkgConfig::LIBUV)
target_compile_definitions(test_sql_doc PRIVATE
    SC_DOCS_DIR="${PROJECT_SOURCE_DIR}/docs" SC_SQLITE3_SHELL="${SC_SQLITE3_SHELL}")
# graph_index rows and skeleton loads.
sc_add_test(test_store_index
    SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/store/test_store_index.c ${SC_STORE_TEST_HELPERS}
    LIBS sc_store sc_core PkgConfig::LIBUV)
# The graph cache (daemon/cache.c) on a real store: full and skeleton entries.
sc_add_test(test_cache_kinds
    SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/store/test_cache_kinds.c
            ${PROJECT_SOURCE_DIR}/daemon/cache.c ${SC_STORE_TEST_HELPERS}
    LIBS sc_store sc_core PkgConfig::LIBUV)
# cache.c's own header, which the store's include directories no longer hold.
target_include_directories(test_cache_kinds PRIVATE ${PROJECT_SOURCE_DIR}/daemon)
# The daemon's mapping of core and store codes onto JSON-RPC (daemon/errors.c).
sc_add_test(test_rpc_errors SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/store/test_rpc_errors.c
            LIBS sc_daemon)
# A conditional node's fields on the wire (daemon/cond_node.c).
sc_add_test(test_cond_node SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/store/test_cond_node.c
            LIBS sc_daemon)
# What the daemon shows of --db: never a PostgreSQL password (daemon/redact.c).
sc_add_test(test_redact SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/store/test_redact.c LIBS sc_daemon)
# The operators' counters and their Prometheus text (daemon/metrics.c).
sc_add_test(test_metrics_unit SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/store/test_metrics_unit.c
            LIBS sc_daemon Threads::Threads)
