# CUB, Thrust and kernel arguments as nvcc builds them (tests/cudart/cccl):
# each program at nvcc's default architecture and at two -arch values, run
# against the stand-in on devices of its table; each checks its graph node
# by node and exits non-zero when it differs.  Without nvcc, or where the
# sanitized stand-in cannot be loaded by an nvcc program, the tests are
# registered and skip, saying why.
set(SC_CCCL_DIR ${CMAKE_CURRENT_LIST_DIR})
set(SC_CCCL_OUT ${CMAKE_BINARY_DIR}/tests/cudart/cccl)
set(SC_CCCL_PROGRAMS cub_capture thrust_capture kernel_args)
# arch tag, nvcc flags, devices its build runs on (STREAMCAP_DEVICE).
set(SC_CCCL_ARCHS default sm_80 sm_90)
set(SC_CCCL_FLAGS_default "")
set(SC_CCCL_FLAGS_sm_80 -arch=sm_80)
set(SC_CCCL_FLAGS_sm_90 -arch=sm_90)
set(SC_CCCL_DEVICES_default default L4 B200)
set(SC_CCCL_DEVICES_sm_80 A100)
set(SC_CCCL_DEVICES_sm_90 H100)

set(SC_CCCL_WHY "")
if(NOT SC_NVCC_EXECUTABLE)
    set(SC_CCCL_WHY "${SC_NVCC_WHY}")
elseif(SC_SUITE_PRELOAD_WHY)
    set(SC_CCCL_WHY "${SC_SUITE_PRELOAD_WHY}")
endif()

foreach(prog ${SC_CCCL_PROGRAMS})
    foreach(arch ${SC_CCCL_ARCHS})
        set(out ${SC_CCCL_OUT}/${prog}_${arch})
        if(NOT SC_CCCL_WHY)
            add_custom_command(OUTPUT ${out}
                COMMAND ${CMAKE_COMMAND} -E make_directory ${SC_CCCL_OUT}
                COMMAND ${SC_NVCC_EXECUTABLE} -cudart shared ${SC_CCCL_FLAGS_${arch}}
                        -I${SC_CCCL_DIR} -o ${out} ${SC_CCCL_DIR}/${prog}.cu
                DEPENDS ${SC_CCCL_DIR}/${prog}.cu ${SC_CCCL_DIR}/graph_check.h
                COMMENT "nvcc ${prog}.cu ${SC_CCCL_FLAGS_${arch}}" VERBATIM)
            add_custom_target(cccl_${prog}_${arch} ALL DEPENDS ${out})
        endif()
        foreach(dev ${SC_CCCL_DEVICES_${arch}})
            set(test cudart_cccl_${prog}_${arch}_on_${dev})
            if(SC_CCCL_WHY)
                sc_add_command_test(${test}
                    COMMAND sh -c "echo \"$1\" && exit 77" sh "${SC_CCCL_WHY}"
                    SKIP_RETURN_CODE 77)
                continue()
            endif()
            sc_add_command_test(${test} COMMAND ${out} TIMEOUT 120)
            set(env "STREAMCAP_SOCKET=${CMAKE_BINARY_DIR}/tests/no-daemon.sock"
                    "LD_LIBRARY_PATH=${CMAKE_BINARY_DIR}/lib/streamcap/cudart")
            if(NOT dev STREQUAL "default")
                list(APPEND env "STREAMCAP_DEVICE=${dev}")
            endif()
            if(SC_SUITE_PRELOAD)
                list(APPEND env "LD_PRELOAD=${SC_SUITE_PRELOAD}")
            endif()
            set_tests_properties(${test} PROPERTIES ENVIRONMENT "${env}")
        endforeach()
    endforeach()
endforeach()
