# libstreamcap and the streamcap tool, each test against its own
# streamcapd (the integration harness) in a temporary directory; run.c runs
# the tool and the compilers as subprocesses.
add_library(sc_ct_run STATIC ${CMAKE_CURRENT_SOURCE_DIR}/client/run.c)
target_include_directories(sc_ct_run PUBLIC ${CMAKE_CURRENT_SOURCE_DIR}/client)

# The sanitizers reach the programs the example test compiles, so that
# they link against the sanitized library.
if(SC_SANITIZE)
    set(SC_EXAMPLE_FLAGS "-fsanitize=address,undefined")
else()
    set(SC_EXAMPLE_FLAGS "")
endif()

# cli_fixture.c: the tool's tests' daemon, client and subprocess runs.
add_library(sc_cli_fixture STATIC ${CMAKE_CURRENT_SOURCE_DIR}/client/cli_fixture.c)
target_include_directories(sc_cli_fixture PUBLIC ${CMAKE_CURRENT_SOURCE_DIR}/client)
target_compile_definitions(sc_cli_fixture PRIVATE SC_BIN_DIR="${CMAKE_RUNTIME_OUTPUT_DIRECTORY}")
target_link_libraries(sc_cli_fixture PUBLIC sc_ct_run sc_it_harness libstreamcap_static)

set(SC_CLIENT_TEST_ARGS LIBS sc_ct_run libstreamcap_static DEPENDS streamcap)
sc_add_daemon_test(test_client_lib client 120 ${SC_CLIENT_TEST_ARGS})
sc_add_daemon_test(test_client_cli client 180 ${SC_CLIENT_TEST_ARGS})
sc_add_daemon_test(test_client_info client 120 ${SC_CLIENT_TEST_ARGS})
sc_add_daemon_test(test_client_hosts client 120 ${SC_CLIENT_TEST_ARGS})
sc_add_daemon_test(test_client_cli_habits client 180 ${SC_CLIENT_TEST_ARGS})
sc_add_daemon_test(test_client_cli_bodies client 120 ${SC_CLIENT_TEST_ARGS})
# graph stats ID and sc_client_graph_stats() on the demo graph.
sc_add_daemon_test(test_client_cli_stats client 60 ${SC_CLIENT_TEST_ARGS})
# graph diff A B and sc_client_graph_diff(): same, changed, errors.
sc_add_daemon_test(test_client_cli_diff client 60 ${SC_CLIENT_TEST_ARGS})
# graph races ID, its exit status, render --races and sc_client_graph_races().
sc_add_daemon_test(test_client_cli_races client 60 ${SC_CLIENT_TEST_ARGS})
# log.subscribe: sc_client_log_subscribe/next() and streamcap log -f.
sc_add_daemon_test(test_client_cli_logf client 120 ${SC_CLIENT_TEST_ARGS})
sc_add_daemon_test(test_client_errors client 60 ${SC_CLIENT_TEST_ARGS})
# A socket the caller may not open (as root: setpriv to another uid).
sc_add_needs_test(test_client_errors test_permission_denied)
sc_add_daemon_test(test_client_cuda_cli client 180 ${SC_CLIENT_TEST_ARGS})
sc_add_daemon_test(test_client_cuda_lib client 60 ${SC_CLIENT_TEST_ARGS})
foreach(t test_client_cli test_client_cli_habits test_client_cli_bodies test_client_cli_stats
        test_client_cli_diff test_client_cli_races test_client_cli_logf test_client_cuda_cli)
    target_link_libraries(${t} PRIVATE sc_cli_fixture)
endforeach()
sc_add_daemon_test(test_client_async client 120 LIBS sc_ct_run libstreamcap_static Threads::Threads)
# The literal reading of record replies against the full decoder: linked
# with the library's objects, whose internal functions it calls.
sc_add_test(test_client_fast_reply SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/client/test_client_fast_reply.c
            LIBS sc_client_obj PkgConfig::CJSON Threads::Threads m)
target_include_directories(test_client_fast_reply PRIVATE ${PROJECT_SOURCE_DIR}/client
                           ${PROJECT_SOURCE_DIR}/proto ${PROJECT_SOURCE_DIR}/core)
