# The CUDA runtime stand-in (cudart/): its runtime half through the
# project's own declarations, and the ABI against the toolkit where one is
# installed.
# White-box: the library's objects linked in, so that the rt.h accessors
# (local in libcudart.so.13) can check what a capture built.
sc_add_test(test_cudart_rt SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/cudart/test_cudart_rt.c
            LIBS sc_cudart_obj)

# The ABI: exports under the version node everywhere; layouts, prototypes
# and the error table against the toolkit where it is installed.
sc_add_command_test(test_cudart_abi
    COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/cudart/abi_check.sh ${CMAKE_C_COMPILER}
            ${PROJECT_SOURCE_DIR} $<TARGET_FILE:sc_cudart> ${CMAKE_NM}
    TIMEOUT 120 SKIP_RETURN_CODE 77)

set(SC_CUDART_TEST_DIR ${CMAKE_CURRENT_LIST_DIR}/cudart)

# The exports left to unsupported.c's weak fallbacks are the list of
# docs/cudart.md.
if(TARGET sc_cudart)
    sc_add_command_test(test_cudart_unsupported_doc
        COMMAND sh ${SC_CUDART_TEST_DIR}/unsupported_doc.sh ${CMAKE_NM} $<TARGET_FILE:sc_cudart>
                ${PROJECT_SOURCE_DIR}/docs/cudart.md)
endif()

# Graph half: its sources with a stub runtime half, so the graph API is
# tested on its own (test_cudart_graph_half reads the stub's counters), and
# the public-API test against the built libcudart.so.13 where it exists.
set(SC_CUDART_GRAPH_SOURCES
    ${PROJECT_SOURCE_DIR}/cudart/graph.c ${PROJECT_SOURCE_DIR}/cudart/graph_api.c
    ${PROJECT_SOURCE_DIR}/cudart/graph_params.c ${PROJECT_SOURCE_DIR}/cudart/graph_exec.c
    ${PROJECT_SOURCE_DIR}/cudart/graph_dot.c ${PROJECT_SOURCE_DIR}/cudart/graph_setters.c
    ${PROJECT_SOURCE_DIR}/cudart/graph_attr.c ${PROJECT_SOURCE_DIR}/cudart/graph_uobj.c
    ${PROJECT_SOURCE_DIR}/cudart/graph_args.c ${PROJECT_SOURCE_DIR}/cudart/graph_mem.c
    ${PROJECT_SOURCE_DIR}/cudart/graph_symbol.c ${PROJECT_SOURCE_DIR}/cudart/graph_cond.c
    ${PROJECT_SOURCE_DIR}/cudart/graph_nodes.c)
add_library(sc_cudart_graph_stub STATIC ${SC_CUDART_GRAPH_SOURCES}
            ${SC_CUDART_TEST_DIR}/graph_rt_stub.c)
target_include_directories(sc_cudart_graph_stub PUBLIC ${PROJECT_SOURCE_DIR}/cudart
                           ${SC_CUDART_TEST_DIR})
target_link_libraries(sc_cudart_graph_stub PUBLIC sc_core Threads::Threads)
sc_add_test(test_cudart_graph_half SOURCES ${SC_CUDART_TEST_DIR}/test_graph_half.c
            LIBS sc_cudart_graph_stub)
if(TARGET sc_cudart)
    sc_add_test(test_cudart_graph_api SOURCES ${SC_CUDART_TEST_DIR}/test_graph_api.c LIBS sc_cudart)
    target_include_directories(test_cudart_graph_api PRIVATE ${PROJECT_SOURCE_DIR}/cudart)
    # No daemon: the stand-in warns once and keeps graphs in process.
    set_tests_properties(test_cudart_graph_api PROPERTIES
        ENVIRONMENT "STREAMCAP_SOCKET=${CMAKE_BINARY_DIR}/tests/no-daemon.sock")
    sc_add_test(test_cudart_graph_cond SOURCES ${SC_CUDART_TEST_DIR}/test_graph_cond.c
                LIBS sc_cudart)
    target_include_directories(test_cudart_graph_cond PRIVATE ${PROJECT_SOURCE_DIR}/cudart)
    set_tests_properties(test_cudart_graph_cond PROPERTIES
        ENVIRONMENT "STREAMCAP_SOCKET=${CMAKE_BINARY_DIR}/tests/no-daemon.sock")
else()
    sc_add_test(test_cudart_graph_api SOURCES ${SC_CUDART_TEST_DIR}/test_graph_api.c
                LIBS sc_cudart_graph_stub)
    sc_add_test(test_cudart_graph_cond SOURCES ${SC_CUDART_TEST_DIR}/test_graph_cond.c
                LIBS sc_cudart_graph_stub)
endif()

# The calls around capture sections (rt_func.c, rt_pitched.c,
# rt_stream_attr.c and parts of rt_device.c, rt_mem.c) and the graph setters:
# white-box, like test_cudart_rt.
sc_add_test(test_cudart_extra SOURCES ${SC_CUDART_TEST_DIR}/test_cudart_extra.c
            LIBS sc_cudart_obj)

