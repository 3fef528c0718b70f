# Integration tests: each starts its own streamcapd on a socket and database
# in a fresh temporary directory, so ctest may run them in parallel.
sc_add_daemon_test(test_conformance_daemon integration 60)
# Cuda-mode sessions: the public cuda corpus exact, error 1009, the
# captures log and the upgrade of a version-1 database.
sc_add_daemon_test(test_cuda_daemon integration 120 LIBS sc_cuda_ops)
# capture.add_node with a whole node: attributes stored, conflicts refused.
sc_add_daemon_test(test_add_node integration 60)
# graph.submit with child graph and conditional nodes: bodies linked both ways.
sc_add_daemon_test(test_bodies integration 60)
sc_add_daemon_test(test_capture_bodies integration 60)
# Kernel argument values (args, param_sizes): stored, read back, checked.
sc_add_daemon_test(test_kernel_args integration 60)
# Buffer accesses: kept by every record call, read back, in the SQL view, checked.
sc_add_daemon_test(test_accesses integration 60)
# graph.stats: the figures of a submitted graph, and bad requests.
sc_add_daemon_test(test_stats integration 60)
# Fingerprints: the same capture from two sessions, the list filter, bodies.
sc_add_daemon_test(test_fingerprints integration 60)
# graph.races: the races of submitted graphs, limit and count, bad requests.
sc_add_daemon_test(test_races integration 60)
# --host-name on the rows, the host filter, server.info backend and host;
# the upgrades of version-3 and version-4 databases.
sc_add_daemon_test(test_hosts integration 60 LIBS sc_it_graph)
# A PostgreSQL --db's password in none of streamcapd's output.
sc_add_daemon_test(test_db_secrets integration 120)
sc_add_daemon_test(test_jsonrpc integration 60)
# Integer parameters: fractions refused even when they round to an
# integer, whole values spelled with a fraction or exponent accepted.
sc_add_daemon_test(test_integers integration 60)
sc_add_daemon_test(test_sessions integration 60)
sc_add_daemon_test(test_concurrent integration 180)
sc_add_daemon_test(test_lifecycle integration 120)
sc_add_daemon_test(test_daemon_logs integration 120)
sc_add_daemon_test(test_log_subscribe integration 120)
# Operations (docs/operations.md): store.backup under write load, served by
# a second daemon, and its refusals; --check-db and the start-up check on
# corrupted copies; server.info's metrics and the --metrics-socket scrape.
sc_add_daemon_test(test_backup integration 300 DEPENDS streamcap)
target_compile_definitions(test_backup PRIVATE SC_CLI_BINARY="$<TARGET_FILE:streamcap>")
sc_add_daemon_test(test_check_db integration 120)
sc_add_daemon_test(test_metrics integration 60)

# Stored-graph queries, the capture log, DOT export and the graph cache;
# itgraph.c builds random captures and the BFS oracle they are checked with.
add_library(sc_it_graph STATIC ${CMAKE_CURRENT_SOURCE_DIR}/integration/itgraph.c)
target_link_libraries(sc_it_graph PUBLIC sc_it_harness)

foreach(name test_queries test_log test_export test_cache)
    sc_add_daemon_test(${name} integration 120 LIBS sc_it_graph)
endforeach()

# Starting streamcapd: default paths, one daemon per database, databases
# that are not ours, start-up errors; it runs the streamcap tool too.
sc_add_daemon_test(test_startup integration 120 LIBS sc_ct_run DEPENDS streamcap)
# As root through setpriv: a /tmp/streamcap-UID another user made first.
sc_add_needs_test(test_startup test_tmp_squatter_refused)

# The CUDA runtime stand-in's daemon feed: a program built against the
# project's declarations, run against the built libcudart.so.13.
if(TARGET sc_cudart)
    add_executable(cudart_feed_prog ${CMAKE_CURRENT_SOURCE_DIR}/integration/cudart_feed_prog.c)
    target_include_directories(cudart_feed_prog PRIVATE ${PROJECT_SOURCE_DIR}/cudart)
    target_link_libraries(cudart_feed_prog PRIVATE sc_cudart libstreamcap)
    # Its kernel has a parameter layout: the stored graph shows the values.
    add_executable(cudart_args_prog ${CMAKE_CURRENT_SOURCE_DIR}/integration/cudart_args_prog.c
                   ${CMAKE_CURRENT_SOURCE_DIR}/cudart/fatbin_image.c)
    target_include_directories(cudart_args_prog PRIVATE ${PROJECT_SOURCE_DIR}/cudart
                               ${CMAKE_CURRENT_SOURCE_DIR}/cudart)
    target_link_libraries(cudart_args_prog PRIVATE sc_cudart)
    sc_add_daemon_test(test_cudart_feed integration 120 LIBS libstreamcap
                       DEPENDS cudart_feed_prog cudart_args_prog sc_cudart)
    target_compile_definitions(test_cudart_feed PRIVATE
        SC_ARGS_PROG="$<TARGET_FILE:cudart_args_prog>"
        SC_FEED_PROG="$<TARGET_FILE:cudart_feed_prog>"
        SC_CUDART_DIR="$<TARGET_FILE_DIR:sc_cudart>")
    # The buffer accesses it sends: kernel arguments, hand-built copies
    # and sets, and the races they make.
    add_executable(cudart_access_prog ${CMAKE_CURRENT_SOURCE_DIR}/integration/cudart_access_prog.c
                   ${CMAKE_CURRENT_SOURCE_DIR}/cudart/fatbin_image.c)
    target_include_directories(cudart_access_prog PRIVATE ${PROJECT_SOURCE_DIR}/cudart
                               ${CMAKE_CURRENT_SOURCE_DIR}/cudart)
    target_link_libraries(cudart_access_prog PRIVATE sc_cudart)
    sc_add_daemon_test(test_cudart_accesses integration 120
                       DEPENDS cudart_access_prog sc_cudart)
    target_compile_definitions(test_cudart_accesses PRIVATE
        SC_ACCESS_PROG="$<TARGET_FILE:cudart_access_prog>"
        SC_CUDART_DIR="$<TARGET_FILE_DIR:sc_cudart>")
endif()

# Retention and prune (docs/operations.md): graph.pin, store.prune's dry
# run against its prune, --keep, the --retain and --retain-log passes,
# clients served during a large prune, the file shrinking after prune and
# incremental vacuum, --max-db-size.  test_retention_pg (tests/pg.cmake)
# runs it on PostgreSQL.
sc_add_daemon_test(test_retention integration 300)