sc_add_daemon_test(test_client_example client 300 ${SC_CLIENT_TEST_ARGS})
target_compile_definitions(test_client_example PRIVATE
    SC_VERSION="${PROJECT_VERSION}"
    SC_CMAKE_COMMAND="${CMAKE_COMMAND}"
    SC_BUILD_DIR="${CMAKE_BINARY_DIR}"
    SC_INSTALL_LIBDIR="${CMAKE_INSTALL_LIBDIR}"
    SC_QUICKSTART="${PROJECT_SOURCE_DIR}/client/examples/quickstart.c"
    SC_EXAMPLE_FLAGS="${SC_EXAMPLE_FLAGS}")
# `cmake --install` copies every installed target: all must be built.
add_dependencies(test_client_example libstreamcap libstreamcap_static)

# streamcap run: run_probe stands in for a CUDA program, reporting into
# $STREAMCAP_REPORT as the runtime stand-in does.
add_executable(run_probe ${CMAKE_CURRENT_SOURCE_DIR}/client/run_probe.c)
set_target_properties(run_probe PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/tests)
sc_add_daemon_test(test_client_run client 180 LIBS sc_ct_run DEPENDS streamcap run_probe)
# streamcap run --fail-on, a forked child, another libcudart first: run_cuda
# is a C program linked against the stand-in.
if(TARGET sc_cudart)
    add_executable(run_cuda ${CMAKE_CURRENT_SOURCE_DIR}/client/run_cuda.c)
    target_include_directories(run_cuda PRIVATE ${PROJECT_SOURCE_DIR}/cudart)
    target_link_libraries(run_cuda PRIVATE sc_cudart Threads::Threads)
    set_target_properties(run_cuda PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/tests)
    sc_add_daemon_test(test_client_run_fail client 180 LIBS sc_ct_run libstreamcap_static
                       DEPENDS streamcap run_probe run_cuda)
    target_link_libraries(test_client_run_fail PRIVATE sc_cli_fixture)
    # streamcap run --baseline: written, passed, failed with a diff, updated.
    sc_add_daemon_test(test_client_run_baseline client 180 LIBS sc_ct_run libstreamcap_static
                       DEPENDS streamcap run_cuda)
    target_link_libraries(test_client_run_baseline PRIVATE sc_cli_fixture)
    target_compile_definitions(test_client_run_baseline PRIVATE
        SC_RUN_CUDA="$<TARGET_FILE:run_cuda>")
    # run_rpath: linked against the stand-in, with a DT_RPATH (not RUNPATH)
    # to a directory holding another libcudart.so.13.
    set(dummy_dir ${CMAKE_BINARY_DIR}/tests/dummy_cudart)
    add_library(dummy_cudart SHARED ${CMAKE_CURRENT_SOURCE_DIR}/client/dummy_cudart.c)
    set_target_properties(dummy_cudart PROPERTIES OUTPUT_NAME cudart SOVERSION 13
                          LIBRARY_OUTPUT_DIRECTORY ${dummy_dir})
    target_link_options(dummy_cudart PRIVATE
        -Wl,--version-script=${CMAKE_CURRENT_SOURCE_DIR}/client/dummy_cudart.map)
    add_executable(run_rpath ${CMAKE_CURRENT_SOURCE_DIR}/client/run_rpath.c)
    target_include_directories(run_rpath PRIVATE ${PROJECT_SOURCE_DIR}/cudart)
    target_link_libraries(run_rpath PRIVATE sc_cudart)
    set_target_properties(run_rpath PROPERTIES SKIP_BUILD_RPATH TRUE
                          RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/tests)
    target_link_options(run_rpath PRIVATE -Wl,--disable-new-dtags,-rpath,${dummy_dir})
    add_dependencies(test_client_run_fail run_rpath dummy_cudart)
    target_compile_definitions(test_client_run_fail PRIVATE
        SC_RUN_PROBE="$<TARGET_FILE:run_probe>" SC_RUN_CUDA="$<TARGET_FILE:run_cuda>"
        SC_RUN_RPATH="$<TARGET_FILE:run_rpath>" SC_DUMMY_CUDART="${dummy_dir}/libcudart.so.13")