# cudaStreamBeginCaptureToGraph: white-box, like test_cudart_rt.
sc_add_test(test_cudart_to_graph SOURCES ${SC_CUDART_TEST_DIR}/test_cudart_to_graph.c
            LIBS sc_cudart_obj)

# STREAMCAP_TRACE=1: every call and its result on stderr.
sc_add_test(test_cudart_trace SOURCES ${SC_CUDART_TEST_DIR}/test_cudart_trace.c
            LIBS sc_cudart_obj)
set_tests_properties(test_cudart_trace PROPERTIES
    ENVIRONMENT "STREAMCAP_SOCKET=${CMAKE_BINARY_DIR}/tests/no-daemon.sock")

# Fat binaries read at registration (fatbin.c, rt_fatbin.c) and kernel
# nodes' own copies of their argument values (graph_args.c).
sc_add_test(test_cudart_fatbin SOURCES ${SC_CUDART_TEST_DIR}/test_cudart_fatbin.c
            ${SC_CUDART_TEST_DIR}/fatbin_image.c LIBS sc_cudart_obj)
set_tests_properties(test_cudart_fatbin PROPERTIES
    ENVIRONMENT "STREAMCAP_SOCKET=${CMAKE_BINARY_DIR}/tests/no-daemon.sock;STREAMCAP_DEVICE=L4")

# The mangled-name reader behind kernels' buffer accesses (which pointer
# parameters point to const), against names nvcc gave real kernels.
sc_add_test(test_cudart_mangle SOURCES ${SC_CUDART_TEST_DIR}/test_mangle_params.c
            ${PROJECT_SOURCE_DIR}/cudart/mangle_params.c)
target_include_directories(test_cudart_mangle PRIVATE ${PROJECT_SOURCE_DIR}/cudart)

# The daemon feed's record queue, alone: order, argument room, block reuse.
sc_add_test(test_cudart_queue SOURCES ${SC_CUDART_TEST_DIR}/test_cudart_queue.c
            ${PROJECT_SOURCE_DIR}/cudart/rt_queue.c LIBS Threads::Threads)
target_include_directories(test_cudart_queue PRIVATE ${PROJECT_SOURCE_DIR}/cudart)

# When the feed thread sends: bursts waited out, the daemon kept close.
sc_add_test(test_cudart_pace SOURCES ${SC_CUDART_TEST_DIR}/test_cudart_pace.c
            ${PROJECT_SOURCE_DIR}/cudart/rt_pace.c)
target_include_directories(test_cudart_pace PRIVATE ${PROJECT_SOURCE_DIR}/cudart)

# Libraries loaded at run time (rt_library.c) from images built in the test.
sc_add_test(test_cudart_library SOURCES ${SC_CUDART_TEST_DIR}/test_cudart_library.c
            ${SC_CUDART_TEST_DIR}/fatbin_image.c LIBS sc_cudart_obj)
set_tests_properties(test_cudart_library PROPERTIES
    ENVIRONMENT "STREAMCAP_SOCKET=${CMAKE_BINARY_DIR}/tests/no-daemon.sock")

# Memory pools (rt_pool.c).
sc_add_test(test_cudart_pool SOURCES ${SC_CUDART_TEST_DIR}/test_cudart_pool.c
            LIBS sc_cudart_obj)

# Graph memory (graph_mem.c): addresses, the graph memory pool, cudaFree
# of graph allocations.
sc_add_test(test_cudart_graph_mem SOURCES ${SC_CUDART_TEST_DIR}/test_cudart_graph_mem.c
            LIBS sc_cudart_obj)
set_tests_properties(test_cudart_graph_mem PROPERTIES
    ENVIRONMENT "STREAMCAP_SOCKET=${CMAKE_BINARY_DIR}/tests/no-daemon.sock")

# CUDA arrays (rt_array.c): white-box, like test_cudart_rt.
sc_add_test(test_cudart_array SOURCES ${SC_CUDART_TEST_DIR}/test_cudart_array.c
            LIBS sc_cudart_obj)
set_tests_properties(test_cudart_array PROPERTIES
    ENVIRONMENT "STREAMCAP_SOCKET=${CMAKE_BINARY_DIR}/tests/no-daemon.sock")

# The end-to-end scenario suite (tests/cudart/suite.cmake).
include(${CMAKE_CURRENT_SOURCE_DIR}/cudart/suite.cmake)
# CUB, Thrust and kernel arguments built with nvcc (tests/cudart/cccl/cccl.cmake).
include(${CMAKE_CURRENT_SOURCE_DIR}/cudart/cccl/cccl.cmake)
# Device code loaded at run time (tests/cudart/library/library.cmake).
include(${CMAKE_CURRENT_SOURCE_DIR}/cudart/library/library.cmake)
# A program killed mid-capture (tests/cudart/killed/killed.cmake).
include(${CMAKE_CURRENT_SOURCE_DIR}/cudart/killed/killed.cmake)
