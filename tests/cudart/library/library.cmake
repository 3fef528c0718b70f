# Device code loaded at run time (tests/cudart/library): lib_kernels.cu
# built with nvcc -fatbin (nvcc's default architecture, which the default
# device runs through its PTX) and -cubin -arch=sm_90 (the default
# device's SASS), loaded by load_library.cu, itself built with
# -cudart shared and run against the stand-in; it checks what it gets and
# exits non-zero when something differs.  Without nvcc, or where the
# sanitized stand-in cannot be loaded by an nvcc program, the test is
# registered and skips, saying why.
set(SC_LIB_DIR ${CMAKE_CURRENT_LIST_DIR})
set(SC_LIB_OUT ${CMAKE_BINARY_DIR}/tests/cudart/library)

set(SC_LIB_WHY "")
if(NOT SC_NVCC_EXECUTABLE)
    set(SC_LIB_WHY "${SC_NVCC_WHY}")
elseif(SC_SUITE_PRELOAD_WHY)
    set(SC_LIB_WHY "${SC_SUITE_PRELOAD_WHY}")
endif()

if(SC_LIB_WHY)
    sc_add_command_test(cudart_library_load_cu
        COMMAND sh -c "echo \"$1\" && exit 77" sh "${SC_LIB_WHY}"
        SKIP_RETURN_CODE 77)
    return()
endif()

add_custom_command(OUTPUT ${SC_LIB_OUT}/lib_kernels.fatbin ${SC_LIB_OUT}/lib_kernels.cubin
    COMMAND ${CMAKE_COMMAND} -E make_directory ${SC_LIB_OUT}
    COMMAND ${SC_NVCC_EXECUTABLE} -fatbin -o ${SC_LIB_OUT}/lib_kernels.fatbin
            ${SC_LIB_DIR}/lib_kernels.cu
    COMMAND ${SC_NVCC_EXECUTABLE} -cubin -arch=sm_90 -o ${SC_LIB_OUT}/lib_kernels.cubin
            ${SC_LIB_DIR}/lib_kernels.cu
    DEPENDS ${SC_LIB_DIR}/lib_kernels.cu
    COMMENT "nvcc -fatbin, -cubin lib_kernels.cu" VERBATIM)
add_custom_command(OUTPUT ${SC_LIB_OUT}/load_library
    COMMAND ${CMAKE_COMMAND} -E make_directory ${SC_LIB_OUT}
    COMMAND ${SC_NVCC_EXECUTABLE} -cudart shared -o ${SC_LIB_OUT}/load_library
            ${SC_LIB_DIR}/load_library.cu
    DEPENDS ${SC_LIB_DIR}/load_library.cu ${SC_LIB_DIR}/../cccl/graph_check.h
    COMMENT "nvcc load_library.cu" VERBATIM)
add_custom_target(cudart_library_programs ALL
    DEPENDS ${SC_LIB_OUT}/lib_kernels.fatbin ${SC_LIB_OUT}/load_library)

sc_add_command_test(cudart_library_load_cu
    COMMAND ${SC_LIB_OUT}/load_library ${SC_LIB_OUT}/lib_kernels.fatbin
            ${SC_LIB_OUT}/lib_kernels.cubin
    TIMEOUT 120)
set(env "STREAMCAP_SOCKET=${CMAKE_BINARY_DIR}/tests/no-daemon.sock"
        "LD_LIBRARY_PATH=${CMAKE_BINARY_DIR}/lib/streamcap/cudart")
if(SC_SUITE_PRELOAD)
    list(APPEND env "LD_PRELOAD=${SC_SUITE_PRELOAD}")
endif()
set_tests_properties(cudart_library_load_cu PROPERTIES ENVIRONMENT "${env}")
