# The end-to-end scenario suite of the CUDA runtime stand-in: each program
# of tests/cudart/programs, as CUDA C++ built with nvcc (when there is one)
# and as its plain C twin built against the stand-in, run under
# `streamcap run` against a real streamcapd by run_suite, which checks
# every stored graph against programs/NAME.expect.json.  One ctest per
# scenario and variant: cudart_suite_NAME_c, cudart_suite_NAME_cu (skipped,
# saying why, without nvcc).
include(${CMAKE_CURRENT_LIST_DIR}/nvcc.cmake)
sc_find_nvcc(SC_NVCC_EXECUTABLE SC_NVCC_WHY)
if(SC_NVCC_EXECUTABLE)
    message(STATUS "CUDA scenario suite: ${SC_NVCC_EXECUTABLE}")
else()
    message(STATUS "CUDA scenario suite: .cu tests skip (${SC_NVCC_WHY})")
endif()

include(${CMAKE_CURRENT_LIST_DIR}/sanitizer.cmake)

sc_sanitizer_preload(SC_SUITE_PRELOAD SC_SUITE_PRELOAD_WHY)
if(SC_SUITE_PRELOAD)
    message(STATUS "CUDA scenario suite: nvcc programs run with LD_PRELOAD=${SC_SUITE_PRELOAD}")
elseif(SC_SUITE_PRELOAD_WHY)
    message(WARNING "CUDA scenario suite: ${SC_SUITE_PRELOAD_WHY}; the .cu tests skip, "
                    "since an nvcc program cannot load the sanitized stand-in without it")
endif()

set(SC_SUITE_DIR ${CMAKE_CURRENT_LIST_DIR}/programs)
set(SC_SUITE_OUT ${CMAKE_BINARY_DIR}/tests/cudart)
set(SC_SUITE_SCENARIOS
    fork_join event_rerecord empty_fork forgotten_join malloc_modes wrong_thread
    per_thread create_destroy mem_async by_hand capture_edit ns_template graph_mem arrays
    child_graph conditional child_capture)
# nvcc flags a scenario needs besides -cudart shared.
set(SC_SUITE_NVCC_FLAGS_per_thread --default-stream per-thread)
# Sources a scenario's .cu includes besides prog.h.
set(SC_SUITE_CU_DEPENDS_graph_mem ${SC_SUITE_DIR}/graph_mem.c)
set(SC_SUITE_CU_DEPENDS_arrays ${SC_SUITE_DIR}/arrays.c)
set(SC_SUITE_CU_DEPENDS_child_graph ${SC_SUITE_DIR}/child_graph.c)
set(SC_SUITE_CU_DEPENDS_conditional ${SC_SUITE_DIR}/conditional.c)
set(SC_SUITE_CU_DEPENDS_child_capture ${SC_SUITE_DIR}/child_capture.c)

# The harness, driven per scenario below (it is no test of its own).
add_executable(run_suite ${CMAKE_CURRENT_LIST_DIR}/run_suite.c)
target_link_libraries(run_suite PRIVATE sc_it_harness sc_ct_run Threads::Threads
                      PkgConfig::CMOCKA)
target_compile_definitions(run_suite PRIVATE SC_TEST_DATA_DIR="${SC_TEST_DATA_DIR}"
                           SC_BIN_DIR="${CMAKE_RUNTIME_OUTPUT_DIRECTORY}")
set_target_properties(run_suite PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/tests)
add_dependencies(run_suite streamcapd streamcap sc_cudart)

