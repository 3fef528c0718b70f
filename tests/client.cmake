# libstreamcap and the streamcap tool, each test against its own
# streamcapd (tests/integration/harness.c) in a temporary directory.
set(SC_CLIENT_TEST_DIR ${CMAKE_CURRENT_SOURCE_DIR}/client)

# The sanitizers reach the programs the example test compiles, so that
# they link against the sanitized library.
if(SC_SANITIZE)
    set(SC_EXAMPLE_FLAGS "-fsanitize=address,undefined")
else()
    set(SC_EXAMPLE_FLAGS "")
endif()

function(sc_add_client_test name timeout)
    sc_add_test(${name}
        SOURCES ${SC_CLIENT_TEST_DIR}/${name}.c ${SC_CLIENT_TEST_DIR}/run.c
                ${CMAKE_CURRENT_SOURCE_DIR}/integration/harness.c
        LIBS libstreamcap_static PkgConfig::CJSON PkgConfig::SQLITE3 Threads::Threads
        TIMEOUT ${timeout})
    target_include_directories(${name} PRIVATE ${SC_CLIENT_TEST_DIR}
                               ${CMAKE_CURRENT_SOURCE_DIR}/integration)
    target_compile_definitions(${name} PRIVATE SC_EXPECTED_VERSION="${PROJECT_VERSION}")
    add_dependencies(${name} streamcapd streamcap)
endfunction()

sc_add_client_test(test_client_lib 120)
sc_add_client_test(test_client_cli 180)
sc_add_client_test(test_client_example 300)
target_compile_definitions(test_client_example PRIVATE
    SC_VERSION="${PROJECT_VERSION}"
    SC_CMAKE_COMMAND="${CMAKE_COMMAND}"
    SC_BUILD_DIR="${CMAKE_BINARY_DIR}"
    SC_INSTALL_LIBDIR="${CMAKE_INSTALL_LIBDIR}"
    SC_QUICKSTART="${PROJECT_SOURCE_DIR}/client/examples/quickstart.c"
    SC_EXAMPLE_FLAGS="${SC_EXAMPLE_FLAGS}")
# `cmake --install` copies every installed target: all must be built.
add_dependencies(test_client_example libstreamcap libstreamcap_static)