endif()

# The same under nvcc: run_cuda.cu with the shared runtime and with nvcc's
# default static one (test_client_run_cu skips, saying why, without nvcc or
# in a sanitized build, whose stand-in an nvcc program cannot load alone).
include(${CMAKE_CURRENT_SOURCE_DIR}/cudart/nvcc.cmake)
sc_find_nvcc(SC_RUN_NVCC SC_RUN_NVCC_WHY)
if(SC_SANITIZE)
    set(SC_RUN_NVCC "")
    set(SC_RUN_NVCC_WHY "a sanitized stand-in needs its runtime preloaded into nvcc programs")
endif()
set(SC_RUN_CU_SCRIPT ${CMAKE_CURRENT_SOURCE_DIR}/client/run_cu.sh)
if(TARGET sc_cudart AND SC_RUN_NVCC)
    set(cu_src ${CMAKE_CURRENT_SOURCE_DIR}/client/run_cuda.cu)
    set(cu_shared ${CMAKE_BINARY_DIR}/tests/run_cuda_cu)
    set(cu_static ${CMAKE_BINARY_DIR}/tests/run_cuda_cu_static)
    add_custom_command(OUTPUT ${cu_shared} ${cu_static}
        COMMAND ${SC_RUN_NVCC} -cudart shared -o ${cu_shared} ${cu_src}
        COMMAND ${SC_RUN_NVCC} -o ${cu_static} ${cu_src}
        DEPENDS ${cu_src} COMMENT "nvcc run_cuda.cu" VERBATIM)
    add_custom_target(run_cuda_cu ALL DEPENDS ${cu_shared} ${cu_static})
    sc_add_command_test(test_client_run_cu
        COMMAND sh ${SC_RUN_CU_SCRIPT} ${CMAKE_RUNTIME_OUTPUT_DIRECTORY} ${cu_shared} ${cu_static}
        TIMEOUT 120 SKIP_RETURN_CODE 77)
    # Kernel arguments' accesses of a real nvcc build, and the race they make.
    set(acc_src ${CMAKE_CURRENT_SOURCE_DIR}/client/access.cu)
    set(acc_bin ${CMAKE_BINARY_DIR}/tests/access_cu)
    add_custom_command(OUTPUT ${acc_bin}
        COMMAND ${SC_RUN_NVCC} -cudart shared -o ${acc_bin} ${acc_src}
        DEPENDS ${acc_src} COMMENT "nvcc access.cu" VERBATIM)
    add_custom_target(access_cu ALL DEPENDS ${acc_bin})
    sc_add_command_test(test_client_access_cu
        COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/client/access_cu.sh ${CMAKE_RUNTIME_OUTPUT_DIRECTORY}
                ${acc_bin}
        TIMEOUT 120 SKIP_RETURN_CODE 77)
else()
    if(NOT SC_RUN_NVCC_WHY)
        set(SC_RUN_NVCC_WHY "the stand-in is not built")
    endif()
    sc_add_command_test(test_client_run_cu
        COMMAND sh ${SC_RUN_CU_SCRIPT} --skip "${SC_RUN_NVCC_WHY}" SKIP_RETURN_CODE 77)
    sc_add_command_test(test_client_access_cu
        COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/client/access_cu.sh --skip "${SC_RUN_NVCC_WHY}"
        SKIP_RETURN_CODE 77)
endif()
include(GNUInstallDirs)
file(RELATIVE_PATH SC_RUN_CUDART_REL ${CMAKE_INSTALL_FULL_BINDIR}
     ${CMAKE_INSTALL_FULL_LIBDIR}/streamcap/cudart)
target_compile_definitions(test_client_run PRIVATE
    SC_RUN_PROBE="$<TARGET_FILE:run_probe>"
    SC_CUDART_FROM_BINDIR="${SC_RUN_CUDART_REL}"
    SC_CUDART_INSTALL_DIR="${CMAKE_INSTALL_FULL_LIBDIR}/streamcap/cudart")