foreach(name ${SC_SUITE_SCENARIOS})
    set(expect ${SC_SUITE_DIR}/${name}.expect.json)
    add_executable(suite_${name}_c ${SC_SUITE_DIR}/${name}.c)
    target_include_directories(suite_${name}_c PRIVATE ${SC_SUITE_DIR}
                               ${PROJECT_SOURCE_DIR}/cudart)
    target_link_libraries(suite_${name}_c PRIVATE sc_cudart Threads::Threads)
    set_target_properties(suite_${name}_c PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${SC_SUITE_OUT})
    sc_add_command_test(cudart_suite_${name}_c
        COMMAND run_suite ${expect} $<TARGET_FILE:suite_${name}_c> TIMEOUT 120)

    if(SC_NVCC_EXECUTABLE AND SC_SUITE_PRELOAD_WHY)
        sc_add_command_test(cudart_suite_${name}_cu
            COMMAND run_suite ${expect} --skip "${SC_SUITE_PRELOAD_WHY}" SKIP_RETURN_CODE 77)
    elseif(SC_NVCC_EXECUTABLE)
        set(out ${SC_SUITE_OUT}/suite_${name}_cu)
        add_custom_command(OUTPUT ${out}
            COMMAND ${SC_NVCC_EXECUTABLE} -cudart shared ${SC_SUITE_NVCC_FLAGS_${name}}
                    -I${SC_SUITE_DIR} -o ${out} ${SC_SUITE_DIR}/${name}.cu
            DEPENDS ${SC_SUITE_DIR}/${name}.cu ${SC_SUITE_DIR}/prog.h
                    ${SC_SUITE_CU_DEPENDS_${name}}
            COMMENT "nvcc ${name}.cu" VERBATIM)
        add_custom_target(suite_${name}_cu ALL DEPENDS ${out})
        sc_add_command_test(cudart_suite_${name}_cu COMMAND run_suite ${expect} ${out}
                            TIMEOUT 120)
        if(SC_SUITE_PRELOAD)
            set_tests_properties(cudart_suite_${name}_cu PROPERTIES
                                 ENVIRONMENT "LD_PRELOAD=${SC_SUITE_PRELOAD}")
        endif()
    else()
        sc_add_command_test(cudart_suite_${name}_cu
            COMMAND run_suite ${expect} --skip "${SC_NVCC_WHY}" SKIP_RETURN_CODE 77)
    endif()
endforeach()

# The detection itself: -DSC_NVCC=OFF, or no nvcc on PATH nor in the
# hints (the user's machine), gives a reason and the .cu tests skip.
sc_add_command_test(cudart_suite_nvcc_off
    COMMAND ${CMAKE_COMMAND} -DSC_NVCC=OFF -DWANT=missing -P ${CMAKE_CURRENT_LIST_DIR}/check_nvcc.cmake)
sc_add_command_test(cudart_suite_nvcc_not_on_path
    COMMAND ${CMAKE_COMMAND} -E env PATH=${SC_SUITE_OUT}/no-such-dir
            ${CMAKE_COMMAND} -DSC_NVCC_HINTS=${SC_SUITE_OUT}/no-such-dir -DWANT=missing
            -P ${CMAKE_CURRENT_LIST_DIR}/check_nvcc.cmake)
sc_add_command_test(cudart_suite_skip_says_why
    COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/skip_says_why.sh $<TARGET_FILE:run_suite>)

# The sanitizer runtime detection: the compiler's runtimes in a sanitized
# build; a compiler without them (here cmake itself stands in for one)
# gives a reason and no preload; an unsanitized build, neither.
set(SC_PRELOAD_ARGS -DCMAKE_C_COMPILER_ID=${CMAKE_C_COMPILER_ID}
    -DCMAKE_SYSTEM_PROCESSOR=${CMAKE_SYSTEM_PROCESSOR})
set(SC_PRELOAD_CHECK ${CMAKE_CURRENT_LIST_DIR}/check_preload.cmake)
if(SC_SANITIZE)
    sc_add_command_test(cudart_suite_preload_found
        COMMAND ${CMAKE_COMMAND} -DSC_SANITIZE=ON -DCMAKE_C_COMPILER=${CMAKE_C_COMPILER}
                ${SC_PRELOAD_ARGS} -DWANT=found -P ${SC_PRELOAD_CHECK})
endif()
sc_add_command_test(cudart_suite_preload_missing
    COMMAND ${CMAKE_COMMAND} -DSC_SANITIZE=ON -DCMAKE_C_COMPILER=${CMAKE_COMMAND}
            ${SC_PRELOAD_ARGS} -DWANT=missing -P ${SC_PRELOAD_CHECK})
sc_add_command_test(cudart_suite_preload_none
    COMMAND ${CMAKE_COMMAND} -DSC_SANITIZE=OFF -DCMAKE_C_COMPILER=${CMAKE_C_COMPILER}
            ${SC_PRELOAD_ARGS} -DWANT=none -P ${SC_PRELOAD_CHECK})
